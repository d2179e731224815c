#include "protocols/lanes/lane.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

namespace xover {
namespace {

constexpr std::array<std::pair<LaneCap, std::string_view>, 7> kCapNames{{
    {LaneCap::AmShort, "am_short"},
    {LaneCap::AmBcopy, "am_bcopy"},
    {LaneCap::AmZcopy, "am_zcopy"},
    {LaneCap::PutZcopy, "put_zcopy"},
    {LaneCap::GetZcopy, "get_zcopy"},
    {LaneCap::Atomics, "atomics"},
    {LaneCap::ConnectToIface, "connect_to_iface"},
}};

// Every value of `steps` times `factor`.
SizeSteps scaled(const SizeSteps& steps, double factor) {
  std::vector<SizeStep> out = steps.steps();
  for (SizeStep& step : out)
    step.value *= factor;
  return SizeSteps(std::move(out));
}

}  // namespace

std::string LaneCaps::to_string() const {
  std::string out;
  for (auto [cap, name] : kCapNames) {
    if (!has(cap))
      continue;
    if (!out.empty())
      out += ',';
    out += name;
  }
  return out;
}

LaneCaps LaneCaps::parse(std::string_view text) {
  LaneCaps caps;
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    if (!item.empty()) {
      bool known = false;
      for (auto [cap, name] : kCapNames) {
        if (item == name) {
          caps.add(cap);
          known = true;
        }
      }
      if (!known) {
        std::string names;
        for (auto [cap, name] : kCapNames)
          names += (names.empty() ? "" : ", ") + std::string(name);
        throw std::invalid_argument("unknown capability '" + std::string(item) + "' (known: " + names + ")");
      }
    }
    if (comma == std::string_view::npos)
      break;
    text.remove_prefix(comma + 1);
  }
  return caps;
}

LaneAttrs LaneAttrs::at(Bytes n) const {
  LaneAttrs out = *this;
  out.o_send = o_send_at(n);
  out.o_recv = o_recv_at(n);
  out.bandwidth = bandwidth_at(n);
  return out;
}

Path Path::at(Bytes n) const {
  Path out = *this;
  for (LaneAttrs& lane : out.lanes)
    lane = lane.at(n);
  out.memcpy_bw_local = memcpy_local_at(n);
  out.memcpy_bw_remote = memcpy_remote_at(n);
  return out;
}

Path Path::costs() const {
  Path out = *this;
  out.from.clear();
  out.to.clear();
  for (LaneAttrs& lane : out.lanes)
    lane.name.clear();
  return out;
}

bool Path::has_message_factor() const {
  return !message_factor.empty() ||
         std::any_of(lanes.begin(), lanes.end(), [](const LaneAttrs& lane) { return !lane.message_factor.empty(); });
}

Path Path::for_message(Bytes n) const {
  Path out = at(n);
  const double factor = message_factor_at(n);
  out.message_factor = {};
  for (LaneAttrs& lane : out.lanes) {
    const double own = lane_factor_at(lane, n);
    lane.message_factor = {};
    if (own == 1)
      continue;
    lane.bandwidth *= own;
    lane.bandwidth_steps = scaled(lane.bandwidth_steps, own);
  }
  if (factor == 1)
    return out;
  // The CPUs' time per payload byte is a copy at each end: the path's pace,
  // as the memcpy bandwidths.
  for (LaneAttrs& lane : out.lanes) {
    lane.o_send_per_byte /= factor;
    lane.o_recv_per_byte /= factor;
  }
  out.memcpy_bw_local *= factor;
  out.memcpy_bw_remote *= factor;
  out.memcpy_local_steps = scaled(out.memcpy_local_steps, factor);
  out.memcpy_remote_steps = scaled(out.memcpy_remote_steps, factor);
  return out;
}

std::vector<Bytes> Path::breakpoints() const {
  std::vector<Bytes> out;
  auto add = [&out](const SizeSteps& steps) {
    const std::vector<Bytes> more = steps.breakpoints();
    out.insert(out.end(), more.begin(), more.end());
  };
  for (const LaneAttrs& lane : lanes) {
    add(lane.o_send_steps);
    add(lane.o_recv_steps);
    add(lane.bandwidth_steps);
    add(lane.message_factor);
  }
  add(memcpy_local_steps);
  add(memcpy_remote_steps);
  add(message_factor);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace xover
