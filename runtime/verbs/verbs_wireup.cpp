// The verbs transport's set-up (verbs_transport.hpp): find the ports,
// check the locked-memory limit, build a lane on each one chosen, register
// the signal words, create and INIT a queue pair per peer and lane, swap
// address cards through the bootstrap, walk every queue pair to RTS
// (verbs_qp_plan.hpp), post the receive segments, measure the lanes
// (verbs_measure.hpp), and hand the fabric to the data path. Every verbs
// object is owned from the moment it exists, so a failure at any step
// releases all of them.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>

#include "runtime/verbs/verbs_card.hpp"
#include "runtime/verbs/verbs_measure.hpp"
#include "runtime/verbs/verbs_memlock.hpp"
#include "runtime/verbs/verbs_options.hpp"
#include "runtime/verbs/verbs_transport.hpp"
#include "runtime/verbs/verbs_transport_impl.hpp"

namespace xover::runtime {
namespace verbs {
namespace {

/// The bytes the set-up pins: each lane's receive segments and bounce
/// buffers, each device's measurement buffers and signal words.
Bytes pinned_at_setup(const Discovery& found, const std::vector<std::size_t>& chosen, Rank peers) {
  Bytes need = 0;
  std::vector<bool> device_seen(found.devices.size(), false);
  for (const std::size_t port : chosen) {
    const ibv_device_attr& attr = found.devices[found.port_device[port]]->attr;
    const SrqPlan srq = plan_srq(peers, static_cast<std::uint32_t>(std::max(std::min(attr.max_srq_wr, attr.max_cqe), 0)));
    need += (Bytes{srq.segments} + kBounceCount) * kSegment;
    if (!device_seen[found.port_device[port]])
      need += kMeasurePinned + kSignalSlab;
    device_seen[found.port_device[port]] = true;
  }
  return need;
}

/// The port's RoCE traffic class, from its driver's sysfs file if it has one.
std::uint8_t traffic_class(const PortInfo& port) {
  std::ifstream in("/sys/class/infiniband/" + port.device + "/tc/" + std::to_string(port.port) + "/traffic_class");
  if (!in)
    return roce_traffic_class(std::nullopt);
  std::ostringstream text;
  text << in.rdbuf();
  return roce_traffic_class(text.str());
}

LaneAddress lane_address(const Lane& lane, const MrPtr& signal_mr) {
  const PortInfo& port = lane.port();
  const std::vector<GidEntry> candidates = gid_candidates(port.link_layer, port.gids);
  std::optional<GidEntry> gid;
  for (const GidEntry& g : candidates)
    if (port.link_layer == LinkLayer::Infiniband || gid_works(lane.device(), port.port, g)) {
      gid = g;
      break;
    }
  if (!gid && port.link_layer == LinkLayer::Ethernet)
    throw RuntimeError("verbs: lane " + lane.name() + ": a RoCE port without a usable GID (" +
                       std::to_string(candidates.size()) + " candidate(s) of " + std::to_string(port.gids.size()) +
                       ", none accepted by ibv_create_ah; is its network interface up, with an address?)");
  LaneAddress a;
  a.link_layer = port.link_layer;
  a.lid = port.lid;
  a.mtu = port.mtu;
  a.rd_atomic = static_cast<std::uint8_t>(std::clamp(lane.device().attr.max_qp_rd_atom, 0, 255));
  a.window = lane.window();
  a.signal_rkey = signal_mr->rkey;
  if (gid) {
    a.gid_index = gid->index;
    a.gid_type = gid->type;
    a.gid = gid->gid;
    a.prefix = gid->prefix;
  }
  return a;
}

std::string endpoint_name(const Fabric& f, const Endpoint& ep) {
  return "verbs: lane " + f.lanes[ep.lane]->name() + " to rank " + std::to_string(ep.peer);
}

/// The lanes on the chosen ports, each device's registration cache, and the
/// signal words registered on every device.
void build_lanes(Fabric& f, Discovery& found, const std::vector<std::size_t>& chosen, Rank peers, bool reg_cache) {
  std::vector<std::size_t> device_of(found.devices.size(), found.devices.size());
  RegCache::Limits limits;
  limits.share = reg_cache;
  limits.page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  for (const std::size_t port : chosen) {
    const std::size_t d = found.port_device[port];
    if (device_of[d] == found.devices.size()) {
      device_of[d] = f.devices.size();
      f.devices.push_back(std::move(found.devices[d]));
      const Device* device = f.devices.back().get();
      f.rcaches.push_back(std::make_unique<RegCache>(
          limits, [device](std::uintptr_t start, std::size_t length) { return register_memory(*device, start, length); },
          deregister_memory));
    }
    f.lane_device.push_back(device_of[d]);
    f.lanes.push_back(std::make_unique<Lane>(*f.devices[device_of[d]], found.ports[port], peers));
  }
  f.signal_slab = make_slab(kSignalSlab);
  for (const auto& device : f.devices) {
    const MrKeys keys = register_memory(*device, reinterpret_cast<std::uintptr_t>(f.signal_slab.get()), kSignalSlab);
    if (!keys.handle)
      throw RuntimeError("verbs: device " + device->name + ": ibv_reg_mr of the signal words failed: " +
                         errno_text(errno) + memlock_hint(kSignalSlab));
    f.signal_mrs.emplace_back(static_cast<ibv_mr*>(keys.handle));
  }
}

/// A queue pair per peer and lane, in INIT, with a random first PSN, and
/// this rank's card.
Card create_queue_pairs(Fabric& f, Bootstrap& boot) {
  const Rank me = boot.rank();
  const Rank size = boot.size();
  std::random_device random;
  Card mine;
  mine.ranks = size;
  mine.rank = me;
  mine.pid = static_cast<std::uint32_t>(getpid());
  mine.job = job_hash(boot.job());
  mine.memcpy_bw = measure_memcpy();
  mine.signal_addr = reinterpret_cast<std::uint64_t>(f.signal_slab.get());
  mine.host = host_name().substr(0, kMaxHostName);
  mine.qps.resize(f.lanes.size() * size);
  f.endpoints.resize(f.lanes.size() * size);
  f.qp_endpoint.resize(f.lanes.size());
  for (std::size_t lane = 0; lane < f.lanes.size(); ++lane) {
    Lane& l = *f.lanes[lane];
    mine.lanes.push_back(lane_address(l, f.signal_mrs[f.lane_device[lane]]));
    for (Rank peer = 0; peer < size; ++peer) {
      if (peer == me)
        continue;
      auto ep = std::make_unique<Endpoint>(peer, lane, l.send_queue(), 0, l.window());
      ep->qp = l.create_qp(ep->max_inline);
      ep->max_inline = std::min(ep->max_inline, kWantInline);
      QpPlan init;
      init.port = l.port().port;
      init.remote_atomic = l.device().attr.atomic_cap != IBV_ATOMIC_NONE;
      if (const int error = modify_qp(ep->qp.get(), init, qp_steps()[0]); error != 0)
        throw RuntimeError(endpoint_name(f, *ep) + ": ibv_modify_qp to INIT failed: " + errno_text(error));
      mine.qps[lane * size + peer] = {ep->qp->qp_num, random() & 0xffffffU};
      f.qp_endpoint[lane].emplace(ep->qp->qp_num, static_cast<std::uint32_t>(lane * size + peer));
      f.endpoints[lane * size + peer] = std::move(ep);
    }
  }
  return mine;
}

/// Every queue pair to RTS toward the peer its card names, each endpoint's
/// credits by the peer's window, the peers' signal words.
void connect(Fabric& f, Rank me, const Card& mine, const std::vector<Card>& cards) {
  const auto size = static_cast<Rank>(cards.size());
  for (auto& ep : f.endpoints) {
    if (!ep)
      continue;
    const Lane& l = *f.lanes[ep->lane];
    QpPlan plan;
    try {
      plan = plan_qp(l.port().port, mine.lanes[ep->lane], mine.qp(ep->lane, ep->peer), cards[ep->peer].lanes[ep->lane],
                     cards[ep->peer].qp(ep->lane, me),
                     static_cast<std::uint8_t>(std::clamp(l.device().attr.max_qp_init_rd_atom, 0, 255)),
                     traffic_class(l.port()));
    } catch (const std::invalid_argument& e) {
      throw RuntimeError(endpoint_name(f, *ep) + ": " + e.what());
    }
    plan.remote_atomic = l.device().attr.atomic_cap != IBV_ATOMIC_NONE;
    for (const QpStep& step : qp_steps().subspan(1))
      if (const int error = modify_qp(ep->qp.get(), plan, step); error != 0)
        throw RuntimeError(endpoint_name(f, *ep) + ": ibv_modify_qp to " +
                           (step.to == QpState::Rtr ? "RTR" : "RTS") + " failed: " + errno_text(error));
    ep->max_reads = plan.max_rd_atomic;
    ep->tracker = SendTracker(l.send_queue(), kSignalEvery, plan.max_rd_atomic);
    // Sending with the window the peer's receive queue gives this rank.
    ep->credits = Credits(cards[ep->peer].lanes[ep->lane].window, l.window());
  }
  f.peer_signal_addr.resize(size);
  f.peer_signal_rkey.resize(f.lanes.size() * size);
  for (Rank r = 0; r < size; ++r) {
    f.peer_signal_addr[r] = cards[r].signal_addr;
    for (std::size_t lane = 0; lane < f.lanes.size(); ++lane)
      f.peer_signal_rkey[lane * size + r] = cards[r].lanes[lane].signal_rkey;
  }
}

/// The set-up, step by step (see the file comment).
std::unique_ptr<Transport> wire_up(Bootstrap& boot, const RuntimeOptions& options) {
  const Rank me = boot.rank();
  const Rank size = boot.size();
  Discovery found = discover();
  if (const std::string why = found.reason(); !why.empty())
    throw RuntimeError("verbs: " + why);
  std::vector<std::size_t> chosen;
  try {
    chosen = select_ports(found.ports, verbs_options(options).ports);
  } catch (const std::invalid_argument& e) {
    throw RuntimeError(std::string("verbs: ") + e.what());
  }
  if (const std::string problem = memlock_problem(pinned_at_setup(found, chosen, size - 1), memlock_limit());
      !problem.empty())
    throw RuntimeError("verbs: " + problem);

  Fabric f;
  build_lanes(f, found, chosen, size - 1, options.reg_cache);
  const Card mine = create_queue_pairs(f, boot);
  const std::vector<Blob> blobs = boot.allgather(encode_card(mine));
  std::vector<Card> cards;
  try {
    for (Rank r = 0; r < size; ++r)
      cards.push_back(decode_card(blobs.at(r), r, size, f.lanes.size(), mine.job));
  } catch (const std::invalid_argument& e) {
    throw RuntimeError(std::string("verbs: ") + e.what());
  }
  connect(f, me, mine, cards);
  for (auto& lane : f.lanes)
    if (const int error = lane->refill(); error != 0)
      throw RuntimeError("verbs: lane " + lane->name() + ": ibv_post_srq_recv failed: " + errno_text(error));
  // Every queue pair of every rank is in RTS and every receive is posted
  // before anyone sends.
  boot.barrier();

  f.peers.resize(size);
  for (Rank r = 0; r < size; ++r)
    f.peers[r] = {cards[r].pid, cards[r].host == mine.host};
  f.paths = measure_lanes(boot, options, f, cards);
  // Nobody's data reaches a rank still measuring with another partner.
  boot.barrier();
  return std::make_unique<VerbsTransport>(me, size, options.timeout, std::move(f));
}

}  // namespace
}  // namespace verbs

std::unique_ptr<Transport> make_verbs_transport(Bootstrap& boot, const RuntimeOptions& options) {
  return verbs::wire_up(boot, options);
}

std::string verbs_unavailable() {
  return verbs::discover().reason();
}

BackendInfo describe_verbs() {
  const verbs::Discovery d = verbs::discover();
  return verbs::port_info(d.listed, d.ports, d.problems);
}

}  // namespace xover::runtime
