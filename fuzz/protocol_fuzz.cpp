// Harness: the protocol core as a peer's active messages drive it
// (protocols/wire.hpp, the handlers of protocols/eager/*.cpp and
// protocols/rndv/*.cpp, tag matching and the stages in protocols/core/).
//
// A Worker of rank 0 runs over ScriptedTransport, an in-process Transport
// that keeps the handlers the Worker registers, hands them the fuzzed
// active messages of ranks 1 and 2 from progress(), and answers the
// Worker's own sends, gets and puts as the input decides (at once, later,
// back-pressure or error). Receives, sends, releases and a failing
// transport are interleaved with the messages. Input: protocol_ops.hpp.
// Checks: every buffer a transport call or a copy names lies inside memory
// the harness gave (ASan), and every active message fits its mode;
// registrations are released once, only while live, and all of them once
// every request is done (cache off); a receive that completes Ok holds
// every byte of its message, each once; the bytes held for early
// messages never exceed those delivered; once every call succeeds, the
// Worker drains.
#include <algorithm>
#include <cstring>
#include <deque>
#include <set>
#include <vector>

#include "fuzz/harness.hpp"
#include "fuzz/protocol_ops.hpp"
#include "protocols/core/worker.hpp"
#include "protocols/proto.hpp"

namespace {

using namespace xover;
using namespace xover::fuzz::protocol;
using xover::fuzz::check;
using xover::fuzz::Input;

constexpr Rank kRanks = 3;
/// Ops per input, and bytes of buffers the harness hands out per input.
constexpr std::size_t kMaxOps = 512;
constexpr std::size_t kBufferBudget = std::size_t{4} << 20;

/// What a Deliver op hands to the transport, kept until progress() runs it.
struct Arrival {
  Rank source = 0;
  std::size_t lane = 0;
  AmId id = 0;
  std::vector<std::byte> header;
  std::vector<std::byte> payload;
  Bytes phantom = 0;  ///< a phantom payload's length (payload empty)
};

class ScriptedTransport final : public Transport {
 public:
  ScriptedTransport(std::span<const std::byte> decisions, Path path)
      : decisions_(decisions.begin(), decisions.end()), path_(std::move(path)) {
    decisions_.resize(kDecisionBytes);
  }

  Rank rank() const override { return 0; }
  Rank size() const override { return kRanks; }
  const Path& path(Rank peer) const override {
    check(peer > 0 && peer < kRanks, "a path is asked for toward a peer");
    return path_;
  }
  void set_am_handler(AmId id, AmHandler handler) override { handlers_[id] = std::move(handler); }

