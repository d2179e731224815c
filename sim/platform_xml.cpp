// Reading a platform file with pugixml for the loader (platform_xml.hpp).
#include "sim/platform_xml.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>


namespace xover::sim::detail {
namespace {

/// Line numbers of byte offsets in a text.
class LineTable {
 public:
  explicit LineTable(const std::string& text) {
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n')
        newlines_.push_back(i);
  }
  /// 1-based line of `offset`; 0 when the offset is unknown (negative).
  int line(std::ptrdiff_t offset) const {
    if (offset < 0)
      return 0;
    const auto after = std::upper_bound(newlines_.begin(), newlines_.end(), static_cast<std::size_t>(offset));
    return static_cast<int>(after - newlines_.begin()) + 1;
  }

 private:
  std::vector<std::size_t> newlines_;
};

bool is_element(const pugi::xml_node& node, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), std::string_view(node.name())) != names.end();
}

/// SimGrid 3.32 aborts (an xbt_die in its Dijkstra code) when asked for a
/// route that a Dijkstra zone lacks, so such zones must be fully connected:
/// every host, router and sub-zone reaches every other through <route> and
/// <zoneRoute> edges (both ways unless symmetrical="NO").
void check_dijkstra_zone(const std::string& file, const pugi::xml_node& zone, const LineTable& lines) {
  std::vector<std::string> members;
  std::map<std::string, std::vector<std::string>> next;
  for (const pugi::xml_node& child : zone.children()) {
    if (is_element(child, {"host", "router", "zone", "cluster"}))
      members.emplace_back(child.attribute("id").value());
    if (!is_element(child, {"route", "zoneRoute"}))
      continue;
    const std::string src = child.attribute("src").value();
    const std::string dst = child.attribute("dst").value();
    next[src].push_back(dst);
    const std::string symmetrical = child.attribute("symmetrical").as_string("YES");
    if (symmetrical != "NO" && symmetrical != "no")
      next[dst].push_back(src);
  }
  for (const std::string& from : members) {
    std::set<std::string> seen{from};
    std::vector<std::string> todo{from};
    while (!todo.empty()) {
      const std::string at = todo.back();
      todo.pop_back();
      for (const std::string& to : next[at])
        if (seen.insert(to).second)
          todo.push_back(to);
    }
    for (const std::string& to : members)
      if (!seen.contains(to))
        fail(file, lines.line(zone.offset_debug()),
             "zone '" + std::string(zone.attribute("id").value()) + "' has routing=\"" +
                 zone.attribute("routing").value() + "\" and no route from '" + from + "' to '" + to +
                 "'; SimGrid 3.32 crashes when asked for a missing route in such a zone: add the route or use "
                 "routing=\"Full\" or \"Floyd\"");
  }
}

/// SimGrid 3.32 aborts the process (xbt_die, not an exception) when a zone
/// declares the same route twice, and a route is symmetrical unless it says
/// symmetrical="NO": a route a->b plus a route b->a is a duplicate.
void check_duplicate_routes(const std::string& file, const pugi::xml_node& zone, const LineTable& lines) {
  std::map<std::pair<std::string, std::string>, int> seen;
  for (const pugi::xml_node& route : zone.children("route")) {
    const std::string src = route.attribute("src").value();
    const std::string dst = route.attribute("dst").value();
    const int line = lines.line(route.offset_debug());
    const bool symmetrical = std::string_view(route.attribute("symmetrical").value()) != "NO";
    std::vector<std::pair<std::string, std::string>> keys{{src, dst}};
    if (symmetrical)
      keys.emplace_back(dst, src);
    for (const auto& key : keys) {
      const auto [it, added] = seen.emplace(key, line);
      if (!added)
        fail(file, line,
             "the route from '" + key.first + "' to '" + key.second + "' is already declared at line " +
                 std::to_string(it->second) +
                 " (a route is symmetrical unless it says symmetrical=\"NO\"); SimGrid would abort");
    }
  }
}

constexpr std::array<std::string_view, 4> kNetworkModels{"CM02", "LV08", "SMPI", "IB"};
constexpr std::array<std::string_view, 1> kCpuModels{"Cas01"};
constexpr std::array<std::string_view, 3> kHostModels{"default", "compound", "ptask_L07"};
constexpr std::array<std::string_view, 1> kDiskModels{"default"};
constexpr std::array<std::string_view, 3> kOptims{"Lazy", "TI", "Full"};
constexpr std::array<std::string_view, 3> kSolvers{"maxmin", "fairbottleneck", "bmf"};

/// A <config> key a platform may set, and its values when they are names
/// (empty: SimGrid reads a number or a boolean, and throws on a bad one).
struct ConfigKey {
  std::string_view key;
  std::span<const std::string_view> values;
};

