#include "runtime/cuda/cuda_pe_group.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

#include "protocols/core/payload_pattern.hpp"
#include "runtime/bootstrap.hpp"
#include "runtime/cuda/cuda_kernels.hpp"
#include "runtime/cuda/cuda_pe_engine_state.hpp"
#include "runtime/cuda/cuda_pe_kernels.hpp"

namespace xover::runtime {
namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess)
    throw RuntimeError("cuda: PE group: " + what + ": " + cudaGetErrorString(e));
}

int attribute(cudaDeviceAttr which, int device, const std::string& what) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, which, device), "cudaDeviceGetAttribute (" + what + ")");
  return value;
}

}  // namespace

struct CudaPeGroup::Impl {
  std::uint32_t pes = 0;
  Bytes max_size = 0;
  std::uint64_t seed = 0;
  int device = 0;
  HeapLayout layout;
  GpuResidency residency;
  PeLaunch launch;
  double cycles_per_second = 0;
  std::byte* heap = nullptr;
  std::uint32_t* status = nullptr;         ///< device
  std::uint64_t* post_cycles = nullptr;    ///< device, a word per block
  std::uint64_t* span_ns = nullptr;        ///< device, two words per PE
  std::byte* staging = nullptr;            ///< pinned, staging_bytes
  std::size_t staging_bytes = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t started = nullptr;
  cudaEvent_t ended = nullptr;
  PeEngineState engine;         ///< the engine and proxy flavours' queues, rings and proxies
  std::uint64_t exchanges = 0;  ///< run since the signals were last zero
  std::uint64_t prepared = 0;   ///< the exchange number whose bytes the send slots hold

  void release() {
    engine.release();
    for (void* p : {static_cast<void*>(heap), static_cast<void*>(status), static_cast<void*>(post_cycles),
                    static_cast<void*>(span_ns)})
      if (p)
        cudaFree(p);
    if (staging)
      cudaFreeHost(staging);
    if (started)
      cudaEventDestroy(started);
    if (ended)
      cudaEventDestroy(ended);
    if (stream)
      cudaStreamDestroy(stream);
    heap = staging = nullptr;
    status = nullptr;
    post_cycles = span_ns = nullptr;
    started = ended = nullptr;
    stream = nullptr;
  }

  /// A pinned buffer of at least `bytes`.
  std::byte* staging_of(std::size_t bytes) {
    if (bytes > staging_bytes) {
      if (staging)
        check(cudaFreeHost(staging), "cudaFreeHost (staging)");
      staging = nullptr;
      staging_bytes = 0;
      check(cudaHostAlloc(reinterpret_cast<void**>(&staging), bytes, cudaHostAllocDefault), "cudaHostAlloc (staging)");
      staging_bytes = bytes;
    }
    return staging;
  }

  std::byte* slice(std::uint32_t pe) const { return heap + pe * layout.slice; }

