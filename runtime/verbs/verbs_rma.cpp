// RDMA and registration of the verbs Transport (verbs_transport.hpp): get
// as an RDMA READ, put as an RDMA WRITE, put_signal as a WRITE and a
// fenced FETCH_AND_ADD on the peer's signal word, and registration through
// the per-device cache, kept past its use only for memory xover owns.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>

#include "protocols/core/host_memory.hpp"
#include "runtime/verbs/verbs_memlock.hpp"
#include "runtime/verbs/verbs_transport_impl.hpp"

namespace xover::runtime::verbs {

bool VerbsTransport::local_key(std::size_t lane, const void* data, Bytes size, std::uint32_t& lkey) const {
  const RegCache::Region* r = f_.rcaches[f_.lane_device[lane]]->find(data, size);
  if (!r)
    return false;
  lkey = r->keys.lkey;
  return true;
}

bool VerbsTransport::signal_rkey(std::size_t lane, Rank peer, std::uint64_t addr, std::uint32_t& rkey) const {
  const std::uint64_t base = f_.peer_signal_addr[peer];
  if (addr < base || addr - base >= std::uint64_t{kSignalWords} * kSignalStride || (addr - base) % kSignalStride != 0)
    return false;
  rkey = f_.peer_signal_rkey[lane * size_ + peer];
  return true;
}

Status VerbsTransport::get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion done) {
  const std::lock_guard lock(mutex_);
  Endpoint* ep = endpoint(lane, peer);
  if (!failure().empty() || !ep || ep->max_reads == 0 || local.size > f_.paths[peer].lanes[lane].max_zcopy ||
      (local.size && !local.data))
    return Status::Error;
  if (local.size == 0)
    return Status::Ok;
  std::uint32_t lkey = 0;
  if (!local_key(lane, local.data, local.size, lkey)) {
    std::fprintf(stderr, "xover: rank %u: verbs: a get of %llu bytes into unregistered memory (register it first)\n",
                 rank_, static_cast<unsigned long long>(local.size));
    return Status::Error;
  }
  // No more reads in flight than the queue pair's max_rd_atomic: the
  // Worker queues the rest and retries from progress().
  if (!ep->tracker.read_allowed() || !ep->tracker.has_room())
    return Status::NoResource;
  const Sge sge{reinterpret_cast<std::uint64_t>(local.data), static_cast<std::uint32_t>(local.size), lkey};
  const std::uint32_t index = index_of(*ep);
  if (!post_one(*ep, SendRecord::Op::Read, kNone, std::move(done), true, "RDMA READ", [&](const SendRecord& r) {
        return read_wr(send_wr_id(index, r.sn), sge, remote.addr, static_cast<std::uint32_t>(remote.key), true);
      }))
    return Status::Error;
  return Status::InProgress;
}

Status VerbsTransport::put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, Completion done) {
  const std::lock_guard lock(mutex_);
  Endpoint* ep = endpoint(lane, peer);
  if (!failure().empty() || !ep || local.size > f_.paths[peer].lanes[lane].max_zcopy || (local.size && !local.data))
    return Status::Error;
  if (local.size == 0)
    return Status::Ok;
  std::uint32_t lkey = 0;
  if (!local_key(lane, local.data, local.size, lkey)) {
    std::fprintf(stderr, "xover: rank %u: verbs: a put of %llu bytes from unregistered memory (register it first)\n",
                 rank_, static_cast<unsigned long long>(local.size));
    return Status::Error;
  }
  if (!ep->tracker.has_room())
    return Status::NoResource;
  const Sge sge{reinterpret_cast<std::uint64_t>(local.data), static_cast<std::uint32_t>(local.size), lkey};
  const std::uint32_t index = index_of(*ep);
  if (!post_one(*ep, SendRecord::Op::Write, kNone, std::move(done), true, "RDMA WRITE", [&](const SendRecord& r) {
        return write_wr(send_wr_id(index, r.sn), sge, remote.addr, static_cast<std::uint32_t>(remote.key), true);
      }))
    return Status::Error;
  return Status::InProgress;
}

