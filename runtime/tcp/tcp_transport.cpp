// The TCP transport's data path (tcp_transport.hpp): active messages, gets,
// puts and put_signals over the lanes that tcp_wireup.cpp set up, the
// registration table that guards this rank's memory, its signal words, and
// the watch on silent peers. A failed lane or a silent peer fails the whole
// transport (abandon()).
//
// Threads: every call takes one recursive lock, so that put_signal may come
// from several threads while one is in progress() (transport.hpp);
// recursive, because handlers and completions that progress() runs send
// again. runtime/README.md gives what was measured to choose it.
#include "runtime/tcp/tcp_transport.hpp"

#include <poll.h>
#include <sys/random.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "runtime/common.hpp"
#include "runtime/tcp/tcp_conn.hpp"
#include "runtime/tcp/tcp_wireup.hpp"

namespace xover::runtime {
namespace tcp {
namespace {

/// Bytes queued to one lane beyond which a send answers NoResource.
constexpr Bytes kMaxQueued = 8 << 20;
/// Replies (get responses, put acks) queued to one lane, unread by the
/// peer that asked for them, beyond which that peer is failed: a get
/// request of 40 bytes costs its answer's frame in memory here (its payload
/// is referenced, not copied), so a peer that asks and never reads would
/// otherwise grow the queue without end. A peer that reads as it asks
/// keeps the queue as short as its requests in flight.
constexpr std::size_t kMaxQueuedReplies = 65536;
/// Above this many lanes in all, progress() asks poll() which sockets have
/// something to read instead of trying each one.
constexpr std::size_t kPollAbove = 4;
/// How long the destructor tries to write out what is queued.
constexpr Seconds kCloseLimit = 2;
/// Signal words a transport hands out.
constexpr std::size_t kSignalWords = 64;

class TcpTransport final : public Transport, private FrameSink {
 public:
  TcpTransport(Rank rank, Rank size, Seconds timeout, Wiring wiring);
  ~TcpTransport() override;
  TcpTransport(const TcpTransport&) = delete;
  TcpTransport& operator=(const TcpTransport&) = delete;

