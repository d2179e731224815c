#include "tools/calib/device_probe.hpp"

#include <sched.h>

#include <atomic>
#include <bit>
#include <cstring>
#include <vector>

#include "base/clock.hpp"
#include "protocols/coll/alltoall.hpp"
#include "protocols/coll/cmd_ring.hpp"
#include "protocols/core/host_memory.hpp"
#include "protocols/workload/results.hpp"
#include "runtime/common.hpp"

namespace xover::calib {
namespace {

using runtime::RuntimeError;

constexpr Bytes kPutBytes = 8;
constexpr std::uint32_t kRingEntries = 64;
/// How far apart the isolated puts are: an alltoall's posting thread waits
/// this long and more between exchanges.
constexpr Seconds kApart = 20e-6;

/// What rank 1 tells rank 0: where to put, whom to signal.
struct Card {
  RemoteAddr buffer;
  RemoteAddr signal;
};

std::size_t lane_to(const Transport& t, Rank peer) {
  if (const std::optional<std::size_t> lane = put_lane(t.path(peer)))
    return *lane;
  throw RuntimeError("calibrate: no lane to rank " + std::to_string(peer) + " carries put_signal");
}

/// Rank 0's put_signal of kPutBytes from `local` to rank 1, counted in
/// `pending` until it completes; throws when the transport fails it. A full
/// queue (an RDMA queue pair holds so many atomics in flight) is made room
/// in, as the alltoall's posting thread does: the time it takes is the
/// burst's.
class Putter {
 public:
  Putter(Transport& t, const Card& card, ConstBuffer local, std::atomic<std::size_t>& pending)
      : t_(t), lane_(lane_to(t, 1)), card_(card), local_(local), pending_(pending) {}
  void operator()() const {
    std::atomic<std::size_t>& pending = pending_;
    Status s = Status::NoResource;
    while ((s = t_.put_signal(lane_, 1, local_, card_.buffer, card_.signal, 1, [&pending](Status) { --pending; })) ==
               Status::NoResource &&
           t_.failure().empty())
      t_.progress();
    if (s != Status::Ok && s != Status::InProgress)
      throw RuntimeError(std::string("calibrate: a put_signal failed") +
                         (t_.failure().empty() ? "" : ": " + t_.failure()));
    if (s == Status::InProgress)
      ++pending;
  }
  /// The bytes each put carries.
  ConstBuffer local() const { return local_; }

 private:
  Transport& t_;
  std::size_t lane_;
  Card card_;
  ConstBuffer local_;
  std::atomic<std::size_t>& pending_;
};

/// The posting thread's time per put: back to back (device_o_burst), then
/// each kApart after the last (device_o), as an alltoall posts them.
void measure_posting(const Putter& put, std::size_t puts, DeviceFigures& out) {
  std::vector<Seconds> post(puts);
  for (std::size_t i = 0; i < puts / 8; ++i)  // untimed: faults, caches
    put();
  for (Seconds& p : post) {
    const Seconds t0 = clock_now();
    put();
    p = clock_now() - t0;
  }
  out.device_o_burst = quantile(post, 0.5);
  for (Seconds& p : post) {
    for (const Seconds until = clock_now() + kApart; clock_now() < until;)
      ;
    const Seconds t0 = clock_now();
    put();
    p = clock_now() - t0;
  }
  out.device_o = quantile(post, 0.5);
}

/// While it lives, this rank may run on every core: the launcher pinned it
/// to one and rank 1 to another, and rank 1 sleeps now, so the proxy
/// thread may take its core.
class AllCores {
 public:
  AllCores() : widened_(sched_getaffinity(0, sizeof pinned_, &pinned_) == 0) {
    if (!widened_)
      return;
    cpu_set_t all;
    CPU_ZERO(&all);
    for (unsigned c = 0; c < runtime::node_cores() && c < CPU_SETSIZE; ++c)
      CPU_SET(c, &all);
    sched_setaffinity(0, sizeof all, &all);
  }
  ~AllCores() {
    if (widened_)
      sched_setaffinity(0, sizeof pinned_, &pinned_);
  }
  AllCores(const AllCores&) = delete;
  AllCores& operator=(const AllCores&) = delete;

