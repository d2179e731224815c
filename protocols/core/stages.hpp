// Helpers shared by the protocols' stages: sending a header-only control
// message on the AM lane, sending a buffer as fragments, and the
// bookkeeping of multi-part sends.
#pragma once

#include <functional>
#include <vector>

#include "protocols/core/worker.hpp"
#include "protocols/proto.hpp"
#include "protocols/wire.hpp"

namespace xover::stages {

/// Sends a header-only active message to `peer` on its AM lane, in order
/// behind earlier sends: inline (short) when the header fits the lane's
/// max_short, else copied (bcopy). It serves a message of `message` bytes,
/// whose pace its bytes take (Transport::MessageScope). `on_error` runs if
/// the transport fails.
void send_control(Worker& worker, Rank peer, Bytes message, AmId kind, const wire::ControlHeader& header,
                  std::function<void()> on_error);

/// One more part of `req` is in flight.
inline void part_started(Request& req) {
  ++req.outstanding;
}

/// One part of `req` is done; when it was the last and every part has been
/// handed over (`req.offset == req.length` or the stage says so), the
/// request completes and releases its registrations.
void part_done(Worker& worker, Request& req, Status status, bool all_handed_over);

/// Sends `req`'s buffer as fragments of `payload` bytes (at least one, maybe
/// empty, so that every message is seen), back to back, each on the next
/// lane of `req.lanes` by weight, with the header `header(writer, offset)`
/// writes. The request completes when every fragment is handed over (short,
/// bcopy) or released (zcopy), and releases its registrations.
void send_fragments(Worker& worker, Request& req, AmId kind, AmMode mode, Bytes payload,
                    const std::function<void(wire::FragmentHeader&, Bytes offset)>& header);

/// At a sender: an RTR {sender request, receiver request} for a send of
/// `protocol` waiting in its stage `waiting`, which moves on to `next`.
/// Returns the send, and the receiver's request in `receiver`; null (and a
/// bad header counted) when it fits no such send, a second RTR among them.
template <ProtoStage S>
Request* take_rtr(Worker& worker, const AmMessage& msg, const Protocol& protocol, S waiting, S next,
                  Request::Id& receiver) {
  wire::HeaderReader header(msg.header);
  Request* req = worker.find(static_cast<Request::Id>(header.get()), RequestKind::Send);
  receiver = static_cast<Request::Id>(header.get());
  if (!header.exact() || !req || req->protocol != &protocol || req->peer != msg.source ||
      req->stage<S>() != waiting) {
    worker.count_bad_header();
    return nullptr;
  }
  req->set_stage(next);
  return req;
}

/// At a receiver: a data fragment {receiver request, offset} + payload of a
/// receive carried by `protocol` and in its stage `stage`. Placed into the
/// receive's buffer, each byte once (a repeated fragment is refused, its
/// `arrived` holds what came); the receive completes when every byte is in.
/// A fragment that fits no such receive is counted as a bad header.
template <ProtoStage S>
void take_fragment(Worker& worker, const AmMessage& msg, const Protocol& protocol, S stage) {
  wire::HeaderReader header(msg.header);
  Request* req = worker.find(static_cast<Request::Id>(header.get()), RequestKind::Recv);
  const Bytes offset = header.get();
  if (!header.exact() || !req || req->protocol != &protocol || req->stage<S>() != stage || req->peer != msg.source ||
      offset > req->length || msg.payload.size > req->length - offset) {
    worker.count_bad_header();
    return;
  }
  req->tail_used = true;
  if (!req->arrived.add(offset, msg.payload.size)) {
    worker.count_bad_header();
    return;
  }
  worker.place(*req, offset, msg.payload);
  if (req->arrived.bytes() == req->length)
    worker.complete(*req, req->length > req->recv_buf.size ? Status::Error : Status::Ok);
}

}  // namespace xover::stages
