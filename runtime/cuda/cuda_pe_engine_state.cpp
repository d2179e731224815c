#include "runtime/cuda/cuda_pe_engine_state.hpp"

#include <cuda_runtime.h>

#include <cstring>
#include <span>
#include <stdexcept>

#include "runtime/bootstrap.hpp"

namespace xover::runtime {
namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess)
    throw RuntimeError("cuda: PE group's engine: " + what + ": " + cudaGetErrorString(e));
}

std::size_t rings_bytes(std::uint32_t pes) {
  return pes * ring_bytes(kPeRingEntries);
}

}  // namespace

void PeEngineState::allocate(std::uint32_t pes, const HeapLayout& layout, cudaStream_t stream) {
  pes_ = pes;
  posters_ = pes - 1;
  layout_ = layout;
  check(cudaMalloc(&queues_, engine_set_bytes(pes, kPeQueueEntries)), "cudaMalloc (queues)");
  check(cudaMalloc(&cursors_, 2 * pes * sizeof *cursors_), "cudaMalloc (cursors)");
  check(cudaMalloc(&tally_, engine_tally::kWords * sizeof *tally_), "cudaMalloc (tally)");
  check(cudaMalloc(&finished_, sizeof *finished_), "cudaMalloc (finished)");
  check(cudaMalloc(&ring_counters_, 2 * pes * sizeof *ring_counters_), "cudaMalloc (ring counters)");
  host_bytes_ = rings_bytes(pes) + engine_set_bytes(pes, kPeQueueEntries);
  check(cudaHostAlloc(reinterpret_cast<void**>(&host_), host_bytes_, cudaHostAllocMapped),
        "cudaHostAlloc (rings and proxy queues)");
  check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&host_on_device_), host_, 0), "cudaHostGetDevicePointer");
  for (std::uint32_t pe = 0; pe < pes; ++pe)
    proxies_.push_back(std::make_unique<ProxyThread>());
  zero(stream);
}

void PeEngineState::release() {
  proxies_.clear();
  forwarders_.clear();
  rings_.clear();
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
  std::byte* queues = host_ + rings_bytes(pes_);
  std::memset(queues, 0, engine_set_bytes(pes_, kPeQueueEntries));
  const EngineSet set{reinterpret_cast<std::uint64_t*>(queues), pes_, kPeQueueEntries};
  const CommandLimits limits{pes_, layout_.signals, 0, layout_.signals};
  for (std::uint32_t pe = 0; pe < pes_; ++pe) {
    std::byte* ring = host_ + pe * ring_bytes(kPeRingEntries);
    rings_.push_back(CommandRing::create(std::span<std::byte>(ring, ring_bytes(kPeRingEntries)), kPeRingEntries));
    forwarders_.push_back(std::make_unique<ProxyForwarder>(rings_.back(), engine_queue_of(set, pe), limits, pe));
  }
}

void PeEngineState::reset(cudaStream_t stream) {
  zero(stream);
}

void PeEngineState::begin(PeFlavour flavour, Seconds timeout, cudaStream_t stream) {
  check(cudaMemsetAsync(tally_, 0, engine_tally::kWords * sizeof *tally_, stream), "cudaMemsetAsync (tally)");
  check(cudaMemsetAsync(finished_, 0, sizeof *finished_, stream), "cudaMemsetAsync (finished)");
  if (flavour != PeFlavour::Proxy)
    return;
  for (std::uint32_t pe = 0; pe < pes_; ++pe)
    proxies_[pe]->start([f = forwarders_[pe].get(), count = pes_ - 1, timeout] { return f->serve(count, timeout); });
}

PeEngineArgs PeEngineState::args(PeFlavour flavour, const PeGroupArgs& group) const {
  PeEngineArgs e;
  e.group = group;
  e.proxy = flavour == PeFlavour::Proxy;
  e.queues =
      e.proxy ? EngineSet{reinterpret_cast<std::uint64_t*>(host_on_device_ + rings_bytes(pes_)), pes_, kPeQueueEntries}
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
  if (flavour == PeFlavour::Proxy)
    for (std::uint32_t pe = 0; pe < pes_; ++pe) {
      if (const std::string p = proxies_[pe]->wait(); !p.empty())
        add(p);
      if (forwarders_[pe]->refused() > 0)
        add("proxy of PE " + std::to_string(pe) + " refused " + std::to_string(forwarders_[pe]->refused()) +
            " commands, the first at " + forwarders_[pe]->first_error());
    }
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
