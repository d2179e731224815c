// The data path of the verbs Transport (verbs_transport.hpp): active
// messages as SENDs under credit flow control, and progress: the receive
// CQs first, 16 completions at a time, explicit grants, then the send CQs;
// the device's asynchronous events every 64 calls, the clock after 256 idle
// ones. RDMA and registration are in verbs_rma.cpp. Nothing here sleeps,
// allocates per message or throws; a failed post or completion, a fatal
// event or a silent peer fails the transport.
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/fault.hpp"
#include "runtime/verbs/verbs_transport.hpp"
#include "runtime/verbs/verbs_transport_impl.hpp"
#include "runtime/verbs/verbs_wire.hpp"

namespace xover::runtime::verbs {
namespace {

/// While polling without traffic, how often peer processes on this host
/// are checked.
constexpr Seconds kAliveInterval = 0.1;
/// Completions that may become due in one progress() call without an
/// allocation.
constexpr std::size_t kDueReserve = 4096;

const char* op_name(SendRecord::Op op) {
  switch (op) {
    case SendRecord::Op::Send: return "SEND";
    case SendRecord::Op::Write: return "RDMA WRITE";
    case SendRecord::Op::Read: return "RDMA READ";
    case SendRecord::Op::Atomic: return "FETCH_AND_ADD (a put_signal's signal)";
    case SendRecord::Op::Flush: return "flush (zero-byte RDMA WRITE)";
  }
  return "request";
}

bool fatal_event(ibv_event_type type) {
  switch (type) {
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_CQ_ERR:
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_DEVICE_FATAL:
      return true;
    default:
      return false;
  }
}

}  // namespace

VerbsTransport::VerbsTransport(Rank rank, Rank size, Seconds timeout, Fabric fabric)
    : rank_(rank), size_(size), idle_(timeout), f_(std::move(fabric)) {
  // Asynchronous events are read from progress() without blocking.
  for (const auto& device : f_.devices) {
    const int fd = device->context->async_fd;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  grants_due_.reserve(f_.endpoints.size());
  grants_left_.reserve(f_.endpoints.size());
  // Completions due at once: at most one per outstanding request; room for
  // the common case, grown (rarely) past it.
  std::size_t requests = 0;
  for (const auto& ep : f_.endpoints)
    requests += ep ? f_.lanes[ep->lane]->send_queue() : 0;
  due_.reserve(std::min<std::size_t>(requests, kDueReserve));
  running_.reserve(std::min<std::size_t>(requests, kDueReserve));
  idle_.restart(clock_now());
  last_alive_check_ = clock_now();
}

std::string VerbsTransport::where(const Endpoint& ep) const {
  return "verbs: lane " + f_.lanes[ep.lane]->name() + " to rank " + std::to_string(ep.peer);
}

void VerbsTransport::copy(std::byte* dst, const std::byte* src, Bytes n) {
  if (dst && src && n)
    std::memcpy(dst, src, n);
}

Status VerbsTransport::am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header,
                               ConstBuffer payload, AmMode mode, Completion done) {
  const std::lock_guard lock(mutex_);
  Endpoint* ep = endpoint(lane, peer);
  if (!failure().empty() || !ep)
    return Status::Error;
  const Bytes total = kWireHeader + header.size() + payload.size;
  if (total > kSegment || (payload.size && !payload.data)) {
    std::fprintf(stderr,
                 "xover: rank %u: verbs: refused an active message of %zu + %llu bytes to rank %u: one receive "
                 "segment holds %u with the %zu-byte wire header (and no phantom payloads)\n",
                 rank_, header.size(), static_cast<unsigned long long>(payload.size), peer, kSegment, kWireHeader);
    return Status::Error;
  }
  const bool zcopy = mode == AmMode::Zcopy && payload.size > 0;
  std::uint32_t payload_lkey = 0;
  if (zcopy && !local_key(lane, payload.data, payload.size, payload_lkey)) {
    std::fprintf(stderr, "xover: rank %u: verbs: an am zcopy of %llu bytes from unregistered memory (register it first)\n",
                 rank_, static_cast<unsigned long long>(payload.size));
    return Status::Error;
  }
  if (!ep->credits.can_send() || !ep->tracker.has_room())
    return Status::NoResource;
  Lane& l = *f_.lanes[lane];
  // Short messages go inline when they fit; bcopy, zcopy's headers and a
  // short message past the inline limit (control only) go from a bounce
  // buffer.
  const bool inline_data = mode == AmMode::Short && total <= ep->max_inline;
  std::uint32_t bounce = kNone;
  if (!inline_data) {
    bounce = l.bounce_pool().take();
    if (bounce == kNone) {
      flush_wanted_ = true;  // buffers held by unsignalled sends come back
      return Status::NoResource;
    }
  }
  std::array<std::byte, kWantInline> stack;
  std::byte* at = inline_data ? stack.data() : l.bounce(bounce);
  WireHeader h;
  h.kind = WireKind::Am;
  h.am_id = id;
  h.grant = ep->credits.piggyback();
  h.header_length = static_cast<std::uint16_t>(header.size());
  h.encode(at);
  if (!header.empty())
    std::memcpy(at + kWireHeader, header.data(), header.size());
  if (!zcopy && payload.size)
    std::memcpy(at + kWireHeader + header.size(), payload.data, payload.size);
  const Sge first{reinterpret_cast<std::uint64_t>(at),
                  static_cast<std::uint32_t>(zcopy ? kWireHeader + header.size() : total),
                  inline_data ? 0 : l.bounce_lkey()};
  std::optional<Sge> second;
  if (zcopy)
    second = Sge{reinterpret_cast<std::uint64_t>(payload.data), static_cast<std::uint32_t>(payload.size), payload_lkey};
  const std::uint32_t index = index_of(*ep);
  if (!post_one(*ep, SendRecord::Op::Send, bounce, zcopy ? std::move(done) : Completion{},
                bounce != kNone && l.bounce_pool().low(), "SEND", [&](const SendRecord& r) {
                  return send_wr(send_wr_id(index, r.sn), first, second, inline_data, r.signaled);
                }))
    return Status::Error;
  ep->credits.consume();
  ep->credits.granted(h.grant);
  return zcopy ? Status::InProgress : Status::Ok;
}

bool VerbsTransport::flushed() const {
  const std::lock_guard lock(mutex_);
  for (const auto& ep : f_.endpoints)
    if (ep && ep->tracker.outstanding() > 0) {
      flush_wanted_ = true;
      return false;
    }
  return true;
}

bool VerbsTransport::send_grant(Endpoint& ep) {
  if (!ep.tracker.has_room())
    return false;
  Lane& l = *f_.lanes[ep.lane];
  const bool inline_data = ep.max_inline >= kWireHeader;
  const std::uint32_t bounce = inline_data ? kNone : l.bounce_pool().take();
  if (!inline_data && bounce == kNone)
    return false;
  std::array<std::byte, kWireHeader> stack;
  std::byte* at = inline_data ? stack.data() : l.bounce(bounce);
  WireHeader h;
  h.kind = WireKind::Grant;
  h.grant = ep.credits.owed();
  h.encode(at);
  const Sge sge{reinterpret_cast<std::uint64_t>(at), kWireHeader, inline_data ? 0 : l.bounce_lkey()};
  const std::uint32_t index = index_of(ep);
  if (post_one(ep, SendRecord::Op::Send, bounce, {}, false, "credit grant", [&](const SendRecord& r) {
        return send_wr(send_wr_id(index, r.sn), sge, std::nullopt, inline_data, r.signaled);
      }))
    ep.credits.granted(h.grant);
  return true;  // sent, or the transport failed: nothing more to retry
}

void VerbsTransport::send_grants() {
  grants_left_.clear();
  for (const std::uint32_t index : grants_due_) {
    Endpoint& ep = *f_.endpoints[index];
    if (!failure().empty())
      break;
    // A message to the peer may have carried the grant meanwhile.
    if (!ep.credits.grant_due() || send_grant(ep))
      ep.grant_queued = false;
    else
      grants_left_.push_back(index);
  }
  grants_due_.swap(grants_left_);
}

void VerbsTransport::deliver(Endpoint& ep, std::uint32_t segment, std::uint32_t length) {
  WireMessage m;
  const std::byte* at = f_.lanes[ep.lane]->segment(segment);
  if (const std::string bad = decode_wire(at, length, ep.credits.send_window(), m); !bad.empty()) {
    abandon(where(ep) + ": the peer sent " + bad);
    return;
  }
  if (m.header.kind == WireKind::Probe) {
    abandon(where(ep) + ": the peer sent a wire-up probe after the wire-up");
    return;
  }
  if (!ep.credits.grant_in(m.header.grant)) {
    abandon(where(ep) + ": the peer granted " + std::to_string(m.header.grant) + " credits with " +
            std::to_string(ep.credits.credits()) + " of " + std::to_string(ep.credits.send_window()) + " in hand");
    return;
  }
  if (m.header.kind != WireKind::Am)
    return;
  ep.credits.arrived();
  if (ep.credits.grant_due() && !ep.grant_queued) {
    ep.grant_queued = true;
    grants_due_.push_back(index_of(ep));
  }
  if (const AmHandler& handler = handlers_[m.header.am_id])
    handler(AmMessage{ep.peer, ep.lane, m.am_header, ConstBuffer{m.payload.data(), m.payload.size()}});
}

bool VerbsTransport::poll_recv(std::size_t lane) {
  Lane& l = *f_.lanes[lane];
  std::array<ibv_wc, kPollBatch> wcs{};
  const int n = ibv_poll_cq(l.recv_cq(), static_cast<int>(kPollBatch), wcs.data());
  if (n < 0) {
    abandon("verbs: lane " + l.name() + ": ibv_poll_cq on the receive CQ failed");
    return false;
  }
  for (int i = 0; i < n && failure().empty(); ++i) {
    const ibv_wc& wc = wcs[static_cast<std::size_t>(i)];
    const auto it = f_.qp_endpoint[lane].find(wc.qp_num);
    if (wc.status != IBV_WC_SUCCESS) {
      abandon((it != f_.qp_endpoint[lane].end() ? where(*f_.endpoints[it->second]) : "verbs: lane " + l.name()) +
              ": a receive failed: " + wc_status_text(wc));
      break;
    }
    if (it == f_.qp_endpoint[lane].end() || wc.wr_id >= l.segments().count()) {
      abandon("verbs: lane " + l.name() + ": a receive completion for queue pair " + std::to_string(wc.qp_num) +
              ", segment " +
              std::to_string(wc.wr_id) + ", which this lane does not have");
      break;
    }
    deliver(*f_.endpoints[it->second], static_cast<std::uint32_t>(wc.wr_id), wc.byte_len);
    l.segments().consumed(static_cast<std::uint32_t>(wc.wr_id));
  }
  if (failure().empty())
    if (const int error = l.refill(); error != 0)
      abandon("verbs: lane " + l.name() + ": ibv_post_srq_recv failed: " + errno_text(error));
  return n > 0;
}

bool VerbsTransport::poll_send(std::size_t lane) {
  Lane& l = *f_.lanes[lane];
  std::array<ibv_wc, kPollBatch> wcs{};
  const int n = ibv_poll_cq(l.send_cq(), static_cast<int>(kPollBatch), wcs.data());
  if (n < 0) {
    abandon("verbs: lane " + l.name() + ": ibv_poll_cq on the send CQ failed");
    return false;
  }
  for (int i = 0; i < n && failure().empty(); ++i) {
    const ibv_wc& wc = wcs[static_cast<std::size_t>(i)];
    const std::uint32_t index = wr_endpoint(wc.wr_id);
    Endpoint* ep = index < f_.endpoints.size() ? f_.endpoints[index].get() : nullptr;
    if (!ep || ep->lane != lane) {
      abandon("verbs: lane " + l.name() + ": a send completion for no endpoint of this lane (wr_id " +
              std::to_string(wc.wr_id) + ")");
      break;
    }
    if (wc.status != IBV_WC_SUCCESS) {
      const SendRecord* record = ep->tracker.find(wr_sn(wc.wr_id));
      abandon(where(*ep) + ": " + (record ? op_name(record->op) : "a request") + " failed: " + wc_status_text(wc) +
              (wc.status == IBV_WC_RETRY_EXC_ERR ? "; is rank " + std::to_string(ep->peer) + " alive?" : ""));
      break;
    }
    const bool known = ep->tracker.complete_through(wr_sn(wc.wr_id), [&](SendRecord& r) {
      if (r.bounce != kNone)
        l.bounce_pool().give(r.bounce);
      if (r.done)
        due_.emplace_back(std::move(r.done), Status::Ok);
    });
    if (!known)
      abandon(where(*ep) + ": a send completion for request " + std::to_string(wr_sn(wc.wr_id)) +
              ", which is not outstanding");
  }
  return n > 0;
}

void VerbsTransport::flush_tails() {
  flush_wanted_ = false;
  for (const auto& ep : f_.endpoints) {
    if (!ep || !ep->tracker.tail_unsignaled() || !ep->tracker.has_room(true))
      continue;
    const std::uint32_t index = index_of(*ep);
    if (!post_one(*ep, SendRecord::Op::Flush, kNone, {}, true, "flush",
                  [&](const SendRecord& r) { return flush_wr(send_wr_id(index, r.sn)); }))
      return;
  }
}

void VerbsTransport::progress(Seconds) {
  const std::lock_guard lock(mutex_);
  if (in_progress_)
    return;  // called from a handler: the completion being delivered is not done
  if (failure().empty()) {
    in_progress_ = true;
    bool moved = false;
    for (std::size_t lane = 0; lane < f_.lanes.size() && failure().empty(); ++lane)
      moved |= poll_recv(lane);
    if (!grants_due_.empty())
      send_grants();
    for (std::size_t lane = 0; lane < f_.lanes.size() && failure().empty(); ++lane)
      moved |= poll_send(lane);
    if (flush_wanted_ && failure().empty())
      flush_tails();
    in_progress_ = false;
    if (moved)
      moved_ = true;
    const ProgressWatch::Due due = progress_watch_.tick(moved);
    if (due.events && failure().empty())
      check_async_events();
    if (due.clock && failure().empty())
      watch();
  }
  run_due();
}

void VerbsTransport::run_due() {
  // Completions may send, get or put again: they run once the queues are in
  // a steady state (or, failed, once everything pending is in due_).
  running_.swap(due_);
  for (auto& [done, status] : running_)
    if (done)
      done(status);
  running_.clear();
}

void VerbsTransport::check_async_events() {
  for (const auto& device : f_.devices) {
    ibv_async_event event{};
    while (ibv_get_async_event(device->context.get(), &event) == 0) {
      const ibv_event_type type = event.event_type;
      std::string what = "verbs: device " + device->name + ": " + ibv_event_type_str(type);
      if (type == IBV_EVENT_PORT_ERR)
        what += " on port " + std::to_string(event.element.port_num);
      if (type == IBV_EVENT_QP_FATAL || type == IBV_EVENT_QP_REQ_ERR || type == IBV_EVENT_QP_ACCESS_ERR)
        for (const auto& ep : f_.endpoints)
          if (ep && ep->qp.get() == event.element.qp)
            what = where(*ep) + ": " + ibv_event_type_str(type);
      ibv_ack_async_event(&event);
      if (fatal_event(type))
        abandon(what);
    }
  }
}

void VerbsTransport::watch() {
  const Seconds t = clock_now();
  const Seconds idle = idle_.look(t, moved_);
  moved_ = false;
  if (idle >= kAliveInterval && t - last_alive_check_ >= kAliveInterval) {
    last_alive_check_ = t;
    for (Rank r = 0; r < size_; ++r)
      if (r != rank_ && f_.peers[r].same_host && !process_alive(static_cast<int>(f_.peers[r].pid))) {
        abandon("verbs: rank " + std::to_string(r) + " (pid " + std::to_string(f_.peers[r].pid) + ") has gone");
        return;
      }
  }
  if (!idle_.expired(idle))
    return;
  // Name the peers this rank waits on: those with requests under way, or
  // every peer when none has (it waits for a message).
  std::vector<bool> waiting(size_, false);
  bool busy = false;
  for (const auto& ep : f_.endpoints)
    if (ep && ep->tracker.outstanding() > 0)
      busy = waiting[ep->peer] = true;
  std::string peers;
  for (Rank r = 0; r < size_; ++r)
    if (r != rank_ && (waiting[r] || !busy))
      peers += (peers.empty() ? " " : ", ") + std::to_string(r);
  if (peers.empty()) {
    idle_.restart(t);
    return;
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", idle_.timeout());
  abandon(std::string("verbs: nothing moved for ") + seconds + " s while waiting on rank(s)" + peers +
          (busy ? " (sends, gets or puts under way)" : " (for a message)") + "; are they alive?");
}

void VerbsTransport::abandon(std::string why) {
  if (!failure().empty())
    return;
  fail(std::move(why));
  for (const auto& ep : f_.endpoints)
    if (ep)
      ep->tracker.drain([&](SendRecord& r) {
        if (r.bounce != kNone)
          f_.lanes[ep->lane]->bounce_pool().give(r.bounce);
        if (r.done)
          due_.emplace_back(std::move(r.done), Status::Error);
      });
  grants_due_.clear();
}

}  // namespace xover::runtime::verbs