  Status am_send(std::size_t lane, Rank peer, AmId, std::span<const std::byte> header, ConstBuffer payload,
                 AmMode mode, Completion done) override {
    check_op(lane, peer);
    const Bytes limit = mode == AmMode::Short ? path_.lanes[lane].max_short : path_.lanes[lane].seg_size;
    check(header.size() + payload.size <= limit, "an active message fits its mode's limit");
    touch(header.data(), header.size());
    touch(payload.data, payload.size);
    const Status st = decide();
    if (st == Status::InProgress && mode != AmMode::Zcopy)
      return Status::Ok;  // short and bcopy are done when they return
    return later(st, std::move(done));
  }
  Status get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr, Completion done) override {
    check_op(lane, peer);
    check(local.size <= path_.lanes[lane].max_zcopy, "a get fits max_zcopy");
    const Status st = decide();
    if (st == Status::Ok)
      land(local);
    else if (st == Status::InProgress)
      gets_.push_back(local);
    return later(st, std::move(done));
  }
  Status put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr, Completion done) override {
    check_op(lane, peer);
    touch(local.data, local.size);
    return later(decide(), std::move(done));
  }
  MemoryRegion reg(Rank peer, std::size_t lane, const std::byte* base, Bytes size) override {
    check_op(lane, peer);
    live_regions_.insert(next_key_);
    return {next_key_++, base, size};
  }
  void dereg(const MemoryRegion& region) override {
    check(live_regions_.erase(region.key) == 1, "a registration is released once, and only while live");
  }
  RemoteAddr remote_addr(const MemoryRegion& region, const std::byte* base) const override {
    return {region.key, reinterpret_cast<std::uint64_t>(base)};
  }
  void copy(std::byte* dst, const std::byte* src, Bytes n) override {
    if (dst && src && n)
      std::memcpy(dst, src, n);
  }
  void progress(Seconds) override {
    // Messages first, in arrival order; then the operations that were under
    // way, Ok unless the transport failed.
    std::deque<Arrival> arrivals;
    arrivals.swap(inbox_);
    for (const Arrival& a : arrivals)
      if (handlers_[a.id])
        handlers_[a.id](AmMessage{a.source, a.lane, a.header,
                                  ConstBuffer{a.payload.empty() ? nullptr : a.payload.data(),
                                              a.payload.empty() ? a.phantom : a.payload.size()}});
    std::vector<Completion> due;
    due.swap(pending_);
    for (const MutableBuffer& local : gets_)
      land(local);
    gets_.clear();
    for (Completion& done : due)
      done(failure().empty() ? Status::Ok : Status::Error);
  }
  Seconds now() const override { return static_cast<Seconds>(++clock_) * 1e-6; }
  bool flushed() const override { return true; }

  void arrive(Arrival arrival) { inbox_.push_back(std::move(arrival)); }
  void break_down() { fail("the scripted peer is gone"); }
  /// From now on every call succeeds at once, so that the Worker drains.
  void settle() { settled_ = true; }
  bool idle() const { return inbox_.empty() && pending_.empty(); }
  bool regions_released() const { return live_regions_.empty(); }

 private:
  void check_op(std::size_t lane, Rank peer) const {
    check(lane < path_.lanes.size(), "an operation names a lane of the path");
    check(peer > 0 && peer < kRanks, "an operation names a peer");
  }
  /// Reads every byte of a buffer handed over (one memcpy, which ASan
  /// checks as a whole), so that a buffer past its memory shows.
  static void touch(const std::byte* data, Bytes n) {
    static std::vector<std::byte> scratch(kMaxMessage);
    if (data && n)
      std::memcpy(scratch.data(), data, std::min<Bytes>(n, scratch.size()));
  }
  void land(const MutableBuffer& local) {
    if (local.data && local.size)
      std::memset(local.data, 0x5a, local.size);
  }
  Status decide() {
    if (!failure().empty())
      return Status::Error;
    if (settled_)
      return Status::Ok;
    const std::size_t at = calls_++ % (kDecisionBytes * 4);
    const auto bits = (static_cast<unsigned>(decisions_[at / 4]) >> (2 * (at % 4))) & 3U;
    return bits == 0 ? Status::Ok : bits == 1 ? Status::InProgress : bits == 2 ? Status::NoResource : Status::Error;
  }
  Status later(Status st, Completion done) {
    if (st == Status::InProgress)
      pending_.push_back(std::move(done));
    return st;
  }

  std::vector<std::byte> decisions_;
  Path path_;
  std::array<AmHandler, 256> handlers_;
  std::deque<Arrival> inbox_;
  std::vector<Completion> pending_;
  std::vector<MutableBuffer> gets_;
  std::set<std::uint64_t> live_regions_;
  std::uint64_t next_key_ = 1;
  std::size_t calls_ = 0;
  bool settled_ = false;
  mutable std::uint64_t clock_ = 0;
};

/// Buffers for sends and receives, alive until the Worker is gone.
class Buffers {
 public:
  /// A buffer of `n` bytes (fewer once the budget is spent), filled with `fill`.
  std::vector<std::byte>& get(std::size_t n, std::byte fill) {
    n = std::min(n, kBufferBudget - spent_);
    spent_ += n;
    return buffers_.emplace_back(n, fill);
  }

