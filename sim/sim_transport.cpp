// SimTransport's data path: the network's routes and NIC gates, the
// operations (am_send, get, put, put_signal), copies, and what a transfer
// does when it lands. Its wake-up machinery is in sim_wakeup.cpp.
#include "sim/sim_transport.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <unordered_set>
#include <vector>

#include <simgrid/kernel/resource/NetworkModelIntf.hpp>

#include "protocols/wire.hpp"
#include "sim/sim_transfer.hpp"

namespace s4u = simgrid::s4u;

namespace xover::sim {
namespace {

// The rate of an operation of `size` bytes on `lane` whose message's bytes
// move at `factor` of their figures: its bandwidth step's where the lane's
// bandwidth changes with size, times the factor, else 0 (the links' own).
// The lane's bandwidth is its route's slowest link's (LogGPPlatform), the
// figure install_rate_factor() divides by, so a factor alone is a rate too.
double rate_of(const LaneAttrs& lane, Bytes size, double factor) {
  return lane.bandwidth_steps.empty() && factor == 1 ? 0 : lane.bandwidth_at(size) * factor;
}

// The rate of the transfer being started, read by the bandwidth factor
// below while SimGrid creates it; 0 between transfers.
double starting_rate = 0;

// SimGrid's bandwidth factor of a transfer: its rate over the slowest link
// of its route, or 1 (a host-to-host transfer in SimGrid 3.32 ignores
// Comm::set_rate). Set once, on the first transfer with a rate, so that a
// platform without bandwidth steps keeps its own factors.
void install_rate_factor() {
  static bool installed = false;
  if (installed)
    return;
  installed = true;
  s4u::Engine::get_instance()->get_netzone_root()->get_network_model()->set_bw_factor_cb(
      [](double, const s4u::Host*, const s4u::Host*, const std::vector<s4u::Link*>& links,
         const std::unordered_set<s4u::NetZone*>&) {
        if (starting_rate == 0 || links.empty())
          return 1.0;
        double slowest = links.front()->get_bandwidth();
        for (const s4u::Link* link : links)
          slowest = std::min(slowest, link->get_bandwidth());
        return starting_rate / slowest;
      });
}

}  // namespace

namespace detail {

s4u::CommPtr transfer(s4u::CommPtr comm, s4u::Host* src, s4u::Host* dst, Bytes bytes, double rate) {
  if (rate != 0) {
    install_rate_factor();
    starting_rate = rate;
  }
  comm->set_payload_size(bytes)->set_source(src)->set_destination(dst);
  starting_rate = 0;
  return comm;
}

s4u::CommPtr transfer(s4u::Host* src, s4u::Host* dst, Bytes bytes, double rate) {
  return transfer(s4u::Comm::sendto_init(), src, dst, bytes, rate);
}

}  // namespace detail

using detail::transfer;

SimNetwork::SimNetwork(const LogGPPlatform& platform, std::vector<std::string> rank_nodes)
    : platform_(platform), rank_nodes_(std::move(rank_nodes)) {
  const std::size_t nodes = platform_.nodes().size();
  for (std::size_t n = 0; n < nodes; ++n) {
    std::vector<s4u::Host*>& hosts = nic_hosts_.emplace_back();
    for (std::size_t k = 0; k < platform_.nodes()[n].nics.size(); ++k)
      hosts.push_back(platform_.nic_host(n, k));
  }
  shape_of_.resize(nodes);
  shapes_.resize(nodes);
  last_key_.resize(nodes);
  for (const std::string& node : rank_nodes_) {
    node_index_.push_back(static_cast<std::uint32_t>(platform_.node_index(node)));  // throws for an unknown node
    hosts_.push_back(s4u::Host::by_name(node));
  }
  for (Rank r = 0; r < size(); ++r)
    transports_.push_back(std::make_unique<SimTransport>(*this, r));
}

SimNetwork::~SimNetwork() = default;

SimNetwork::Route SimNetwork::route(Rank from, Rank to) {
  const std::uint32_t a = node_index_[from];
  const std::uint32_t b = node_index_[to];
  std::vector<std::uint8_t>& row = shape_of_[a];
  if (row.empty())
    row.resize(nic_hosts_.size(), 0);
  std::uint32_t index = row[b];
  if (index == 0) {
    index = shape(a, b);
    row[b] = static_cast<std::uint8_t>(std::min<std::uint32_t>(index, kWide));
    if (index >= kWide)
      wide_shape_of_.emplace(std::uint64_t{a} << 32 | b, index);
  } else if (index == kWide) {
    index = wide_shape_of_.at(std::uint64_t{a} << 32 | b);
  }
  const Shape& shape = *shapes_[a][index - 1];
  return Route{&shape.path, &shape.form->costs, &shape.form->nic_index, &nic_hosts_[a], &nic_hosts_[b]};
}

std::uint32_t SimNetwork::shape(std::uint32_t a, std::uint32_t b) {
  // A pair of nodes whose route is made as another's was takes its shape:
  // no lane built, and no look-up in SimGrid where its NICs are in one star
  // zone (LogGPPlatform::route_key).
  LogGPPlatform::RouteKey& key = key_;
  platform_.route_key(a, b, key);
  LastKey& last = last_key_[a];
  if (last.shape != 0 && std::equal(last.key.begin(), last.key.end(), key.begin(), key.end()))
    return last.shape;
  if (const auto known = shape_of_key_.find(key); known != shape_of_key_.end()) {
    last.set(key, known->second);
    return known->second;
  }
  LogGPPlatform::IndexedRoute found = platform_.route(a, b);
  // Routes from one node with the same lanes, NICs and ends share one shape.
  auto& mine = shapes_[a];
  auto same = std::find_if(mine.begin(), mine.end(), [&](const auto& shape) {
    const Path& p = shape->path;
    const Path& q = found.path;
    return shape->form->nic_index == found.nics && p.lanes == q.lanes && p.memcpy_bw_local == q.memcpy_bw_local &&
           p.memcpy_bw_remote == q.memcpy_bw_remote && p.memcpy_local_steps == q.memcpy_local_steps &&
           p.memcpy_remote_steps == q.memcpy_remote_steps && p.device_local == q.device_local &&
           p.device_remote == q.device_remote && p.message_factor == q.message_factor;
  });
  if (same == mine.end()) {
    const Form* shared = form(found.path.costs(), std::move(found.nics));
    mine.push_back(std::make_unique<Shape>(Shape{shared, std::move(found.path)}));
    same = std::prev(mine.end());
  }
  const std::uint32_t index = static_cast<std::uint32_t>(same - mine.begin()) + 1;
  shape_of_key_.emplace(key, index);
  last.set(key, index);
  return index;
}

const SimNetwork::Form* SimNetwork::form(Path costs, std::vector<std::pair<std::uint32_t, std::uint32_t>> nic_index) {
  auto same = std::find_if(forms_.begin(), forms_.end(), [&](const std::unique_ptr<Form>& known) {
    return known->nic_index == nic_index && known->costs == costs;
  });
  if (same != forms_.end())
    return same->get();
  forms_.push_back(std::make_unique<Form>(Form{std::move(costs), std::move(nic_index)}));
  return forms_.back().get();
}

void run_ranks(SimNetwork& network, const std::function<void(Rank, Transport&)>& body) {
  for (Rank r = 0; r < network.size(); ++r)
    s4u::Actor::create("rank" + std::to_string(r), network.host(r), [&network, &body, r] {
      body(r, network.transport(r));
      network.transport(r).quiesce();
    });
  s4u::Engine::get_instance()->run();
}

Seconds SimNetwork::book(s4u::Host* nic, Bytes bytes, BytesPerSecond bandwidth, Seconds gap) {
  // LogGP's gap and the NIC's serialisation: one injection at a time, the
  // next no sooner than max(g, n/B) after this one starts. Booked before
  // anyone waits, so that senders sharing a NIC keep their order.
  Seconds& free_at = nic_free_[nic];
  const Seconds at = std::max(s4u::Engine::get_clock(), free_at);
  free_at = at + std::max(gap, static_cast<double>(bytes) / bandwidth);
  return at;
}

void SimNetwork::inject(s4u::Host* nic, Bytes bytes, BytesPerSecond bandwidth, Seconds gap) {
  const Seconds at = book(nic, bytes, bandwidth, gap);
  if (at > s4u::Engine::get_clock())
    s4u::this_actor::sleep_until(at);
}

SimTransport::SimTransport(SimNetwork& network, Rank rank)
    : network_(network), rank_(rank), memcpy_bw_(network.platform().node(network.node(rank)).memcpy_bw),
      memcpy_steps_(network.platform().node(network.node(rank)).memcpy_steps),
      bw_factor_(network.platform().node(network.node(rank)).bw_factor),
      threads_(network.host(rank), network.platform().node(network.node(rank)).device, "rank" + std::to_string(rank)) {
  const PlatformNode& node = network.platform().node(network.node(rank));
  device_ = std::make_unique<SimDeviceMemory>(node.device_copy, node.name, [this](Seconds t) { busy(t); });
  attach_device_memory(device_.get());
}

double SimTransport::factor(const Path& path, Bytes size) const {
  return path.message_factor_at(message_size() != 0 ? message_size() : size);
}

double SimTransport::lane_factor(const Path& path, const LaneAttrs& lane, Bytes size) const {
  return path.lane_factor_at(lane, message_size() != 0 ? message_size() : size);
}

void SimTransport::busy(Seconds t) {
  if (t > 0)
    debt_ += t;
}

void SimTransport::settle() {
  if (debt_ > 0) {
    const Seconds t = debt_;
    debt_ = 0;
    s4u::this_actor::sleep_for(t);
  }
}

Status SimTransport::am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header,
                             ConstBuffer payload, AmMode mode, Completion done) {
  const SimNetwork::Route route = network_.route(rank_, peer);
  if (lane >= route.costs->lanes.size())
    return Status::Error;
  const LaneAttrs& attrs = route.costs->lanes[lane];
  // A short or copied message past what the lane carries, the hardware
  // refuses: so does the simulation.
  if (mode != AmMode::Zcopy &&
      header.size() + payload.size > std::min(mode == AmMode::Short ? attrs.max_short : attrs.max_bcopy, attrs.seg_size))
    return Status::Error;
  // Figures that change with size take the payload's (LaneAttrs::o_send_steps),
  // its copy the pace of its message's, and its transfer that pace on this
  // lane (the lane's own factor where it has one).
  // The sender copies a bcopy payload where its transport does
  // (LaneAttrs::bcopy_copies). The message leaves o_send_after before the
  // end of o_send; the rest is the sender's after the transfer starts.
  const double f = lane_factor(*route.costs, attrs, payload.size);
  const double copy_pace = factor(*route.costs, payload.size);
  const Seconds after = attrs.o_send_after_at(payload.size);
  busy(attrs.o_send_at(payload.size) - after +
       (mode == AmMode::Bcopy && attrs.bcopy_copies
            ? static_cast<double>(payload.size) / (route.costs->memcpy_local_at(payload.size) * copy_pace)
            : 0));
  settle();
  auto [src, dst] = route.nics(lane);
  const Bytes wire_bytes = header.size() + payload.size;
  network_.inject(src, wire_bytes, attrs.bandwidth_at(payload.size) * f, attrs.gap);

  auto flight = new_flight();
  flight->kind = Flight::Kind::Am;
  flight->peer = rank_;
  flight->lane = lane;
  flight->id = id;
  flight->header.assign(header.begin(), header.end());
  flight->size = payload.size;
  flight->phantom = payload.data == nullptr;
  // The receiver takes the message in with o_r and its CPU's time per
  // byte (LaneAttrs::o_recv_per_byte: a recv() copying out of the socket),
  // a copy at the pace of its message's, as the sender's bcopy.
  flight->o_recv =
      attrs.o_recv_at(payload.size) + static_cast<double>(payload.size) * attrs.o_recv_per_byte / copy_pace;
  if (mode == AmMode::Zcopy) {
    flight->tail_used = true;
    flight->zcopy_src = payload.data;
    flight->done = std::move(done);
    flight->sender = this;
  } else if (payload.data) {
    flight->bytes.assign(payload.data, payload.data + payload.size);
  }
  network_.transport(peer).incoming(std::move(flight), src, dst, wire_bytes, rate_of(attrs, payload.size, f));
  // Where the sender's CPU moves the bytes (LaneAttrs::cpu_moves), it is
  // busy with them while they cross, (h + n)/B after they leave; its time
  // per payload byte (LaneAttrs::o_send_per_byte: a send() copying into the
  // socket while the first segments cross) likewise comes after.
  busy(after + (attrs.cpu_moves ? static_cast<double>(wire_bytes) / (attrs.bandwidth_at(payload.size) * f) : 0) +
       static_cast<double>(payload.size) * attrs.o_send_per_byte / copy_pace);
  return mode == AmMode::Zcopy ? Status::InProgress : Status::Ok;
}

