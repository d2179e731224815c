// One lane of the TCP transport to one peer: send queue and receive state
// machine (tcp_conn.hpp).
#include "runtime/tcp/tcp_conn.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "base/clock.hpp"

namespace xover::runtime::tcp {
namespace {

/// Staging room: a whole active message with room to read ahead.
constexpr std::size_t kStaging = 4 * (kFrameHeader + kSegSize);
/// Frames gathered into one sendmsg.
constexpr int kMaxIov = 64;
/// recv calls per receive(): enough to drain a busy socket, few enough that
/// the other lanes and the sends get their turn.
constexpr int kReadsPerCall = 16;

bool would_block(int error) {
  return error == EAGAIN || error == EWOULDBLOCK;
}

}  // namespace

TcpConn::TcpConn(int fd, Rank peer, std::size_t lane, std::string lane_name)
    : fd_(fd), peer_(peer), lane_(lane), lane_name_(std::move(lane_name)), rx_(kStaging) {}

TcpConn::~TcpConn() {
  ::close(fd_);
}

void TcpConn::fail(std::string what) {
  if (failure_.empty())
    failure_ = std::move(what);
}

void TcpConn::lost(int error) {
  if (error == 0)
    fail("rank " + std::to_string(peer_) + " closed lane " + lane_name_ + " (did it die?)");
  else
    fail("rank " + std::to_string(peer_) + " closed lane " + lane_name_ + " (" + std::strerror(error) +
         "; did it die?)");
}

void TcpConn::malformed(const std::string& what) {
  fail("rank " + std::to_string(peer_) + " sent a malformed frame on lane " + lane_name_ + ": " + what);
}

void TcpConn::misbehaved(const std::string& what) {
  fail("rank " + std::to_string(peer_) + " " + what);
}

TcpConn::Sent TcpConn::send(std::span<const std::byte> head, ConstBuffer payload, bool copy, Completion done,
                            bool reply) {
  const Bytes total = head.size() + payload.size;
  Bytes sent = 0;
  if (queue_.empty()) {
    iovec iov[2] = {{const_cast<std::byte*>(head.data()), head.size()},
                    {const_cast<std::byte*>(payload.data), payload.size}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = payload.size > 0 ? 2 : 1;
    for (;;) {
      const ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0) {
        sent = static_cast<Bytes>(n);
        break;
      }
      if (would_block(errno))
        break;
      if (errno != EINTR) {
        lost(errno);
        return Sent::Failed;
      }
    }
    moved_ += sent;
    if (sent == total)
      return Sent::All;
  }
  Out out;
  out.bytes.assign(head.begin(), head.end());
  if (copy) {
    out.bytes.insert(out.bytes.end(), payload.data, payload.data + payload.size);
  } else {
    out.zcopy = payload.data;
    out.zcopy_size = payload.size;
  }
  out.sent = sent;
  out.done = std::move(done);
  out.reply = reply;
  replies_queued_ += reply ? 1 : 0;
  queued_bytes_ += total - sent;
  queue_.push_back(std::move(out));
  return Sent::Queued;
}

long TcpConn::write_queue(std::vector<DueCompletion>* due) {
  iovec iov[kMaxIov];
  int n = 0;
  Bytes offered = 0;
  for (auto it = queue_.begin(); it != queue_.end() && n + 2 <= kMaxIov; ++it) {
    Bytes at = it->sent;
    if (at < it->bytes.size()) {
      iov[n++] = {it->bytes.data() + at, it->bytes.size() - at};
      offered += it->bytes.size() - at;
      at = 0;
    } else {
      at -= it->bytes.size();
    }
    if (it->zcopy_size > at) {
      iov[n++] = {const_cast<std::byte*>(it->zcopy) + at, it->zcopy_size - at};
      offered += it->zcopy_size - at;
    }
  }
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = static_cast<std::size_t>(n);
  ssize_t written;
  do
    written = ::sendmsg(fd_, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
  while (written < 0 && errno == EINTR);
  if (written < 0)
    return would_block(errno) ? 0 : -1;
  Bytes left = static_cast<Bytes>(written);
  moved_ += left;
  queued_bytes_ -= left;
  while (left > 0) {
    Out& front = queue_.front();
    const Bytes rest = front.size() - front.sent;
    if (left < rest) {
      front.sent += left;
      break;
    }
    left -= rest;
    if (due && front.done)
      due->emplace_back(std::move(front.done), Status::Ok);
    replies_queued_ -= front.reply ? 1 : 0;
    queue_.pop_front();
  }
  // A short write means the socket is full: come back later.
  return static_cast<Bytes>(written) < offered ? 0 : static_cast<long>(written);
}

Bytes TcpConn::flush(std::vector<DueCompletion>& due) {
  const Bytes before = moved_;
  while (!queue_.empty()) {
    const long n = write_queue(&due);
    if (n < 0)
      lost(errno);
    if (n <= 0)
      break;
  }
  return moved_ - before;
}

void TcpConn::drop_queue(std::vector<DueCompletion>& due) {
  for (Out& out : queue_)
    if (out.done)
      due.emplace_back(std::move(out.done), Status::Error);
  queue_.clear();
  queued_bytes_ = 0;
  replies_queued_ = 0;
}

void TcpConn::close_gracefully(Seconds limit) {
  if (closed_ || failed())
    return;
  std::byte bye[kFrameHeader];
  FrameHeader{static_cast<std::uint8_t>(FrameType::Bye)}.encode(bye);
  Out out;
  out.bytes.assign(bye, bye + kFrameHeader);
  queued_bytes_ += kFrameHeader;
  queue_.push_back(std::move(out));
  const Seconds deadline = clock_now() + limit;
  while (!queue_.empty() && clock_now() < deadline) {
    const long n = write_queue(nullptr);
    if (n < 0)
      return;  // the peer is gone already: nothing to say goodbye to
    if (n == 0) {
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, 1);
    }
  }
  ::shutdown(fd_, SHUT_WR);
}

bool TcpConn::read_into(std::byte* to, std::size_t n, Bytes& got) {
  ssize_t r;
  do
    r = ::recv(fd_, to, n, MSG_DONTWAIT);
  while (r < 0 && errno == EINTR);
  if (r > 0) {
    got = static_cast<Bytes>(r);
    moved_ += got;
    return true;
  }
  if (r < 0 && would_block(errno))
    return false;
  // End of file or a failed socket: fine after a Bye, a lost peer otherwise.
  if (!peer_done_)
    lost(r == 0 ? 0 : errno);
  closed_ = true;
  return false;
}

Bytes TcpConn::receive(FrameSink& sink) {
  const Bytes before = moved_;
  for (int reads = 0; reads < kReadsPerCall && !closed_ && !failed();) {
    Bytes got = 0;
    if (direct_left_ > 0) {
      std::byte* to = direct_ ? direct_ : rx_.data();
      const std::size_t want = static_cast<std::size_t>(std::min<Bytes>(direct_left_, direct_ ? SSIZE_MAX : rx_.size()));
      ++reads;
      if (!read_into(to, want, got))
        break;
      if (direct_)
        direct_ += got;
      direct_left_ -= got;
      if (direct_left_ == 0)
        finish_direct(sink);
      continue;
    }
    if (parse(sink))
      continue;
    if (failed())
      break;
    // Make room for the `need_` bytes the next step wants from head_.
    if (head_ == tail_) {
      head_ = tail_ = 0;
    } else if (rx_.size() - head_ < need_) {
      std::memmove(rx_.data(), rx_.data() + head_, tail_ - head_);
      tail_ -= head_;
      head_ = 0;
    }
    ++reads;
    if (!read_into(rx_.data() + tail_, rx_.size() - tail_, got))
      break;
    tail_ += got;
  }
  return moved_ - before;
}

bool TcpConn::parse(FrameSink& sink) {
  need_ = kFrameHeader;
  const std::size_t staged = tail_ - head_;
  if (staged < kFrameHeader)
    return false;
  const std::byte* at = rx_.data() + head_;
  const FrameHeader frame = FrameHeader::decode(at);
  const auto type = static_cast<FrameType>(frame.type);
  const std::size_t hlen = frame.header_length;
  const Bytes plen = frame.payload_length;
  if (const std::string wrong = check(frame); !wrong.empty()) {
    malformed(wrong);
    return false;
  }
  need_ = kFrameHeader + hlen + (type == FrameType::Am ? plen : 0);
  if (staged < need_)
    return false;
  const std::byte* header = at + kFrameHeader;
  // The status word of a reply, checked before the frame is taken.
  const bool reply = type == FrameType::PutAck || type == FrameType::GetResponse;
  const std::uint64_t status_word = reply ? get_le(header + 8) : 0;
  if (status_word > static_cast<std::uint64_t>(RmaStatus::Refused)) {
    malformed("RMA status " + std::to_string(status_word));
    return false;
  }
  const auto status = static_cast<RmaStatus>(status_word);
  if (type == FrameType::GetRequest && get_le(header + 24) > kMaxZcopy) {
    malformed("get request of " + std::to_string(get_le(header + 24)) + " bytes (at most " +
              std::to_string(kMaxZcopy) + ")");
    return false;
  }
  if (type == FrameType::GetResponse && status != RmaStatus::Ok && plen != 0) {
    malformed("a refused get response carries " + std::to_string(plen) + " bytes");
    return false;
  }
  head_ += need_;
  need_ = kFrameHeader;
  switch (type) {
    case FrameType::Am:
      sink.on_am(*this, frame.am_id, {header, hlen}, {header + hlen, plen});
      break;
    case FrameType::PutRequest:
    case FrameType::PutSignal: {
      if (type == FrameType::PutSignal)
        direct_signal_ = {get_le(header + 24), get_le(header + 32), get_le(header + 40)};
      const RmaTarget target = sink.on_put(*this, get_le(header + 8), get_le(header + 16), plen);
      start_direct(sink, type, get_le(header), target.accepted ? RmaStatus::Ok : RmaStatus::Refused,
                   target.accepted ? target.data : nullptr, plen);
      break;
    }
    case FrameType::PutAck:
      sink.on_put_ack(*this, get_le(header), status);
      break;
    case FrameType::GetRequest:
      sink.on_get_request(*this, get_le(header), get_le(header + 8), get_le(header + 16), get_le(header + 24));
      break;
    case FrameType::GetResponse: {
      std::byte* to = sink.on_get_response(*this, get_le(header), status, plen);
      if (failed())
        return false;  // the sink found the response meaningless
      start_direct(sink, type, get_le(header), status, to, plen);
      break;
    }
    case FrameType::Bye:
      peer_done_ = true;
      break;
  }
  return !failed();
}

std::string TcpConn::check(const FrameHeader& frame) const {
  const auto type = static_cast<FrameType>(frame.type);
  const std::size_t hlen = frame.header_length;
  const Bytes plen = frame.payload_length;
  if (peer_done_)
    return "a frame after its Bye";
  if (frame.zero != 0)
    return "reserved field is " + std::to_string(frame.zero);
  if (type != FrameType::Am && frame.am_id != 0)
    return "active message id " + std::to_string(frame.am_id) + " on an RMA frame";
  auto expect = [&](const char* name, std::size_t header, Bytes max_payload) {
    if (hlen == header && plen <= max_payload)
      return std::string();
    return std::string(name) + " with a " + std::to_string(hlen) + "-byte header and a " + std::to_string(plen) +
           "-byte payload";
  };
  switch (type) {
    case FrameType::Am:
      if (hlen > kMaxAmHeader || plen > kSegSize - hlen)
        return "active message with a " + std::to_string(hlen) + "-byte header and a " + std::to_string(plen) +
               "-byte payload (at most " + std::to_string(kMaxAmHeader) + " and " + std::to_string(kSegSize) +
               " in all)";
      return "";
    case FrameType::PutRequest: return expect("put request", kPutRequestHeader, kMaxZcopy);
    case FrameType::PutSignal: return expect("put signal", kPutSignalHeader, kMaxZcopy);
    case FrameType::PutAck: return expect("put ack", kRmaReplyHeader, 0);
    case FrameType::GetRequest: return expect("get request", kGetRequestHeader, 0);
    case FrameType::GetResponse: return expect("get response", kRmaReplyHeader, kMaxZcopy);
    case FrameType::Bye: return expect("bye", 0, 0);
  }
  return "unknown frame type " + std::to_string(frame.type);
}

void TcpConn::start_direct(FrameSink& sink, FrameType type, std::uint64_t id, RmaStatus status, std::byte* to,
                           Bytes length) {
  const Bytes staged = std::min<Bytes>(tail_ - head_, length);
  if (to && staged > 0)
    std::memcpy(to, rx_.data() + head_, staged);
  head_ += staged;
  direct_type_ = type;
  direct_id_ = id;
  direct_status_ = status;
  direct_ = to ? to + staged : nullptr;
  direct_left_ = length - staged;
  if (direct_left_ == 0)
    finish_direct(sink);
}

void TcpConn::finish_direct(FrameSink& sink) {
  direct_ = nullptr;
  if (direct_type_ == FrameType::PutRequest || direct_type_ == FrameType::PutSignal)
    sink.on_put_landed(*this, direct_id_, direct_status_ == RmaStatus::Ok,
                       direct_type_ == FrameType::PutSignal ? &direct_signal_ : nullptr);
  else
    sink.on_get_landed(*this, direct_id_, direct_status_);
}

}  // namespace xover::runtime::tcp
