// Measuring the lanes of the verbs transport at wire-up (verbs_measure.hpp
// says what and how). Probe messages travel as SENDs of kind Probe, outside
// the credit window, and every one is signalled and reaped here, so that
// the data path starts with empty send queues. A probe from another peer
// than the current partner (one that moved on to its next round early)
// waits in a stash until its turn.
#include "runtime/verbs/verbs_measure.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>

#include "protocols/workload/results.hpp"
#include "runtime/verbs/verbs_figures.hpp"
#include "runtime/verbs/verbs_memlock.hpp"
#include "runtime/verbs/verbs_wire.hpp"

namespace xover::runtime::verbs {
namespace {

constexpr int kWarmPings = 5;
constexpr int kPings = 40;
constexpr Bytes kChunk = Bytes{64} << 10;
constexpr Seconds kBulkTime = 20e-3;
constexpr std::array<Bytes, 4> kRegSizes{Bytes{4} << 10, Bytes{64} << 10, Bytes{1} << 20, kRegProbeMax};
constexpr int kRegTries = 3;

/// A probe's payload: up to four 64-bit words (figures travel as the bits
/// of a double).
using Numbers = std::array<std::uint64_t, 4>;

std::uint64_t word(double v) {
  return std::bit_cast<std::uint64_t>(v);
}

double figure(std::uint64_t w) {
  return std::bit_cast<double>(w);
}

struct Stashed {
  std::uint32_t qpn = 0;
  std::uint32_t segment = 0;
  std::uint32_t length = 0;
};

class Prober {
 public:
  Prober(const RuntimeOptions& options, Fabric& f, Rank size)
      : options_(options), f_(f), size_(size), stash_(f.lanes.size()) {}

  /// Sends `n` numbers to the endpoint's peer; returns how long
  /// ibv_post_send took.
  Seconds send(Endpoint& ep, const Numbers& numbers, std::size_t n);
  /// Waits for the next probe from the endpoint's peer; `took` gets the
  /// time of the poll that returned it and its decoding.
  Numbers receive(Endpoint& ep, Seconds* took = nullptr);
  /// Writes `bytes` from `local` (lkey) to the peer's (addr, rkey) in
  /// kChunk pieces and waits until every one has completed.
  void write_all(Endpoint& ep, std::uint64_t local, std::uint32_t lkey, std::uint64_t addr, std::uint32_t rkey,
                 Bytes bytes);
  /// Reaps send completions of `lane`; throws on a failed one.
  void reap(std::size_t lane);
  /// Reaps until every request of the endpoint has completed.
  void drain(Endpoint& ep);
  /// Throws when a probe is still unread at the end (a peer out of step).
  void check_stash_empty() const;

 private:
  void take(Endpoint& ep, const Stashed& s, Numbers& out);
  Seconds deadline() const { return clock_now() + options_.timeout; }
  std::uint32_t index(const Endpoint& ep) const { return static_cast<std::uint32_t>(ep.lane * size_ + ep.peer); }
  [[noreturn]] void silent(const Endpoint& ep) const {
    throw RuntimeError("verbs: rank " + std::to_string(ep.peer) + " did not answer on lane " +
                       f_.lanes[ep.lane]->name() + " while the lanes were measured");
  }