Status SimTransport::get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion done) {
  const SimNetwork::Route route = network_.route(rank_, peer);
  if (lane >= route.costs->lanes.size())
    return Status::Error;
  const LaneAttrs& attrs = route.costs->lanes[lane];
  const Seconds after = attrs.o_send_after_at(local.size);
  busy(attrs.o_send_at(local.size) - after);
  // The read request crosses to the peer's NIC (L); the data comes back
  // when it arrives (L + n/B), see landed(). A get the initiator's CPU makes
  // itself (LaneAttrs::cpu_moves) keeps that CPU until the data is in: the
  // request's flight is its time, L + h/B, then the data's, L + n/B, or
  // o_send_after where that is longer.
  auto flight = new_flight();
  flight->kind = attrs.cpu_moves ? Flight::Kind::GetData : Flight::Kind::GetRequest;
  flight->tail_used = true;
  flight->peer = peer;
  flight->lane = lane;
  flight->size = local.size;
  flight->phantom = local.data == nullptr;
  flight->get_dst = local.data;
  flight->remote = remote;
  flight->done = std::move(done);
  flight->factor = lane_factor(*route.costs, attrs, local.size);
  const double f = flight->factor;
  auto [src, dst] = route.nics(lane);
  if (attrs.get_served && !attrs.cpu_moves) {
    // The target's CPU serves it (LaneAttrs::get_served): the request is a
    // message to the target, whose transport, not the protocol core, takes
    // it in (o_r at 0) and posts the reply (o_s at n less what comes after
    // the reply has left), each less the core's part (serving_*).
    flight->kind = Flight::Kind::GetServe;
    flight->peer = rank_;
    flight->copy_pace = factor(*route.costs, local.size);
    flight->o_recv = attrs.serving_o_recv_at(0) + attrs.serving_o_send_at(local.size) -
                     attrs.serving_sent_after_at(local.size);
    settle();
    network_.transport(peer).incoming(std::move(flight), src, dst, wire::kRmaHdr, rate_of(attrs, 0, f));
    busy(after);
    return Status::InProgress;
  }
  if (attrs.cpu_moves) {
    busy(attrs.latency + static_cast<double>(wire::kRmaHdr) / (attrs.bandwidth_at(0) * f));
    settle();
    flight->comm = transfer(dst, src, local.size, rate_of(attrs, local.size, f));
    add_flight(std::move(flight));
    busy(std::max(after, attrs.latency + static_cast<double>(local.size) / (attrs.bandwidth_at(local.size) * f)));
    return Status::InProgress;
  }
  settle();
  flight->comm = transfer(src, dst, wire::kRmaHdr, rate_of(attrs, 0, f));
  add_flight(std::move(flight));
  busy(after);
  return Status::InProgress;
}

