// The workloads as bare S4U programs: what xover's simulation would cost
// with no protocol core and no Transport in between.
//
// The leanest correct equivalent of xover's eager path is a mailbox per rank
// with its actor as permanent receiver (Mailbox::set_receiver): a put to it
// starts the transfer at once, from the sender's host to the receiver's
// host, whether or not a receive is posted (DESIGN.md: "eager starts at send
// time"), and the receiver's get() takes the transfers in the order they were
// put. Sends are put_init(...)->detach(): fire and forget, no request to
// track. The 8-byte payload rides in the data pointer itself. The CPU costs
// are sleeps of the same lengths xover pays (o_send; o_recv and an 8-byte
// copy), and the wire carries the same h + 8 bytes. No wait_any, no bell, no
// per-message allocation of our own.
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/cases.hpp"
#include "bench/cluster_file.hpp"
#include "protocols/lanes/lane.hpp"
#include "protocols/wire.hpp"
#include "sim/platform_loader.hpp"

namespace s4u = simgrid::s4u;

namespace xover::bench {
namespace {

// The LogGP costs xover's lanes take on the benchmark's cluster: the
// defaults of an `xover:` property-free platform (platforms/README.md).
const Seconds kOSend = LaneAttrs{}.o_send;
const Seconds kORecv = LaneAttrs{}.o_recv + 8.0 / sim::PlatformNode{}.memcpy_bw;
constexpr std::uint64_t kWireBytes = wire::kEagerHdr + 8;

/// One rank: its host and its mailbox, received by its actor only.
struct Rank8 {
  s4u::Host* host = nullptr;
  s4u::Mailbox* inbox = nullptr;

  /// o_send, then the transfer to `to`, carrying `value` (never 0).
  void send(const Rank8& to, std::uintptr_t value) const {
    s4u::this_actor::sleep_for(kOSend);
    to.inbox->put_init(reinterpret_cast<void*>(value), kWireBytes)->detach();
  }
  /// The next message in put order, taken in (o_recv and the copy).
  std::uintptr_t recv() const {
    const auto value = reinterpret_cast<std::uintptr_t>(inbox->get<void>());
    s4u::this_actor::sleep_for(kORecv);
    return value;
  }
};

/// Loads the platform and gives each of `ranks` ranks its host and inbox.
struct Setup {
  Stopwatch clock;
  Measurement m;
  s4u::Engine* engine = nullptr;
  std::vector<Rank8> ranks;

  Setup(const std::string& file, unsigned count) {
    xbt_log_control_set("root.thresh:error");  // as sim::LogGPPlatform::load does
    engine = s4u::Engine::get_instance();
    engine->load_platform(file);
    engine->seal_platform();
    m.load_s = clock.lap();
    for (unsigned r = 0; r < count; ++r)
      ranks.push_back({s4u::Host::by_name(host_name(r)), s4u::Mailbox::by_name("inbox" + std::to_string(r))});
  }
  /// Starts one actor per rank running `body(rank)`, each the permanent
  /// receiver of its inbox, and runs the simulation.
  template <typename Body>
  void run(Body body) {
    for (unsigned r = 0; r < ranks.size(); ++r) {
      s4u::ActorPtr actor = s4u::Actor::create("rank" + std::to_string(r), ranks[r].host, [this, body, r] {
        body(r);
        ranks[r].inbox->set_receiver(nullptr);
      });
      ranks[r].inbox->set_receiver(actor);
    }
    m.setup_s = clock.lap();
    engine->run();
    m.run_s = clock.lap();
    m.sim_s = s4u::Engine::get_clock();
    m.max_rss_kib = max_rss_kib();
  }
};

}  // namespace

Measurement bare_pingpong(const std::string& platform, std::uint64_t round_trips) {
  Setup s(platform, 2);
  s.run([&](unsigned rank) {
    const Rank8& me = s.ranks[rank];
    const Rank8& peer = s.ranks[1 - rank];
    for (std::uint64_t i = 1; i <= round_trips; ++i) {
      if (rank == 0) {
        me.send(peer, i);
        s.m.errors += me.recv() != ~i ? 1 : 0;
      } else {
        s.m.errors += me.recv() != i ? 1 : 0;
        me.send(peer, ~i);
      }
    }
  });
  s.m.messages = 2 * round_trips;
  return s.m;
}

Measurement bare_pairwise(const std::string& platform, unsigned ranks) {
  Setup s(platform, ranks);
  s.run([&](unsigned rank) {
    const Rank8& me = s.ranks[rank];
    // Messages of later steps may come first: remember which steps are in.
    std::vector<bool> in(ranks, false);
    for (unsigned k = 1; k < ranks; ++k) {
      me.send(s.ranks[(rank + k) % ranks], (std::uintptr_t{rank} << 32) | k);
      while (!in[k]) {
        const std::uintptr_t value = me.recv();
        const auto from = static_cast<unsigned>(value >> 32);
        const auto step = static_cast<unsigned>(value & 0xffffffffU);
        const bool good = step > 0 && step < ranks && !in[step] && from == (rank + ranks - step) % ranks;
        s.m.errors += good ? 0 : 1;
        if (!good)
          break;
        in[step] = true;
      }
    }
  });
  s.m.messages = std::uint64_t{ranks} * (ranks - 1);
  return s.m;
}

}  // namespace xover::bench