/// The model settings. SimGrid 3.32 ends the process on a name it does not
/// know (or "help", on which it prints and exits 0), on links under the
/// Constant model and with ns-3 (not built in Debian's); the keys left out
/// change how the simulator runs (contexts, plugins, SMPI, tracing, model
/// checking), and it ends the process on bad values of many of them.
constexpr std::array kConfigKeys{
    ConfigKey{"network/model", kNetworkModels},     ConfigKey{"network/optim", kOptims},
    ConfigKey{"network/solver", kSolvers},          ConfigKey{"network/crosstraffic", {}},
    ConfigKey{"network/TCP-gamma", {}},             ConfigKey{"network/latency-factor", {}},
    ConfigKey{"network/bandwidth-factor", {}},      ConfigKey{"network/weight-S", {}},
    ConfigKey{"network/loopback-lat", {}},          ConfigKey{"network/loopback-bw", {}},
    ConfigKey{"network/maxmin-selective-update", {}}, ConfigKey{"cpu/model", kCpuModels},
    ConfigKey{"cpu/optim", kOptims},                ConfigKey{"cpu/solver", kSolvers},
    ConfigKey{"cpu/maxmin-selective-update", {}},   ConfigKey{"host/model", kHostModels},
    ConfigKey{"host/solver", kSolvers},             ConfigKey{"disk/model", kDiskModels},
    ConfigKey{"disk/solver", kSolvers},             ConfigKey{"surf/precision", {}},
    ConfigKey{"maxmin/precision", {}},              ConfigKey{"maxmin/concurrency-limit", {}},
    ConfigKey{"bmf/precision", {}},                 ConfigKey{"bmf/max-iterations", {}},
};

/// The zone routings a platform may use: the others end the process in
/// SimGrid 3.32 (an unknown name; routes in a None zone; a latency on a Wifi
/// link), and xover's lanes need routes with figures.
constexpr std::array<std::string_view, 6> kRoutings{"Full",          "Floyd",   "Dijkstra",
                                                    "DijkstraCache", "Cluster", "Vivaldi"};

