// The data path of the shared-memory Transport: active messages through the
// rings, get and put through cross-memory attach, polling and the watch
// over the peers. Nothing here sleeps, allocates per message or throws; a
// peer that has gone or fallen silent fails the transport (failure()).
#include <sys/uio.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/common.hpp"
#include "runtime/fault.hpp"
#include "runtime/shm/shm_transport.hpp"
#include "runtime/shm/shm_transport_impl.hpp"

namespace xover::runtime::shm {
namespace {

/// Cells taken from one ring per progress() call, so that one busy sender
/// does not starve the others.
constexpr int kBatch = 32;
/// While polling without traffic, how often the peers' processes are checked.
constexpr Seconds kAliveInterval = 0.1;
/// Idle polls between two looks at the clock: the watch stays off the
/// polling loop that a message's arrival waits on.
constexpr unsigned kPollsPerWatch = 256;

/// The AM header then the payload, from `at` on.
void write_message(std::byte* at, std::span<const std::byte> header, ConstBuffer payload) {
  if (!header.empty())
    std::memcpy(at, header.data(), header.size());
  if (payload.size)
    std::memcpy(at + header.size(), payload.data, payload.size);
}

}  // namespace

ShmTransport::ShmTransport(Rank rank, Rank size, Seconds timeout)
    : rank_(rank), size_(size), idle_(timeout), mapped_(size), peers_(size) {}

ShmTransport::~ShmTransport() = default;

Seconds ShmTransport::now() const {
  return clock_now();
}

void ShmTransport::copy(std::byte* dst, const std::byte* src, Bytes n) {
  if (dst && src && n)
    std::memcpy(dst, src, n);
}

Status ShmTransport::push(Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload) {
  Peer& p = peers_[peer];
  Cell* cell = p.out.claim(p.out_pos);
  if (!cell)
    return Status::NoResource;
  if (header.size() + payload.size <= kInlineBytes) [[likely]] {
    write_message(cell->data(), header, payload);
    cell->head.descriptor = kInline;
  } else {
    std::byte* at = p.out.claim_descriptor(p.out_pos);
    if (!at)
      return Status::NoResource;
    write_message(at, header, payload);
    cell->head.descriptor = p.out.descriptor_index(p.out_pos);
  }
  cell->head.header_len = static_cast<std::uint16_t>(header.size());
  cell->head.payload_len = static_cast<std::uint16_t>(payload.size);
  cell->head.am_id = id;
  Ring::publish(cell, p.out_pos++);
  moved_.store(true, std::memory_order_relaxed);
  return Status::Ok;
}

Status ShmTransport::am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header,
                             ConstBuffer payload, AmMode mode, Completion) {
  if (!failure().empty())
    return Status::Error;
  if (lane != kMmLane || peer >= size_) {
    std::fprintf(stderr, "xover: shm: rank %u: no active messages on lane %zu to rank %u\n", rank_, lane, peer);
    return Status::Error;
  }
  const Bytes limit = mode == AmMode::Short ? kMaxShort : kMaxBcopy;
  if (mode == AmMode::Zcopy || header.size() + payload.size > limit || (payload.size && !payload.data)) {
    std::fprintf(stderr,
                 "xover: shm: rank %u: refused an active message of %zu + %llu bytes to rank %u (%s; "
                 "short holds %llu, bcopy %llu, no zcopy, no phantom payloads)\n",
                 rank_, header.size(), static_cast<unsigned long long>(payload.size), peer,
                 mode == AmMode::Short ? "short" : mode == AmMode::Bcopy ? "bcopy" : "zcopy",
                 static_cast<unsigned long long>(kMaxShort), static_cast<unsigned long long>(kMaxBcopy));
    return Status::Error;
  }
  return push(peer, id, header, payload);
}