  Rank rank() const override { return rank_; }
  Rank size() const override { return size_; }
  const Path& path(Rank peer) const override { return paths_.at(peer); }
  void set_am_handler(AmId id, AmHandler handler) override { handlers_[id] = std::move(handler); }
  Status am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload,
                 AmMode mode, Completion done) override;
  Status get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion done) override;
  Status put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, Completion done) override;
  Status put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                    std::uint64_t value, Completion done) override;
  /// A word of this process's memory; the signal's key is this transport's
  /// own random one, its address the word's index.
  SignalWord signal_word() override;
  MemoryRegion reg(Rank peer, std::size_t lane, const std::byte* base, Bytes size) override;
  void dereg(const MemoryRegion& region) override {
    const std::lock_guard lock(mutex_);
    regions_.erase(region.key);
  }
  RemoteAddr remote_addr(const MemoryRegion& region, const std::byte* base) const override {
    return {region.key, reinterpret_cast<std::uint64_t>(base)};
  }
  void copy(std::byte* dst, const std::byte* src, Bytes n) override {
    if (dst && src && n)
      std::memcpy(dst, src, n);
  }
  void progress(Seconds deadline) override;
  Seconds now() const override { return clock_now(); }
  bool flushed() const override {
    const std::lock_guard lock(mutex_);
    return acks_.empty() &&
           std::all_of(live_.begin(), live_.end(), [](const TcpConn* c) { return c->queue_empty(); });
  }

  /// The socket of a lane, -1 when there is none.
  int lane_socket(Rank peer, std::size_t lane) {
    TcpConn* c = conn(lane, peer);
    return c ? c->fd() : -1;
  }

 private:
  struct Region {
    const std::byte* base = nullptr;
    Bytes size = 0;
    Rank peer = 0;  ///< the only rank that may read or write it
  };
  struct PendingGet {
    TcpConn* conn = nullptr;
    std::byte* to = nullptr;
    Bytes size = 0;
    Completion done;
  };
  struct PendingPut {
    TcpConn* conn = nullptr;
    Completion done;
  };

  void on_am(TcpConn& conn, AmId id, std::span<const std::byte> header, ConstBuffer payload) override;
  RmaTarget on_put(TcpConn& conn, std::uint64_t key, std::uint64_t addr, Bytes length) override;
  void on_put_landed(TcpConn& conn, std::uint64_t id, bool accepted, const SignalAdd* signal) override;
  void on_put_ack(TcpConn& conn, std::uint64_t id, RmaStatus status) override;
  void on_get_request(TcpConn& conn, std::uint64_t id, std::uint64_t key, std::uint64_t addr, Bytes length) override;
  std::byte* on_get_response(TcpConn& conn, std::uint64_t id, RmaStatus status, Bytes length) override;
  void on_get_landed(TcpConn& conn, std::uint64_t id, RmaStatus status) override;

  /// The lane to `peer` that may carry a new operation, or null.
  TcpConn* conn(std::size_t lane, Rank peer) {
    if (peer >= size_ || peer == rank_ || lane >= lanes_)
      return nullptr;
    TcpConn* c = conns_[peer * lanes_ + lane].get();
    return c->peer_done() ? nullptr : c;
  }
  /// The memory a peer's get or put names, when it may touch it; null
  /// otherwise (after saying why on stderr).
  std::byte* reachable(const TcpConn& conn, const char* what, std::uint64_t key, std::uint64_t addr, Bytes length);
  /// Sends a frame of this transport's own (a reply): never refused.
  void send_reply(TcpConn& conn, FrameType type, std::uint64_t id, RmaStatus status, ConstBuffer payload);
  void watch_idle();
  /// Fails the transport with `why`, once: every pending completion is
  /// called with Error and nothing more moves.
  void abandon(std::string why);
  /// An unguessable registration key.
  std::uint64_t fresh_key();

  Rank rank_;
  Rank size_;
  IdleWatch idle_;
  std::size_t lanes_;
  std::vector<Path> paths_;
  std::vector<std::unique_ptr<TcpConn>> conns_;  ///< [peer * lanes_ + lane]; null toward this rank
  std::vector<TcpConn*> live_;                   ///< the non-null ones
  std::vector<pollfd> polls_;                    ///< one per live_ entry
  std::array<AmHandler, 256> handlers_;
  std::unordered_map<std::uint64_t, Region> regions_;
  std::array<std::uint64_t, 256> key_pool_{};
  std::size_t keys_left_ = 0;
  std::unordered_map<std::uint64_t, PendingGet> gets_;
  std::unordered_map<std::uint64_t, PendingPut> puts_;
  std::uint64_t next_op_ = 1;
  std::vector<DueCompletion> due_;
  std::vector<DueCompletion> running_;
  bool in_io_ = false;
  Bytes moved_ = 0;       ///< bytes moved on all lanes at the last look
  /// Acks of put_signals, sent at the next progress(): the thread that
  /// waits for its signal sees it without waiting for the ack's sendmsg.
  std::vector<std::pair<TcpConn*, std::pair<std::uint64_t, RmaStatus>>> acks_;
  std::unique_ptr<std::uint64_t[]> signals_{new std::uint64_t[kSignalWords]()};
  std::size_t signals_given_ = 0;
  std::uint64_t signal_key_ = 0;
  mutable std::recursive_mutex mutex_;
};

TcpTransport::TcpTransport(Rank rank, Rank size, Seconds timeout, Wiring wiring)
    : rank_(rank), size_(size), idle_(timeout), lanes_(wiring.lane_names.size()), paths_(std::move(wiring.paths)),
      conns_(static_cast<std::size_t>(size) * lanes_) {
  for (Rank peer = 0; peer < size; ++peer)
    for (std::size_t lane = 0; lane < wiring.fds[peer].size(); ++lane) {
      auto& c = conns_[peer * lanes_ + lane];
      c = std::make_unique<TcpConn>(wiring.fds[peer][lane], peer, lane, wiring.lane_names[lane]);
      live_.push_back(c.get());
      polls_.push_back({c->fd(), POLLIN, 0});
    }
  // Registration costs a random key and a table entry: time it.
  constexpr int kRegs = 256;
  const std::byte probe{};
  const Seconds t0 = clock_now();
  for (int i = 0; i < kRegs; ++i)
    dereg(reg(0, 0, &probe, 1));
  const Seconds reg_cost = (clock_now() - t0) / kRegs;
  for (Path& path : paths_) {
    for (LaneAttrs& lane : path.lanes)
      lane.reg_cost = reg_cost;
  }
  signal_key_ = fresh_key();
  idle_.restart(clock_now());
}

