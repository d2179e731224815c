#include "runtime/cuda/cuda_pe_engine_state.hpp"

#include <cuda_runtime.h>

#include <cstring>
#include <span>
#include <stdexcept>

#include "runtime/bootstrap.hpp"
#include "runtime/cuda/cuda_kernels.hpp"

namespace xover::runtime {
namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess)
    throw RuntimeError("cuda: PE group's engine: " + what + ": " + cudaGetErrorString(e));
}

std::size_t rings_bytes(std::uint32_t pes) {
  return pes * ring_bytes(kPeRingEntries);
}

/// The copy flavour's sink: the bytes by cudaMemcpyAsync (device to
/// device), then a one-thread kernel adding 1 to the target's signal word,
/// on the PE's own stream, so that the add follows the bytes.
class CopyEngineSink final : public ProxySink {
 public:
  CopyEngineSink(EngineTargets targets, std::uint32_t me, cudaStream_t stream)
      : targets_(targets), me_(me), stream_(stream) {}

  bool post(const WorkRequest& r, std::uint64_t) override {
    cudaError_t e = cudaMemcpyAsync(targets_.heap + r.pe * targets_.slice + r.offset,
                                    targets_.heap + me_ * targets_.slice + r.source, r.size,
                                    cudaMemcpyDeviceToDevice, stream_);
    if (e == cudaSuccess)
      e = launch_signal_add(engine_signal_word(targets_, r.pe, r.signal), 1, stream_);
    if (e != cudaSuccess)
      problem_ = std::string("cudaMemcpyAsync or the signal add: ") + cudaGetErrorString(e);
    return e == cudaSuccess;
  }
  void flush() override {}
  std::string problem() const override { return problem_; }

 private:
  EngineTargets targets_;
  std::uint32_t me_ = 0;
  cudaStream_t stream_ = nullptr;
  std::string problem_;
};

}  // namespace

