// One lane of the TCP transport to one peer: a connected non-blocking
// socket, its queue of frames waiting for room in the kernel, and the
// receive state machine that cuts the byte stream into frames
// (tcp_frame.hpp) and hands each one to a FrameSink.
//
// Sending: a frame goes to the kernel at once when nothing waits before it
// (one sendmsg of header and payload); what the socket does not take is
// queued, copied (bcopy) or as a reference into the caller's buffer (zcopy),
// and written by flush() from progress(). A zcopy frame's completion runs
// once its last byte is in the kernel.
//
// Receiving: bytes are read into a staging buffer that holds one whole
// active message, and a handler sees the message in place there. The
// payload of a put or a get response goes from the stream straight into the
// memory it is for: what is staged is copied, the rest is read directly.
// Every length is checked against the limits before it is used; a frame that
// breaks them, a failed socket and an end of file that no Bye announced fail
// the connection (failure()): it reads and writes nothing more, and its
// transport fails in turn.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "protocols/core/transport.hpp"
#include "runtime/tcp/tcp_frame.hpp"

namespace xover::runtime::tcp {

class TcpConn;

/// The add a put_signal frame asks for once its payload is in.
struct SignalAdd {
  std::uint64_t key = 0;
  std::uint64_t index = 0;
  std::uint64_t value = 0;
};

/// Where the payload of a put lands.
struct RmaTarget {
  std::byte* data = nullptr;
  bool accepted = false;
};

/// Where a connection delivers the frames it reads. A callback that finds a
/// frame meaningless (an unknown request id, a wrong length) calls
/// TcpConn::malformed() and returns at once; the connection then stops.
class FrameSink {
 public:
  virtual void on_am(TcpConn& conn, AmId id, std::span<const std::byte> header, ConstBuffer payload) = 0;
  /// A put request: whether it may land and where its payload goes (a
  /// refused put's payload is read and dropped, then acknowledged as such).
  virtual RmaTarget on_put(TcpConn& conn, std::uint64_t key, std::uint64_t addr, Bytes length) = 0;
  /// The payload of a put is in (or discarded when `accepted` is false);
  /// `signal` is the add of a put_signal, null for a put.
  virtual void on_put_landed(TcpConn& conn, std::uint64_t id, bool accepted, const SignalAdd* signal) = 0;
  virtual void on_put_ack(TcpConn& conn, std::uint64_t id, RmaStatus status) = 0;
  virtual void on_get_request(TcpConn& conn, std::uint64_t id, std::uint64_t key, std::uint64_t addr, Bytes length) = 0;
  /// A get response: the buffer its `length` payload bytes go to (never null
  /// when length > 0).
  virtual std::byte* on_get_response(TcpConn& conn, std::uint64_t id, RmaStatus status, Bytes length) = 0;
  virtual void on_get_landed(TcpConn& conn, std::uint64_t id, RmaStatus status) = 0;

 protected:
  ~FrameSink() = default;
};

/// A completion that became due, to be called once the caller is done with
/// its own state.
using DueCompletion = std::pair<Completion, Status>;

class TcpConn {
 public:
  /// Takes `fd` (connected, non-blocking) and closes it on destruction.
  TcpConn(int fd, Rank peer, std::size_t lane, std::string lane_name);
  ~TcpConn();
  TcpConn(const TcpConn&) = delete;
  TcpConn& operator=(const TcpConn&) = delete;

  Rank peer() const { return peer_; }
  std::size_t lane() const { return lane_; }
  const std::string& lane_name() const { return lane_name_; }
  int fd() const { return fd_; }

