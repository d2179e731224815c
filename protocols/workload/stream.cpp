// The stream: rank 0 sends `window` messages back to back, rank 1 acks the
// window with 8 bytes; a sample is the window's time over its size, and
// the model is the selected protocol's streaming cost. Attribute window:
// messages in flight, at least 1, default 16.
#include <array>
#include <vector>

#include "protocols/workload/pair_driver.hpp"
#include "protocols/workload/stream.hpp"
#include "protocols/workload/workloads.hpp"

namespace xover {
namespace {

void stream_step(PairDriver& d, Point& point, Bytes n) {
  const Scenario& s = d.scenario();
  const std::size_t window_size = workload_settings<StreamSettings>(s).window;
  std::vector<Payload> window;
  for (std::size_t w = 0; w < window_size; ++w)
    window.emplace_back(n, s.phantom, d.payload_memory());
  Payload ack(8, s.phantom, d.payload_memory());
  std::vector<Request*> reqs(window_size);
  for (std::size_t i = 0; i < d.warmup() + d.iterations(); ++i) {
    if (d.leader()) {
      for (std::size_t w = 0; w < window_size; ++w)
        window[w].fill(s.seed, d.rank(), d.seq(i, w));
      d.wait_ready(point, i);
      const Seconds t0 = d.now();
      for (std::size_t w = 0; w < window_size; ++w)
        reqs[w] = d.worker().tag_send(d.peer(), window[w].send_buffer(), d.tag(i, 3));
      for (Request* r : reqs) {
        d.worker().wait(r);
        d.worker().release(r);
      }
      Request* r = d.post(ack, d.tag(i, 4));
      d.worker().wait(r);
      if (i >= d.warmup())
        point.samples.push_back((d.now() - t0) / static_cast<double>(window_size));
      d.finish(point, r, ack, d.seq(i));
    } else {
      ack.fill(s.seed, d.rank(), d.seq(i));
      for (std::size_t w = 0; w < window_size; ++w)
        reqs[w] = d.post(window[w], d.tag(i, 3));
      d.signal_ready(i);
      for (Request* r : reqs)
        d.worker().wait(r);
      d.send(ack, d.tag(i, 4));
      for (std::size_t w = 0; w < window_size; ++w)
        d.finish(point, reqs[w], window[w], d.seq(i, w));
    }
  }
}

void run_stream(const Scenario& scenario, const RunContext& context, Rank rank, Transport& transport,
                Results& results) {
  PairDriver(scenario, context, rank, transport, results).run(stream_step, PerfType::Streaming);
}

std::any parse_stream(const Attributes& attributes, const Scenario&) {
  StreamSettings settings;
  if (attributes.find("window"))
    settings.window = attributes.count("window", 1);
  return settings;
}

constexpr std::array<std::string_view, 1> kAttributes{"window"};

}  // namespace

const Workload stream_workload{
    .name = "stream",
    .description = "`window` messages back to back, then an ack: the window's time over its size",
    .attributes = kAttributes,
    .parse = parse_stream,
    .curve_error = pair_curve_error,
    .ranks = one_pair,
    .run = run_stream,
};

}  // namespace xover
