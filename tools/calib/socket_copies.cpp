// The CPUs' time per payload byte from the probes (socket_copies.hpp).
#include "tools/calib/socket_copies.hpp"

#include <algorithm>
#include <cstdio>

namespace xover::calib {
namespace {

std::string line_text(const LineFit& f) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.4f us + %.5f ns/B * s (R2 %.4f)", f.c * 1e6, f.m * 1e9, f.r2);
  return buf;
}

/// The least R2 of a line that gives a figure.
constexpr double kSteadyLine = 0.9;

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

/// `lane` takes the figures of `copies` that are not refused, each with its
/// probe in the record.
void take_copies(const SocketCopies& copies, LaneAttrs& lane, Calibration& out) {
  lane.o_send_per_byte = copies.send_per_byte;
  lane.o_recv_per_byte = copies.recv_per_byte;
  if (copies.send_refused.empty())
    out.draft.sources[lane.name + ".o_send_per_byte"] = "post-slope";
  if (copies.recv_refused.empty()) {
    out.draft.sources[lane.name + ".o_recv_per_byte"] = "delayed-prtt-slope";
    out.draft.sources[lane.name + ".bandwidth"] += "-less-recv-slope";
  }
}

}  // namespace

std::optional<SocketCopies> fit_socket_copies(std::span<const PrttPoint> am, int messages, BytesPerSecond memcpy_bw) {
  if (am.size() < 2)
    return std::nullopt;
  const LogGPFit f = fit_loggp(am, messages);
  SocketCopies out;
  out.send = f.o_send;
  out.recv = f.o_recv;
  out.message = f.round_trip.m / 2;
  out.send_per_byte = std::max(0.0, f.o_send.m);
  out.recv_per_byte = std::max(0.0, f.o_recv.m - 1 / memcpy_bw);
  out.send_refused = refusal(f.o_send, out.send_per_byte, out.message);
  out.recv_refused = refusal(f.o_recv, out.recv_per_byte, out.message);
  if (!out.send_refused.empty())
    out.send_per_byte = 0;
  if (!out.recv_refused.empty())
    out.recv_per_byte = 0;
  out.from = am.front().size;
  out.to = am.back().size;
  for (const PrttPoint& p : am) {
    out.from = std::min(out.from, p.size);
    out.to = std::max(out.to, p.size);
  }
  return out;
}

void add_socket_copies(const Measurements& m, Calibration& out) {
  for (LaneAttrs& lane : out.draft.lanes) {
    if (lane.bcopy_copies || !lane.caps.has_any({LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::AmZcopy}))
      continue;
    const auto probed = std::find_if(m.lanes.begin(), m.lanes.end(), [&](const LaneMeasurement& lm) {
      return rail_name(lm.hardware.name) == lane.name && !lm.am.empty();
    });
    if (probed == m.lanes.end())
      continue;
    const std::optional<SocketCopies> copies = fit_socket_copies(probed->am, m.messages, out.draft.memcpy_bw);
    if (!copies)
      continue;
    take_copies(*copies, lane, out);
    const SecondsPerByte whole = 1 / lane.bandwidth;
    const SecondsPerByte wire = std::max(whole - lane.o_recv_per_byte, whole / 100);
    lane.bandwidth = 1 / wire;
    // The gets their target serves over the same sockets (NAME-rma,
    // LaneAttrs::get_served): the reply is the target's send() and the
    // initiator's recv(), the same copies.
    for (LaneAttrs& rma : out.draft.lanes)
      if (rma.name == lane.name + "-rma" && rma.get_served) {
        take_copies(*copies, rma, out);
        rma.bandwidth = 1 / std::max(1 / rma.bandwidth - rma.o_recv_per_byte, 1 / rma.bandwidth / 100);
      }
    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "lane %s: the CPUs' time per payload byte, over %llu..%llu B: the sender's %.5f ns/B, o_s(s)'s "
                  "slope (%s), spent after the message has left; the receiver's %.5f ns/B, o_r(s)'s slope (%s) "
                  "less the handler's copy at %.4f GB/s; the wire's share of a message's time per byte, %.5f ns/B "
                  "less the receiver's: %.5f ns/B%s",
                  lane.name.c_str(), static_cast<unsigned long long>(copies->from),
                  static_cast<unsigned long long>(copies->to), lane.o_send_per_byte * 1e9,
                  line_text(copies->send).c_str(), lane.o_recv_per_byte * 1e9, line_text(copies->recv).c_str(),
                  out.draft.memcpy_bw / 1e9, whole * 1e9, wire * 1e9,
                  wire > whole - lane.o_recv_per_byte ? " (1 % of it: the receiver's is nearly all)" : "");
    out.draft.comments.emplace_back(buf);
    if (!copies->send_refused.empty())
      out.notes.push_back("lane " + lane.name + ": no sender's time per byte: o_s(s)'s slope, " + copies->send_refused);
    if (!copies->recv_refused.empty())
      out.notes.push_back("lane " + lane.name + ": no receiver's time per byte: o_r(s)'s slope less the copy, " +
                          copies->recv_refused);
  }
}

}  // namespace xover::calib
