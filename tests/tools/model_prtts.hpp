// PRTT points of one lane as fit.hpp's model gives them, for the
// calibration tests: sizes 8 B to 1 MiB (every 4×), n messages a train, a
// stream of 64, a delay of two round trips, with the overheads given as
// functions of the payload size.
#pragma once

#include <functional>
#include <vector>

#include "tools/calib/calibration.hpp"

namespace xover::calib::test {

/// The lane's figures: L, g, G (seconds per byte) and o_s(s), o_r(s).
struct ModelLane {
  double latency = 1e-6, gap = 0.1e-6, per_byte = 1 / 3e9;
  std::function<double(double)> o_send, o_recv;
};

inline std::vector<PrttPoint> model_prtts(const ModelLane& lane, int n) {
  std::vector<PrttPoint> out;
  for (Bytes s = 8; s <= Bytes{1} << 20; s *= 4) {
    const double x = static_cast<double>(s);
    const double os = lane.o_send(x), orr = lane.o_recv(x), G = lane.per_byte;
    PrttPoint p;
    p.size = s;
    p.rtt1 = 2 * (os + lane.latency + G * x + orr);
    p.rttn = p.rtt1 + (n - 1) * (lane.gap + G * x);
    p.delay = 2 * p.rtt1;
    p.posts_delayed = n * (os + p.delay);
    p.rttd = p.posts_delayed + orr;
    p.o_send = os;
    p.stream = p.rtt1 + 63 * (lane.gap + G * x);
    p.stream_messages = 64;
    out.push_back(p);
  }
  return out;
}

}  // namespace xover::calib::test
