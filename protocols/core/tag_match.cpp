// Tag matching: messages between one pair of ranks are matched in the order
// they were sent, whatever protocol, lanes or fragment order carried them.
// The sender numbers its messages per peer; the receiver holds any message
// whose number has not come up yet and matches in number order, each against
// the posted receives (first posted first) or else the unexpected queue.
#include <algorithm>

#include "protocols/core/device_memory.hpp"
#include "protocols/core/worker.hpp"
#include "protocols/proto.hpp"

namespace xover {

bool Worker::arrive_expected(Rank source, Tag tag, std::uint64_t seq, ConstBuffer payload) {
  // A whole eager message whose turn it is, with a receive posted for it:
  // straight into the user buffer, no Incoming kept.
  PeerStates& peers = this->peers(source);
  if (seq != peers.expected(source))
    return false;
  Request* posted = take_posted(tag);
  if (!posted)
    return false;
  Request& r = *posted;
  peers.advance_expected(source);
  r.peer = source;
  r.tag = tag;
  r.length = payload.size;
  r.seq = seq;
  place(r, 0, payload);
  if (peers.window(source) != kNoWindow)
    match_in_order(source);  // later messages that came early
  complete(r, r.length > r.recv_buf.size ? Status::Error : Status::Ok);
  return true;
}

void Worker::arrive_eager(Rank source, Tag tag, std::uint64_t seq, ConstBuffer payload) {
  if (arrive_expected(source, tag, seq, payload))
    return;
  Incoming in;
  in.source = source;
  in.tag = tag;
  in.seq = seq;
  in.size = payload.size;
  arrive(in, 0, payload);
}

void Worker::arrive(const Incoming& header, Bytes offset, ConstBuffer payload) {
  if (offset == 0 && !header.rndv && payload.size == header.size &&
      arrive_expected(header.source, header.tag, header.seq, payload))
    return;
  Incoming* in = live(header.source, header.seq);
  if (!in) {
    if (header.seq < peers(header.source).expected(header.source)) {
      // A fragment of a message whose turn is past but which is gone: a
      // duplicate or a corrupt header. Drop it.
      ++stats_.bad_headers;
      return;
    }
    in = make_live(header);
    if (!in) {
      ++stats_.bad_headers;
      return;
    }
  } else if (in->size != header.size || in->tag != header.tag) {
    ++stats_.bad_headers;
    return;
  }
  match_in_order(header.source);
  // Matching may have finished the message (an empty one) or handed it to
  // its rendezvous stages; only eager bytes remain to place.
  in = live(header.source, header.seq);
  if (in && !in->rndv)
    deliver(*in, offset, payload);
}

void Worker::match_in_order(Rank source) {
  PeerStates& peers = this->peers(source);
  for (;;) {
    Incoming* next = live(source, peers.expected(source));
    if (!next || next->matched)
      return;
    Incoming& in = *next;
    in.matched = true;
    peers.advance_expected(source);
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
  // one is taken without the general erase.
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
  const Transport::MessageScope scope(transport_, r.length, r.peer);
  if (r.mem == MemType::Host)
    transport_.copy(r.recv_buf.slice(offset, fit).data, payload.data, fit);
  else if (fit > 0 && !transport_.device_memory()->to_device(r.recv_buf.slice(offset, fit).data, payload.data, fit))
    r.status = Status::Error;
  r.received += fit;
}

void Worker::bind(Incoming& in, Request& r) {
  adopt(r, in);
  in.request = &r;
  if (in.rndv) {
    r.protocol = in.rndv;
    r.tail_used = true;
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
    const Transport::MessageScope scope(transport_, in.size, in.source);
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

Incoming* Worker::live(Rank source, std::uint64_t seq) {
  const std::uint32_t window = peers(source).window(source);
  if (window == kNoWindow)
    return nullptr;
  const LiveWindow& w = windows_[window];
  if (seq < w.base || seq - w.base >= w.slots.size() - w.head)
    return nullptr;
  return w.slots[w.head + (seq - w.base)];
}

Incoming* Worker::make_live(const Incoming& header) {
  PeerStates& peers = this->peers(header.source);
  const std::uint64_t expected = peers.expected(header.source);
  if (header.seq - expected >= kMaxEarly)
    return nullptr;
  std::uint32_t window = peers.window(header.source);
  if (window == kNoWindow) {
    if (free_windows_.empty()) {
      free_windows_.push_back(static_cast<std::uint32_t>(windows_.size()));
      windows_.emplace_back();
    }
    window = free_windows_.back();
    free_windows_.pop_back();
    peers.set_window(header.source, window);
    LiveWindow& fresh = windows_[window];
    fresh.slots.clear();
    fresh.head = 0;
    fresh.base = expected;
    fresh.count = 0;
  }
  LiveWindow& w = windows_[window];
  const std::size_t slot = w.head + (header.seq - w.base);
  if (slot >= w.slots.size())
    w.slots.resize(slot + 1, nullptr);
  if (spare_incoming_.empty()) {
    incoming_pool_.push_back(std::make_unique<Incoming>());
    spare_incoming_.push_back(incoming_pool_.back().get());
  }
  Incoming* in = spare_incoming_.back();
  spare_incoming_.pop_back();
  *in = header;  // keeps the capacity of the pooled Incoming's vectors
  w.slots[slot] = in;
  ++w.count;
  return in;
}

void Worker::forget(const Incoming& in) {
  PeerStates& peers = this->peers(in.source);
  const std::uint32_t window = peers.window(in.source);
  LiveWindow& w = windows_[window];
  Incoming*& slot = w.slots[w.head + (in.seq - w.base)];
  spare_incoming_.push_back(slot);
  slot = nullptr;
  if (--w.count == 0) {
    free_windows_.push_back(window);
    peers.set_window(in.source, kNoWindow);
    return;
  }
  while (!w.slots[w.head] && w.base < peers.expected(in.source)) {
    ++w.head;
    ++w.base;
  }
  if (w.head > 64 && 2 * w.head > w.slots.size()) {
    w.slots.erase(w.slots.begin(), w.slots.begin() + static_cast<std::ptrdiff_t>(w.head));
    w.head = 0;
  }
}

void Worker::buffer_bytes(std::ptrdiff_t delta) {
  stats_.buffered_now = static_cast<Bytes>(static_cast<std::ptrdiff_t>(stats_.buffered_now) + delta);
  stats_.buffered_peak = std::max(stats_.buffered_peak, stats_.buffered_now);
}

}  // namespace xover
