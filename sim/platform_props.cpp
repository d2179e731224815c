// The `xover:` properties of links and node hosts (platform_props.hpp).
#include "sim/platform_props.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace xover::sim::detail {
namespace {

enum class PropKind { Time, TimePerByte, Size, Caps, Bandwidth, Factor, YesNo };

/// One `xover:` link property and the LaneAttrs field it sets.
struct LinkProp {
  std::string_view name;
  PropKind kind;
  double LaneAttrs::*seconds;  ///< for Time and TimePerByte
  Bytes LaneAttrs::*bytes;     ///< for Size
  SizeSteps LaneAttrs::*steps = nullptr;  ///< for a figure that may change with the operation's size
  bool LaneAttrs::*flag = nullptr;        ///< for YesNo
};

constexpr std::array kLinkProps{
    LinkProp{"xover:o_send", PropKind::Time, &LaneAttrs::o_send, nullptr, &LaneAttrs::o_send_steps},
    LinkProp{"xover:o_send_after", PropKind::Time, &LaneAttrs::o_send_after, nullptr},
    LinkProp{"xover:o_recv", PropKind::Time, &LaneAttrs::o_recv, nullptr, &LaneAttrs::o_recv_steps},
    LinkProp{"xover:gap", PropKind::Time, &LaneAttrs::gap, nullptr},
    LinkProp{"xover:reg_cost", PropKind::Time, &LaneAttrs::reg_cost, nullptr},
    LinkProp{"xover:reg_growth", PropKind::TimePerByte, &LaneAttrs::reg_growth, nullptr},
    LinkProp{"xover:max_short", PropKind::Size, nullptr, &LaneAttrs::max_short},
    LinkProp{"xover:max_bcopy", PropKind::Size, nullptr, &LaneAttrs::max_bcopy},
    LinkProp{"xover:max_zcopy", PropKind::Size, nullptr, &LaneAttrs::max_zcopy},
    LinkProp{"xover:seg_size", PropKind::Size, nullptr, &LaneAttrs::seg_size},
    LinkProp{"xover:caps", PropKind::Caps, nullptr, nullptr},
    LinkProp{"xover:bandwidth", PropKind::Bandwidth, nullptr, nullptr, &LaneAttrs::bandwidth_steps},
    LinkProp{"xover:bcopy_copy", PropKind::YesNo, nullptr, nullptr, nullptr, &LaneAttrs::bcopy_copies},
    LinkProp{"xover:cpu_moves", PropKind::YesNo, nullptr, nullptr, nullptr, &LaneAttrs::cpu_moves},
    LinkProp{"xover:get_served", PropKind::YesNo, nullptr, nullptr, nullptr, &LaneAttrs::get_served},
    LinkProp{"xover:o_core_send", PropKind::Time, &LaneAttrs::o_core_send, nullptr},
    LinkProp{"xover:o_core_recv", PropKind::Time, &LaneAttrs::o_core_recv, nullptr},
    LinkProp{"xover:o_send_per_byte", PropKind::TimePerByte, &LaneAttrs::o_send_per_byte, nullptr},
    LinkProp{"xover:o_recv_per_byte", PropKind::TimePerByte, &LaneAttrs::o_recv_per_byte, nullptr},
    LinkProp{"xover:bw_factor", PropKind::Factor, nullptr, nullptr, &LaneAttrs::message_factor},
};
constexpr std::string_view kPrefix = "xover:";

/// A size that must not be zero while the link has any of `needed_by`.
struct SizeNeed {
  std::string_view name;
  Bytes LaneAttrs::*size;
  LaneCaps needed_by;
};

constexpr std::array kSizeNeeds{
    SizeNeed{"xover:max_short", &LaneAttrs::max_short, {LaneCap::AmShort}},
    SizeNeed{"xover:max_bcopy", &LaneAttrs::max_bcopy, {LaneCap::AmBcopy}},
    SizeNeed{"xover:max_zcopy", &LaneAttrs::max_zcopy, {LaneCap::AmZcopy, LaneCap::PutZcopy, LaneCap::GetZcopy}},
    SizeNeed{"xover:seg_size", &LaneAttrs::seg_size, {LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::AmZcopy}},
};

LaneCaps intersect(LaneCaps a, LaneCaps b) {
  LaneCaps both;
  for (auto bit = static_cast<std::uint32_t>(LaneCap::AmShort);
       bit <= static_cast<std::uint32_t>(LaneCap::ConnectToIface); bit <<= 1) {
    const auto cap = static_cast<LaneCap>(bit);
    if (a.has(cap) && b.has(cap))
      both.add(cap);
  }
  return both;
}

// A figure given by size steps: `plain` takes the first step's value, and
// `steps` the steps when there is more than one (a plain value is one).
void read_steps(std::string_view text, double (*parse_value)(std::string_view), double& plain, SizeSteps* steps) {
  SizeSteps read = SizeSteps::parse(text, parse_value);
  if (read.steps().size() > 1 && steps == nullptr)
    throw std::invalid_argument("takes one value, not size steps");
  plain = read.steps().front().value;
  if (steps != nullptr)
    *steps = read.steps().size() > 1 ? std::move(read) : SizeSteps();
}

// A factor of a message's pace: a plain number in (0, 1].
double parse_factor(std::string_view text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value > 0 && value <= 1))
    throw std::invalid_argument("'" + std::string(text) + "' is not a factor in (0, 1]");
  return value;
}

