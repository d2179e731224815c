#include "runtime/cuda/cuda_memory.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "base/clock.hpp"
#include "runtime/bootstrap.hpp"

namespace xover::runtime {
namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess)
    throw RuntimeError("cuda: " + what + ": " + cudaGetErrorString(e));
}

/// A driver function, through the runtime's entry points: the binary links
/// no libcuda, so that it starts where no driver is installed.
template <typename Fn>
Fn driver_function(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found), name);
  if (!fn || found != cudaDriverEntryPointSuccess)
    throw RuntimeError(std::string("cuda: the driver has no ") + name);
  return reinterpret_cast<Fn>(fn);
}

using GetAddressRange = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);
using GetPointerAttribute = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);

}  // namespace

CudaMemory::CudaMemory(int device, std::vector<bool> same_node)
    : device_(device), same_node_(std::move(same_node)),
      opened_([this](const IpcBuffer& buffer) { return map(buffer); },
              [](const std::byte* mapped) { cudaIpcCloseMemHandle(const_cast<std::byte*>(mapped)); }) {
  check(cudaSetDevice(device_), "cudaSetDevice(" + std::to_string(device_) + ")");
  // The copies' own stream, non-blocking: a copy on the legacy default
  // stream would wait for every kernel of the context (a spinning one
  // included), and they for it.
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  stream_ = stream;
  get_address_range_ = reinterpret_cast<void*>(driver_function<GetAddressRange>("cuMemGetAddressRange"));
  get_pointer_attribute_ = reinterpret_cast<void*>(driver_function<GetPointerAttribute>("cuPointerGetAttribute"));
  measure();
}

CudaMemory::~CudaMemory() {
  // Copies still in flight read or write the slots: they end first.
  cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  for (const InFlight& copy : in_flight_)
    cudaEventDestroy(static_cast<cudaEvent_t>(copy.event));
  for (void* event : spare_events_)
    cudaEventDestroy(static_cast<cudaEvent_t>(event));
  drop_staging();
  opened_.clear();
  if (staging_)
    cudaFreeHost(staging_);
  cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

std::byte* CudaMemory::allocate_staging(Bytes n) {
  void* p = nullptr;
  if (const cudaError_t e = cudaMallocHost(&p, n); e != cudaSuccess) {
    failed("cudaMallocHost (a staging slot of " + std::to_string(n) + " bytes): " + cudaGetErrorString(e));
    return nullptr;
  }
  return static_cast<std::byte*>(p);
}

void CudaMemory::release_staging(std::byte* slot, Bytes) {
  cudaFreeHost(slot);
}

Status CudaMemory::copy_async(CopyKind kind, std::byte* to, const std::byte* from, Bytes n, Completion done) {
  if (n == 0 || !to || !from)
    return Status::Ok;
  const auto stream = static_cast<cudaStream_t>(stream_);
  const cudaMemcpyKind direction = kind == CopyKind::ToHost ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
  if (const cudaError_t e = cudaMemcpyAsync(to, from, n, direction, stream); e != cudaSuccess) {
    failed(std::string("cudaMemcpyAsync (started): ") + cudaGetErrorString(e));
    return Status::Error;
  }
  cudaEvent_t event = nullptr;
  if (!spare_events_.empty()) {
    event = static_cast<cudaEvent_t>(spare_events_.back());
    spare_events_.pop_back();
  } else if (const cudaError_t e = cudaEventCreateWithFlags(&event, cudaEventDisableTiming); e != cudaSuccess) {
    failed(std::string("cudaEventCreateWithFlags: ") + cudaGetErrorString(e));
    return Status::Error;
  }
  if (const cudaError_t e = cudaEventRecord(event, stream); e != cudaSuccess) {
    spare_events_.push_back(event);
    failed(std::string("cudaEventRecord: ") + cudaGetErrorString(e));
    return Status::Error;
  }
  in_flight_.push_back(InFlight{event, std::move(done)});
  return Status::InProgress;
}

std::size_t CudaMemory::progress() {
  std::size_t done = 0;
  while (done < in_flight_.size()) {
    const cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(in_flight_[done].event));
    if (e == cudaErrorNotReady)
      break;
    if (e != cudaSuccess)
      failed(std::string("cudaEventQuery: ") + cudaGetErrorString(e));
    spare_events_.push_back(in_flight_[done].event);
    // The completion may start another copy: it goes behind, in in_flight_.
    Completion call = std::move(in_flight_[done].done);
    ++done;
    call(e == cudaSuccess ? Status::Ok : Status::Error);
  }
  in_flight_.erase(in_flight_.begin(), in_flight_.begin() + static_cast<std::ptrdiff_t>(done));
  return done;
}