Status SimTransport::put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, Completion done) {
  const SimNetwork::Route route = network_.route(rank_, peer);
  if (lane >= route.costs->lanes.size())
    return Status::Error;
  const LaneAttrs& attrs = route.costs->lanes[lane];
  const double f = lane_factor(*route.costs, attrs, local.size);
  const Seconds after = attrs.o_send_after_at(local.size);
  busy(attrs.o_send_at(local.size) - after);
  settle();
  auto [src, dst] = route.nics(lane);
  network_.inject(src, wire::kRmaHdr + local.size, attrs.bandwidth_at(local.size) * f, attrs.gap);
  auto flight = new_flight();
  flight->kind = Flight::Kind::PutData;
  flight->tail_used = true;
  flight->peer = peer;
  flight->lane = lane;
  flight->size = local.size;
  flight->phantom = local.data == nullptr;
  flight->zcopy_src = local.data;
  flight->remote = remote;
  flight->done = std::move(done);
  flight->comm = transfer(src, dst, wire::kRmaHdr + local.size, rate_of(attrs, local.size, f));
  add_flight(std::move(flight));
  busy(after);
  return Status::InProgress;
}

Status SimTransport::put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                                std::uint64_t value, Completion done) {
  const SimNetwork::Route route = network_.route(rank_, peer);
  SimTransport& target = network_.transport(peer);
  if (lane >= route.costs->lanes.size() || !route.costs->lanes[lane].caps.has(LaneCap::PutZcopy) ||
      std::none_of(target.signals_.begin(), target.signals_.end(), [&](const std::unique_ptr<std::uint64_t>& word) {
        return reinterpret_cast<std::uint64_t>(word.get()) == signal.addr;
      }))
    return Status::Error;
  const LaneAttrs& attrs = route.costs->lanes[lane];
  // Named, not bound: the courier below captures them, which C++20 allows
  // of structured bindings but clang 14 refuses.
  s4u::Host* const src = route.nics(lane).first;
  s4u::Host* const dst = route.nics(lane).second;
  const double f = lane_factor(*route.costs, attrs, local.size);
  const Seconds at = network_.book(src, local.size, attrs.bandwidth_at(local.size) * f, attrs.gap);
  const double rate = rate_of(attrs, local.size, f);
  auto flight = new_flight();
  flight->kind = Flight::Kind::PutSignal;
  flight->tail_used = true;
  flight->peer = rank_;
  flight->lane = lane;
  flight->size = local.size;
  flight->phantom = local.data == nullptr;
  flight->zcopy_src = local.data;
  flight->remote = remote;
  flight->signal = signal;
  flight->value = value;
  flight->done = std::move(done);
  flight->sender = this;
  if (at <= s4u::Engine::get_clock() && local.size > 0) {
    target.incoming(std::move(flight), src, dst, local.size, rate);
    return Status::InProgress;
  }
  // The NIC is busy, or there are no bytes to move: a courier actor starts
  // the transfer at its date (or lands the signal a latency later), so
  // that the caller goes on meanwhile.
  const Seconds latency = attrs.latency;
  s4u::Actor::create("nic", src, [&target, src, dst, at, latency, rate, f = flight.release()] {
    std::unique_ptr<Flight> flight(f);
    s4u::this_actor::sleep_until(at);
    if (flight->size > 0) {
      const Bytes size = flight->size;
      target.incoming(std::move(flight), src, dst, size, rate);
      return;
    }
    s4u::this_actor::sleep_for(latency);
    target.land_signal(*flight);
    target.add_event({});  // wakes a thread of the target that waits in progress()
  });
  return Status::InProgress;
}