TcpTransport::~TcpTransport() {
  const Seconds deadline = clock_now() + kCloseLimit;
  for (TcpConn* c : live_)
    c->close_gracefully(std::max(0.0, deadline - clock_now()));
}

Status TcpTransport::am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header,
                             ConstBuffer payload, AmMode mode, Completion done) {
  const std::lock_guard lock(mutex_);
  TcpConn* c = conn(lane, peer);
  if (!c || !failure().empty())
    return Status::Error;
  const Bytes limit = mode == AmMode::Short ? kMaxShort : mode == AmMode::Bcopy ? kMaxBcopy : kSegSize;
  if (header.size() > kMaxAmHeader || header.size() + payload.size > limit || (payload.size && !payload.data))
    return Status::Error;
  if (c->queued_bytes() > kMaxQueued)
    return Status::NoResource;
  std::array<std::byte, kFrameHeader + kMaxAmHeader> head;
  FrameHeader{static_cast<std::uint8_t>(FrameType::Am), id, static_cast<std::uint16_t>(header.size()), 0, payload.size}
      .encode(head.data());
  if (!header.empty())
    std::memcpy(head.data() + kFrameHeader, header.data(), header.size());
  const bool zcopy = mode == AmMode::Zcopy;
  const std::span<const std::byte> frame{head.data(), kFrameHeader + header.size()};
  switch (c->send(frame, payload, !zcopy, zcopy ? std::move(done) : Completion{})) {
    case TcpConn::Sent::All:
      return Status::Ok;  // all in the kernel already: the buffer is free
    case TcpConn::Sent::Queued:
      return zcopy ? Status::InProgress : Status::Ok;
    case TcpConn::Sent::Failed:
      break;
  }
  abandon(c->failure());
  return Status::Error;
}

Status TcpTransport::get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion done) {
  const std::lock_guard lock(mutex_);
  TcpConn* c = conn(lane, peer);
  if (!c || !failure().empty() || local.size > kMaxZcopy || (local.size && !local.data))
    return Status::Error;
  if (local.size == 0)
    return Status::Ok;
  if (c->queued_bytes() > kMaxQueued)
    return Status::NoResource;
  const std::uint64_t id = next_op_++;
  std::array<std::byte, kFrameHeader + kGetRequestHeader> head;
  FrameHeader{static_cast<std::uint8_t>(FrameType::GetRequest), 0, kGetRequestHeader, 0, 0}.encode(head.data());
  put_le(head.data() + kFrameHeader, id);
  put_le(head.data() + kFrameHeader + 8, remote.key);
  put_le(head.data() + kFrameHeader + 16, remote.addr);
  put_le(head.data() + kFrameHeader + 24, local.size);
  if (c->send(head, {}, true, {}) == TcpConn::Sent::Failed) {
    abandon(c->failure());
    return Status::Error;
  }
  gets_.emplace(id, PendingGet{c, local.data, local.size, std::move(done)});
  return Status::InProgress;
}

Status TcpTransport::put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, Completion done) {
  const std::lock_guard lock(mutex_);
  TcpConn* c = conn(lane, peer);
  if (!c || !failure().empty() || local.size > kMaxZcopy || (local.size && !local.data))
    return Status::Error;
  if (c->queued_bytes() > kMaxQueued)
    return Status::NoResource;
  const std::uint64_t id = next_op_++;
  std::array<std::byte, kFrameHeader + kPutRequestHeader> head;
  FrameHeader{static_cast<std::uint8_t>(FrameType::PutRequest), 0, kPutRequestHeader, 0, local.size}.encode(
      head.data());
  put_le(head.data() + kFrameHeader, id);
  put_le(head.data() + kFrameHeader + 8, remote.key);
  put_le(head.data() + kFrameHeader + 16, remote.addr);
  // Complete when the target says the bytes are in its memory (or refused
  // them), as an RDMA write completes once flushed.
  if (c->send(head, local, false, {}) == TcpConn::Sent::Failed) {
    abandon(c->failure());
    return Status::Error;
  }
  puts_.emplace(id, PendingPut{c, std::move(done)});
  return Status::InProgress;
}