std::byte* CudaMemory::allocate(Bytes n) {
  void* p = nullptr;
  if (const cudaError_t e = cudaMalloc(&p, std::max<Bytes>(n, 1)); e != cudaSuccess) {
    failed(std::string("cudaMalloc: ") + cudaGetErrorString(e));
    return nullptr;
  }
  return static_cast<std::byte*>(p);
}

void CudaMemory::release(std::byte* p) {
  CUdeviceptr range_base = 0;
  std::size_t range_size = 0;
  if (reinterpret_cast<GetAddressRange>(get_address_range_)(&range_base, &range_size,
                                                              reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS)
    exported_.erase(reinterpret_cast<const std::byte*>(range_base));
  cudaFree(p);
}

bool CudaMemory::copy(void* to, const void* from, Bytes n, int kind, const char* call) {
  if (n == 0 || !to || !from)
    return true;
  const auto stream = static_cast<cudaStream_t>(stream_);
  if (const cudaError_t e = cudaMemcpyAsync(to, from, n, static_cast<cudaMemcpyKind>(kind), stream); e != cudaSuccess)
    return failed(std::string(call) + ": " + cudaGetErrorString(e));
  // Waited for: the protocols take a copy as done when it returns.
  if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess)
    return failed(std::string(call) + ": cudaStreamSynchronize: " + cudaGetErrorString(e));
  return true;
}

bool CudaMemory::to_host(std::byte* host, const std::byte* device, Bytes n) {
  return copy(host, device, n, cudaMemcpyDeviceToHost, "cudaMemcpyAsync (device to host)");
}

bool CudaMemory::to_device(std::byte* device, const std::byte* host, Bytes n) {
  return copy(device, host, n, cudaMemcpyHostToDevice, "cudaMemcpyAsync (host to device)");
}

bool CudaMemory::copy_device(std::byte* to, const std::byte* from, Bytes n) {
  return copy(to, from, n, cudaMemcpyDefault, "cudaMemcpyAsync (device to device)");
}

// The handle is the driver's allocation's, which may be larger than the
// buffer and begin before it (the driver may place several small ones in
// one): UCX's cuda_ipc asks the driver for the range and the allocation's
// unique id as here.
bool CudaMemory::ipc_export(const std::byte* p, IpcBuffer& out) {
  if (!find(p))
    return failed("not a buffer of this rank's device memory");
  CUdeviceptr range_base = 0;
  std::size_t range_size = 0;
  unsigned long long id = 0;
  const auto address = reinterpret_cast<CUdeviceptr>(p);
  if (reinterpret_cast<GetAddressRange>(get_address_range_)(&range_base, &range_size, address) != CUDA_SUCCESS ||
      reinterpret_cast<GetPointerAttribute>(get_pointer_attribute_)(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, address) !=
          CUDA_SUCCESS)
    return failed("the driver does not know the allocation of this buffer");
  const auto* base = reinterpret_cast<const std::byte*>(range_base);
  auto at = exported_.find(base);
  if (at == exported_.end()) {
    cudaIpcMemHandle_t h;
    if (const cudaError_t e = cudaIpcGetMemHandle(&h, const_cast<std::byte*>(base)); e != cudaSuccess)
      return failed(std::string("cudaIpcGetMemHandle: ") + cudaGetErrorString(e));
    static_assert(sizeof h == IpcBuffer::kHandleBytes);
    IpcBuffer::Handle handle;
    std::memcpy(handle.data(), &h, sizeof h);
    at = exported_.emplace(base, handle).first;
  }
  out.handle = at->second;
  out.id = id;
  out.base = range_base;
  out.size = range_size;
  out.offset = static_cast<Bytes>(p - base);
  return true;
}

const std::byte* CudaMemory::map(const IpcBuffer& buffer) {
  cudaIpcMemHandle_t h;
  std::memcpy(&h, buffer.handle.data(), sizeof h);
  void* mapped = nullptr;
  const cudaError_t e = cudaIpcOpenMemHandle(&mapped, h, cudaIpcMemLazyEnablePeerAccess);
  if (e == cudaSuccess)
    return static_cast<const std::byte*>(mapped);
  if (e == cudaErrorAlreadyMapped)
    cudaGetLastError();  // not sticky: clears it
  failed(std::string("cudaIpcOpenMemHandle: ") + cudaGetErrorString(e));
  return nullptr;
}

