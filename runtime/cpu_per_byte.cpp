// The CPUs' time per payload byte from the probes (cpu_per_byte.hpp).
#include "runtime/cpu_per_byte.hpp"

#include <algorithm>
#include <cstdio>

namespace xover::runtime {
namespace {

/// Why `per_byte`, the slope of `line`, is no figure: empty when it is one.
std::string refusal(const LineFit& line, SecondsPerByte per_byte, SecondsPerByte message) {
  char buf[160];
  if (line.r2 < kSteadyLine)
    std::snprintf(buf, sizeof buf, "its line's R2 %.4f is below %.2f (disturbed runs)", line.r2, kSteadyLine);
  else if (per_byte > message)
    std::snprintf(buf, sizeof buf, "%.5f ns/B is more than one message's whole time per byte, %.5f ns/B",
                  per_byte * 1e9, message * 1e9);
  else
    return {};
  return buf;
}

}  // namespace

std::optional<CpuPerByte> fit_cpu_per_byte(std::span<const CopyProbe> probes, SecondsPerByte handler_copy) {
  if (probes.size() < 2)
    return std::nullopt;
  std::vector<double> s, post, take_in, round_trip;
  for (const CopyProbe& p : probes) {
    s.push_back(static_cast<double>(p.size));
    post.push_back(p.post);
    take_in.push_back(p.take_in);
    round_trip.push_back(p.round_trip);
  }
  CpuPerByte out;
  out.send = fit_line(s, post);
  out.recv = fit_line(s, take_in);
  out.message = fit_line(s, round_trip).m / 2;
  out.send_per_byte = std::max(0.0, out.send.m);
  out.recv_per_byte = std::max(0.0, out.recv.m - handler_copy);
  out.send_refused = refusal(out.send, out.send_per_byte, out.message);
  out.recv_refused = refusal(out.recv, out.recv_per_byte, out.message);
  if (!out.send_refused.empty())
    out.send_per_byte = 0;
  if (!out.recv_refused.empty())
    out.recv_per_byte = 0;
  const auto [low, high] = std::minmax_element(probes.begin(), probes.end(),
                                               [](const CopyProbe& a, const CopyProbe& b) { return a.size < b.size; });
  out.from = low->size;
  out.to = high->size;
  return out;
}

SecondsPerByte wire_per_byte(SecondsPerByte whole, SecondsPerByte recv_per_byte) {
  return std::max(whole - recv_per_byte, whole / 100);
}

void apply_cpu_per_byte(const CpuPerByte& figures, LaneAttrs& lane) {
  lane.o_send_per_byte = figures.send_per_byte;
  lane.o_recv_per_byte = figures.recv_per_byte;
  lane.bandwidth = 1 / wire_per_byte(1 / lane.bandwidth, lane.o_recv_per_byte);
}

std::vector<std::string> refusal_lines(const CpuPerByte& figures, const std::string& lane) {
  std::vector<std::string> lines;
  if (!figures.send_refused.empty())
    lines.push_back("lane " + lane + ": no sender's time per byte: o_s(s)'s slope, " + figures.send_refused);
  if (!figures.recv_refused.empty())
    lines.push_back("lane " + lane + ": no receiver's time per byte: o_r(s)'s slope less the copy, " +
                    figures.recv_refused);
  return lines;
}

}  // namespace xover::runtime