Status TcpTransport::put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                                std::uint64_t value, Completion done) {
  const std::lock_guard lock(mutex_);
  TcpConn* c = conn(lane, peer);
  if (!c || !failure().empty() || local.size > kMaxZcopy || (local.size && !local.data))
    return Status::Error;
  if (c->queued_bytes() > kMaxQueued)
    return Status::NoResource;
  const std::uint64_t id = next_op_++;
  std::array<std::byte, kFrameHeader + kPutSignalHeader> head;
  FrameHeader{static_cast<std::uint8_t>(FrameType::PutSignal), 0, kPutSignalHeader, 0, local.size}.encode(head.data());
  const std::uint64_t words[] = {id, remote.key, remote.addr, signal.key, signal.addr, value};
  for (std::size_t i = 0; i < 6; ++i)
    put_le(head.data() + kFrameHeader + 8 * i, words[i]);
  if (c->send(head, local, false, {}) == TcpConn::Sent::Failed) {
    abandon(c->failure());
    return Status::Error;
  }
  puts_.emplace(id, PendingPut{c, std::move(done)});
  return Status::InProgress;
}

SignalWord TcpTransport::signal_word() {
  const std::lock_guard lock(mutex_);
  if (signals_given_ == kSignalWords)
    return {};
  const std::size_t index = signals_given_++;
  return {&signals_[index], {signal_key_, index}};
}

std::uint64_t TcpTransport::fresh_key() {
  if (keys_left_ == 0) {
    // The kernel's random bytes, a pool at a time: one system call per 256
    // registrations.
    auto* bytes = reinterpret_cast<char*>(key_pool_.data());
    for (std::size_t got = 0; got < sizeof key_pool_;) {
      const ssize_t n = getrandom(bytes + got, sizeof key_pool_ - got, 0);
      if (n > 0)
        got += static_cast<std::size_t>(n);
    }
    keys_left_ = key_pool_.size();
  }
  return key_pool_[--keys_left_];
}

MemoryRegion TcpTransport::reg(Rank peer, std::size_t, const std::byte* base, Bytes size) {
  const std::lock_guard lock(mutex_);
  std::uint64_t key = 0;
  while (key == 0 || regions_.contains(key))
    key = fresh_key();
  regions_.emplace(key, Region{base, size, peer});
  return {key, base, size};
}

std::byte* TcpTransport::reachable(const TcpConn& conn, const char* what, std::uint64_t key, std::uint64_t addr,
                                   Bytes length) {
  auto it = regions_.find(key);
  const char* why = nullptr;
  if (it == regions_.end() || it->second.peer != conn.peer()) {
    why = "no region with that key is registered for it";
  } else {
    const auto base = reinterpret_cast<std::uint64_t>(it->second.base);
    if (addr < base || addr - base > it->second.size || length > it->second.size - (addr - base))
      why = "the range is not inside the region";
  }
  if (!why)
    return reinterpret_cast<std::byte*>(addr);
  std::fprintf(stderr, "xover: rank %u: tcp: refused a %s of %llu bytes from rank %u: %s\n", rank_, what,
               static_cast<unsigned long long>(length), conn.peer(), why);
  return nullptr;
}

