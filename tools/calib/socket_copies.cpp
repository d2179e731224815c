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

/// `lane` takes the figures of `copies` (runtime::apply_cpu_per_byte), each
/// one not refused with its probe in the record.
void take_copies(const SocketCopies& copies, LaneAttrs& lane, Calibration& out) {
  runtime::apply_cpu_per_byte(copies, lane);
  if (copies.send_refused.empty())
    out.draft.sources[lane.name + ".o_send_per_byte"] = "post-slope";
  if (copies.recv_refused.empty()) {
    out.draft.sources[lane.name + ".o_recv_per_byte"] = "delayed-prtt-slope";
    out.draft.sources[lane.name + ".bandwidth"] += "-less-recv-slope";
  }
}

}  // namespace

std::optional<SocketCopies> fit_socket_copies(std::span<const PrttPoint> am, BytesPerSecond memcpy_bw) {
  std::vector<runtime::CopyProbe> probes;
  for (const PrttPoint& p : am)
    probes.push_back({p.size, p.o_send, p.rttd - p.posts_delayed, p.rtt1});
  return runtime::fit_cpu_per_byte(probes, 1 / memcpy_bw);
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
    const std::optional<SocketCopies> copies = fit_socket_copies(probed->am, out.draft.memcpy_bw);
    if (!copies)
      continue;
    const SecondsPerByte whole = 1 / lane.bandwidth;
    take_copies(*copies, lane, out);
    const SecondsPerByte wire = 1 / lane.bandwidth;
    // The gets their target serves over the same sockets (NAME-rma,
    // LaneAttrs::get_served): the reply is the target's send() and the
    // initiator's recv(), the same copies.
    for (LaneAttrs& rma : out.draft.lanes)
      if (rma.name == lane.name + "-rma" && rma.get_served)
        take_copies(*copies, rma, out);
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
    for (std::string& line : runtime::refusal_lines(*copies, lane.name))
      out.notes.push_back(std::move(line));
  }
}

}  // namespace xover::calib
