#include "runtime/cuda/cuda_alltoall.hpp"

#include <cuda_runtime.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "base/clock.hpp"
#include "protocols/coll/cmd_ring.hpp"
#include "protocols/core/payload_pattern.hpp"
#include "runtime/bootstrap.hpp"
#include "runtime/cuda/cuda_card.hpp"
#include "runtime/cuda/cuda_clock.hpp"
#include "runtime/cuda/cuda_kernels.hpp"
#include "runtime/cuda/cuda_proxy_thread.hpp"
#include "runtime/cuda/cuda_sharing.hpp"
#include "runtime/cuda/cuda_transport.hpp"

namespace xover::runtime {
namespace {

constexpr Tag kCardTag = 1;
constexpr Tag kBarrierTag = 2;
constexpr std::uint32_t kRingEntries = AlltoallPe::kRingEntries;
/// The ring's two device words, a cache line apart: the reservation
/// counter, and the writers' copy of the proxy's published position.
constexpr std::size_t kRingCounterWords = 16;
constexpr std::size_t kCachedConsumedWord = 8;

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess)
    throw RuntimeError("cuda: " + what + ": " + cudaGetErrorString(e));
}

IpcHandle handle_of(void* device_pointer, const std::string& what) {
  cudaIpcMemHandle_t h;
  check(cudaIpcGetMemHandle(&h, device_pointer), "cudaIpcGetMemHandle (" + what + ")");
  static_assert(sizeof h == kIpcHandleBytes);
  IpcHandle out;
  std::memcpy(out.data(), &h, sizeof h);
  return out;
}