Status VerbsTransport::put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                                  std::uint64_t value, Completion done) {
  const std::lock_guard lock(mutex_);
  Endpoint* ep = endpoint(lane, peer);
  if (!failure().empty() || !ep || local.size > f_.paths[peer].lanes[lane].max_zcopy || (local.size && !local.data))
    return Status::Error;
  std::uint32_t signal_key = 0;
  if (!signal_rkey(lane, peer, signal.addr, signal_key) ||
      f_.devices[f_.lane_device[lane]]->attr.atomic_cap == IBV_ATOMIC_NONE) {
    std::fprintf(stderr, "xover: rank %u: verbs: a put_signal to rank %u names no signal word of it (or lane %zu has no "
                 "atomics)\n", rank_, peer, lane);
    return Status::Error;
  }
  // Two requests, the add counting against max_rd_atomic as a read does.
  if (!ep->tracker.read_allowed() || !ep->tracker.has_room_for(local.size ? 2 : 1))
    return Status::NoResource;
  // Memory nobody registered is, for this put (kept after it only when
  // xover owns it).
  RegCache& cache = *f_.rcaches[f_.lane_device[lane]];
  std::uint32_t lkey = 0;
  RegCache::Region* held = nullptr;
  if (local.size && !local_key(lane, local.data, local.size, lkey)) {
    held = cache.acquire(local.data, local.size, host_memory_owned(local.data, local.size));
    if (!held) {
      abandon("verbs: lane " + f_.lanes[lane]->name() + ": ibv_reg_mr of " + std::to_string(local.size) +
              " bytes for a put_signal failed: " + errno_text(errno));
      return Status::Error;
    }
    lkey = held->keys.lkey;
    done = [&cache, held, then = std::move(done)](Status s) {
      cache.release(held);
      if (then)
        then(s);
    };
  }
  const std::byte* slot = f_.signal_slab.get() + std::size_t{kSignalWords} * kSignalStride;
  const Sge data{reinterpret_cast<std::uint64_t>(local.data), static_cast<std::uint32_t>(local.size), lkey};
  const Sge fetch{reinterpret_cast<std::uint64_t>(slot), 8, f_.signal_mrs[f_.lane_device[lane]]->lkey};
  std::optional<WrChain> chain = put_signal_chain(0, data, remote.addr, static_cast<std::uint32_t>(remote.key), fetch,
                                                  signal.addr, signal_key, value);
  if (!chain) {  // the words and the slot are aligned by construction
    if (held)
      cache.release(held);
    return Status::Error;
  }
  const std::uint32_t index = index_of(*ep);
  std::span<WorkRequest> wrs(chain->wr);
  if (local.size) {
    const SendRecord& write = ep->tracker.post(SendRecord::Op::Write, kNone, {}, false);
    chain->wr[0].wr_id = send_wr_id(index, write.sn);
    chain->wr[0].signaled = write.signaled;
  } else {
    wrs = wrs.subspan(1);  // the add alone
  }
  const SendRecord& add = ep->tracker.post(SendRecord::Op::Atomic, kNone, std::move(done), true);
  chain->wr[1].wr_id = send_wr_id(index, add.sn);
  if (const int error = post_send(ep->qp.get(), wrs); error != 0) {
    // Forgotten before the transport fails, as post_tracked does.
    for (std::size_t i = 0; i < wrs.size(); ++i)
      ep->tracker.unpost();
    if (held)
      cache.release(held);
    abandon(where(*ep) + ": ibv_post_send of a put_signal failed: " + errno_text(error));
    return Status::Error;
  }
  moved_ = true;
  return Status::InProgress;
}

SignalWord VerbsTransport::signal_word() {
  const std::lock_guard lock(mutex_);
  for (const auto& device : f_.devices)
    if (device->attr.atomic_cap == IBV_ATOMIC_NONE)
      return {};
  if (signal_words_ >= kSignalWords)
    return {};
  std::byte* at = f_.signal_slab.get() + std::size_t{signal_words_} * kSignalStride;
  SignalWord word;
  word.local = reinterpret_cast<std::uint64_t*>(at);
  word.remote = {signal_words_++, reinterpret_cast<std::uint64_t>(at)};
  return word;
}

MemoryRegion VerbsTransport::reg(Rank, std::size_t lane, const std::byte* base, Bytes size) {
  const std::lock_guard lock(mutex_);
  if (lane >= f_.lanes.size() || !base || size == 0 || !failure().empty())
    return {0, base, size};
  const std::size_t device = f_.lane_device[lane];
  RegCache::Region* region = f_.rcaches[device]->acquire(base, size, host_memory_owned(base, size));
  if (!region) {
    const int error = errno;
    abandon("verbs: lane " + f_.lanes[lane]->name() + ": ibv_reg_mr of " + std::to_string(size) +
            " bytes failed: " + errno_text(error) + (error == ENOMEM || error == EPERM ? memlock_hint(size) : ""));
    return {0, base, size};
  }
  std::uint32_t slot = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  slots_[slot] = {region, device};
  return {(std::uint64_t{slot} + 1) << 32 | region->keys.rkey, base, size};
}

void VerbsTransport::dereg(const MemoryRegion& region) {
  const std::lock_guard lock(mutex_);
  const std::uint64_t slot = (region.key >> 32);
  if (slot == 0 || slot > slots_.size())
    return;
  RegSlot& s = slots_[slot - 1];
  if (!s.region || s.region->keys.rkey != static_cast<std::uint32_t>(region.key))
    return;
  f_.rcaches[s.device]->release(s.region);
  s.region = nullptr;
  free_slots_.push_back(static_cast<std::uint32_t>(slot - 1));
}

bool VerbsTransport::reg_may_outlive_use(const std::byte* base, Bytes size) const {
  return host_memory_owned(base, size);
}

}  // namespace xover::runtime::verbs