// "yes" or "no".
bool parse_yes_no(std::string_view text) {
  if (text == "yes" || text == "no")
    return text == "yes";
  throw std::invalid_argument("'" + std::string(text) + "' is neither yes nor no");
}

// The smallest o_send of a link at any size: o_send_after must not pass it.
Seconds least_o_send(const LaneAttrs& values) {
  Seconds least = values.o_send;
  for (const SizeStep& step : values.o_send_steps.steps())
    least = std::min(least, step.value);
  return least;
}

std::string known_link_props() {
  std::string names;
  for (const LinkProp& prop : kLinkProps)
    names += (names.empty() ? "" : ", ") + std::string(prop.name);
  return names;
}

}  // namespace

SizeSteps combine_steps(const SizeSteps& a, double a_plain, const SizeSteps& b, double b_plain, bool larger) {
  if (a.empty() && b.empty())
    return {};
  std::vector<Bytes> sizes = a.breakpoints();
  const std::vector<Bytes> more = b.breakpoints();
  sizes.insert(sizes.end(), more.begin(), more.end());
  sizes.push_back(0);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<SizeStep> out;
  for (Bytes size : sizes)
    out.push_back({size, larger ? std::max(a.at(size, a_plain), b.at(size, b_plain))
                                : std::min(a.at(size, a_plain), b.at(size, b_plain))});
  return SizeSteps(std::move(out));
}

bool is_xover_prop(std::string_view key) {
  return key.starts_with(kPrefix);
}

LinkProps read_link_props(const std::string& file, const std::string& xml_id,
                          const std::map<std::string, std::string>& props, const PlatformXml& index) {
  LinkProps info;
  const std::string owner = "link " + xml_id;
  for (const auto& prop_entry : props) {
    // Named, not a structured binding: clang 14 cannot capture one in the lambda below.
    const std::string& key = prop_entry.first;
    const std::string& value = prop_entry.second;
    if (!is_xover_prop(key))
      continue;
    const auto* prop =
        std::find_if(kLinkProps.begin(), kLinkProps.end(), [&](const LinkProp& known) { return known.name == key; });
    int line = index.line(owner + " " + key);
    if (line == 0)
      line = index.line(owner);
    const std::string what = "link '" + xml_id + "': " + key;
    if (prop == kLinkProps.end())
      fail(file, line, "link '" + xml_id + "': unknown property '" + key + "' (known: " + known_link_props() + ")");
    try {
      switch (prop->kind) {
        case PropKind::Time:
          read_steps(value, parse_time, info.values.*prop->seconds,
                     prop->steps != nullptr ? &(info.values.*prop->steps) : nullptr);
          break;
        case PropKind::TimePerByte: {
          // Seconds per byte, written as a time ("0.06ns"), optionally "/B".
          const std::string_view text(value);
          info.values.*prop->seconds = parse_time(text.ends_with("/B") ? text.substr(0, text.size() - 2) : text);
          break;
        }
        case PropKind::Size:
          info.values.*prop->bytes = parse_size(value);
          break;
        case PropKind::Caps:
          info.values.caps = LaneCaps::parse(value);
          break;
        case PropKind::Bandwidth:
          // Kept as steps even when one: the simulator then moves the lane's
          // bytes at this rate rather than the link's.
          info.values.bandwidth_steps = SizeSteps::parse(value, parse_bandwidth);
          break;
        case PropKind::Factor:
          info.values.message_factor = SizeSteps::parse(value, parse_factor);
          break;
        case PropKind::YesNo:
          info.values.*prop->flag = parse_yes_no(value);
          break;
      }
    } catch (const std::invalid_argument& error) {
      fail(file, line, what + ": " + error.what());
    }
    const bool negative_step =
        prop->steps != nullptr && std::any_of((info.values.*prop->steps).steps().begin(),
                                              (info.values.*prop->steps).steps().end(),
                                              [](const SizeStep& step) { return step.value < 0; });
    if (prop->seconds != nullptr && (info.values.*prop->seconds < 0 || negative_step))
      fail(file, line, what + " must not be negative (got '" + value + "')");
    info.set |= 1U << (prop - kLinkProps.begin());
  }
  if (info.values.o_send_after > least_o_send(info.values)) {
    const int prop_line = index.line(owner + " xover:o_send_after");
    fail(file, prop_line > 0 ? prop_line : index.line(owner),
         "link '" + xml_id + "': xover:o_send_after " + format_time(info.values.o_send_after) +
             " is more than its xover:o_send " + format_time(least_o_send(info.values)) +
             " (it is the part of o_send spent after the message has left: at most o_send at every size)");
  }
  for (const SizeNeed& need : kSizeNeeds) {
    const LaneCaps users = intersect(need.needed_by, info.values.caps);
    if (info.values.*need.size == 0 && !(users == LaneCaps{})) {
      const int prop_line = index.line(owner + " " + std::string(need.name));
      fail(file, prop_line > 0 ? prop_line : index.line(owner),
           "link '" + xml_id + "': " + std::string(need.name) + " is 0 but the link's caps include " +
               users.to_string() + " (give a size or leave those out of xover:caps)");
    }
  }
  return info;
}

