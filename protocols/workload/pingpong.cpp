// The ping-pong, and several ping-pong pairs at once.
//
//   pingpong  rank 0 sends n bytes, rank 1 sends them back: a sample is
//             half the round trip; the model is the selected protocol's
//             latency cost
//   pairs     ranks 2i and 2i+1 ping-pong, all `pairs` pairs at once
//             (attribute pairs, at least 2, default 2), each leader timing
//             its own pair
#include <array>

#include "protocols/workload/pair_driver.hpp"
#include "protocols/workload/pingpong.hpp"
#include "protocols/workload/workloads.hpp"

namespace xover {
namespace {

void pingpong_step(PairDriver& d, Point& point, Bytes n) {
  const Scenario& s = d.scenario();
  Payload out(n, s.phantom, d.payload_memory());
  Payload in(n, s.phantom, d.payload_memory());
  for (std::size_t i = 0; i < d.warmup() + d.iterations(); ++i) {
    out.fill(s.seed, d.rank(), d.seq(i));
    if (d.leader()) {
      d.wait_ready(point, i);
      const Seconds t0 = d.now();
      d.send(out, d.tag(i, 1));
      Request* r = d.post(in, d.tag(i, 2));
      d.worker().wait(r);
      if (i >= d.warmup())
        point.samples.push_back((d.now() - t0) / 2);
      d.finish(point, r, in, d.seq(i));
    } else {
      Request* r = d.post(in, d.tag(i, 1));
      d.signal_ready(i);
      d.worker().wait(r);
      d.send(out, d.tag(i, 2));
      d.finish(point, r, in, d.seq(i));
    }
  }
}

void run_pingpong(const Scenario& scenario, const RunContext& context, Rank rank, Transport& transport,
                  Results& results) {
  PairDriver(scenario, context, rank, transport, results).run(pingpong_step, PerfType::Latency);
}

std::any parse_pairs(const Attributes& attributes, const Scenario&) {
  PairsSettings settings;
  if (attributes.find("pairs"))
    settings.pairs = attributes.count("pairs", 2);
  return settings;
}

Rank pair_ranks(const Scenario& scenario) {
  return static_cast<Rank>(2 * workload_settings<PairsSettings>(scenario).pairs);
}

constexpr std::array<std::string_view, 1> kPairsAttributes{"pairs"};

}  // namespace

const Workload pingpong_workload{
    .name = "pingpong",
    .description = "one message there, one back: half the round trip",
    .attributes = {},
    .parse = nullptr,
    .curve_error = pair_curve_error,
    .ranks = one_pair,
    .run = run_pingpong,
};

const Workload pairs_workload{
    .name = "pairs",
    .description = "`pairs` ping-pong pairs at once",
    .attributes = kPairsAttributes,
    .parse = parse_pairs,
    .curve_error = pair_curve_error,
    .ranks = pair_ranks,
    .run = run_pingpong,
};

}  // namespace xover