template <typename Names>
std::string join(const Names& names) {
  std::string out;
  for (std::string_view name : names)
    out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

void check_config(const std::string& file, const pugi::xml_node& config, const LineTable& lines) {
  for (const pugi::xml_node& prop : config.children("prop")) {
    const std::string_view key = prop.attribute("id").value();
    const std::string_view value = prop.attribute("value").value();
    const int line = lines.line(prop.offset_debug());
    const auto* known = std::find_if(kConfigKeys.begin(), kConfigKeys.end(),
                                     [&](const ConfigKey& k) { return k.key == key; });
    if (known == kConfigKeys.end()) {
      std::vector<std::string_view> keys;
      for (const ConfigKey& k : kConfigKeys)
        keys.push_back(k.key);
      fail(file, line,
           "<config> sets '" + std::string(key) + "'; a platform's <config> takes the model settings only (" +
               join(keys) + "): the others change how SimGrid runs, not the platform");
    }
    if (!known->values.empty() && std::find(known->values.begin(), known->values.end(), value) == known->values.end())
      fail(file, line,
           "<config> sets " + std::string(key) + " to '" + std::string(value) + "'; xover takes " +
               join(known->values) + " (SimGrid 3.32 aborts on the others)");
  }
}

/// The int SimGrid reads from `text` (std::stoi: leading blanks and a sign,
/// then digits, the rest ignored); empty when it refuses the text itself.
std::optional<int> simgrid_int(const std::string& text) {
  try {
    return std::stoi(text);
  } catch (const std::logic_error&) {
    return std::nullopt;
  }
}

/// Attributes and elements on which SimGrid 3.32 ends the process instead
/// of throwing: a profile file it cannot open (xover's lanes have fixed
/// figures, so none is taken), a host with no core, a pstate past its
/// speeds.
void check_resource(const std::string& file, const pugi::xml_node& node, int line) {
  if (is_element(node, {"trace", "trace_connect"}))
    fail(file, line,
         "<" + std::string(node.name()) + "> is refused: xover's lanes and hosts have fixed figures, not profiles");
  for (const pugi::xml_attribute& attribute : node.attributes())
    if (std::string_view(attribute.name()).ends_with("_file"))
      fail(file, line,
           std::string(attribute.name()) + " on <" + node.name() +
               "> is refused: xover's lanes and hosts have fixed figures, not profiles read from files");
  if (const pugi::xml_attribute core = node.attribute("core")) {
    const std::optional<int> n = simgrid_int(core.value());
    if (n && *n < 1)
      fail(file, line,
           "core=\"" + std::string(core.value()) + "\" on <" + node.name() + ">: a host has at least one core");
  }
  if (const pugi::xml_attribute pstate = node.attribute("pstate")) {
    const std::string_view speeds = node.attribute("speed").value();
    const auto count = static_cast<int>(std::count(speeds.begin(), speeds.end(), ',')) + 1;
    const std::optional<int> n = simgrid_int(pstate.value());
    if (n && (*n < 0 || *n >= count))
      fail(file, line,
           "pstate=\"" + std::string(pstate.value()) + "\" on <" + node.name() + ">: it indexes the " +
               std::to_string(count) + " speed(s) given, from 0");
  }
}

/// SimGrid 3.32 ends the process on a link name given twice; a SPLITDUPLEX
/// link `x` makes the links `x_UP` and `x_DOWN`.
void check_link_names(const std::string& file, const pugi::xml_node& link, int line,
                      std::map<std::string, int>& names) {
  const std::string id = link.attribute("id").value();
  std::vector<std::string> made{id};
  if (std::string_view(link.attribute("sharing_policy").value()) == "SPLITDUPLEX") {
    made.push_back(id + "_UP");
    made.push_back(id + "_DOWN");
  }
  for (const std::string& name : made) {
    const auto [it, added] = names.emplace(name, line);
    if (!added)
      fail(file, line,
           "link '" + id + "' makes a link named '" + name + "', as the link at line " + std::to_string(it->second) +
               " does (a SPLITDUPLEX link x makes x_UP and x_DOWN); SimGrid would abort");
  }
}

/// A <host_link>'s up and down links, and its line.
struct HostLinkUse {
  std::string up;
  std::string down;
  int line = 0;
};

/// What the walk over the file has met so far.
struct Seen {
  /// Every name a link takes (check_link_names), with the link's line.
  std::map<std::string, int> link_names;
  /// The links SimGrid makes: x, or x_UP and x_DOWN for a SPLITDUPLEX x.
  std::set<std::string> links;
  std::vector<HostLinkUse> host_links;
};

/// SimGrid 3.32 ends the process (an assertion in sg_platf) on a
/// <host_link> whose up or down link it cannot find, wherever in the file
/// the links are declared.
void check_host_links(const std::string& file, const Seen& seen) {
  for (const HostLinkUse& use : seen.host_links)
    for (const std::string* name : {&use.up, &use.down})
      if (!seen.links.contains(*name))
        fail(file, use.line,
             "<host_link> names the link '" + *name +
                 "', which no <link> makes (a SPLITDUPLEX link x makes x_UP and x_DOWN); SimGrid would abort");
}

void index_children(const std::string& file, const pugi::xml_node& parent, const std::string& owner,
                    const LineTable& lines, PlatformXml& index, Seen& seen) {
  for (const pugi::xml_node& child : parent.children()) {
    if (child.type() != pugi::node_element)
      continue;
    const int line = lines.line(child.offset_debug());
    check_resource(file, child, line);
    const std::string id = child.attribute("id").value();
    std::string key;
    if (is_element(child, {"prop"}) && !owner.empty()) {
      index.lines.emplace(owner + " " + id, line);
    } else if (is_element(child, {"config"})) {
      check_config(file, child, lines);
    } else if (is_element(child, {"link"})) {
      key = "link " + id;
      check_link_names(file, child, line, seen.link_names);
      if (std::string_view(child.attribute("sharing_policy").value()) == "SPLITDUPLEX") {
        index.split_links.insert(id);
        seen.links.insert({id + "_UP", id + "_DOWN"});
      } else {
        seen.links.insert(id);
      }
    } else if (is_element(child, {"host_link"})) {
      seen.host_links.push_back({child.attribute("up").value(), child.attribute("down").value(), line});
    } else if (is_element(child, {"bypassRoute", "bypassZoneRoute", "bypassASroute"})) {
      index.bypass_routes = true;
    } else if (is_element(child, {"host"})) {
      key = "host " + id;
      index.host_order.emplace(id, index.host_order.size());
    } else if (is_element(child, {"zone", "cluster"})) {
      key = "zone " + id;
      check_duplicate_routes(file, child, lines);
      const std::string_view routing = child.attribute("routing").value();
      if (is_element(child, {"zone"}) && std::find(kRoutings.begin(), kRoutings.end(), routing) == kRoutings.end())
        fail(file, line,
             "zone '" + id + "' has routing=\"" + std::string(routing) + "\"; xover takes " + join(kRoutings) +
                 " (SimGrid 3.32 aborts on the others, or on their routes)");
      if (routing == "Dijkstra" || routing == "DijkstraCache")
        check_dijkstra_zone(file, child, lines);
    }
    if (!key.empty())
      index.lines.emplace(key, line);
    index_children(file, child, key, lines, index, seen);
  }
}

}  // namespace

int PlatformXml::line(const std::string& key) const {
  const auto it = lines.find(key);
  return it == lines.end() ? 0 : it->second;
}

PlatformXml read_platform_xml(const std::string& file, const std::string& text) {
  const LineTable lines(text);
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed =
      doc.load_buffer(text.data(), text.size(), pugi::parse_default | pugi::parse_doctype, pugi::encoding_utf8);
  if (!parsed)
    fail(file, lines.line(parsed.offset), std::string("malformed XML: ") + parsed.description());
  const bool has_doctype = std::any_of(doc.children().begin(), doc.children().end(),
                                       [](const pugi::xml_node& node) { return node.type() == pugi::node_doctype; });
  if (!has_doctype)
    fail(file, lines.line(doc.document_element().offset_debug()),
         "no <!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\"> before <platform>; SimGrid's parser "
         "needs it");
  PlatformXml index;
  Seen seen;
  index_children(file, doc, "", lines, index, seen);
  check_host_links(file, seen);
  return index;
}

}  // namespace xover::sim::detail