Status ShmTransport::cma(Rank peer, std::byte* local, std::uint64_t remote, Bytes n, bool write) {
  Bytes done = 0;
  while (done < n) {
    const iovec mine{local + done, n - done};
    const iovec theirs{reinterpret_cast<void*>(remote + done), n - done};
    const ssize_t moved = write ? process_vm_writev(peers_[peer].pid, &mine, 1, &theirs, 1, 0)
                                : process_vm_readv(peers_[peer].pid, &mine, 1, &theirs, 1, 0);
    if (moved < 0 && errno == EINTR)
      continue;
    if (moved <= 0) {
      std::fprintf(stderr, "xover: shm: rank %u: %s of %llu bytes at 0x%llx of rank %u failed after %llu: %s\n", rank_,
                   write ? "process_vm_writev" : "process_vm_readv", static_cast<unsigned long long>(n),
                   static_cast<unsigned long long>(remote), peer, static_cast<unsigned long long>(done),
                   moved < 0 ? std::strerror(errno) : "nothing moved");
      return Status::Error;
    }
    done += static_cast<Bytes>(moved);
  }
  moved_.store(true, std::memory_order_relaxed);
  return Status::Ok;
}

Status ShmTransport::get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion) {
  if (!failure().empty())
    return Status::Error;
  if (lane != kCmaLane || peer >= size_ || !peers_[peer].cma || (local.size && (!local.data || !remote.addr))) {
    std::fprintf(stderr, "xover: shm: rank %u: no get on lane %zu to rank %u (or a null buffer)\n", rank_, lane, peer);
    return Status::Error;
  }
  return cma(peer, local.data, remote.addr, local.size, false);
}

Status ShmTransport::put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, Completion) {
  if (!failure().empty())
    return Status::Error;
  if (lane != kCmaLane || peer >= size_ || !peers_[peer].cma || (local.size && (!local.data || !remote.addr))) {
    std::fprintf(stderr, "xover: shm: rank %u: no put on lane %zu to rank %u (or a null buffer)\n", rank_, lane, peer);
    return Status::Error;
  }
  // process_vm_writev reads the local side only; the cast lets one loop serve both ways.
  return cma(peer, const_cast<std::byte*>(local.data), remote.addr, local.size, true);
}

Status ShmTransport::put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                                std::uint64_t value, Completion) {
  if (!failure().empty())
    return Status::Error;
  if (lane != kCmaLane || peer >= size_ || !peers_[peer].cma || (local.size && (!local.data || !remote.addr)) ||
      signal.key != kSignalKey || signal.addr >= kSignalWords) {
    std::fprintf(stderr, "xover: shm: rank %u: no put_signal on lane %zu to rank %u (or a null buffer, or no such signal word)\n",
                 rank_, lane, peer);
    return Status::Error;
  }
  // The kernel has written every byte into the peer's pages when the call
  // returns; the add is a release after it, so the peer's acquire load that
  // sees it sees them.
  if (local.size > 0 && cma(peer, const_cast<std::byte*>(local.data), remote.addr, local.size, true) != Status::Ok)
    return Status::Error;
  const Segment& segment = peer == rank_ ? own_ : mapped_[peer];
  std::atomic_ref<std::uint64_t>(*segment.signal(signal.addr)).fetch_add(value, std::memory_order_release);
  moved_.store(true, std::memory_order_relaxed);
  return Status::Ok;
}

SignalWord ShmTransport::signal_word() {
  if (signals_given_ == kSignalWords)
    return {};
  const std::size_t index = signals_given_++;
  return {own_.signal(index), {kSignalKey, index}};
}

MemoryRegion ShmTransport::reg(Rank, std::size_t, const std::byte* base, Bytes size) {
  // Cross-memory attach needs no registration: the kernel pins the pages for
  // the length of each call. The key only tells regions apart in logs.
  return {next_key_++, base, size};
}

RemoteAddr ShmTransport::remote_addr(const MemoryRegion& region, const std::byte* base) const {
  return {region.key, reinterpret_cast<std::uint64_t>(base)};
}