void* open_handle(const IpcHandle& handle, const std::string& what) {
  cudaIpcMemHandle_t h;
  std::memcpy(&h, handle.data(), sizeof h);
  void* mapped = nullptr;
  check(cudaIpcOpenMemHandle(&mapped, h, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle (" + what + ")");
  return mapped;
}

/// Sends a message of `tag` kind to every peer and takes one from each.
void swap_with_peers(Worker& worker, Rank me, Rank pes, Tag kind, const std::vector<std::span<const std::byte>>& mine,
                     const std::vector<std::span<std::byte>>& theirs) {
  std::vector<Request*> requests;
  for (Rank p = 0; p < pes; ++p) {
    if (p == me)
      continue;
    requests.push_back(worker.tag_recv({theirs[p].data(), theirs[p].size()}, kind | (Tag{p} << 8)));
    requests.push_back(worker.tag_send(p, {mine[p].data(), mine[p].size()}, kind | (Tag{me} << 8)));
  }
  bool ok = true;
  for (Request* r : requests) {
    worker.wait(r);
    ok = ok && r->status == Status::Ok;
    worker.release(r);
  }
  if (!ok)
    throw RuntimeError("cuda: rank " + std::to_string(me) + ": a message to or from a peer failed at set-up");
}

}  // namespace

struct CudaAlltoall::Impl {
  Rank me = 0;
  Rank pes = 0;
  Bytes max_size = 0;
  std::uint64_t seed = 0;
  int device = 0;
  int devices = 1;  ///< GPUs on the node
  std::byte* send = nullptr;
  std::byte* recv = nullptr;
  std::uint64_t* signal = nullptr;
  std::uint64_t* reserved = nullptr;  ///< the ring's counter words (kRingCounterWords)
  double sm_cycles_per_second = 0;   ///< the stamps' clock
  std::uint32_t* status = nullptr;
  std::uint64_t* stamps = nullptr;      ///< the kernels' two timer readings per put
  std::uint64_t* clock_word = nullptr;  ///< pinned: the GPU's timer as publish_timer stores it
  std::uint64_t* clock_word_dev = nullptr;
  ExchangeStamps proxy_stamps;          ///< the proxy's, per command
  ClockOffset offset;                   ///< the GPU's clock against the host's, read by prepare()
  std::byte** peer_recv_dev = nullptr;       ///< device copy of peer_recv
  std::uint64_t** peer_signal_dev = nullptr;  ///< device copy of peer_signal
  std::vector<std::byte*> peer_recv;          ///< mapped by IPC; null for this PE
  std::vector<std::uint64_t*> peer_signal;
  void* ring_host = nullptr;
  CommandRing ring;
  RingView ring_view;
  std::uint64_t next_command = 0;
  cudaStream_t stream = nullptr;
  cudaStream_t copies = nullptr;
  std::uint64_t expected = 0;
  std::uint64_t exchanges = 0;
  std::vector<std::byte> staging;
  bool mapped = false;
  std::unique_ptr<ProxyThread> proxy_thread;  ///< created at set-up, idle but for the proxy's exchanges

  void unmap() {
    if (!mapped)
      return;
    for (Rank p = 0; p < pes; ++p)
      if (p != me) {
        cudaIpcCloseMemHandle(peer_recv[p]);
        cudaIpcCloseMemHandle(peer_signal[p]);
      }
    mapped = false;
  }

  void release() {
    proxy_thread.reset();
    unmap();
    for (void* p : {static_cast<void*>(send), static_cast<void*>(recv), static_cast<void*>(signal),
                    static_cast<void*>(reserved), static_cast<void*>(status), static_cast<void*>(stamps),
                    static_cast<void*>(peer_recv_dev), static_cast<void*>(peer_signal_dev)})
      if (p)
        cudaFree(p);
    if (ring_host)
      cudaFreeHost(ring_host);
    if (clock_word)
      cudaFreeHost(clock_word);
    if (stream)
      cudaStreamDestroy(stream);
    if (copies)
      cudaStreamDestroy(copies);
    send = recv = nullptr;
    signal = reserved = stamps = clock_word = clock_word_dev = nullptr;
    status = nullptr;
    peer_recv_dev = nullptr;
    peer_signal_dev = nullptr;
    ring_host = nullptr;
    stream = copies = nullptr;
  }

  /// Picks this PE's GPU, loads the kernels, makes the streams, reads the SM clock.
  void open_device() {
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (count <= 0)
      throw RuntimeError("cuda: no CUDA device: cudaGetDeviceCount: 0 devices");
    devices = count;
    device = static_cast<int>(me % static_cast<Rank>(count));
    check(cudaSetDevice(device), "cudaSetDevice");
    check(preload_kernels(), "loading the kernels");
    // Streams that do not wait for the legacy default stream, nor it for
    // them: a kernel spinning on one never holds up another's copies. Every
    // copy and memset is asynchronous on one of them, then waited for.
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check(cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    int khz = 0;
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device), "cudaDeviceGetAttribute (clock rate)");
    sm_cycles_per_second = khz * 1e3;
  }

  /// The proxy's thread, for the whole run, on this PE's GPU.
  void start_proxy() {
    proxy_thread = std::make_unique<ProxyThread>();
    proxy_thread->start([gpu = device] {
      const cudaError_t e = cudaSetDevice(gpu);
      return e == cudaSuccess ? std::string() : std::string("cudaSetDevice: ") + cudaGetErrorString(e);
    });
    if (const std::string problem = proxy_thread->wait(); !problem.empty())
      throw RuntimeError("cuda: the proxy's thread: " + problem);
  }

  /// An empty ring and counter, after a failed exchange may have left commands in it.
  void reset_ring() {
    ring = CommandRing::create({static_cast<std::byte*>(ring_host), CommandRing::bytes_for(kRingEntries)}, kRingEntries);
    check(cudaMemsetAsync(reserved, 0, kRingCounterWords * sizeof *reserved, stream),
          "cudaMemsetAsync (ring counters)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (ring counters)");
    next_command = 0;
  }

  /// The GPU's clock against the host's (cuda_clock.hpp): publish_timer
  /// runs for 2 ms while the host takes 32 samples of it.
  ClockOffset sample_clock() {
    std::atomic_ref<std::uint64_t> word(*clock_word);
    word.store(0);
    check(launch_publish_timer(clock_word_dev, 2'000'000, stream), "the clock's kernel");
    const std::int64_t give_up = clock_now_ns() + 10'000'000'000;
    while (word.load(std::memory_order_acquire) == 0)
      if (clock_now_ns() > give_up)
        throw RuntimeError("cuda: rank " + std::to_string(me) + ": the clock's kernel did not start in 10 s");
    std::vector<ClockSample> samples(32);
    for (ClockSample& sample : samples) {
      sample.host_before = clock_now_ns();
      sample.gpu = static_cast<std::int64_t>(word.load(std::memory_order_acquire));
      sample.host_after = clock_now_ns();
    }
    check(cudaStreamSynchronize(stream), "the clock's kernel");
    return estimate_offset(samples);
  }

  /// The CPU proxy: serves `puts` commands, each a copy then a signal add on `copies`.
  std::string proxy(std::size_t puts, Bytes n, Seconds deadline) {
    const CommandLimits limits{pes, Bytes{pes} * max_size, reinterpret_cast<std::uint64_t>(send),
                               Bytes{pes - 1} * max_size};
    proxy_stamps.seen.clear();
    proxy_stamps.served.clear();
    proxy_stamps.written.clear();
    for (std::size_t served = 0; served < puts;) {
      if (!ring.ready(next_command)) {
        if (clock_now() > deadline)
          return "proxy: " + std::to_string(puts - served) + " commands never came";
        continue;
      }
      const std::int64_t seen = clock_now_ns();
      const DecodedCommand d = decode_command(ring.read(next_command), limits);
      if (!d.error.empty())
        return "proxy: a malformed command at ring position " + std::to_string(next_command) + ": " +
               std::string(d.error);
      if (d.command.size != n || d.command.pe == me)
        return "proxy: a command of " + std::to_string(d.command.size) + " bytes to PE " +
               std::to_string(d.command.pe) + " in an exchange of " + std::to_string(n) + " bytes";
      const Command& c = d.command;
      if (const cudaError_t e = cudaMemcpyAsync(peer_recv[c.pe] + c.offset, reinterpret_cast<const void*>(c.local),
                                                c.size, cudaMemcpyDeviceToDevice, copies);
          e != cudaSuccess)
        return std::string("proxy: cudaMemcpyAsync: ") + cudaGetErrorString(e);
      if (const cudaError_t e = launch_signal_add(peer_signal[c.pe], 1, copies); e != cudaSuccess)
        return std::string("proxy: the signal's kernel: ") + cudaGetErrorString(e);
      ring.publish(++next_command);
      proxy_stamps.seen.push_back(seen);
      proxy_stamps.served.push_back(clock_now_ns());
      proxy_stamps.written.push_back(c.posted_ns);
      ++served;
    }
    if (const cudaError_t e = cudaStreamSynchronize(copies); e != cudaSuccess)
      return std::string("proxy: cudaStreamSynchronize: ") + cudaGetErrorString(e);
    return "";
  }
};

