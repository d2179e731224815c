// The calibrated platform's XML (platform_writer.hpp).
#include "tools/calib/platform_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace xover::calib {
namespace {

/// `t` written with `fmt` (a figure in nanoseconds), refused with the lane,
/// the figure and `not_a` where it is negative or not finite.
std::string figure_text(const std::string& lane, const char* what, double t, const char* fmt, const char* not_a) {
  if (!std::isfinite(t) || t < 0)
    throw std::invalid_argument("calibrated lane " + lane + ": " + what + " is " + std::to_string(t) + " " + not_a);
  char buf[48];
  std::snprintf(buf, sizeof buf, fmt, t * 1e9);
  return buf;
}

std::string time_text(const std::string& lane, const char* what, Seconds t) {
  return figure_text(lane, what, t, "%.3fns", "s, not a time");
}

/// A time per byte, to a hundred-thousandth of a nanosecond ("0.17282ns/B").
std::string per_byte_text(const std::string& lane, const char* what, SecondsPerByte t) {
  return figure_text(lane, what, t, "%.5fns/B", "s/B, not a time per byte");
}

std::string bandwidth_text(const std::string& lane, BytesPerSecond b) {
  if (!std::isfinite(b) || !(b > 0))
    throw std::invalid_argument("calibrated lane " + lane + ": bandwidth " + std::to_string(b) +
                                " B/s is not positive");
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0fBps", b);
  return buf;
}

// `plain` through `text`, or `steps` as "0:...;32768:..." when there are any.
std::string stepped(const SizeSteps& steps, double plain, const std::function<std::string(double)>& text) {
  if (steps.empty())
    return text(plain);
  std::string out;
  for (const SizeStep& step : steps.steps())
    out += (out.empty() ? "" : ";") + std::to_string(step.from) + ":" + text(step.value);
  return out;
}

// A message factor's steps, each in (0, 1], for `what` in messages.
std::string factor_steps(const std::string& what, const SizeSteps& steps) {
  return stepped(steps, 1, [&what](double f) {
    if (!(f > 0 && f <= 1))
      throw std::invalid_argument("calibrated " + what + " " + std::to_string(f) + " is not in (0, 1]");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", f);
    return std::string(buf);
  });
}

std::string prop(const std::string& id, const std::string& value) {
  return "      <prop id=\"xover:" + id + "\" value=\"" + value + "\"/>\n";
}

/// The GPU lane's figures of `d` (lane.hpp) that differ from their
/// defaults, which change nothing and are left out.
std::string gpu_lane_props(const DeviceAttrs& d) {
  const DeviceAttrs plain;
  std::string out;
  const auto time = [&out](const char* id, Seconds t, Seconds none) {
    if (t != none)
      out += prop(id, time_text("device", id, t));
  };
  const auto count = [&out](const char* id, std::uint32_t c, std::uint32_t none) {
    if (c == 0)
      throw std::invalid_argument(std::string("calibrated device ") + id + " is 0, not a count");
    if (c != none)
      out += prop(id, std::to_string(c));
  };
  time("launch", d.launch, plain.launch);
  time("post_slope", d.post_slope, plain.post_slope);
  count("doorbell_batch", d.doorbell_batch, plain.doorbell_batch);
  time("engine_gap", d.engine_gap, plain.engine_gap);
  if (d.engine_bw != plain.engine_bw)
    out += prop("engine_bw", bandwidth_text("device engine_bw", d.engine_bw));
  count("proxy_threads", d.proxy_threads, plain.proxy_threads);
  count("ring_capacity", d.ring_capacity, plain.ring_capacity);
  return out;
}

/// XML comments may not hold "--".
std::string comment_safe(std::string text) {
  for (std::size_t i = text.find("--"); i != std::string::npos; i = text.find("--", i))
    text[i + 1] = ' ';
  return text;
}

}  // namespace

std::string rail_name(const std::string& lane) {
  std::string out = lane;
  for (char& ch : out)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-')
      ch = '-';
  return out;
}