void ShmTransport::deliver(Rank source, const Ring& ring, Cell& cell, std::uint64_t pos) {
  // The head is read once, and checked before any byte past it is touched.
  const CellHead h = Ring::head(cell);
  const std::byte* at = ring.locate(cell, h, pos);
  if (!at || !handlers_[h.am_id]) [[unlikely]] {
    drop(source, ring, h, pos);
    return;
  }
  handlers_[h.am_id](AmMessage{source, kMmLane, {at, h.header_len}, ConstBuffer{at + h.header_len, h.payload_len}});
}

void ShmTransport::drop(Rank source, const Ring& ring, const CellHead& h, std::uint64_t pos) const {
  char where[64];
  if (h.descriptor == kInline)
    std::snprintf(where, sizeof where, "inline (%u bytes)", kInlineBytes);
  else
    std::snprintf(where, sizeof where, "in descriptor %u (%u bytes; this cell's is %u)", h.descriptor, kDescriptorBytes,
                  ring.descriptor_index(pos));
  std::fprintf(stderr,
               "xover: shm: rank %u: dropped a corrupt cell from rank %u (AM id %u%s, %u header + %u payload bytes "
               "%s)\n",
               rank_, source, static_cast<unsigned>(h.am_id), handlers_[h.am_id] ? "" : " has no handler", h.header_len,
               h.payload_len, where);
}

void ShmTransport::progress(Seconds) {
  if (!failure().empty())
    return;
  bool arrived = false;
  for (Rank s = 0; s < size_; ++s) {
    Peer& p = peers_[s];
    // This rank writes its own ring itself: it knows without a look
    // whether anything waits there.
    if (s == rank_ && p.in_pos == p.out_pos)
      continue;
    for (int i = 0; i < kBatch; ++i) {
      const std::uint64_t pos = p.in_pos;
      Cell* cell = p.in.ready(pos);
      if (!cell)
        break;
      // Moved on before the handler runs: a handler that polls again sees
      // the next cell, not this one twice.
      ++p.in_pos;
      deliver(s, p.in, *cell, pos);
      p.in.release(cell, pos);
      arrived = true;
    }
  }
  if (arrived)
    moved_.store(true, std::memory_order_relaxed);
  else if (++idle_polls_ % kPollsPerWatch == 0)
    watch();
}

void ShmTransport::start_watch() {
  const Seconds t = now();
  idle_.restart(t);
  last_alive_check_ = t;
  moved_.store(false, std::memory_order_relaxed);
}

void ShmTransport::watch() {
  const Seconds t = now();
  const Seconds idle = idle_.look(t, moved_.exchange(false, std::memory_order_relaxed));
  if (idle >= kAliveInterval && t - last_alive_check_ >= kAliveInterval) {
    last_alive_check_ = t;
    for (Rank r = 0; r < size_; ++r)
      if (r != rank_ && !process_alive(peers_[r].pid)) {
        fail("rank " + std::to_string(r) + " (pid " + std::to_string(peers_[r].pid) + ") has gone");
        return;
      }
  }
  if (idle_.expired(idle)) {
    char what[96];
    std::snprintf(what, sizeof what, "nothing from any peer for %g s: a peer may have hung", idle_.timeout());
    fail(what);
  }
}

}  // namespace xover::runtime::shm

namespace xover::runtime::testing {

Status shm_publish_raw_cell(Transport& transport, Rank peer, AmId id, std::uint16_t header_len,
                            std::uint16_t payload_len, std::uint16_t descriptor) {
  auto& shm = dynamic_cast<shm::ShmTransport&>(transport);
  shm::Peer& p = shm.peer(peer);
  shm::Cell* cell = p.out.claim(p.out_pos);
  if (!cell)
    return Status::NoResource;
  std::memset(cell->data(), 0, shm::kInlineBytes);
  cell->head = {header_len, payload_len, descriptor, id, 0};
  shm::Ring::publish(cell, p.out_pos++);
  return Status::Ok;
}

}  // namespace xover::runtime::testing
