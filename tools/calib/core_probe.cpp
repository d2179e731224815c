// The protocol core's own time per message (core_probe.hpp).
#include "tools/calib/core_probe.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "protocols/core/worker.hpp"
#include "protocols/workload/results.hpp"

namespace xover::calib {
namespace {

/// One message in an inbox; its vectors keep their capacity from one use
/// of the slot to the next, so that a train allocates nothing once warm.
struct Slot {
  Rank source = 0;
  AmId id = 0;
  std::vector<std::byte> header;
  std::vector<std::byte> payload;
};

/// A first-in first-out inbox of slots, grown when full.
class Inbox {
 public:
  Slot& push() {
    if (count_ == slots_.size()) {
      std::rotate(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(head_), slots_.end());
      head_ = 0;
      slots_.resize(std::max<std::size_t>(64, 2 * slots_.size()));
    }
    Slot& slot = slots_[(head_ + count_) % slots_.size()];
    ++count_;
    return slot;
  }
  bool empty() const { return count_ == 0; }
  Slot& front() { return slots_[head_]; }
  void pop() {
    head_ = (head_ + 1) % slots_.size();
    --count_;
  }

 private:
  std::vector<Slot> slots_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

/// The one lane of the loop: its figures only let selection take
/// eager/short for the probe's messages (the probe forces it).
Path loop_path() {
  LaneAttrs lane;
  lane.name = "loop";
  lane.bandwidth = 10e9;
  lane.caps = {LaneCap::AmShort, LaneCap::AmBcopy};
  Path path;
  path.from = "rank1";
  path.to = "rank0";
  path.lanes = {lane};
  return path;
}

class LoopRank final : public Transport {
 public:
  LoopRank(Rank rank, std::array<Inbox, 2>& inbox) : rank_(rank), inbox_(inbox), path_(loop_path()) {}

  Rank rank() const override { return rank_; }
  Rank size() const override { return 2; }
  const Path& path(Rank) const override { return path_; }
  void set_am_handler(AmId id, AmHandler handler) override { handlers_[id] = std::move(handler); }
  Status am_send(std::size_t, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload, AmMode,
                 Completion) override {
    if (peer > 1)
      return Status::Error;
    Slot& slot = inbox_[peer].push();
    slot.source = rank_;
    slot.id = id;
    slot.header.assign(header.begin(), header.end());
    slot.payload.assign(payload.data, payload.data + (payload.data ? payload.size : 0));
    return Status::Ok;
  }
  Status get(std::size_t, Rank, MutableBuffer, RemoteAddr, Completion) override { return Status::Error; }
  Status put(std::size_t, Rank, ConstBuffer, RemoteAddr, Completion) override { return Status::Error; }
  MemoryRegion reg(Rank, std::size_t, const std::byte* base, Bytes size) override { return {1, base, size}; }
  void dereg(const MemoryRegion&) override {}
  RemoteAddr remote_addr(const MemoryRegion& region, const std::byte* base) const override {
    return {region.key, reinterpret_cast<std::uint64_t>(base)};
  }
  void copy(std::byte* dst, const std::byte* src, Bytes n) override {
    if (dst && src && n)
      std::memcpy(dst, src, n);
  }
  void progress(Seconds) override {
    Inbox& mine = inbox_[rank_];
    if (mine.empty())
      return;
    Slot& m = mine.front();
    if (handlers_[m.id])
      handlers_[m.id](AmMessage{m.source, 0, m.header, ConstBuffer{m.payload.data(), m.payload.size()}});
    mine.pop();
  }
  Seconds now() const override { return 0; }
  bool flushed() const override { return true; }

 private:
  Rank rank_;
  std::array<Inbox, 2>& inbox_;
  Path path_;
  std::array<AmHandler, 256> handlers_;
};

void check(const std::vector<Request*>& requests, const char* side) {
  for (const Request* r : requests)
    if (r->status != Status::Ok)
      throw std::runtime_error(std::string("core probe: a ") + side + " failed over the in-process loop");
}

bool all_done(const std::vector<Request*>& requests) {
  return std::all_of(requests.begin(), requests.end(), [](const Request* r) { return r->done; });
}

}  // namespace

struct InProcessLoop::State {
  std::array<Inbox, 2> inbox;
  LoopRank rank0{0, inbox};
  LoopRank rank1{1, inbox};
};

InProcessLoop::InProcessLoop() : state_(std::make_unique<State>()) {}
InProcessLoop::~InProcessLoop() = default;

Transport& InProcessLoop::rank(Rank r) {
  if (r > 1)
    throw std::invalid_argument("in-process loop: rank " + std::to_string(r) + ", not 0 or 1");
  return r == 0 ? static_cast<Transport&>(state_->rank0) : state_->rank1;
}

CoreTimes time_core(Transport& receiver, Transport& sender, const Clock& clock, const CoreProbeOptions& options) {
  if (options.messages < 1 || options.trains < 1 || options.warmup < 0)
    throw std::invalid_argument("core probe: messages " + std::to_string(options.messages) + ", trains " +
                                std::to_string(options.trains) + ", warm-up " + std::to_string(options.warmup) +
                                ": at least 1, 1 and 0");
  SelectConfig config;
  config.forced = {"eager/short"};
  Worker in(receiver, config);
  Worker out(sender, config);
  const auto n = static_cast<std::size_t>(options.messages);
  std::vector<std::byte> source(options.size, std::byte{0x5a});
  std::vector<std::byte> sink(n * options.size);
  std::vector<Request*> sends(n), recvs(n);
  std::vector<double> send_times, recv_times;
  for (int train = 0; train < options.warmup + options.trains; ++train) {
    const Seconds t0 = clock();
    for (std::size_t i = 0; i < n; ++i)
      sends[i] = out.tag_send(0, {source.data(), options.size}, static_cast<Tag>(i));
    while (!all_done(sends))
      out.progress();
    check(sends, "send");
    for (Request* r : sends)
      out.release(r);
    const Seconds t1 = clock();
    for (std::size_t i = 0; i < n; ++i)
      recvs[i] = in.tag_recv({sink.data() + i * options.size, options.size}, static_cast<Tag>(i));
    while (!all_done(recvs))
      in.progress();
    check(recvs, "receive");
    for (Request* r : recvs)
      in.release(r);
    const Seconds t2 = clock();
    if (train >= options.warmup) {
      send_times.push_back((t1 - t0) / options.messages);
      recv_times.push_back((t2 - t1) / options.messages);
    }
  }
  return {quantile(send_times, 0.5), quantile(recv_times, 0.5), options.messages, options.trains};
}

CoreTimes probe_core(const CoreProbeOptions& options) {
  InProcessLoop loop;
  return time_core(loop.rank(0), loop.rank(1), [] { return clock_now(); }, options);
}

}  // namespace xover::calib
