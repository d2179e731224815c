// Harness: the platform loader's reading of a platform file's text
// (sim/platform_xml.*, sim/platform_props.*) and the thresholds table its
// `xover:` figures feed.
//
// SimGrid builds one platform per process and aborts on some inputs, so
// what is fuzzed is what xover does on either side of it: the pugixml pass
// that runs before SimGrid parses the file (XML, DOCTYPE, duplicate routes,
// Dijkstra zones, the line index), then the `xover:` property readers on
// the properties the file gives its links and hosts (what SimGrid hands
// back), then a path built from the links that passed (latency and
// bandwidth attributes through xover's unit parsers, consecutive links
// merged as the loader merges a route, size steps kept) into a thresholds table.
// Checks: every refusal is a PlatformError naming the file (or
// std::invalid_argument from a node property); what is accepted has no
// negative time, no zero size a capability needs, and gives a sound table.
#include <pugixml.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/harness.hpp"
#include "fuzz/table_check.hpp"
#include "sim/platform_loader.hpp"
#include "sim/platform_props.hpp"
#include "sim/platform_xml.hpp"

namespace {

using namespace xover;
using namespace xover::sim;
using xover::fuzz::check;

const std::string kFile = "fuzz.xml";

/// The most lanes a path gets: enough for striping, few enough to stay fast.
constexpr std::size_t kMaxLanes = 4;

std::map<std::string, std::string> props_of(const pugi::xml_node& node) {
  std::map<std::string, std::string> props;
  for (const pugi::xml_node& prop : node.children("prop"))
    props[prop.attribute("id").value()] = prop.attribute("value").value();
  return props;
}

struct Link {
  detail::LinkProps props;
  Seconds latency = 0;
  BytesPerSecond bandwidth = 0;
};

std::optional<Link> read_link(const pugi::xml_node& node, const detail::PlatformXml& index) {
  Link link;
  try {
    link.props = detail::read_link_props(kFile, node.attribute("id").value(), props_of(node), index);
  } catch (const PlatformError& e) {
    check(std::string_view(e.what()).starts_with(kFile + ":"), "a link's error names the file");
    return std::nullopt;
  }
  const LaneAttrs& values = link.props.values;
  check(values.o_send >= 0 && values.o_send_after >= 0 && values.o_recv >= 0 && values.gap >= 0 &&
            values.reg_cost >= 0 && values.reg_growth >= 0,
        "an accepted link has no negative time");
  check(values.o_send_after <= values.o_send &&
            std::all_of(values.o_send_steps.steps().begin(), values.o_send_steps.steps().end(),
                        [&values](const SizeStep& step) { return values.o_send_after <= step.value; }),
        "an accepted link spends no more after its message has left than its o_send");
  for (const SizeSteps* steps : {&values.o_send_steps, &values.o_recv_steps})
    check(std::all_of(steps->steps().begin(), steps->steps().end(), [](const SizeStep& step) { return step.value >= 0; }),
          "an accepted link has no negative time in its size steps");
  try {
    link.latency = parse_time(node.attribute("latency").as_string("0"));
    link.bandwidth = parse_bandwidth(node.attribute("bandwidth").value());
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // SimGrid's to refuse
  }
  if (link.latency < 0)
    return std::nullopt;  // the loader's check after SimGrid
  return link;
}

void read_node(const pugi::xml_node& node, PlatformNode& out) {
  for (const auto& [key, value] : props_of(node)) {
    if (!detail::is_xover_prop(key))
      continue;
    try {
      detail::read_node_prop(out, key, value);
    } catch (const std::invalid_argument&) {
      continue;
    }
    check(out.memcpy_bw > 0 && out.gap >= 0 && out.device.threads > 0, "an accepted node property is in range");
    const DeviceAttrs& d = out.device;
    check(d.doorbell_batch > 0 && d.proxy_threads > 0 && d.ring_capacity > 0 && d.engine_bw > 0 &&
              std::isfinite(d.launch) && d.launch >= 0 && std::isfinite(d.post_slope) && d.post_slope >= 0 &&
              std::isfinite(d.engine_gap) && d.engine_gap >= 0,
          "an accepted GPU lane figure is in range");
    check(std::all_of(out.memcpy_steps.steps().begin(), out.memcpy_steps.steps().end(),
                      [&](const SizeStep& step) { return step.value > 0; }) &&
              (out.memcpy_steps.empty() || out.memcpy_steps.steps().front().value == out.memcpy_bw),
          "accepted memcpy steps are positive and the first is memcpy_bw");
  }
}

/// Every <link> and node element under `node`, in document order.
void walk(const pugi::xml_node& node, const detail::PlatformXml& index, std::vector<Link>& links,
          std::vector<PlatformNode>& nodes) {
  for (const pugi::xml_node& child : node.children()) {
    const std::string_view name = child.name();
    if (name == "link") {
      if (std::optional<Link> link = read_link(child, index))
        links.push_back(std::move(*link));
    } else if (name == "host" || name == "cluster") {
      read_node(child, nodes.emplace_back());
    }
    walk(child, index, links, nodes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  detail::PlatformXml index;
  try {
    index = detail::read_platform_xml(kFile, text);
  } catch (const PlatformError& e) {
    check(std::string_view(e.what()).starts_with(kFile + ":"), "a platform error names the file");
    return 0;
  }
  pugi::xml_document doc;
  doc.load_buffer(text.data(), text.size(), pugi::parse_default | pugi::parse_doctype, pugi::encoding_utf8);
  std::vector<Link> links;
  std::vector<PlatformNode> nodes;
  walk(doc, index, links, nodes);

  // Lane i is the route of links i and i + 1, as the loader merges one.
  Path path;
  path.from = "a";
  path.to = "b";
  if (nodes.size() >= 2) {
    path.memcpy_bw_local = nodes[0].memcpy_bw;
    path.memcpy_bw_remote = nodes[1].memcpy_bw;
    path.memcpy_local_steps = nodes[0].memcpy_steps;
    path.memcpy_remote_steps = nodes[1].memcpy_steps;
  }
  for (std::size_t i = 0; i < links.size() && path.lanes.size() < kMaxLanes; ++i) {
    LaneAttrs lane;
    lane.name = "r" + std::to_string(i);
    std::uint32_t merged = 0;
    lane.bandwidth = links[i].bandwidth;
    lane.latency = links[i].latency;
    detail::merge_link_props(lane, merged, links[i].props);
    if (i + 1 < links.size()) {
      lane.bandwidth = std::min(lane.bandwidth, links[i + 1].bandwidth);
      lane.latency += links[i + 1].latency;
      detail::merge_link_props(lane, merged, links[i + 1].props);
    }
    path.lanes.push_back(lane);
  }
  xover::fuzz::check_table(path, SelectConfig{});
  return 0;
}
