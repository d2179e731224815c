#include "protocols/core/worker.hpp"

#include <algorithm>
#include <stdexcept>

#include "protocols/core/device_memory.hpp"
#include "protocols/proto.hpp"
#include "protocols/registry.hpp"

namespace xover {

Worker::Worker(Transport& transport, SelectConfig config)
    : transport_(transport), config_(std::move(config)),
      store_(transport.shared_tables() ? *transport.shared_tables() : own_tables_) {
  for (const AmKind& entry : am_kinds())
    transport_.set_am_handler(entry.id, [this, handle = entry.handle](const AmMessage& msg) { handle(*this, msg); });
}

Worker::~Worker() {
  flush();
  for (const AmKind& entry : am_kinds())
    transport_.set_am_handler(entry.id, [](const AmMessage&) {});
}

void Worker::configure(SelectConfig config) {
  config_ = std::move(config);
  tables_.clear();
  device_tables_.clear();
  peers_.clear_tables();
  last_table_ = nullptr;
  last_path_ = nullptr;
}

std::uint32_t Worker::shared_table(const Path& path, MemType mem) {
  const ThresholdTable* table = &store_.table(path, config_, mem);
  auto mine = std::find(tables_.begin(), tables_.end(), table);
  if (mine == tables_.end()) {
    tables_.push_back(table);
    mine = std::prev(tables_.end());
  }
  return static_cast<std::uint32_t>(mine - tables_.begin()) + 1;
}

const ThresholdTable& Worker::build_table(Rank peer) {
  // Peers whose transport hands out one Path object take one table, with
  // no copy or comparison of the path.
  const Path& path = transport_.path(peer);
  if (&path != last_path_) {
    last_path_table_ = shared_table(path, MemType::Host);
    last_path_ = &path;
  }
  peers(peer).set_table(peer, last_path_table_);
  return *tables_[last_path_table_ - 1];
}

const ThresholdTable& Worker::table(Rank peer, MemType mem) {
  if (mem == MemType::Host)
    return table(peer);
  std::uint32_t& index = device_tables_[peer];
  if (index == 0) {
    Path path = transport_.path(peer);
    if (const DeviceMemory* device = transport_.device_memory()) {
      const DeviceCopy measured = device->figures();
      // Both ends have the same hardware (the seed's assumption 1).
      for (DeviceCopy* end : {&path.device_local, &path.device_remote})
        if (end->stage_bw == 0)
          *end = measured;
      if (!device->ipc_reachable(peer))
        path.device_local.ipc_bw = path.device_remote.ipc_bw = 0;
    }
    index = shared_table(path, mem);
  }
  return *tables_[index - 1];
}

MemType Worker::memory_of(const std::byte* data, Bytes size) const {
  const DeviceMemory* device = transport_.device_memory();
  return device && data && device->owns(data, size) ? device->type() : MemType::Host;
}

Request* Worker::allocate(RequestKind kind) {
  Request::Id id = 0;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<Request::Id>(pool_.size());
    pool_.push_back(std::make_unique<Request>());
  }
  Request& r = *pool_[id];
  r.reuse(id, kind);
  return &r;
}

void Worker::release(Request* request) {
  if (!request || !request->live || !request->done)
    throw std::logic_error("Worker::release: the request is not a completed live request");
  request->live = false;
  if (request->copies == 0)
    free_.push_back(request->id);
}

bool Worker::copy_done(Request& request) {
  --request.copies;
  if (request.live)
    return true;
  if (request.copies == 0)
    free_.push_back(request.id);
  return false;
}

Request* Worker::find(Request::Id id, RequestKind kind) {
  if (id >= pool_.size() || !pool_[id]->live || pool_[id]->kind != kind || pool_[id]->done)
    return nullptr;
  return pool_[id].get();
}

