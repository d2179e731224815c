// Tag matching: messages between one pair of ranks are matched in the order
// they were sent, whatever protocol, lanes or fragment order carried them.
// The sender numbers its messages per peer; the receiver holds any message
// whose number has not come up yet and matches in number order, each against
// the posted receives (first posted first) or else the unexpected queue.
#include <algorithm>

#include "protocols/core/worker.hpp"
#include "protocols/proto.hpp"

namespace xover {

bool Worker::arrive_expected(const Incoming& header, ConstBuffer payload) {
  // A whole eager message whose turn it is, with a receive posted for it:
  // straight into the user buffer, no Incoming kept.
  std::uint64_t& next = peer(header.source).expected;
  if (header.seq != next || header.rndv || payload.size != header.size)
    return false;
  Request* posted = take_posted(header.tag);
  if (!posted)
    return false;
  Request& r = *posted;
  ++next;
  adopt(r, header);
  place(r, 0, payload);
  if (!live_.empty())
    match_in_order(header.source);  // later messages that came early
  complete(r, r.length > r.recv_buf.size ? Status::Error : Status::Ok);
  return true;
}

void Worker::arrive(const Incoming& header, Bytes offset, ConstBuffer payload) {
  if (offset == 0 && arrive_expected(header, payload))
    return;
  const auto key = std::make_pair(header.source, header.seq);
  auto it = live_.find(key);
  if (it == live_.end()) {
    if (header.seq < peer(header.source).expected) {
      // A fragment of a message whose turn is past but which is gone: a
      // duplicate or a corrupt header. Drop it.
      ++stats_.bad_headers;
      return;
    }
    it = live_.emplace(key, std::make_unique<Incoming>(header)).first;
  } else if (it->second->size != header.size || it->second->tag != header.tag) {
    ++stats_.bad_headers;
    return;
  }
  match_in_order(header.source);
  // Matching may have finished the message (an empty one) or handed it to
  // its rendezvous stages; only eager bytes remain to place.
  it = live_.find(key);
  if (it != live_.end() && !it->second->rndv)
    deliver(*it->second, offset, payload);
}

void Worker::match_in_order(Rank source) {
  std::uint64_t& expected = peer(source).expected;
  for (;;) {
    auto it = live_.find({source, expected});
    if (it == live_.end() || it->second->matched)
      return;
    Incoming& in = *it->second;
    in.matched = true;
    ++expected;
    if (Request* r = take_posted(in.tag)) {
      bind(in, *r);
    } else {
      ++stats_.unexpected;
      unexpected_.push_back(&in);
    }
  }
}

Request* Worker::take_posted(Tag tag) {
  // Receives are mostly matched in the order they were posted: the first
  // one is taken without the deque's general erase.
  if (posted_.empty())
    return nullptr;
  if (Request* first = posted_.front(); tag_matches(*first, tag)) {
    posted_.pop_front();
    return first;
  }
  auto it = std::find_if(std::next(posted_.begin()), posted_.end(), [&](Request* r) { return tag_matches(*r, tag); });
  if (it == posted_.end())
    return nullptr;
  Request* r = *it;
  posted_.erase(it);
  return r;
}

void Worker::adopt(Request& r, const Incoming& in) {
  r.peer = in.source;
  r.tag = in.tag;
  r.length = in.size;
  r.seq = in.seq;
}

void Worker::place(Request& r, Bytes offset, ConstBuffer payload) {
  const Bytes fit = offset < r.recv_buf.size ? std::min(payload.size, r.recv_buf.size - offset) : 0;
  transport_.copy(r.recv_buf.slice(offset, fit).data, payload.data, fit);
  r.received += fit;
}

void Worker::bind(Incoming& in, Request& r) {
  adopt(r, in);
  in.request = &r;
  if (in.rndv) {
    r.protocol = in.rndv;
    r.remote = in.remote;
    r.remote_id = in.remote_id;
    r.lanes.clear();
    for (std::size_t lane : in.remote_lanes)
      r.lanes.push_back({lane, 0});
    const Protocol* protocol = in.rndv;
    forget(in);
    protocol->recv_start(*this, r);
    return;
  }
  // Eager bytes that came before the receive move into the user buffer.
  for (const Incoming::Piece& piece : in.held) {
    place(r, piece.offset, {piece.bytes.empty() ? nullptr : piece.bytes.data(), piece.length});
    buffer_bytes(-static_cast<std::ptrdiff_t>(piece.length));
  }
  in.held.clear();
  finish_if_complete(in);
}

void Worker::deliver(Incoming& in, Bytes offset, ConstBuffer payload) {
  // A fragment past the message, or over bytes already in, is a corrupt
  // peer's: counted twice, it would complete a message with a hole.
  if (offset > in.size || payload.size > in.size - offset || !in.arrived.add(offset, payload.size)) {
    ++stats_.bad_headers;
    return;
  }
  if (Request* r = in.request) {
    place(*r, offset, payload);
  } else {
    // Held as it came: the size in the header is the peer's word, and
    // nothing is allocated for bytes that have not arrived.
    Incoming::Piece& piece = in.held.emplace_back();
    piece.offset = offset;
    piece.length = payload.size;
    if (payload.data)
      piece.bytes.resize(payload.size);
    transport_.copy(piece.bytes.empty() ? nullptr : piece.bytes.data(), payload.data, payload.size);
    buffer_bytes(static_cast<std::ptrdiff_t>(payload.size));
  }
  finish_if_complete(in);
}

void Worker::finish_if_complete(Incoming& in) {
  if (!in.request || in.arrived.bytes() < in.size)
    return;
  Request& r = *in.request;
  forget(in);
  complete(r, r.length > r.recv_buf.size ? Status::Error : Status::Ok);
}

void Worker::forget(const Incoming& in) {
  live_.erase({in.source, in.seq});
}

void Worker::buffer_bytes(std::ptrdiff_t delta) {
  stats_.buffered_now = static_cast<Bytes>(static_cast<std::ptrdiff_t>(stats_.buffered_now) + delta);
  stats_.buffered_peak = std::max(stats_.buffered_peak, stats_.buffered_now);
}

}  // namespace xover