  /// What send() did with a frame.
  enum class Sent {
    All,     ///< every byte went to the kernel at once; `done` is dropped and never runs
    Queued,  ///< the rest waits in the queue; `done` runs once it is written
    Failed,  ///< the socket failed (failure() says how); nothing was queued
  };
  /// Sends `head` (always copied) and then `payload`: copied when `copy`,
  /// otherwise referenced until `done` runs. `reply`: the frame answers the
  /// peer's request (a get response, a put ack), counted while it waits in
  /// the queue (replies_queued()).
  Sent send(std::span<const std::byte> head, ConstBuffer payload, bool copy, Completion done, bool reply = false);
  /// Writes what the socket takes from the queue; completions of frames
  /// finished go to `due`. Returns the bytes written.
  Bytes flush(std::vector<DueCompletion>& due);
  /// Empties the queue without writing it, each queued completion going to
  /// `due` with Error: what a failed transport does with what it holds.
  void drop_queue(std::vector<DueCompletion>& due);
  /// Reads what has arrived and delivers the frames to `sink`. Returns the
  /// bytes read.
  Bytes receive(FrameSink& sink);

  /// Says goodbye (a Bye frame) and writes out the queue for up to `limit`
  /// seconds, without reading: for tearing down.
  void close_gracefully(Seconds limit);

  bool queue_empty() const { return queue_.empty(); }
  /// Bytes waiting in the send queue (copied or referenced).
  Bytes queued_bytes() const { return queued_bytes_; }
  /// Replies waiting in the send queue: what the peer asked for and has not
  /// read yet.
  std::size_t replies_queued() const { return replies_queued_; }
  /// Whether a frame is part way in.
  bool receiving() const { return head_ != tail_ || direct_left_ > 0; }
  /// Whether the peer said Bye.
  bool peer_done() const { return peer_done_; }
  /// Whether the peer said Bye and then closed: nothing more to read.
  bool closed() const { return closed_; }
  /// Bytes written and read so far, for the idle timer.
  Bytes moved() const { return moved_; }

  /// Fails the connection: the peer sent something no sane peer sends.
  void malformed(const std::string& what);
  /// Fails the connection: the peer does what no sane peer does (`what`,
  /// said after "rank N ").
  void misbehaved(const std::string& what);
  /// Why the connection failed, or empty while it works.
  const std::string& failure() const { return failure_; }
  bool failed() const { return !failure_.empty(); }

 private:
  struct Out {
    std::vector<std::byte> bytes;        ///< frame header, header, and a copied payload
    const std::byte* zcopy = nullptr;    ///< a referenced payload
    Bytes zcopy_size = 0;
    Bytes sent = 0;
    Completion done;
    bool reply = false;
    Bytes size() const { return bytes.size() + zcopy_size; }
  };

  /// Fails the connection: the socket broke or closed without a Bye.
  void lost(int error);
  void fail(std::string what);
  /// One sendmsg of the queue's head frames: bytes written, 0 when the
  /// socket is full, -1 on a failed socket (errno set).
  long write_queue(std::vector<DueCompletion>* due);
  /// One recv; false when nothing more can be read now (or ever).
  bool read_into(std::byte* to, std::size_t n, Bytes& got);
  bool parse(FrameSink& sink);
  /// What is wrong with a frame header before its body is read; empty when
  /// nothing is.
  std::string check(const FrameHeader& frame) const;
  void start_direct(FrameSink& sink, FrameType type, std::uint64_t id, RmaStatus status, std::byte* to, Bytes length);
  void finish_direct(FrameSink& sink);

  int fd_;
  Rank peer_;
  std::size_t lane_;
  std::string lane_name_;
  bool peer_done_ = false;
  bool closed_ = false;
  std::string failure_;
  Bytes moved_ = 0;

  std::deque<Out> queue_;
  Bytes queued_bytes_ = 0;
  std::size_t replies_queued_ = 0;

  std::vector<std::byte> rx_;  ///< staging: holds a whole active message
  std::size_t head_ = 0;       ///< first staged byte not yet taken
  std::size_t tail_ = 0;       ///< end of the staged bytes
  std::size_t need_ = kFrameHeader;  ///< staged bytes the next step needs, from head_

  // A payload read straight into memory (a put's target, a get's buffer).
  FrameType direct_type_ = FrameType::Am;
  std::uint64_t direct_id_ = 0;
  RmaStatus direct_status_ = RmaStatus::Ok;
  SignalAdd direct_signal_;  ///< a put_signal's add
  std::byte* direct_ = nullptr;  ///< null: discard
  Bytes direct_left_ = 0;
};

}  // namespace xover::runtime::tcp