CudaAlltoall::CudaAlltoall(Transport& transport, Worker& worker, Bytes max_size, std::uint64_t seed)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.me = transport.rank();
  m.pes = transport.size();
  m.max_size = max_size;
  m.seed = seed;
  if (m.pes < 2 || m.pes > kCudaAlltoallMaxPes)
    throw std::invalid_argument("cuda alltoall: " + std::to_string(m.pes) + " PEs, not 2 to " +
                                std::to_string(kCudaAlltoallMaxPes) + " (a block's threads)");
  try {
    m.open_device();
    const Bytes recv_bytes = Bytes{m.pes} * max_size;
    check(cudaMalloc(&m.send, Bytes{m.pes - 1} * max_size), "cudaMalloc (send buffer)");
    check(cudaMalloc(&m.recv, recv_bytes), "cudaMalloc (receive buffer)");
    check(cudaMalloc(&m.signal, sizeof *m.signal), "cudaMalloc (signal word)");
    check(cudaMemsetAsync(m.signal, 0, sizeof *m.signal, m.stream), "cudaMemsetAsync (signal word)");
    check(cudaMalloc(&m.reserved, kRingCounterWords * sizeof *m.reserved), "cudaMalloc (ring counters)");
    check(cudaMalloc(&m.status, sizeof *m.status), "cudaMalloc (status)");
    check(cudaMalloc(&m.stamps, 2 * (m.pes - 1) * sizeof *m.stamps), "cudaMalloc (stamps)");
    check(cudaHostAlloc(&m.clock_word, sizeof *m.clock_word, cudaHostAllocMapped), "cudaHostAlloc (clock word)");
    check(cudaHostGetDevicePointer(&m.clock_word_dev, m.clock_word, 0), "cudaHostGetDevicePointer (clock word)");
    check(cudaMalloc(&m.peer_recv_dev, m.pes * sizeof(std::byte*)), "cudaMalloc (peer buffers)");
    check(cudaMalloc(&m.peer_signal_dev, m.pes * sizeof(std::uint64_t*)), "cudaMalloc (peer signals)");
    check(cudaHostAlloc(&m.ring_host, CommandRing::bytes_for(kRingEntries), cudaHostAllocMapped),
          "cudaHostAlloc (command ring)");
    void* ring_device = nullptr;
    check(cudaHostGetDevicePointer(&ring_device, m.ring_host, 0), "cudaHostGetDevicePointer (command ring)");
    m.ring_view = {static_cast<std::uint64_t*>(ring_device), kRingEntries, m.reserved + kCachedConsumedWord};
    m.reset_ring();
    m.start_proxy();

    CudaCard card;
    card.rank = m.me;
    card.pid = static_cast<std::uint32_t>(getpid());
    card.device = static_cast<std::uint32_t>(m.device);
    card.recv_bytes = recv_bytes;
    card.recv = handle_of(m.recv, "receive buffer");
    card.signal = handle_of(m.signal, "signal word");
    const CudaCardBytes mine_bytes = encode_card(card);
    std::vector<CudaCardBytes> theirs(m.pes);
    std::vector<std::span<const std::byte>> out(m.pes, std::span<const std::byte>(mine_bytes));
    std::vector<std::span<std::byte>> in;
    for (CudaCardBytes& b : theirs)
      in.emplace_back(b);
    swap_with_peers(worker, m.me, m.pes, kCardTag, out, in);

    m.peer_recv.assign(m.pes, nullptr);
    m.peer_signal.assign(m.pes, nullptr);
    m.mapped = true;
    for (Rank p = 0; p < m.pes; ++p) {
      if (p == m.me)
        continue;
      const DecodedCard d = decode_card(theirs[p], p, recv_bytes);
      if (!d.error.empty())
        throw RuntimeError("cuda: rank " + std::to_string(m.me) + ": a bad card: " + d.error);
      const std::string whose = "rank " + std::to_string(p) + "'s ";
      m.peer_recv[p] = static_cast<std::byte*>(open_handle(d.card.recv, whose + "receive buffer"));
      m.peer_signal[p] = static_cast<std::uint64_t*>(open_handle(d.card.signal, whose + "signal word"));
    }
    check(cudaMemcpyAsync(m.peer_recv_dev, m.peer_recv.data(), m.pes * sizeof(std::byte*), cudaMemcpyHostToDevice,
                          m.stream),
          "cudaMemcpyAsync (peer buffers)");
    check(cudaMemcpyAsync(m.peer_signal_dev, m.peer_signal.data(), m.pes * sizeof(std::uint64_t*),
                          cudaMemcpyHostToDevice, m.stream),
          "cudaMemcpyAsync (peer signals)");
    check(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (set-up)");
  } catch (...) {
    m.release();
    throw;
  }
}