Request* Worker::tag_send(Rank peer, ConstBuffer buffer, Tag tag) {
  Request* r = allocate(RequestKind::Send);
  r->peer = peer;
  r->tag = tag;
  r->send_buf = buffer;
  r->length = buffer.size;
  r->seq = peers(peer).take_send_seq(peer);
  r->mem = memory_of(buffer.data, buffer.size);
  // A sender that repeats its peer skips the table's look-up, one that
  // repeats its size the table's search.
  if (!last_table_ || peer != last_peer_ || r->mem != last_mem_) {
    const ThresholdTable& t = table(peer, r->mem);
    last_peer_ = peer;
    last_mem_ = r->mem;
    if (&t != last_table_) {
      last_table_ = &t;
      last_choice_ = t.lookup(buffer.size);
      last_size_ = buffer.size;
    }
  }
  if (buffer.size != last_size_) {
    last_choice_ = last_table_->lookup(buffer.size);
    last_size_ = buffer.size;
  }
  const ProtoChoice* choice = last_choice_;
  if (!choice) {
    // No protocol covers this size under the current settings (a forced
    // protocol that stops short): the send fails instead of guessing.
    complete(*r, Status::Error);
    return r;
  }
  r->protocol = choice->protocol;
  r->lanes.assign(choice->candidate.lanes.begin(), choice->candidate.lanes.end());
  r->protocol->send(*this, *r);
  return r;
}

Request* Worker::tag_recv(MutableBuffer buffer, Tag tag, Tag mask) {
  Request* r = allocate(RequestKind::Recv);
  r->recv_buf = buffer;
  r->mem = memory_of(buffer.data, buffer.size);
  r->want = tag;
  r->tag_mask = mask;
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (tag_matches(*r, (*it)->tag)) {
      Incoming* in = *it;
      if (it == unexpected_.begin())
        unexpected_.pop_front();
      else
        unexpected_.erase(it);
      bind(*in, *r);
      return r;
    }
  }
  posted_.push_back(r);
  return r;
}

void Worker::progress(Seconds deadline) {
  transport_.progress(deadline);
  // Copies in flight (a staging protocol's) complete here, polled.
  if (DeviceMemory* device = transport_.device_memory())
    device->progress();
  while (!pending_.empty()) {
    if (pending_.front()() == Status::NoResource)
      break;
    pending_.pop_front();
  }
  if (!transport_.failure().empty())
    fail_requests();
}

void Worker::fail_requests() {
  // The transport called its pending completions with Error and refuses
  // new operations: what is still open would wait forever.
  for (const std::unique_ptr<Request>& r : pool_)
    if (r->live && !r->done)
      complete(*r, Status::Error);
}

void Worker::wait(const Request* request) {
  while (!request->done)
    progress();
}

void Worker::flush() {
  while ((!pending_.empty() || !transport_.flushed()) && transport_.failure().empty())
    progress();
}

void Worker::complete(Request& request, Status status) {
  if (request.done)
    return;
  if (status != Status::Ok)
    request.status = status;
  request.done = true;
}

void Worker::reg(Request& request, const std::byte* base, Bytes size) {
  request.tail_used = true;
  request.regions.clear();
  // Kept only where the transport says a registration may outlive its use
  // (verbs: not for memory that may be unmapped behind it).
  request.regions_cached = config_.reg_cache && transport_.reg_may_outlive_use(base, size);
  for (const LaneShare& share : request.lanes) {
    if (!request.regions_cached) {
      request.regions.push_back(transport_.reg(request.peer, share.lane, base, size));
      continue;
    }
    if (const MemoryRegion* cached = reg_cache_.acquire(request.peer, share.lane, base, size)) {
      request.regions.push_back(*cached);
      continue;
    }
    const MemoryRegion region = transport_.reg(request.peer, share.lane, base, size);
    reg_cache_.insert(request.peer, share.lane, region, evicted_);
    request.regions.push_back(region);
  }
  for (const MemoryRegion& region : evicted_)
    transport_.dereg(region);
  evicted_.clear();
}

void Worker::release_regions(Request& request) {
  for (const MemoryRegion& region : request.regions) {
    if (request.regions_cached)
      reg_cache_.release(request.peer, region);
    else
      transport_.dereg(region);
  }
  request.regions.clear();
}

std::size_t Worker::next_lane(Request& request) {
  // Smooth weighted round-robin (as nginx balances upstreams): every pick
  // adds each lane's weight to its credit and takes one from the richest,
  // so lanes interleave in proportion to their weights.
  request.tail_used = true;
  if (request.lane_credit.size() != request.lanes.size())
    request.lane_credit.assign(request.lanes.size(), 0.0);
  std::size_t best = 0;
  for (std::size_t i = 0; i < request.lanes.size(); ++i) {
    request.lane_credit[i] += request.lanes[i].weight;
    if (request.lane_credit[i] > request.lane_credit[best])
      best = i;
  }
  request.lane_credit[best] -= 1.0;
  return best;
}

}  // namespace xover