 private:
  cpu_set_t pinned_;
  bool widened_;
};

/// The posting thread's side of the proxy probe: `total` commands, one at
/// a time (the proxy is idle when the next one comes).
void post_commands(Transport& t, const CommandRing& ring, const Putter& put, std::size_t total,
                   const std::atomic<bool>& failed) {
  for (std::uint64_t pos = 0; pos < total && !failed; ++pos) {
    Command c;
    c.pe = 1;
    c.local = reinterpret_cast<std::uint64_t>(put.local().data);
    c.size = kPutBytes;
    c.posted_ns = std::bit_cast<std::uint64_t>(clock_now());
    ring.write(ring.reserve(), c);
    for (std::uint64_t round = 0; ring.consumed() <= pos && !failed; ++round)
      t.threads().pause(round);
  }
}

/// The proxy's side: serves `total` commands with a put each, timing past
/// the first `skip` the serving (`serve`) and the wake-up from the post
/// (`wake`); sets `failed` on a malformed command or a refused put.
void serve_commands(Transport& t, const CommandRing& ring, const Putter& put, std::size_t total, std::size_t skip,
                    std::vector<Seconds>& serve, std::vector<Seconds>& wake, std::atomic<bool>& failed) {
  const CommandLimits limits{2, kPutBytes, reinterpret_cast<std::uint64_t>(put.local().data), kPutBytes};
  for (std::uint64_t pos = 0; pos < total; ++pos) {
    for (std::uint64_t round = 0; !ring.ready(pos); ++round)
      t.threads().pause(round);
    const Seconds seen = clock_now();
    const DecodedCommand d = decode_command(ring.read(pos), limits);
    if (!d.error.empty()) {
      failed = true;
      return;
    }
    try {
      put();
    } catch (const RuntimeError&) {
      failed = true;
      return;
    }
    ring.publish(pos + 1);
    if (pos >= skip) {
      serve[pos - skip] = clock_now() - seen;
      wake[pos - skip] = seen - std::bit_cast<Seconds>(d.command.posted_ns);
    }
  }
}

/// The proxy's time per command (proxy_o) and a command's wake-up
/// (proxy_wake), through a command ring between two of this rank's threads.
void measure_proxy(Transport& t, const Putter& put, std::size_t puts, DeviceFigures& out) {
  std::vector<std::uint64_t> memory(CommandRing::bytes_for(kRingEntries) / 8 + 8);
  auto* base = reinterpret_cast<std::byte*>(memory.data());
  while (reinterpret_cast<std::uintptr_t>(base) % CommandRing::kAlign != 0)
    base += 8;
  const CommandRing ring = CommandRing::create({base, CommandRing::bytes_for(kRingEntries)}, kRingEntries);
  std::vector<Seconds> serve(puts), wake(puts);
  std::atomic<bool> failed{false};
  const std::size_t total = puts + puts / 8;
  {
    const AllCores widened;
    t.threads().run(2, [&](std::size_t thread) {
      if (thread == 0)
        post_commands(t, ring, put, total, failed);
      else
        serve_commands(t, ring, put, total, puts / 8, serve, wake, failed);
    });
  }
  if (failed)
    throw RuntimeError("calibrate: the proxy probe failed" + (t.failure().empty() ? "" : ": " + t.failure()));
  out.proxy_o = quantile(serve, 0.5);
  out.proxy_wake = quantile(wake, 0.5);
}

/// Rank 0's side: the timed puts, direct then through the ring.
DeviceFigures measure(Transport& t, const Card& card, ConstBuffer local, std::size_t puts,
                      std::atomic<std::size_t>& pending) {
  const Putter put(t, card, local, pending);
  DeviceFigures out;
  out.puts = puts;
  measure_posting(put, puts, out);
  measure_proxy(t, put, puts, out);
  return out;
}

}  // namespace

DeviceFigures probe_device(Transport& t, runtime::Bootstrap& boot, std::size_t puts) {
  std::vector<std::byte> buffer(kPutBytes);
  SignalWord signal;
  Card mine{};
  if (boot.rank() == 1) {
    signal = t.signal_word();
    if (!signal.local)
      throw RuntimeError("calibrate: the transport gives no signal word (it has no put_signal)");
    const MemoryRegion region = t.reg(0, lane_to(t, 0), buffer.data(), buffer.size());
    mine = {t.remote_addr(region, buffer.data()), signal.remote};
  }
  const std::vector<runtime::Blob> cards = boot.allgather(std::as_bytes(std::span<const Card>(&mine, 1)));
  if (cards.size() < 2 || cards[1].size() != sizeof(Card))
    throw RuntimeError("calibrate: rank 1 sent no card for the device probe");
  DeviceFigures out;
  std::atomic<std::size_t> pending{0};
  // Rank 0's bytes to put, registered once as the alltoall's are (an RDMA
  // transport would otherwise register them on every put), until every
  // put is done.
  HostBuffer source(kPutBytes);
  const std::uint64_t word = 0x786f766572;
  std::memcpy(source.data(), &word, kPutBytes);
  MemoryRegion registered{};
  if (boot.rank() == 0) {
    Card card;
    std::memcpy(&card, cards[1].data(), sizeof card);
    registered = t.reg(1, lane_to(t, 1), source.data(), kPutBytes);
    out = measure(t, card, {source.data(), kPutBytes}, puts, pending);
  }
  boot.barrier();  // rank 1 sleeps here while rank 0 measures
  const std::uint64_t expected = 3 * puts + 2 * (puts / 8);
  for (std::uint64_t round = 0; t.failure().empty(); ++round) {
    const bool mine_done = boot.rank() == 0 ? pending == 0 : signal_load(signal) >= expected;
    if (mine_done)
      break;
    t.progress();
    t.threads().after_progress(round);
  }
  if (boot.rank() == 0)
    t.dereg(registered);
  if (boot.rank() == 1 && signal_load(signal) != expected)
    throw RuntimeError("calibrate: rank 1's signal word shows " + std::to_string(signal_load(signal)) + " of " +
                       std::to_string(expected) + " puts" + (t.failure().empty() ? "" : ": " + t.failure()));
  boot.barrier();
  return out;
}

}  // namespace xover::calib