  const RuntimeOptions& options_;
  Fabric& f_;
  Rank size_;
  std::vector<std::vector<Stashed>> stash_;  ///< per lane, in arrival order
};

Seconds Prober::send(Endpoint& ep, const Numbers& numbers, std::size_t n) {
  Lane& l = *f_.lanes[ep.lane];
  const Seconds limit = deadline();
  while (!ep.tracker.has_room()) {
    reap(ep.lane);
    if (clock_now() > limit)
      silent(ep);
  }
  const std::uint32_t length = static_cast<std::uint32_t>(kWireHeader + 8 * n);
  const bool inline_data = length <= ep.max_inline;
  const std::uint32_t bounce = inline_data ? kNone : l.bounce_pool().take();
  if (!inline_data && bounce == kNone)
    throw RuntimeError("verbs: lane " + l.name() + ": no bounce buffer left for a wire-up probe");
  std::array<std::byte, kWireHeader + sizeof(Numbers)> stack;
  std::byte* at = inline_data ? stack.data() : l.bounce(bounce);
  WireHeader h;
  h.kind = WireKind::Probe;
  h.encode(at);
  for (std::size_t i = 0; i < n; ++i)
    store_le(at + kWireHeader + 8 * i, numbers[i], 8);
  const SendRecord& record = ep.tracker.post(SendRecord::Op::Send, bounce, {}, true);
  const WorkRequest wr = send_wr(send_wr_id(index(ep), record.sn),
                                 {reinterpret_cast<std::uint64_t>(at), length, inline_data ? 0 : l.bounce_lkey()},
                                 std::nullopt, inline_data, true);
  const Seconds t0 = clock_now();
  const int error = post_send(ep.qp.get(), {&wr, 1});
  const Seconds took = clock_now() - t0;
  if (error != 0)
    throw RuntimeError("verbs: lane " + l.name() + " to rank " + std::to_string(ep.peer) +
                       ": ibv_post_send of a probe failed: " + errno_text(error));
  return took;
}

void Prober::reap(std::size_t lane) {
  Lane& l = *f_.lanes[lane];
  std::array<ibv_wc, kPollBatch> wcs{};
  const int n = ibv_poll_cq(l.send_cq(), static_cast<int>(kPollBatch), wcs.data());
  for (int i = 0; i < n; ++i) {
    const ibv_wc& wc = wcs[static_cast<std::size_t>(i)];
    const std::uint32_t index = wr_endpoint(wc.wr_id);
    Endpoint* ep = index < f_.endpoints.size() ? f_.endpoints[index].get() : nullptr;
    if (!ep)
      throw RuntimeError("verbs: lane " + l.name() + ": a send completion for no endpoint during the wire-up");
    if (wc.status != IBV_WC_SUCCESS)
      throw RuntimeError("verbs: lane " + l.name() + " to rank " + std::to_string(ep->peer) +
                         ": a wire-up request failed: " + wc_status_text(wc));
    ep->tracker.complete_through(wr_sn(wc.wr_id), [&](SendRecord& r) {
      if (r.bounce != kNone)
        l.bounce_pool().give(r.bounce);
    });
  }
}

void Prober::take(Endpoint& ep, const Stashed& s, Numbers& out) {
  Lane& l = *f_.lanes[ep.lane];
  WireMessage m;
  const std::string bad = decode_wire(l.segment(s.segment), s.length, ep.credits.window(), m);
  if (!bad.empty() || m.header.kind != WireKind::Probe || m.payload.size() > sizeof(Numbers) ||
      m.payload.size() % 8 != 0)
    throw RuntimeError("verbs: lane " + l.name() + ": rank " + std::to_string(ep.peer) +
                       " sent a malformed wire-up probe" + (bad.empty() ? "" : ": " + bad));
  out = {};
  for (std::size_t i = 0; i < m.payload.size() / 8; ++i)
    out[i] = load_le(m.payload.data() + 8 * i, 8);
  l.segments().consumed(s.segment);
  if (const int error = l.refill(); error != 0)
    throw RuntimeError("verbs: lane " + l.name() + ": ibv_post_srq_recv failed: " + errno_text(error));
}

Numbers Prober::receive(Endpoint& ep, Seconds* took) {
  const std::uint32_t qpn = ep.qp->qp_num;
  std::vector<Stashed>& stash = stash_[ep.lane];
  Numbers out{};
  for (auto it = stash.begin(); it != stash.end(); ++it)
    if (it->qpn == qpn) {
      const Stashed s = *it;
      stash.erase(it);
      take(ep, s, out);
      if (took)
        *took = 0;
      return out;
    }
  Lane& l = *f_.lanes[ep.lane];
  const Seconds limit = deadline();
  for (unsigned spins = 0;; ++spins) {
    ibv_wc wc{};
    const Seconds t0 = clock_now();
    const int n = ibv_poll_cq(l.recv_cq(), 1, &wc);
    if (n < 0)
      throw RuntimeError("verbs: lane " + l.name() + ": ibv_poll_cq failed during the wire-up");
    if (n == 1) {
      if (wc.status != IBV_WC_SUCCESS)
        throw RuntimeError("verbs: lane " + l.name() + ": a wire-up receive failed: " + wc_status_text(wc));
      const Stashed s{wc.qp_num, static_cast<std::uint32_t>(wc.wr_id), wc.byte_len};
      if (s.qpn == qpn) {
        take(ep, s, out);
        if (took)
          *took = clock_now() - t0;
        return out;
      }
      stash.push_back(s);
    }
    if (spins % 4096 == 0) {
      reap(ep.lane);
      if (clock_now() > limit)
        silent(ep);
    }
  }
}

void Prober::write_all(Endpoint& ep, std::uint64_t local, std::uint32_t lkey, std::uint64_t addr, std::uint32_t rkey,
                       Bytes bytes) {
  const Seconds limit = deadline();
  for (Bytes at = 0; at < bytes; at += kChunk) {
    while (!ep.tracker.has_room()) {
      reap(ep.lane);
      if (clock_now() > limit)
        silent(ep);
    }
    const bool last = at + kChunk >= bytes;
    const SendRecord& record = ep.tracker.post(SendRecord::Op::Write, kNone, {}, last);
    const Sge sge{local + at, static_cast<std::uint32_t>(std::min(kChunk, bytes - at)), lkey};
    const WorkRequest wr = write_wr(send_wr_id(index(ep), record.sn), sge, addr + at, rkey, record.signaled);
    if (const int error = post_send(ep.qp.get(), {&wr, 1}); error != 0)
      throw RuntimeError("verbs: lane " + f_.lanes[ep.lane]->name() + " to rank " + std::to_string(ep.peer) +
                         ": ibv_post_send of an RDMA WRITE failed: " + errno_text(error));
  }
  drain(ep);
}

void Prober::drain(Endpoint& ep) {
  const Seconds limit = deadline();
  while (ep.tracker.outstanding() > 0) {
    reap(ep.lane);
    if (clock_now() > limit)
      silent(ep);
  }
}

void Prober::check_stash_empty() const {
  for (std::size_t lane = 0; lane < stash_.size(); ++lane)
    if (!stash_[lane].empty())
      throw RuntimeError("verbs: lane " + f_.lanes[lane]->name() + ": " + std::to_string(stash_[lane].size()) +
                         " wire-up probe(s) nobody read (a peer out of step with the measurement schedule)");
}

/// ibv_reg_mr + ibv_dereg_mr at several sizes on one device, fitted.
RegLine measure_registration(const Device& device) {
  const Slab buffer = make_slab(kRegSizes.back());
  std::vector<std::pair<Bytes, Seconds>> samples;
  for (const Bytes size : kRegSizes) {
    Seconds best = 1e300;
    for (int i = 0; i < kRegTries; ++i) {
      const Seconds t0 = clock_now();
      const MrKeys keys = register_memory(device, reinterpret_cast<std::uintptr_t>(buffer.get()), size);
      if (!keys.handle)
        throw RuntimeError("verbs: device " + device.name + ": ibv_reg_mr of " + std::to_string(size) +
                           " bytes failed: " + errno_text(errno) + memlock_hint(size));
      deregister_memory(keys);
      best = std::min(best, clock_now() - t0);
    }
    samples.emplace_back(size, best);
  }
  return fit_registration(samples);
}

/// What one end learned on one lane toward its partner.
struct PairFigures {
  Seconds latency = 0;
  BytesPerSecond bandwidth_out = 0;
  Overheads theirs;
  Overheads mine;
};

PairFigures measure_pair(Prober& probe, Endpoint& ep, bool lower, std::byte* buffer, const MrKeys& keys) {
  PairFigures pf;
  std::vector<Seconds> rtt, o_send, o_recv;
  const Numbers ping{};
  for (int i = 0; i < kWarmPings + kPings; ++i) {
    Seconds sent = 0;
    Seconds took = 0;
    const Seconds t0 = clock_now();
    if (lower) {
      sent = probe.send(ep, ping, 1);
      probe.receive(ep, &took);
    } else {
      probe.receive(ep, &took);
      sent = probe.send(ep, ping, 1);
    }
    if (i < kWarmPings)
      continue;
    rtt.push_back(clock_now() - t0);
    o_send.push_back(sent);
    o_recv.push_back(took);
  }
  pf.mine = {quantile(o_send, 0.5), quantile(o_recv, 0.5)};
  probe.send(ep, {word(pf.mine.o_send), word(pf.mine.o_recv), word(lower ? quantile(rtt, 0.5) : 0.0)}, 3);
  const Numbers theirs = probe.receive(ep);
  pf.theirs = {figure(theirs[0]), figure(theirs[1])};
  const Seconds round_trip = lower ? quantile(rtt, 0.5) : figure(theirs[2]);
  pf.latency = one_way_latency(round_trip, pf.mine, pf.theirs);

  // Bandwidth, the lower rank writing first.
  const auto base = reinterpret_cast<std::uint64_t>(buffer);
  for (const bool writer : {lower, !lower}) {
    if (!writer) {
      probe.send(ep, {base, keys.rkey}, 2);
      probe.receive(ep);  // the writer is done
      continue;
    }
    const Numbers target = probe.receive(ep);
    const std::uint64_t addr = target[0];
    const auto rkey = static_cast<std::uint32_t>(target[1]);
    probe.write_all(ep, base, keys.lkey, addr, rkey, kBulkBytes);  // unmeasured
    Bytes moved = 0;
    const Seconds t0 = clock_now();
    do {
      probe.write_all(ep, base, keys.lkey, addr, rkey, kBulkBytes);
      moved += kBulkBytes;
    } while (clock_now() - t0 < kBulkTime || moved < 2 * kBulkBytes);
    pf.bandwidth_out = static_cast<double>(moved) / std::max(clock_now() - t0, 1e-9);
    probe.send(ep, {}, 0);
  }
  return pf;
}

}  // namespace

std::vector<Path> measure_lanes(Bootstrap& boot, const RuntimeOptions& options, Fabric& f,
                                const std::vector<Card>& cards) {
  const Rank me = boot.rank();
  const Rank size = boot.size();
  std::vector<RegLine> reg;
  // Per device, the bandwidth probe's buffer and its registration (released
  // before the buffer, on every way out).
  std::vector<Slab> buffers;
  std::vector<MrPtr> regions;
  std::vector<MrKeys> keys;
  for (const auto& device : f.devices) {
    reg.push_back(measure_registration(*device));
    buffers.push_back(make_slab(kBulkBytes));
    const MrKeys k = register_memory(*device, reinterpret_cast<std::uintptr_t>(buffers.back().get()), kBulkBytes);
    if (!k.handle)
      throw RuntimeError("verbs: device " + device->name + ": ibv_reg_mr of the measurement buffer failed: " +
                         errno_text(errno) + memlock_hint(kBulkBytes));
    regions.emplace_back(static_cast<ibv_mr*>(k.handle));
    keys.push_back(k);
  }

  std::vector<Path> paths(size);
  Prober probe(options, f, size);
  for (Rank round = 0; round < round_robin_rounds(size); ++round) {
    const Rank peer = round_robin_partner(me, size, round);
    if (peer >= size)
      continue;  // a bye round
    for (std::size_t lane = 0; lane < f.lanes.size(); ++lane) {
      Endpoint& ep = *f.endpoints[lane * size + peer];
      const std::size_t device = f.lane_device[lane];
      const PairFigures pf = measure_pair(probe, ep, me < peer, buffers[device].get(), keys[device]);
      LaneLimits limits;
      limits.max_inline = ep.max_inline;
      limits.segment = kSegment;
      limits.max_message = f.lanes[lane]->port().max_msg_size;
      limits.atomics = f.devices[device]->attr.atomic_cap != IBV_ATOMIC_NONE;
      limits.reads = ep.max_reads > 0;
      const PortInfo& port = f.lanes[lane]->port();
      limits.link_rate = link_bandwidth(port.width_code, port.speed_code).value_or(0);
      LaneMeasure measure;
      measure.same_host = cards[peer].host == cards[me].host;
      measure.latency = pf.latency;
      measure.bandwidth = pf.bandwidth_out;
      measure.overheads = {pf.mine.o_send, pf.theirs.o_recv};
      paths[peer].lanes.push_back(lane_attrs(f.lanes[lane]->name(), limits, measure, reg[device]));
    }
    for (std::size_t lane = 0; lane < f.lanes.size(); ++lane)
      probe.drain(*f.endpoints[lane * size + peer]);
  }
  probe.check_stash_empty();
  for (Rank r = 0; r < size; ++r) {
    paths[r].from = cards[me].host + ":" + std::to_string(me);
    paths[r].to = cards[r].host + ":" + std::to_string(r);
    paths[r].memcpy_bw_local = cards[me].memcpy_bw;
    paths[r].memcpy_bw_remote = cards[r].memcpy_bw;
  }
  return paths;
}

}  // namespace xover::runtime::verbs