 private:
  std::deque<std::vector<std::byte>> buffers_;
  std::size_t spent_ = 0;
};

Arrival read_arrival(Input& in) {
  Arrival a;
  a.source = 1 + static_cast<Rank>(in.u8() % (kRanks - 1));
  a.lane = in.u8() % 2;
  a.id = in.u8();
  const std::span<const std::byte> header = in.bytes(in.u16() % (kMaxHeader + 1));
  a.header.assign(header.begin(), header.end());
  const std::uint32_t length = in.u32() % (kMaxPayload + 1);
  const std::span<const std::byte> payload = in.bytes(length);
  if (in.u8() & 1) {
    a.phantom = length;
  } else {
    a.payload.assign(payload.begin(), payload.end());
  }
  return a;
}

void check_receives(const std::vector<Request*>& held) {
  for (const Request* request : held) {
    const Request& r = *request;
    if (r.kind != RequestKind::Recv || !r.done || r.status != Status::Ok)
      continue;
    check(r.length <= r.recv_buf.size, "a receive that completed Ok had room for its whole message");
    // rndv/get reads into the buffer with gets, not through Worker::place(): it counts no bytes.
    const bool gets = r.protocol && r.protocol->name == "rndv/get";
    check(gets || r.received == r.length, "a receive that completed Ok holds every byte of its message, once");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  SelectConfig config;
  if (const std::string_view forced = kForced[in.u8() % kForced.size()]; !forced.empty())
    config.set("proto", forced);
  const std::uint8_t flags = in.u8();
  config.reg_cache = (flags & 1) == 0;
  if (flags & 2)
    config.lanes.max_rndv_lanes = 1;
  ScriptedTransport transport(in.bytes(kDecisionBytes), scripted_path());
  Buffers buffers;
  std::vector<Request*> held;
  Bytes delivered = 0;
  {
    Worker worker(transport, config);
    for (std::size_t ops = 0; !in.empty() && ops < kMaxOps; ++ops) {
      switch (static_cast<Op>(in.u8() % kOps)) {
        case Op::PostRecv: {
          std::vector<std::byte>& buf = buffers.get(size_of(in.u32()), std::byte{0});
          const Tag tag = in.u8();
          const Tag mask = in.u8() == 0 ? kTagMaskAll : 0;
          held.push_back(worker.tag_recv({buf.data(), buf.size()}, tag, mask));
          break;
        }
        case Op::Send: {
          const Rank peer = 1 + static_cast<Rank>(in.u8() % (kRanks - 1));
          std::vector<std::byte>& buf = buffers.get(size_of(in.u32()), std::byte{0xa5});
          held.push_back(worker.tag_send(peer, {buf.data(), buf.size()}, in.u8()));
          break;
        }
        case Op::Deliver: {
          Arrival a = read_arrival(in);
          delivered += a.payload.size() + a.phantom;
          transport.arrive(std::move(a));
          break;
        }
        case Op::Progress:
          worker.progress();
          break;
        case Op::Release: {
          if (held.empty())
            break;
          const std::size_t i = in.u8() % held.size();
          if (!held[i]->done)
            break;
          check_receives({held[i]});
          worker.release(held[i]);
          held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
        case Op::Fail:
          transport.break_down();
          break;
      }
      check(worker.stats().buffered_now <= delivered, "bytes held for early messages came from deliveries");
    }
    transport.settle();
    for (int i = 0; i < 8 && !transport.idle(); ++i)
      worker.progress();
    check(transport.idle(), "the transport drains once every call succeeds");
    check_receives(held);
    const bool all_done = std::all_of(held.begin(), held.end(), [](const Request* r) { return r->done; });
    check(config.reg_cache || !all_done || transport.regions_released() || !transport.failure().empty(),
          "with the cache off, every registration is released once every request is done");
  }
  return 0;
}
