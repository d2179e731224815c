// The workloads through xover's protocol core: one Worker per rank over
// sim::SimTransport, tagged sends and receives of 8 bytes (eager/short),
// every payload checked.
#include <functional>
#include <string>
#include <vector>

#include "bench/cases.hpp"
#include "bench/cluster_file.hpp"
#include "protocols/core/worker.hpp"
#include "protocols/proto.hpp"
#include "sim/platform_loader.hpp"
#include "sim/sim_transport.hpp"

namespace xover::bench {
namespace {

/// One rank's worker and the checks it makes.
class Rank8 {
 public:
  explicit Rank8(Transport& transport) : worker_(transport, SelectConfig{}) {}

  /// The protocol an 8-byte message to `peer` takes; the benchmark is about eager/short.
  std::string protocol(Rank peer) {
    const ProtoChoice* choice = worker_.table(peer).lookup(sizeof(std::uint64_t));
    return choice ? std::string(choice->protocol->name) : "none";
  }
  Request* send(Rank peer, Tag tag, std::uint64_t value) {
    out_ = value;
    return worker_.tag_send(peer, {reinterpret_cast<const std::byte*>(&out_), sizeof out_}, tag);
  }
  Request* recv(Tag tag) { return worker_.tag_recv({reinterpret_cast<std::byte*>(&in_), sizeof in_}, tag); }
  /// Waits for `r`, releases it, and counts an error unless it ended well
  /// (and, for a receive, brought `expect`).
  void finish(Request* r, std::uint64_t expect, std::uint64_t& errors) {
    worker_.wait(r);
    const bool bad = r->status != Status::Ok || (r->kind == RequestKind::Recv && (in_ != expect || r->length != 8));
    errors += bad ? 1 : 0;
    worker_.release(r);
  }

 private:
  Worker worker_;
  std::uint64_t out_ = 0;
  std::uint64_t in_ = 0;
};

/// Loads the platform and builds the network of `ranks` ranks on n0, n1, ...
struct Setup {
  Stopwatch clock;
  Measurement m;
  sim::LogGPPlatform platform;
  sim::SimNetwork network;

  explicit Setup(const std::string& file, unsigned ranks)
      : platform(sim::LogGPPlatform::load(file)), network(platform, nodes(ranks)) {
    m.load_s = clock.lap();
  }
  static std::vector<std::string> nodes(unsigned ranks) {
    std::vector<std::string> out;
    for (unsigned r = 0; r < ranks; ++r)
      out.push_back(host_name(r));
    return out;
  }
  /// Runs `body` on every rank and takes the times.
  void run(const std::function<void(Rank, Transport&)>& body) {
    m.setup_s = clock.lap();
    sim::run_ranks(network, body);
    m.run_s = clock.lap();
    m.sim_s = simgrid::s4u::Engine::get_clock();
    m.max_rss_kib = max_rss_kib();
  }
  /// Flags a lane whose LogGP numbers differ from what the bare program pays
  /// (and resolves the route, before the actors start, as sim::simulate does).
  void check_lane(Rank from, Rank to) {
    const LaneAttrs& lane = network.transport(from).path(to).lanes.front();
    const LaneAttrs defaults;
    if (lane.o_send != defaults.o_send || lane.o_recv != defaults.o_recv || lane.gap != 0) {
      ++m.errors;
      m.note = "lane " + lane.name + " has o_send/o_recv/gap other than the defaults the bare program pays";
    }
  }
};

}  // namespace

Measurement xover_pingpong(const std::string& platform, std::uint64_t round_trips) {
  Setup s(platform, 2);
  s.check_lane(0, 1);
  s.check_lane(1, 0);
  s.run([&](Rank rank, Transport& transport) {
    Rank8 me(transport);
    const Rank peer = 1 - rank;
    if (me.protocol(peer) != "eager/short") {
      ++s.m.errors;
      s.m.note = "8 bytes take " + me.protocol(peer) + ", not eager/short";
    }
    for (std::uint64_t i = 0; i < round_trips; ++i) {
      if (rank == 0) {
        me.finish(me.send(peer, 1, i), 0, s.m.errors);
        me.finish(me.recv(2), ~i, s.m.errors);
      } else {
        me.finish(me.recv(1), i, s.m.errors);
        me.finish(me.send(peer, 2, ~i), 0, s.m.errors);
      }
    }
  });
  s.m.messages = 2 * round_trips;
  return s.m;
}

Measurement xover_pairwise(const std::string& platform, unsigned ranks) {
  Setup s(platform, ranks);
  s.check_lane(0, 1);
  s.run([&](Rank rank, Transport& transport) {
    Rank8 me(transport);
    for (Rank k = 1; k < ranks; ++k) {
      const Rank to = (rank + k) % ranks;
      const Rank from = (rank + ranks - k) % ranks;
      // The tag is the step: at step k a rank hears from one peer only.
      Request* send = me.send(to, k, (std::uint64_t{rank} << 32) | k);
      Request* recv = me.recv(k);
      me.finish(send, 0, s.m.errors);
      me.finish(recv, (std::uint64_t{from} << 32) | k, s.m.errors);
    }
  });
  s.m.messages = std::uint64_t{ranks} * (ranks - 1);
  return s.m;
}

}  // namespace xover::bench