  /// Every signal word zero again, after an exchange that did not complete.
  void reset_signals() {
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after a timeout)");
    for (std::uint32_t pe = 0; pe < pes; ++pe)
      check(cudaMemsetAsync(slice(pe) + layout.signals, 0, pes * sizeof(std::uint64_t), stream),
            "cudaMemsetAsync (signals)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (signals)");
    exchanges = 0;
  }

  /// The figures the kernel left, after a complete exchange.
  void read_figures(PeGroupExchange& out) {
    std::vector<std::uint64_t> spans(2 * pes);
    std::vector<std::uint64_t> cycles(launch.grid);
    check(cudaMemcpyAsync(spans.data(), span_ns, spans.size() * 8, cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (spans)");
    check(cudaMemcpyAsync(cycles.data(), post_cycles, cycles.size() * 8, cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (post cycles)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (figures)");
    std::uint64_t first = spans[0];
    std::uint64_t last = spans[1];
    for (std::uint32_t pe = 1; pe < pes; ++pe) {
      first = std::min(first, spans[2 * pe]);
      last = std::max(last, spans[2 * pe + 1]);
    }
    out.span = last > first ? static_cast<Seconds>(last - first) * 1e-9 : 0;
    for (std::uint64_t c : cycles)
      if (c != 0 && cycles_per_second > 0)
        out.post.push_back(static_cast<Seconds>(c) / cycles_per_second);
  }
};

CudaPeGroup::CudaPeGroup(std::uint32_t pes, Bytes max_size, std::uint64_t seed, std::uint32_t threads, int device)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.pes = pes;
  m.max_size = max_size;
  m.seed = seed;
  m.device = device;
  const std::uint64_t bytes = heap_bytes(pes, max_size);
  m.layout = heap_layout(pes, max_size);
  try {
    check(cudaSetDevice(device), "cudaSetDevice");
    if (attribute(cudaDevAttrCooperativeLaunch, device, "cooperative launch") == 0)
      throw RuntimeError("cuda: PE group: GPU " + std::to_string(device) +
                         " has no cooperative launch, which keeps every PE's blocks resident at once");
    check(preload_pe_group(), "loading the kernel");
    int per_sm = 0;
    check(pe_group_blocks_per_sm(threads, per_sm), "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    m.residency = {static_cast<std::uint32_t>(attribute(cudaDevAttrMultiProcessorCount, device, "SMs")),
                   static_cast<std::uint32_t>(per_sm)};
    m.launch = plan_pe_launch(pes, m.residency, threads);
    m.cycles_per_second = attribute(cudaDevAttrClockRate, device, "clock rate") * 1e3;
    check(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check(cudaEventCreate(&m.started), "cudaEventCreate");
    check(cudaEventCreate(&m.ended), "cudaEventCreate");
    check(cudaMalloc(&m.heap, bytes), "cudaMalloc (heap of " + std::to_string(bytes) + " B)");
    check(cudaMalloc(&m.status, sizeof *m.status), "cudaMalloc (status)");
    check(cudaMalloc(&m.post_cycles, m.launch.grid * sizeof *m.post_cycles), "cudaMalloc (post cycles)");
    check(cudaMalloc(&m.span_ns, 2 * pes * sizeof *m.span_ns), "cudaMalloc (spans)");
    check(cudaMemsetAsync(m.heap, 0, bytes, m.stream), "cudaMemsetAsync (heap)");
    check(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (heap)");
    m.engine.allocate(pes, m.heap, m.layout, device, m.stream);
  } catch (...) {
    m.release();
    throw;
  }
}

CudaPeGroup::~CudaPeGroup() {
  impl_->release();
}

const PeLaunch& CudaPeGroup::launch() const {
  return impl_->launch;
}

GpuResidency CudaPeGroup::residency() const {
  return impl_->residency;
}

void CudaPeGroup::set_posting(std::uint32_t posters, std::uint32_t batch) {
  impl_->engine.set_posting(posters, batch);
}

void CudaPeGroup::prepare(Bytes n) {
  Impl& m = *impl_;
  if (n > m.max_size)
    throw std::invalid_argument("PE group: " + std::to_string(n) + " bytes, more than the " +
                                std::to_string(m.max_size) + " allocated");
  m.prepared = m.exchanges + 1;
  const Bytes per_pe = Bytes{m.pes - 1} * n;
  std::byte* staging = m.staging_of(m.pes * per_pe);
  for (std::uint32_t me = 0; me < m.pes; ++me) {
    for (std::uint32_t j = 0; j + 1 < m.pes; ++j)
      fill_payload(staging + me * per_pe + j * n, n, m.seed, me,
                   alltoall_put_seq(m.prepared, put_target(me, m.pes, j)));
    check(cudaMemcpyAsync(m.slice(me) + m.layout.send, staging + me * per_pe, per_pe, cudaMemcpyHostToDevice, m.stream),
          "cudaMemcpyAsync (send slots)");
  }
  check(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (send slots)");
}

PeGroupExchange CudaPeGroup::exchange(PeFlavour flavour, DirectWidth width, Bytes n, Seconds timeout) {
  Impl& m = *impl_;
  if (n > m.max_size)
    throw std::invalid_argument("PE group: " + std::to_string(n) + " bytes, more than the " +
                                std::to_string(m.max_size) + " allocated");
  PeGroupArgs args;
  args.heap = m.heap;
  args.layout = m.layout;
  args.pes = m.pes;
  args.blocks_per_pe = m.launch.blocks_per_pe;
  args.n = n;
  args.width = width;
  args.expected = ++m.exchanges;
  args.timeout_ns = static_cast<std::uint64_t>(timeout * 1e9);
  args.status = m.status;
  args.post_cycles = m.post_cycles;
  args.span_ns = m.span_ns;
  check(cudaMemsetAsync(m.status, 0, sizeof *m.status, m.stream), "cudaMemsetAsync (status)");
  check(cudaMemsetAsync(m.post_cycles, 0, m.launch.grid * sizeof *m.post_cycles, m.stream),
        "cudaMemsetAsync (post cycles)");
  if (flavour != PeFlavour::Direct)
    m.engine.begin(flavour, timeout, m.stream);
  check(cudaEventRecord(m.started, m.stream), "cudaEventRecord");
  if (flavour == PeFlavour::Direct)
    check(launch_pe_group(args, m.launch.threads, m.stream), "cudaLaunchCooperativeKernel");
  else
    check(launch_pe_engine(m.engine.args(flavour, args), m.launch.threads, m.stream),
          "cudaLaunchCooperativeKernel (" + std::string(flavour_name(flavour)) + ")");
  check(cudaEventRecord(m.ended, m.stream), "cudaEventRecord");
  std::uint32_t status = 0;
  check(cudaMemcpyAsync(&status, m.status, sizeof status, cudaMemcpyDeviceToHost, m.stream),
        "cudaMemcpyAsync (status)");
  check(cudaStreamSynchronize(m.stream), "the PE group's kernel");
  PeGroupExchange out;
  float ms = 0;
  check(cudaEventElapsedTime(&ms, m.started, m.ended), "cudaEventElapsedTime");
  out.time = static_cast<Seconds>(ms) * 1e-3;
  out.complete = status == static_cast<std::uint32_t>(KernelStatus::Done);
  if (!out.complete)
    out.problem = "a PE's signals did not all come within " + std::to_string(timeout) + " s";
  if (flavour != PeFlavour::Direct) {
    const std::string engine_problem = m.engine.end(flavour, m.stream);
    if (!engine_problem.empty()) {
      out.complete = false;
      out.problem += (out.problem.empty() ? "" : "; ") + engine_problem;
    }
  }
  if (!out.complete) {
    m.reset_signals();
    m.engine.reset(m.stream);
    return out;
  }
  m.read_figures(out);
  return out;
}

Findings CudaPeGroup::verify(Bytes n) {
  Impl& m = *impl_;
  Findings out;
  const Bytes per_pe = Bytes{m.pes} * n;
  std::byte* staging = m.staging_of(m.pes * per_pe + m.pes * m.pes * sizeof(std::uint64_t));
  auto* signals = reinterpret_cast<std::uint64_t*>(staging + m.pes * per_pe);
  for (std::uint32_t pe = 0; pe < m.pes; ++pe) {
    check(cudaMemcpyAsync(staging + pe * per_pe, m.slice(pe) + m.layout.recv, per_pe, cudaMemcpyDeviceToHost, m.stream),
          "cudaMemcpyAsync (receive slots)");
    check(cudaMemcpyAsync(signals + pe * m.pes, m.slice(pe) + m.layout.signals, m.pes * sizeof(std::uint64_t),
                          cudaMemcpyDeviceToHost, m.stream),
          "cudaMemcpyAsync (signals)");
  }
  check(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (verify)");
  for (std::uint32_t pe = 0; pe < m.pes; ++pe)
    for (std::uint32_t from = 0; from < m.pes; ++from) {
      const std::uint64_t want = from == pe ? 0 : m.exchanges;
      if (signals[pe * m.pes + from] != want) {
        ++out.errors;
        out.problems.push_back("PE " + std::to_string(pe) + ": the signal word of PE " + std::to_string(from) +
                               " shows " + std::to_string(signals[pe * m.pes + from]) + ", not " +
                               std::to_string(want));
      }
      if (from == pe)
        continue;
      const Bytes wrong = first_wrong_byte(staging + pe * per_pe + from * n, n, m.seed, from,
                                           alltoall_put_seq(m.prepared, pe));
      if (wrong < n) {
        ++out.errors;
        out.problems.push_back("PE " + std::to_string(pe) + ": the bytes from PE " + std::to_string(from) +
                               " are wrong from offset " + std::to_string(wrong) + " of " + std::to_string(n) + " B");
      }
    }
  return out;
}

}  // namespace xover::runtime