SignalWord SimTransport::signal_word() {
  std::uint64_t& word = *signals_.emplace_back(std::make_unique<std::uint64_t>(0));
  return {&word, {0, reinterpret_cast<std::uint64_t>(&word)}};
}

void SimTransport::land_signal(Flight& flight) {
  if (!flight.phantom && flight.remote.addr && flight.size)
    std::memcpy(reinterpret_cast<std::byte*>(flight.remote.addr), flight.zcopy_src, flight.size);
  std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(flight.signal.addr))
      .fetch_add(flight.value, std::memory_order_release);
  threads_.notify();
  if (flight.done)
    flight.sender->add_event({nullptr, std::move(flight.done), Status::Ok, 0});
}

MemoryRegion SimTransport::reg(Rank peer, std::size_t lane, const std::byte* base, Bytes size) {
  const LaneAttrs& attrs = path(peer).lanes.at(lane);
  busy(attrs.reg_cost + static_cast<double>(size) * attrs.reg_growth);
  return {next_key_++, base, size};
}

RemoteAddr SimTransport::remote_addr(const MemoryRegion& region, const std::byte* base) const {
  return {region.key, reinterpret_cast<std::uint64_t>(base)};
}

void SimTransport::copy(std::byte* dst, const std::byte* src, Bytes n) {
  // A copy of a message's bytes at the pace of the message's path: the
  // smaller of its two nodes' factors (Path::message_factor), read off the
  // nodes, so that a receiver sets up no route back to its sender for it.
  // A copy of no message at this node's own factor.
  const Bytes m = message_size();
  const double f = m != 0 ? std::min(bw_factor_.at(m, 1), network_.transport(message_peer()).bw_factor_.at(m, 1))
                          : bw_factor_.at(n, 1);
  busy(static_cast<double>(n) / (memcpy_steps_.at(n, memcpy_bw_) * f));
  if (dst && src && n)
    std::memcpy(dst, src, n);
}