std::string platform_xml(const PlatformDraft& draft) {
  std::ostringstream os;
  os << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<!-- "
     << comment_safe(draft.title) << "\n";
  for (const std::string& line : draft.comments)
    os << "     " << comment_safe(line) << "\n";
  os << "-->\n<platform version=\"4.1\">\n"
     << "  <!-- Exact LogGP (DESIGN.md, \"The simulated platform\"). -->\n"
     << "  <config>\n"
     << "    <prop id=\"network/model\" value=\"CM02\"/>\n"
     << "    <prop id=\"network/crosstraffic\" value=\"0\"/>\n"
     << "    <prop id=\"network/TCP-gamma\" value=\"0\"/>\n"
     << "    <prop id=\"surf/precision\" value=\"1e-12\"/>\n"
     << "  </config>\n\n"
     << "  <zone id=\"machine\" routing=\"Full\">\n"
     << "    <!-- The calibration record: the workloads and curves the figures were fitted to, and which probe "
        "gave each figure. -->\n"
     << "    <prop id=\"" << kFitSetProp << "\" value=\"" << fit_set_text(draft.fit_set) << "\"/>\n";
  if (!draft.sources.empty())
    os << "    <prop id=\"" << kSourcesProp << "\" value=\"" << sources_text(draft.sources) << "\"/>\n";
  const std::string memcpy_bw = stepped(draft.memcpy_steps, draft.memcpy_bw, [](double b) {
    if (!std::isfinite(b) || !(b > 0))
      throw std::invalid_argument("calibrated memcpy bandwidth " + std::to_string(b) + " B/s is not positive");
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.0fBps", b);
    return std::string(buf);
  });
  std::string device;
  if (draft.device)
    device = prop("device_o", time_text("device", "device_o", draft.device->device_o)) +
             prop("threads", std::to_string(draft.device->threads)) +
             prop("proxy_o", time_text("device", "proxy_o", draft.device->proxy_o)) +
             prop("proxy_wake", time_text("device", "proxy_wake", draft.device->proxy_wake)) +
             gpu_lane_props(*draft.device);
  if (draft.device_copy)
    device += prop("stage_o", time_text("device", "stage_o", draft.device_copy->stage_o)) +
              prop("stage_bw", bandwidth_text("device stage_bw", draft.device_copy->stage_bw)) +
              prop("ipc_bw", bandwidth_text("device ipc_bw", draft.device_copy->ipc_bw));
  const std::string bw_factor =
      draft.bw_factor.empty() ? std::string() : prop("bw_factor", factor_steps("bw_factor", draft.bw_factor));
  for (const char* node : {"node0", "node1"}) {
    os << "    <host id=\"" << node << "\" speed=\"1Gf\">\n"
       << "      <prop id=\"xover:memcpy_bw\" value=\"" << memcpy_bw << "\"/>\n"
       << bw_factor << device << "    </host>\n";
    for (const LaneAttrs& lane : draft.lanes)
      os << "    <host id=\"" << node << "." << rail_name(lane.name) << "\" speed=\"1Gf\"/>\n";
  }
  os << "\n";
  for (const LaneAttrs& lane : draft.lanes) {
    const std::string rail = rail_name(lane.name);
    const auto time_of = [&rail](const char* what) {
      return [&rail, what](double t) { return time_text(rail, what, t); };
    };
    // A link's bandwidth is at least each of its steps' (the loader's rule).
    BytesPerSecond link = lane.bandwidth;
    for (const SizeStep& step : lane.bandwidth_steps.steps())
      link = std::max(link, step.value);
    os << "    <link id=\"" << rail << "\" bandwidth=\"" << bandwidth_text(rail, link) << "\" latency=\""
       << time_text(rail, "latency", lane.latency) << "\" sharing_policy=\"SPLITDUPLEX\">\n"
       << prop("o_send", stepped(lane.o_send_steps, lane.o_send, time_of("o_send")))
       << (lane.o_send_after > 0 ? prop("o_send_after", time_text(rail, "o_send_after", lane.o_send_after)) : "")
       << prop("o_recv", stepped(lane.o_recv_steps, lane.o_recv, time_of("o_recv")))
       << prop("gap", time_text(rail, "gap", lane.gap)) << prop("reg_cost", time_text(rail, "reg_cost", lane.reg_cost))
       << prop("reg_growth", time_text(rail, "reg_growth", lane.reg_growth))
       << prop("max_short", std::to_string(lane.max_short) + "B")
       << prop("max_bcopy", std::to_string(lane.max_bcopy) + "B")
       << prop("max_zcopy", std::to_string(lane.max_zcopy) + "B")
       << prop("seg_size", std::to_string(lane.seg_size) + "B") << prop("caps", lane.caps.to_string());
    if (!lane.bcopy_copies)
      os << prop("bcopy_copy", "no");
    if (lane.cpu_moves)
      os << prop("cpu_moves", "yes");
    if (lane.get_served)
      os << prop("get_served", "yes");
    if (lane.o_core_send > 0)
      os << prop("o_core_send", time_text(rail, "o_core_send", lane.o_core_send));
    if (lane.o_core_recv > 0)
      os << prop("o_core_recv", time_text(rail, "o_core_recv", lane.o_core_recv));
    if (lane.o_send_per_byte > 0)
      os << prop("o_send_per_byte", per_byte_text(rail, "o_send_per_byte", lane.o_send_per_byte));
    if (lane.o_recv_per_byte > 0)
      os << prop("o_recv_per_byte", per_byte_text(rail, "o_recv_per_byte", lane.o_recv_per_byte));
    if (!lane.bandwidth_steps.empty())
      os << prop("bandwidth", stepped(lane.bandwidth_steps, lane.bandwidth,
                                      [&rail](double b) { return bandwidth_text(rail, b); }));
    if (!lane.message_factor.empty())
      os << prop("bw_factor", factor_steps("lane " + rail + ": bw_factor", lane.message_factor));
    os << "    </link>\n";
  }
  os << "\n    <!-- node1 to node0 takes the _DOWN half of each link (symmetrical routes). -->\n";
  for (const LaneAttrs& lane : draft.lanes) {
    const std::string rail = rail_name(lane.name);
    os << "    <route src=\"node0." << rail << "\" dst=\"node1." << rail << "\"><link_ctn id=\"" << rail
       << "\" direction=\"UP\"/></route>\n";
  }
  os << "  </zone>\n</platform>\n";
  return os.str();
}

}  // namespace xover::calib