void TcpTransport::send_reply(TcpConn& conn, FrameType type, std::uint64_t id, RmaStatus status,
                              ConstBuffer payload) {
  std::array<std::byte, kFrameHeader + kRmaReplyHeader> head;
  FrameHeader{static_cast<std::uint8_t>(type), 0, kRmaReplyHeader, 0, payload.size}.encode(head.data());
  put_le(head.data() + kFrameHeader, id);
  put_le(head.data() + kFrameHeader + 8, static_cast<std::uint64_t>(status));
  conn.send(head, payload, false, {}, true);  // a failure shows in conn.failed(), seen by progress()
  if (conn.replies_queued() > kMaxQueuedReplies)
    conn.misbehaved("does not read the answers it asks for: " + std::to_string(conn.replies_queued()) +
                    " replies to its gets and puts wait on lane " + conn.lane_name() + ", more than the " +
                    std::to_string(kMaxQueuedReplies) + " a lane holds");
}

void TcpTransport::on_am(TcpConn& conn, AmId id, std::span<const std::byte> header, ConstBuffer payload) {
  if (handlers_[id])
    handlers_[id](AmMessage{conn.peer(), conn.lane(), header, payload});
}

RmaTarget TcpTransport::on_put(TcpConn& conn, std::uint64_t key, std::uint64_t addr, Bytes length) {
  if (length == 0)
    return {nullptr, true};  // nothing to write: no region to name
  std::byte* to = reachable(conn, "put", key, addr, length);
  return {to, to != nullptr};
}

void TcpTransport::on_put_landed(TcpConn& conn, std::uint64_t id, bool accepted, const SignalAdd* signal) {
  if (!signal) {
    send_reply(conn, FrameType::PutAck, id, accepted ? RmaStatus::Ok : RmaStatus::Refused, {});
    return;
  }
  if (accepted && (signal->key != signal_key_ || signal->index >= signals_given_)) {
    std::fprintf(stderr, "xover: rank %u: tcp: refused a put_signal from rank %u: no signal word %llu with that key\n",
                 rank_, conn.peer(), static_cast<unsigned long long>(signal->index));
    accepted = false;
  }
  // The bytes are in this rank's memory: the add goes after them.
  if (accepted)
    std::atomic_ref<std::uint64_t>(signals_[signal->index]).fetch_add(signal->value, std::memory_order_release);
  acks_.push_back({&conn, {id, accepted ? RmaStatus::Ok : RmaStatus::Refused}});
}

void TcpTransport::on_put_ack(TcpConn& conn, std::uint64_t id, RmaStatus status) {
  auto it = puts_.find(id);
  if (it == puts_.end() || it->second.conn != &conn) {
    conn.malformed("a put ack for request " + std::to_string(id) + ", which is not outstanding on this lane");
    return;
  }
  due_.emplace_back(std::move(it->second.done), status == RmaStatus::Ok ? Status::Ok : Status::Error);
  puts_.erase(it);
}

void TcpTransport::on_get_request(TcpConn& conn, std::uint64_t id, std::uint64_t key, std::uint64_t addr,
                                  Bytes length) {
  // The answer's payload is written from this rank's memory, zero-copy.
  if (const std::byte* from = reachable(conn, "get", key, addr, length))
    send_reply(conn, FrameType::GetResponse, id, RmaStatus::Ok, {from, length});
  else
    send_reply(conn, FrameType::GetResponse, id, RmaStatus::Refused, {});
}

std::byte* TcpTransport::on_get_response(TcpConn& conn, std::uint64_t id, RmaStatus status, Bytes length) {
  auto it = gets_.find(id);
  if (it == gets_.end() || it->second.conn != &conn) {
    conn.malformed("a get response for request " + std::to_string(id) + ", which is not outstanding on this lane");
    return nullptr;
  }
  if (status == RmaStatus::Ok && length != it->second.size) {
    conn.malformed("a get response of " + std::to_string(length) + " bytes for a get of " +
                   std::to_string(it->second.size));
    return nullptr;
  }
  return status == RmaStatus::Ok ? it->second.to : nullptr;
}

void TcpTransport::on_get_landed(TcpConn&, std::uint64_t id, RmaStatus status) {
  auto it = gets_.find(id);
  due_.emplace_back(std::move(it->second.done), status == RmaStatus::Ok ? Status::Ok : Status::Error);
  gets_.erase(it);
}