Rank CudaAlltoall::pes_per_gpu() const {
  const Rank gpus = static_cast<Rank>(impl_->devices);
  return (impl_->pes + gpus - 1) / gpus;
}

std::vector<std::string> CudaAlltoall::notes() const {
  return gpu_sharing_notes(impl_->pes, static_cast<Rank>(impl_->devices), mps_pipe());
}

CudaAlltoall::~CudaAlltoall() {
  impl_->release();
}

void CudaAlltoall::prepare(Bytes n) {
  Impl& m = *impl_;
  if (n > m.max_size)
    throw std::invalid_argument("cuda alltoall: " + std::to_string(n) + " bytes, more than the " +
                                std::to_string(m.max_size) + " allocated");
  ++m.exchanges;
  m.staging.resize(Bytes{m.pes - 1} * n);
  for (Rank i = 0; i + 1 < m.pes; ++i)
    fill_payload(m.staging.data() + i * n, n, m.seed, m.me, alltoall_put_seq(m.exchanges, (m.me + i + 1) % m.pes));
  check(cudaMemcpyAsync(m.send, m.staging.data(), m.staging.size(), cudaMemcpyHostToDevice, m.stream),
        "cudaMemcpyAsync (send buffer)");
  check(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (send buffer)");
  // The GPU's clock, for the deadline and the figures, read before the exchange's time starts.
  m.offset = m.sample_clock();
}

DeviceExchange CudaAlltoall::exchange(AlltoallFlavour flavour, Bytes n, Seconds timeout) {
  Impl& m = *impl_;
  const std::size_t puts = m.pes - 1;
  m.expected += puts;
  const ClockOffset offset = m.offset;
  check(cudaMemsetAsync(m.status, 0, sizeof *m.status, m.stream), "cudaMemsetAsync (status)");
  AlltoallKernelArgs args;
  args.send = m.send;
  args.peer_recv = m.peer_recv_dev;
  args.peer_signal = m.peer_signal_dev;
  args.my_signal = m.signal;
  args.me = m.me;
  args.pes = m.pes;
  args.n = n;
  args.expected = m.expected;
  args.deadline_ns = static_cast<std::uint64_t>(clock_now_ns() + offset.gpu_minus_host) +
                     static_cast<std::uint64_t>(timeout * 1e9);
  args.stamps = m.stamps;
  args.status = m.status;

  DeviceExchange out;
  const Seconds start = clock_now();
  if (flavour == AlltoallFlavour::Direct) {
    check(launch_alltoall_direct(args, m.stream), "the direct kernel");
    check(cudaStreamSynchronize(m.stream), "the direct kernel");
  } else {
    m.proxy_thread->start([&m, puts, n, deadline = start + timeout] { return m.proxy(puts, n, deadline); });
    cudaError_t e = launch_alltoall_proxy(args, m.ring_view, m.reserved, m.stream);
    if (e == cudaSuccess)
      e = launch_wait_signal(args, m.stream);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(m.stream);
    out.problem = m.proxy_thread->wait();
    check(e, "the proxy and wait kernels");
  }
  out.time = clock_now() - start;
  std::uint32_t status = 0;
  check(cudaMemcpyAsync(&status, m.status, sizeof status, cudaMemcpyDeviceToHost, m.stream),
        "cudaMemcpyAsync (status)");
  check(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (status)");
  out.complete = status == static_cast<std::uint32_t>(KernelStatus::Done) && out.problem.empty();
  if (!out.complete && flavour == AlltoallFlavour::Proxy) {
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    m.reset_ring();
  }
  if (out.complete) {
    ExchangeStamps stamps = flavour == AlltoallFlavour::Proxy ? m.proxy_stamps : ExchangeStamps{};
    stamps.sm_cycles_per_second = m.sm_cycles_per_second;
    std::vector<std::uint64_t> raw(2 * puts);
    check(cudaMemcpyAsync(raw.data(), m.stamps, raw.size() * sizeof raw[0], cudaMemcpyDeviceToHost, m.stream),
          "cudaMemcpyAsync (stamps)");
    check(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (stamps)");
    for (std::size_t i = 0; i < puts; ++i) {
      stamps.post_begin.push_back(raw[2 * i]);
      stamps.post_end.push_back(raw[2 * i + 1]);
    }
    ExchangeFigures figures = exchange_figures(stamps, offset);
    out.post = std::move(figures.post);
    out.serve = std::move(figures.serve);
    out.wake = std::move(figures.wake);
    out.clock_uncertainty = static_cast<Seconds>(offset.uncertainty) * 1e-9;
  }
  return out;
}

Findings CudaAlltoall::verify(Bytes n) {
  Impl& m = *impl_;
  Findings out;
  m.staging.resize(Bytes{m.pes} * n);
  check(cudaMemcpyAsync(m.staging.data(), m.recv, m.staging.size(), cudaMemcpyDeviceToHost, m.stream),
        "cudaMemcpyAsync (receive buffer)");
  check(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (receive buffer)");
  for (Rank from = 0; from < m.pes; ++from) {
    if (from == m.me)
      continue;
    const Bytes wrong =
        first_wrong_byte(m.staging.data() + Bytes{from} * n, n, m.seed, from, alltoall_put_seq(m.exchanges, m.me));
    if (wrong < n) {
      ++out.errors;
      out.problems.push_back("PE " + std::to_string(m.me) + ": the bytes from PE " + std::to_string(from) +
                             " are wrong from offset " + std::to_string(wrong) + " of " + std::to_string(n) + " B");
    }
  }
  std::uint64_t shows = 0;
  check(cudaMemcpyAsync(&shows, m.signal, sizeof shows, cudaMemcpyDeviceToHost, m.stream),
        "cudaMemcpyAsync (signal word)");
  check(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (verify)");
  if (shows != m.expected) {
    ++out.errors;
    out.problems.push_back("PE " + std::to_string(m.me) + ": its signal shows " + std::to_string(shows) + ", not " +
                           std::to_string(m.expected));
    m.expected = shows;
  }
  return out;
}

void CudaAlltoall::finish(Worker& worker) {
  Impl& m = *impl_;
  m.unmap();
  std::vector<std::byte> token(1);
  std::vector<std::vector<std::byte>> tokens(m.pes, std::vector<std::byte>(1));
  std::vector<std::span<const std::byte>> out(m.pes, std::span<const std::byte>(token));
  std::vector<std::span<std::byte>> in;
  for (std::vector<std::byte>& t : tokens)
    in.emplace_back(t);
  swap_with_peers(worker, m.me, m.pes, kBarrierTag, out, in);
  m.release();
}

std::unique_ptr<DeviceAlltoall> make_cuda_alltoall(Transport& transport, Worker& worker, Bytes max_size,
                                                   std::uint64_t seed) {
  return std::make_unique<CudaAlltoall>(transport, worker, max_size, seed);
}

}  // namespace xover::runtime