void PeEngineState::allocate(std::uint32_t pes, std::byte* heap, const HeapLayout& layout, int device,
                             cudaStream_t stream) {
  pes_ = pes;
  device_ = device;
  heap_ = heap;
  posters_ = pes - 1;
  layout_ = layout;
  // The signal add's kernel loaded now: loaded at its first launch, it
  // would wait for the spinning PEs it is meant to release.
  check(preload_kernels(), "loading the signal add");
  check(cudaMalloc(&queues_, engine_set_bytes(pes, kPeQueueEntries)), "cudaMalloc (queues)");
  check(cudaMalloc(&cursors_, 2 * pes * sizeof *cursors_), "cudaMalloc (cursors)");
  check(cudaMalloc(&tally_, engine_tally::kWords * sizeof *tally_), "cudaMalloc (tally)");
  check(cudaMalloc(&finished_, sizeof *finished_), "cudaMalloc (finished)");
  check(cudaMalloc(&ring_counters_, 2 * pes * sizeof *ring_counters_), "cudaMalloc (ring counters)");
  host_bytes_ = rings_bytes(pes) + engine_set_bytes(pes, kPeQueueEntries);
  check(cudaHostAlloc(reinterpret_cast<void**>(&host_), host_bytes_, cudaHostAllocMapped),
        "cudaHostAlloc (rings and proxy queues)");
  check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&host_on_device_), host_, 0), "cudaHostGetDevicePointer");
  for (std::uint32_t pe = 0; pe < pes; ++pe) {
    copy_streams_.push_back(nullptr);
    check(cudaStreamCreateWithFlags(&copy_streams_.back(), cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    proxies_.push_back(std::make_unique<ProxyThread>());
  }
  zero(stream);
}

void PeEngineState::release() {
  proxies_.clear();
  forwarders_.clear();
  queue_sinks_.clear();
  copy_sinks_.clear();
  rings_.clear();
  for (cudaStream_t s : copy_streams_)
    if (s)
      cudaStreamDestroy(s);
  copy_streams_.clear();
  for (void* p : {static_cast<void*>(queues_), static_cast<void*>(cursors_), static_cast<void*>(tally_),
                  static_cast<void*>(finished_), static_cast<void*>(ring_counters_)})
    if (p)
      cudaFree(p);
  if (host_)
    cudaFreeHost(host_);
  queues_ = tally_ = ring_counters_ = nullptr;
  cursors_ = nullptr;
  finished_ = nullptr;
  host_ = host_on_device_ = nullptr;
}

void PeEngineState::set_posting(std::uint32_t posters, std::uint32_t batch) {
  if (posters < 1 || posters + 1 > pes_)
    throw std::invalid_argument("PE group: " + std::to_string(posters) + " posters a PE, not 1 to " +
                                std::to_string(pes_ - 1));
  if (batch < 1 || batch > kPeQueueEntries)
    throw std::invalid_argument("PE group: a doorbell batch of " + std::to_string(batch) + ", not 1 to " +
                                std::to_string(kPeQueueEntries) + " (the queue's entries)");
  posters_ = posters;
  batch_ = batch;
}

void PeEngineState::zero(cudaStream_t stream) {
  check(cudaMemsetAsync(queues_, 0, engine_set_bytes(pes_, kPeQueueEntries), stream), "cudaMemsetAsync (queues)");
  check(cudaMemsetAsync(cursors_, 0, 2 * pes_ * sizeof *cursors_, stream), "cudaMemsetAsync (cursors)");
  check(cudaMemsetAsync(ring_counters_, 0, 2 * pes_ * sizeof *ring_counters_, stream),
        "cudaMemsetAsync (ring counters)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (engine state)");
  rings_.clear();
  forwarders_.clear();
  queue_sinks_.clear();
  copy_sinks_.clear();
  std::byte* queues = host_ + rings_bytes(pes_);
  std::memset(queues, 0, engine_set_bytes(pes_, kPeQueueEntries));
  const EngineSet set{reinterpret_cast<std::uint64_t*>(queues), pes_, kPeQueueEntries};
  const CommandLimits limits{pes_, layout_.signals, 0, layout_.signals};
  const EngineTargets targets{heap_, layout_.slice, layout_.signals};
  for (std::uint32_t pe = 0; pe < pes_; ++pe) {
    std::byte* ring = host_ + pe * ring_bytes(kPeRingEntries);
    rings_.push_back(CommandRing::create(std::span<std::byte>(ring, ring_bytes(kPeRingEntries)), kPeRingEntries));
    forwarders_.push_back(std::make_unique<ProxyForwarder>(rings_.back(), limits, pe));
    queue_sinks_.push_back(std::make_unique<EngineQueueSink>(engine_queue_of(set, pe)));
    copy_sinks_.push_back(std::make_unique<CopyEngineSink>(targets, pe, copy_streams_[pe]));
  }
}

void PeEngineState::reset(cudaStream_t stream) {
  for (cudaStream_t s : copy_streams_)
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize (a proxy's copies)");
  zero(stream);
}

void PeEngineState::begin(PeFlavour flavour, Seconds timeout, cudaStream_t stream) {
  check(cudaMemsetAsync(tally_, 0, engine_tally::kWords * sizeof *tally_, stream), "cudaMemsetAsync (tally)");
  check(cudaMemsetAsync(finished_, 0, sizeof *finished_, stream), "cudaMemsetAsync (finished)");
  if (flavour != PeFlavour::Proxy && flavour != PeFlavour::Copy)
    return;
  for (std::uint32_t pe = 0; pe < pes_; ++pe) {
    ProxySink* sink = flavour == PeFlavour::Copy ? copy_sinks_[pe].get() : queue_sinks_[pe].get();
    proxies_[pe]->start([f = forwarders_[pe].get(), sink, count = pes_ - 1, timeout, device = device_] {
      // The runtime's current device is the thread's own.
      if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
        return std::string("cudaSetDevice in the proxy thread: ") + cudaGetErrorString(e);
      return f->serve(*sink, count, timeout);
    });
  }
}

PeEngineArgs PeEngineState::args(PeFlavour flavour, const PeGroupArgs& group) const {
  PeEngineArgs e;
  e.group = group;
  e.proxy = flavour == PeFlavour::Proxy || flavour == PeFlavour::Copy;
  e.copy = flavour == PeFlavour::Copy;
  e.queues = e.proxy ? EngineSet{reinterpret_cast<std::uint64_t*>(host_on_device_ + rings_bytes(pes_)), pes_,
                                 kPeQueueEntries}
                     : EngineSet{queues_, pes_, kPeQueueEntries};
  e.cursors = cursors_ + (e.proxy ? pes_ : 0);
  e.tally = tally_;
  e.finished = finished_;
  e.posters = posters_;
  e.batch = batch_;
  e.rings = host_on_device_;
  e.ring_entries = kPeRingEntries;
  e.ring_counters = ring_counters_;
  return e;
}

std::string PeEngineState::end(PeFlavour flavour, cudaStream_t stream) {
  std::string problem;
  const auto add = [&](const std::string& p) { problem += (problem.empty() ? "" : "; ") + p; };
  if (flavour == PeFlavour::Proxy || flavour == PeFlavour::Copy)
    for (std::uint32_t pe = 0; pe < pes_; ++pe) {
      if (const std::string p = proxies_[pe]->wait(); !p.empty())
        add(p);
      if (forwarders_[pe]->refused() > 0)
        add("proxy of PE " + std::to_string(pe) + " refused " + std::to_string(forwarders_[pe]->refused()) +
            " commands, the first at " + forwarders_[pe]->first_error());
      check(cudaStreamSynchronize(copy_streams_[pe]), "cudaStreamSynchronize (a proxy's copies)");
    }
  if (flavour == PeFlavour::Copy)
    return problem;
  std::uint64_t tally[engine_tally::kWords] = {};
  check(cudaMemcpyAsync(tally, tally_, sizeof tally, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync (tally)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (tally)");
  const std::uint64_t want = std::uint64_t{pes_} * (pes_ - 1);
  if (tally[engine_tally::kTaken] != want || tally[engine_tally::kRefused] != 0)
    add("the engine took " + std::to_string(tally[engine_tally::kTaken]) + " of " + std::to_string(want) +
        " requests and refused " + std::to_string(tally[engine_tally::kRefused]) +
        (tally[engine_tally::kRefused] > 0
             ? std::string(" (the first: ") +
                   work_error_name(static_cast<WorkError>(tally[engine_tally::kFirstError])) + ")"
             : std::string()));
  return problem;
}

}  // namespace xover::runtime
