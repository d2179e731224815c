// The unexpected receive: rank 1 posts its receive `delay` after its last
// ack, when the message has arrived; a sample is the late receive's
// post-to-completion time, and each point carries the bytes rank 1 held
// meanwhile. No model: no cost line prices a late receive. Attribute
// delay: a time of at least 0, default 10us.
#include <algorithm>
#include <array>
#include <stdexcept>

#include "protocols/workload/pair_driver.hpp"
#include "protocols/workload/unexpected.hpp"
#include "protocols/workload/workloads.hpp"

namespace xover {
namespace {

void unexpected_step(PairDriver& d, Point& point, Bytes n) {
  const Scenario& s = d.scenario();
  Payload data(n, s.phantom, d.payload_memory());
  Payload ack(8, s.phantom, d.payload_memory());
  for (std::size_t i = 0; i < d.warmup() + d.iterations(); ++i) {
    if (d.leader()) {
      data.fill(s.seed, d.rank(), d.seq(i));
      d.wait_ready(point, i);
      d.send(data, d.tag(i, 5));
      d.finish(point, d.post(ack, d.tag(i, 6)), ack, d.seq(i));
      continue;
    }
    ack.fill(s.seed, d.rank(), d.seq(i));
    d.signal_ready(i);
    const Seconds late = d.now() + workload_settings<UnexpectedSettings>(s).delay;
    while (d.now() < late)
      d.worker().progress(late);
    const Seconds posted = d.now();
    Request* r = d.post(data, d.tag(i, 5));
    d.worker().wait(r);
    if (i >= d.warmup())
      point.samples.push_back(d.now() - posted);
    point.buffered_peak = std::max(point.buffered_peak, d.worker().stats().buffered_peak);
    d.send(ack, d.tag(i, 6));
    d.finish(point, r, data, d.seq(i));
  }
}

void run_unexpected(const Scenario& scenario, const RunContext& context, Rank rank, Transport& transport,
                    Results& results) {
  PairDriver(scenario, context, rank, transport, results).run(unexpected_step, std::nullopt);
}

std::any parse_unexpected(const Attributes& attributes, const Scenario&) {
  UnexpectedSettings settings;
  const auto value = attributes.find("delay");
  if (!value)
    return settings;
  try {
    settings.delay = parse_time(*value);
  } catch (const std::invalid_argument& e) {
    attributes.bad("delay", *value, e.what());
  }
  if (settings.delay < 0)
    attributes.bad("delay", *value, "a delay cannot be negative");
  return settings;
}

constexpr std::array<std::string_view, 1> kAttributes{"delay"};

}  // namespace

const Workload unexpected_workload{
    .name = "unexpected",
    .description = "the receive posted `delay` after the send: its post-to-completion time and the bytes held",
    .attributes = kAttributes,
    .parse = parse_unexpected,
    .curve_error = pair_curve_error,
    .ranks = one_pair,
    .run = run_unexpected,
    .reports_held = true,
};

}  // namespace xover