void merge_link_props(LaneAttrs& lane, std::uint32_t& merged, const LinkProps& link) {
  for (std::size_t i = 0; i < kLinkProps.size(); ++i) {
    const std::uint32_t bit = 1U << i;
    if ((link.set & bit) == 0)
      continue;
    const LinkProp& prop = kLinkProps[i];
    const bool first = (merged & bit) == 0;
    merged |= bit;
    if (prop.kind == PropKind::Bandwidth) {
      // The slowest link sets the pace at every size.
      lane.bandwidth_steps = first ? link.values.bandwidth_steps
                                   : combine_steps(lane.bandwidth_steps, 0, link.values.bandwidth_steps, 0, false);
      continue;
    }
    if (prop.kind == PropKind::Factor) {
      // As with bandwidth, the slowest link's factor at every size.
      lane.message_factor = first ? link.values.message_factor
                                  : combine_steps(lane.message_factor, 1, link.values.message_factor, 1, false);
      continue;
    }
    if (prop.steps != nullptr)
      lane.*prop.steps = first ? link.values.*prop.steps
                               : combine_steps(lane.*prop.steps, lane.*prop.seconds, link.values.*prop.steps,
                                               link.values.*prop.seconds, true);
    if (prop.seconds != nullptr)
      lane.*prop.seconds = first ? link.values.*prop.seconds : std::max(lane.*prop.seconds, link.values.*prop.seconds);
    else if (prop.bytes != nullptr)
      lane.*prop.bytes = first ? link.values.*prop.bytes : std::max(lane.*prop.bytes, link.values.*prop.bytes);
    else if (prop.flag != nullptr)  // a sender copy on any link is the lane's
      lane.*prop.flag = first ? link.values.*prop.flag : lane.*prop.flag || link.values.*prop.flag;
    else
      lane.caps = first ? link.values.caps : intersect(lane.caps, link.values.caps);
  }
}

bool read_node_prop(PlatformNode& node, std::string_view key, const std::string& value) {
  if (key == "xover:memcpy_bw") {
    read_steps(value, parse_bandwidth, node.memcpy_bw, &node.memcpy_steps);
    return true;
  }
  if (key == "xover:bw_factor") {
    node.bw_factor = SizeSteps::parse(value, parse_factor);
    return true;
  }
  if (key == "xover:stage_bw" || key == "xover:ipc_bw") {
    (key == "xover:stage_bw" ? node.device_copy.stage_bw : node.device_copy.ipc_bw) = parse_bandwidth(value);
    return true;
  }
  if (key == "xover:engine_bw") {
    const double engine_bw = parse_bandwidth(value);
    if (!std::isfinite(engine_bw))
      throw std::invalid_argument("'" + value + "' is not a finite bandwidth");
    node.device.engine_bw = engine_bw;
    return true;
  }
  struct Count {
    std::string_view key;
    std::uint32_t DeviceAttrs::* field;
    std::uint32_t most;
    const char* what;
  };
  static constexpr Count kCounts[] = {
      {"xover:threads", &DeviceAttrs::threads, 1u << 20, "a thread count"},
      {"xover:doorbell_batch", &DeviceAttrs::doorbell_batch, 1u << 16, "a doorbell batch"},
      {"xover:proxy_threads", &DeviceAttrs::proxy_threads, 1024, "a proxy thread count"},
      {"xover:ring_capacity", &DeviceAttrs::ring_capacity, 1u << 24, "a ring capacity in commands"},
  };
  for (const Count& c : kCounts) {
    if (key != c.key)
      continue;
    std::uint32_t count = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), count);
    if (error != std::errc() || end != value.data() + value.size() || count == 0 || count > c.most)
      throw std::invalid_argument("'" + value + "' is not " + c.what + " from 1 to " + std::to_string(c.most));
    node.device.*c.field = count;
    return true;
  }
  Seconds* time = key == "xover:gap"          ? &node.gap
                  : key == "xover:device_o"   ? &node.device.device_o
                  : key == "xover:proxy_o"    ? &node.device.proxy_o
                  : key == "xover:proxy_wake" ? &node.device.proxy_wake
                  : key == "xover:launch"     ? &node.device.launch
                  : key == "xover:post_slope" ? &node.device.post_slope
                  : key == "xover:engine_gap" ? &node.device.engine_gap
                  : key == "xover:stage_o"    ? &node.device_copy.stage_o
                                              : nullptr;
  if (!time)
    return false;
  const Seconds read = parse_time(value);
  if (read < 0)
    throw std::invalid_argument("'" + value + "' is a negative time");
  if (!std::isfinite(read))
    throw std::invalid_argument("'" + value + "' is not a finite time");
  *time = read;
  return true;
}

}  // namespace xover::sim::detail