// Mappings are kept, and closed when the peer has freed the allocation,
// by IpcMappings (cuda_ipc_cache.hpp), as UCX's cuda_ipc keeps them.
const std::byte* CudaMemory::ipc_open(Rank peer, const IpcBuffer& buffer) {
  if (!ipc_reachable(peer)) {
    failed("rank " + std::to_string(peer) + " is not on this node");
    return nullptr;
  }
  return opened_.map(peer, buffer);
}

std::byte* CudaMemory::staging(Bytes n) {
  if (n <= staging_size_)
    return staging_;
  if (staging_)
    cudaFreeHost(staging_);
  staging_ = nullptr;
  staging_size_ = 0;
  void* p = nullptr;
  check(cudaMallocHost(&p, n), "cudaMallocHost (staging, " + std::to_string(n) + " bytes)");
  staging_ = static_cast<std::byte*>(p);
  staging_size_ = n;
  return staging_;
}

// The figures the memory-type protocols price with: one staged copy of 8
// bytes gives stage_o, one of 4 MiB the bandwidth above it (both through
// the pinned staging buffer); the same two copies from pageable host
// memory into the device give pageable_o and pageable_bw (the driver stages
// those through pinned buffers of its own, and the call returns once the
// source may be reused); device copies
// of 8 bytes and 32 MiB within this GPU give ipc_bw (a peer's buffer on
// another GPU of the node goes over NVLink or PCIe instead, slower).
// The least of seven, after one of each to warm up: the ranks of a node
// measure at once, and a copy that waited for another's is no figure of
// the copy.
void CudaMemory::measure() {
  constexpr Bytes kSmall = 8;
  constexpr Bytes kLarge = Bytes{4} << 20;
  constexpr Bytes kDevice = Bytes{32} << 20;
  std::byte* device = allocate(2 * kDevice);
  if (!device)
    throw RuntimeError("cuda: " + why());
  std::byte* host = staging(kLarge);
  const auto least_time = [](auto&& op) {
    std::array<double, 7> t{};
    op();
    for (double& one : t) {
      const double start = clock_now();
      op();
      one = clock_now() - start;
    }
    return *std::min_element(t.begin(), t.end());
  };
  bool ok = true;
  const double small = least_time([&] {
    ok = to_host(host, device, kSmall) && to_device(device, host, kSmall) && ok;
  }) / 2;
  const double large = least_time([&] {
    ok = to_host(host, device, kLarge) && to_device(device, host, kLarge) && ok;
  }) / 2;
  std::vector<std::byte> pageable(kLarge);
  const double pageable_small = least_time([&] { ok = to_device(device, pageable.data(), kSmall) && ok; });
  const double pageable_large = least_time([&] { ok = to_device(device, pageable.data(), kLarge) && ok; });
  const double d2d_small = least_time([&] { ok = copy_device(device + kDevice, device, kSmall) && ok; });
  const double d2d_large = least_time([&] { ok = copy_device(device + kDevice, device, kDevice) && ok; });
  release(device);
  if (!ok)
    throw RuntimeError("cuda: measuring the copies: " + why());
  if (!(large > small) || !(d2d_large > d2d_small) || !(pageable_large > pageable_small))
    throw RuntimeError("cuda: measuring the copies: a large copy took no longer than a small one");
  figures_.stage_o = small;
  figures_.stage_bw = static_cast<double>(kLarge - kSmall) / (large - small);
  figures_.ipc_bw = static_cast<double>(kDevice - kSmall) / (d2d_large - d2d_small);
  figures_.pageable_o = pageable_small;
  figures_.pageable_bw = static_cast<double>(kLarge - kSmall) / (pageable_large - pageable_small);
}

std::unique_ptr<DeviceMemory> make_cuda_memory(Rank local_rank, std::vector<bool> same_node) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count <= 0)
    throw RuntimeError("cuda: no CUDA device: cudaGetDeviceCount: 0 devices");
  return std::make_unique<CudaMemory>(static_cast<int>(local_rank % static_cast<Rank>(count)), std::move(same_node));
}

}  // namespace xover::runtime
