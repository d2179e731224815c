// Hand-built paths for tests: explicit numbers, as UCX's golden tests give a
// mock transport, so that every threshold can be worked out on paper.
#pragma once

#include <string>

#include "protocols/lanes/lane.hpp"

namespace xover::test {

/// A lane with round numbers, given in microseconds, GB/s and bytes.
inline LaneAttrs lane(std::string name, double latency_us, double gbps, double o_us) {
  LaneAttrs l;
  l.name = std::move(name);
  l.latency = latency_us * 1e-6;
  l.bandwidth = gbps * 1e9;
  l.o_send = o_us * 1e-6;
  l.o_recv = o_us * 1e-6;
  l.gap = 0;
  l.reg_cost = 0;
  l.reg_growth = 0;
  return l;
}

inline Path path(std::vector<LaneAttrs> lanes, double memcpy_gbps) {
  Path p;
  p.from = "a";
  p.to = "b";
  p.lanes = std::move(lanes);
  p.memcpy_bw_local = memcpy_gbps * 1e9;
  p.memcpy_bw_remote = memcpy_gbps * 1e9;
  return p;
}

}  // namespace xover::test