std::unique_ptr<SimTransport::Flight> SimTransport::new_flight() {
  if (spare_.empty())
    return std::make_unique<Flight>();
  std::unique_ptr<Flight> flight = std::move(spare_.back());
  spare_.pop_back();
  return flight;
}

void SimTransport::recycle(std::unique_ptr<Flight> flight) {
  Flight& f = *flight;
  f.kind = Flight::Kind::Am;
  f.id = 0;
  f.phantom = false;
  f.peer = 0;
  f.lane = 0;
  f.size = 0;
  f.o_recv = 0;
  f.comm = nullptr;
  f.header.clear();
  f.bytes.clear();
  if (f.tail_used) {
    f.zcopy_src = nullptr;
    f.sender = nullptr;
    f.done = nullptr;
    f.factor = 1;
    f.copy_pace = 1;
    f.get_dst = nullptr;
    f.remote = {};
    f.signal = {};
    f.value = 0;
    f.tail_used = false;
  }
  spare_.push_back(std::move(flight));
}

void SimTransport::landed(std::unique_ptr<Flight> flight) {
  switch (flight->kind) {
    case Flight::Kind::Am: {
      if (flight->tail_used && flight->sender) {
        // Zero-copy: the bytes are read now, and the sender may reuse its
        // buffer from this moment on.
        if (flight->zcopy_src)
          flight->bytes.assign(flight->zcopy_src, flight->zcopy_src + flight->size);
        flight->sender->add_event({nullptr, std::move(flight->done), Status::Ok, 0});
        flight->sender = nullptr;
      }
      // The sender's view of the lane gives its o_recv: the receiver need
      // not set up its own route back (it may never send to this peer).
      const Seconds cpu = flight->o_recv;
      ready_.push_back({std::move(flight), nullptr, Status::Ok, cpu});
      return;
    }
    case Flight::Kind::GetRequest: {
      const SimNetwork::Route route = network_.route(rank_, flight->peer);
      auto [mine, theirs] = route.nics(flight->lane);
      flight->kind = Flight::Kind::GetData;
      flight->comm =
          transfer(theirs, mine, flight->size, rate_of(route.costs->lanes[flight->lane], flight->size, flight->factor));
      flights_.push_back(std::move(flight));
      return;
    }
    case Flight::Kind::GetServe: {
      // The target's CPU takes the request in when it next runs its events.
      const Seconds cpu = flight->o_recv;
      ready_.push_back({std::move(flight), nullptr, Status::Ok, cpu});
      return;
    }
    case Flight::Kind::GetData:
      if (!flight->phantom && flight->remote.addr && flight->size)
        std::memcpy(flight->get_dst, reinterpret_cast<const std::byte*>(flight->remote.addr), flight->size);
      break;
    case Flight::Kind::PutData:
      if (!flight->phantom && flight->remote.addr && flight->size)
        std::memcpy(reinterpret_cast<std::byte*>(flight->remote.addr), flight->zcopy_src, flight->size);
      break;
    case Flight::Kind::PutSignal:
      // The target takes it in at no cost of its own (it polls the signal).
      land_signal(*flight);
      recycle(std::move(flight));
      return;
  }
  // A get or put completion is polled from the completion queue: o_recv;
  // a served get's reply is read out of the socket, n·m_r more
  // (LaneAttrs::get_served, o_recv_per_byte).
  const LaneAttrs& lane = path(flight->peer).lanes[flight->lane];
  Seconds cpu = lane.o_recv_at(flight->size);
  if (flight->kind == Flight::Kind::GetData && lane.get_served && !lane.cpu_moves)
    cpu += static_cast<double>(flight->size) * lane.o_recv_per_byte / flight->copy_pace;
  ready_.push_back({nullptr, std::move(flight->done), Status::Ok, cpu});
  recycle(std::move(flight));
}

void SimTransport::serve_get(std::unique_ptr<Flight> flight) {
  const Rank initiator = flight->peer;
  const SimNetwork::Route route = network_.route(initiator, rank_);
  const LaneAttrs& attrs = route.costs->lanes[flight->lane];
  auto [theirs, mine] = route.nics(flight->lane);
  const Bytes size = flight->size;
  const Seconds after =
      attrs.serving_sent_after_at(size) + static_cast<double>(size) * attrs.o_send_per_byte / flight->copy_pace;
  const double rate = rate_of(attrs, size, flight->factor);
  flight->kind = Flight::Kind::GetData;
  flight->peer = rank_;
  settle();
  network_.transport(initiator).incoming(std::move(flight), mine, theirs, size, rate);
  busy(after);
}

}  // namespace xover::sim
