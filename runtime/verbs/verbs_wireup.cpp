// The verbs transport's set-up (verbs_transport.hpp): find the ports,
// build a lane on each one chosen, create and INIT a queue pair per peer
// and lane, swap address cards through the bootstrap, walk every queue
// pair to RTS (verbs_qp_plan.hpp), post the receive segments, measure the
// lanes (verbs_measure.hpp), and hand the fabric to the data path. Every
// verbs object is owned from the moment it exists, so a failure at any step
// releases all of them.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <stdexcept>

#include "runtime/verbs/verbs_card.hpp"
#include "runtime/verbs/verbs_measure.hpp"
#include "runtime/verbs/verbs_options.hpp"
#include "runtime/verbs/verbs_transport.hpp"
#include "runtime/verbs/verbs_transport_impl.hpp"

namespace xover::runtime {
namespace verbs {
namespace {

/// Registered memory must keep its pages while a registration of it is
/// cached (here or in the protocol core's cache): tell glibc's malloc never
/// to unmap what free() releases (no mmap'd chunks, no trimming of the heap),
/// as Open MPI's mallopt memory component does for leave_pinned. A cached
/// registration of malloc'd memory then never outlives its pages; memory
/// unmapped by other means goes through verbs_invalidate().
void keep_freed_memory_mapped() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
}

LaneAddress lane_address(const Lane& lane) {
  const PortInfo& port = lane.port();
  const std::optional<GidEntry> gid = choose_gid(port.link_layer, port.gids);
  if (!gid && port.link_layer == LinkLayer::Ethernet)
    throw RuntimeError("verbs: lane " + lane.name() +
                       ": a RoCE port without a usable GID (is its network interface up, with an address?)");
  LaneAddress a;
  a.link_layer = port.link_layer;
  a.lid = port.lid;
  a.mtu = port.mtu;
  a.rd_atomic = static_cast<std::uint8_t>(std::clamp(lane.device().attr.max_qp_rd_atom, 0, 255));
  if (gid) {
    a.gid_index = gid->index;
    a.gid_type = gid->type;
    a.gid = gid->gid;
  }
  return a;
}

std::string endpoint_name(const Fabric& f, const Endpoint& ep) {
  return "verbs: lane " + f.lanes[ep.lane]->name() + " to rank " + std::to_string(ep.peer);
}

/// The ports to use: those --ib-dev named (VerbsOptions::ports), or every ACTIVE
/// one. Throws when there is no device, or a name matches none.
std::vector<std::size_t> choose_ports(const Discovery& found, const RuntimeOptions& options) {
  if (const std::string why = found.reason(); !why.empty())
    throw RuntimeError("verbs: " + why);
  try {
    return select_ports(found.ports, verbs_options(options).ports);
  } catch (const std::invalid_argument& e) {
    throw RuntimeError(std::string("verbs: ") + e.what());
  }
}

/// A lane on each chosen port, the devices they are on taken from `found`
/// into `f` once each, with a registration cache per device.
void open_lanes(Fabric& f, Discovery& found, const std::vector<std::size_t>& chosen, const RuntimeOptions& options,
                Rank size) {
  std::vector<std::size_t> device_of(found.devices.size(), found.devices.size());
  RegCache::Limits limits;
  limits.share = options.reg_cache;
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
    f.lanes.push_back(std::make_unique<Lane>(*f.devices[device_of[d]], found.ports[port], size - 1));
  }
}

/// A queue pair per peer and lane, in INIT, with a random first PSN; and
/// this rank's address card, which carries them.
Card init_queue_pairs(Fabric& f, const Bootstrap& boot) {
  const Rank me = boot.rank();
  const Rank size = boot.size();
  std::random_device random;
  Card mine;
  mine.ranks = size;
  mine.rank = me;
  mine.pid = static_cast<std::uint32_t>(getpid());
  mine.job = job_hash(boot.job());
  mine.memcpy_bw = measure_memcpy();
  mine.host = host_name().substr(0, kMaxHostName);
  mine.qps.resize(f.lanes.size() * size);
  f.endpoints.resize(f.lanes.size() * size);
  f.qp_endpoint.resize(f.lanes.size());
  for (std::size_t lane = 0; lane < f.lanes.size(); ++lane) {
    Lane& l = *f.lanes[lane];
    mine.lanes.push_back(lane_address(l));
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

/// Every rank's address card, through the bootstrap, each checked.
std::vector<Card> exchange_cards(Bootstrap& boot, const Card& mine, std::size_t lanes) {
  const std::vector<Blob> blobs = boot.allgather(encode_card(mine));
  std::vector<Card> cards;
  try {
    for (Rank r = 0; r < boot.size(); ++r)
      cards.push_back(decode_card(blobs.at(r), r, boot.size(), lanes, mine.job));
  } catch (const std::invalid_argument& e) {
    throw RuntimeError(std::string("verbs: ") + e.what());
  }
  return cards;
}

/// Every queue pair walked from INIT to RTS toward its peer's, as the
/// cards say; then every lane's receive segments posted.
void connect_queue_pairs(Fabric& f, const Card& mine, const std::vector<Card>& cards) {
  for (auto& ep : f.endpoints) {
    if (!ep)
      continue;
    const Lane& l = *f.lanes[ep->lane];
    QpPlan plan;
    try {
      plan = plan_qp(l.port().port, mine.lanes[ep->lane], mine.qp(ep->lane, ep->peer), cards[ep->peer].lanes[ep->lane],
                     cards[ep->peer].qp(ep->lane, mine.rank),
                     static_cast<std::uint8_t>(std::clamp(l.device().attr.max_qp_init_rd_atom, 0, 255)));
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
  }
  for (auto& lane : f.lanes)
    if (const int error = lane->refill(); error != 0)
      throw RuntimeError("verbs: lane " + lane->name() + ": ibv_post_srq_recv failed: " + errno_text(error));
}

/// The set-up, step by step (see the file comment).
std::unique_ptr<Transport> wire_up(Bootstrap& boot, const RuntimeOptions& options) {
  const Rank me = boot.rank();
  const Rank size = boot.size();
  Discovery found = discover();
  const std::vector<std::size_t> chosen = choose_ports(found, options);
  if (options.reg_cache)
    keep_freed_memory_mapped();
  Fabric f;
  open_lanes(f, found, chosen, options, size);
  const Card mine = init_queue_pairs(f, boot);
  const std::vector<Card> cards = exchange_cards(boot, mine, f.lanes.size());
  connect_queue_pairs(f, mine, cards);
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