void TcpTransport::progress(Seconds) {
  const std::lock_guard lock(mutex_);
  if (in_io_)
    return;  // called from a handler: the frame being delivered is not done
  if (failure().empty()) {
    for (auto& [c, ack] : acks_)
      send_reply(*c, FrameType::PutAck, ack.first, ack.second, {});
    acks_.clear();
    in_io_ = true;
    for (TcpConn* c : live_)
      if (!c->queue_empty())
        c->flush(due_);
    if (live_.size() > kPollAbove) {
      if (::poll(polls_.data(), polls_.size(), 0) > 0)
        for (std::size_t i = 0; i < live_.size(); ++i)
          if (polls_[i].revents && !live_[i]->closed())
            live_[i]->receive(*this);
    } else {
      for (TcpConn* c : live_)
        if (!c->closed())
          c->receive(*this);
    }
    in_io_ = false;
    for (const TcpConn* c : live_)
      if (c->failed()) {
        abandon(c->failure());
        break;
      }
  }
  if (failure().empty())
    watch_idle();
  // Completions may send, get or put again: run them once the lanes are
  // in a steady state (or, failed, once everything pending is in due_).
  running_.swap(due_);
  for (DueCompletion& d : running_)
    if (d.first)
      d.first(d.second);
  running_.clear();
}

void TcpTransport::abandon(std::string why) {
  if (!failure().empty())
    return;
  fail(std::move(why));
  for (TcpConn* c : live_)
    c->drop_queue(due_);
  for (auto& [id, g] : gets_)
    due_.emplace_back(std::move(g.done), Status::Error);
  for (auto& [id, p] : puts_)
    due_.emplace_back(std::move(p.done), Status::Error);
  gets_.clear();
  puts_.clear();
}

void TcpTransport::watch_idle() {
  const Seconds t = clock_now();
  Bytes moved = 0;
  for (const TcpConn* c : live_)
    moved += c->moved();
  const Seconds idle = idle_.look(t, moved != moved_);
  moved_ = moved;
  if (!idle_.expired(idle))
    return;
  // Name the peers this rank waits on: those with something under way, or
  // every peer still there when nothing is (it waits for a message).
  std::vector<bool> waiting(size_, false);
  for (const TcpConn* c : live_)
    if (!c->queue_empty() || c->receiving())
      waiting[c->peer()] = true;
  for (const auto& [id, g] : gets_)
    waiting[g.conn->peer()] = true;
  for (const auto& [id, p] : puts_)
    waiting[p.conn->peer()] = true;
  const bool busy = std::find(waiting.begin(), waiting.end(), true) != waiting.end();
  std::string peers;
  for (const TcpConn* c : live_)
    if ((busy ? waiting[c->peer()] : !c->peer_done()) && peers.find(" " + std::to_string(c->peer()) + ",") == std::string::npos)
      peers += " " + std::to_string(c->peer()) + ",";
  if (peers.empty()) {
    idle_.restart(t);  // no peer left to wait on (alone, or all said goodbye)
    return;
  }
  peers.pop_back();
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", idle_.timeout());
  abandon(std::string("nothing moved for ") + seconds + " s while waiting on rank(s)" + peers +
          (busy ? " (sends, gets or puts under way)" : " (for a message)") + "; are they alive?");
}

}  // namespace

std::unique_ptr<Transport> make_wired_transport(Rank rank, Rank size, Seconds timeout, Wiring wiring) {
  return std::make_unique<TcpTransport>(rank, size, timeout, std::move(wiring));
}

}  // namespace tcp

std::unique_ptr<Transport> make_tcp_transport(Bootstrap& boot, const RuntimeOptions& options) {
  return make_tcp_transport(boot, options, {});
}

std::unique_ptr<Transport> make_tcp_transport(Bootstrap& boot, const RuntimeOptions& options,
                                              const TcpTestHooks& hooks) {
  return tcp::make_wired_transport(boot.rank(), boot.size(), options.timeout, tcp::wire_up(boot, options, hooks));
}

int tcp_lane_socket(Transport& transport, Rank peer, std::size_t lane) {
  auto* tcp = dynamic_cast<tcp::TcpTransport*>(&transport);
  return tcp ? tcp->lane_socket(peer, lane) : -1;
}

}  // namespace xover::runtime
