// Loading a SimGrid platform as LogGP lanes. SimGrid builds the platform and
// answers for routes, latencies and bandwidths; platform_xml.cpp reads the
// same file once more for what SimGrid does not say (lines, SPLITDUPLEX links,
// host order); this file turns both into nodes, lanes and errors.
#include "sim/platform_loader.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "sim/platform_props.hpp"
#include "sim/platform_star.hpp"
#include "sim/platform_xml.hpp"

namespace xover::sim {
namespace {

namespace s4u = simgrid::s4u;
using detail::fail;
using detail::LinkProps;
using detail::PlatformXml;

/// The process's engine, created with SimGrid's logging at errors and above
/// when none exists yet (its warnings are about values this loader checks and
/// reports itself); fails when it already holds a platform.
s4u::Engine& engine_for(const std::string& file) {
  if (!s4u::Engine::has_instance())
    xbt_log_control_set("root.thresh:error");
  s4u::Engine& engine = *s4u::Engine::get_instance();
  if (engine.get_host_count() > 0)
    throw PlatformError(file +
                        ": this process already holds a SimGrid platform and SimGrid allows only one per process; "
                        "load each platform in its own process");
  return engine;
}

std::string format_rate(BytesPerSecond rate) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g B/s", rate);
  return buf;
}

std::map<std::string, std::string> sorted(const std::unordered_map<std::string, std::string>* props) {
  return props == nullptr ? std::map<std::string, std::string>{}
                          : std::map<std::string, std::string>(props->begin(), props->end());
}

/// "x" for "x_UP" / "x_DOWN" when `has_base` says "x" qualifies.
template <typename Pred>
std::optional<std::string> split_base(const std::string& name, Pred has_base) {
  for (std::string_view suffix : {"_UP", "_DOWN"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      std::string base = name.substr(0, name.size() - suffix.size());
      if (has_base(base))
        return base;
    }
  }
  return std::nullopt;
}

}  // namespace

struct LogGPPlatform::Impl {
  /// What one link says: its lane's name and its `xover:` properties.
  struct LinkInfo {
    std::string lane_name;  ///< the link's name without the _UP/_DOWN of a duplex pair
    LinkProps props;
    double bandwidth = 0;
    std::uint32_t kind = 0;     ///< the same for links that add to a lane alike: equal props and bandwidth
    std::uint32_t name_id = 0;  ///< the same for links of the same lane_name
  };
  struct Lane {
    std::uint32_t src_nic = 0;  ///< index in the source node's nics
    std::uint32_t dst_nic = 0;  ///< index in the destination node's nics
    LaneAttrs attrs;
  };

  std::string file_;
  std::vector<PlatformNode> nodes_;
  std::map<std::string, std::string> rail_of_nic_;  ///< NIC host -> rail, for NIC hosts only
  std::map<std::string, LinkInfo> links_;           ///< SimGrid link name -> what it says (each link's data points at its own)
  /// Per node (nodes_ order), per NIC: its host and its rail (null for a
  /// node that is its own NIC), resolved once so that routes look up no name.
  std::vector<std::vector<s4u::Host*>> nic_hosts_;
  std::vector<std::vector<const std::string*>> nic_rails_;
  std::vector<std::vector<std::uint32_t>> nic_rail_ids_;  ///< the same as numbers, 0 for none, for route keys
  /// Per node: the same for nodes that end a path alike (its remote copy
  /// figures, device and message factor), for route keys.
  std::vector<std::uint32_t> node_kind_;
  /// Every NIC in one array, node after node, for route keys: its host, its
  /// rail's number and, where its ends in its star zone are known
  /// (platform_star.hpp), the zone's number and its ends' numbers, so that
  /// the route from one to another of the same zone is known by two numbers
  /// with no SimGrid route look-up. Ends whose links have the same kinds
  /// and latencies share a number (0: no link), and each end keeps its first
  /// link's lane name (the lane's, where it is first on the route); `zone`
  /// is 0 where the ends are unknown or the file declares a bypass route.
  struct Nic {
    s4u::Host* host = nullptr;
    std::uint32_t rail = 0;
    std::uint32_t zone = 0;
    std::uint32_t up = 0;
    std::uint32_t down = 0;
    std::uint32_t up_name = 0;
    std::uint32_t down_name = 0;
  };
  std::vector<Nic> nics_;
  std::vector<std::uint32_t> first_nic_;  ///< per node, and one past the last: its first NIC's index in nics_

  void read_links(const s4u::Engine& engine, const PlatformXml& index);
  void read_hosts(const s4u::Engine& engine, const PlatformXml& index);
  const PlatformNode& node(const std::string& name) const;
  std::size_t node_index(const std::string& name) const;
  std::vector<Lane> lanes(std::size_t from, std::size_t to) const;
  LaneAttrs merge(const std::vector<s4u::Link*>& route) const;
  static const LinkInfo& info(const s4u::Link* link) { return *link->get_data<const LinkInfo>(); }
  void sort_links_into_kinds();
  void sort_nodes_into_kinds();
  void index_nics(bool bypass_routes);
  static std::string lane_name(const std::string* src_rail, const std::string* dst_rail, const std::string& first_link);
};

void LogGPPlatform::Impl::read_links(const s4u::Engine& engine, const PlatformXml& index) {
  std::vector<s4u::Link*> all = engine.get_all_links();
  std::sort(all.begin(), all.end(),
            [](const s4u::Link* a, const s4u::Link* b) { return a->get_name() < b->get_name(); });
  for (const s4u::Link* link : all) {
    const std::string& name = link->get_name();
    // SimGrid 3.32 keeps the <prop>s of a SPLITDUPLEX <link> on the pair
    // object only, not on its _UP and _DOWN links: read them there.
    const std::optional<std::string> split =
        split_base(name, [&](const std::string& base) { return index.split_links.contains(base); });
    const std::string xml_id = split.value_or(name);
    const int line = index.line("link " + xml_id);
    // SimGrid accepts both silently, and then moves bytes in negative or infinite time.
    if (link->get_latency() < 0)
      fail(file_, line,
           "link '" + xml_id + "': latency must not be negative (got " + format_time(link->get_latency()) + ")");
    if (!(link->get_bandwidth() > 0))
      fail(file_, line,
           "link '" + xml_id + "': bandwidth must be positive (got " + format_rate(link->get_bandwidth()) + ")");
    std::map<std::string, std::string> props = sorted(link->get_properties());
    if (split)
      props.merge(sorted(s4u::SplitDuplexLink::by_name(*split)->get_properties()));
    LinkInfo info{{}, detail::read_link_props(file_, xml_id, props, index), link->get_bandwidth()};
    // SimGrid moves the bytes on the link: a flow can be held below its
    // bandwidth, never pushed above it.
    for (const SizeStep& step : info.props.values.bandwidth_steps.steps())
      if (step.value > link->get_bandwidth()) {
        const int prop_line = index.line("link " + xml_id + " xover:bandwidth");
        fail(file_, prop_line > 0 ? prop_line : line,
             "link '" + xml_id + "': xover:bandwidth: " + format_rate(step.value) + " from " +
                 format_size(step.from) + " is above the link's bandwidth " + format_rate(link->get_bandwidth()) +
                 " (a step can only be slower than the link)");
      }
    info.lane_name = split_base(name, [&](const std::string& base) {
                       const std::string other = name.ends_with("_UP") ? base + "_DOWN" : base + "_UP";
                       return engine.link_by_name_or_null(other) != nullptr;
                     }).value_or(name);
    // SimGrid leaves a link's data to its user: it points at what the
    // link says, so that a route reads it with no look-up.
    const_cast<s4u::Link*>(link)->set_data(&links_.emplace(name, std::move(info)).first->second);
  }
  sort_links_into_kinds();
}

void LogGPPlatform::Impl::sort_links_into_kinds() {
  // Kinds by bandwidth and the properties set first, then by every value:
  // a platform's links mostly come in a few kinds.
  std::map<std::pair<double, std::uint32_t>, std::vector<const LinkInfo*>> kinds;
  std::map<std::string, std::uint32_t> names;
  std::uint32_t next_kind = 0;
  for (auto& entry : links_) {
    LinkInfo& mine = entry.second;
    mine.name_id = names.emplace(mine.lane_name, static_cast<std::uint32_t>(names.size())).first->second;
    std::vector<const LinkInfo*>& alike = kinds[{mine.bandwidth, mine.props.set}];
    const auto same = std::find_if(alike.begin(), alike.end(),
                                   [&](const LinkInfo* other) { return other->props.values == mine.props.values; });
    if (same != alike.end()) {
      mine.kind = (*same)->kind;
    } else {
      mine.kind = next_kind++;
      alike.push_back(&mine);
    }
  }
}

void LogGPPlatform::Impl::sort_nodes_into_kinds() {
  std::map<std::string, std::uint32_t> rails;
  for (const std::vector<const std::string*>& of_node : nic_rails_) {
    std::vector<std::uint32_t>& ids = nic_rail_ids_.emplace_back();
    for (const std::string* rail : of_node)
      ids.push_back(rail ? rails.emplace(*rail, static_cast<std::uint32_t>(rails.size()) + 1).first->second : 0);
  }
  std::vector<std::size_t> kinds;  // a node of each kind
  for (const PlatformNode& node : nodes_) {
    const auto alike = [&](std::size_t other) {
      const PlatformNode& o = nodes_[other];
      return o.memcpy_bw == node.memcpy_bw && o.memcpy_steps == node.memcpy_steps &&
             o.device_copy == node.device_copy && o.bw_factor == node.bw_factor;
    };
    const auto same = std::find_if(kinds.begin(), kinds.end(), alike);
    node_kind_.push_back(static_cast<std::uint32_t>(same - kinds.begin()));
    if (same == kinds.end())
      kinds.push_back(node_kind_.size() - 1);
  }
}

void LogGPPlatform::Impl::index_nics(bool bypass_routes) {
  for (std::size_t node = 0; node < nic_hosts_.size(); ++node) {
    first_nic_.push_back(static_cast<std::uint32_t>(nics_.size()));
    for (std::size_t k = 0; k < nic_hosts_[node].size(); ++k)
      nics_.push_back({nic_hosts_[node][k], nic_rail_ids_[node][k]});
  }
  first_nic_.push_back(static_cast<std::uint32_t>(nics_.size()));
  if (bypass_routes)
    return;
  std::vector<s4u::Host*> hosts;
  for (const Nic& nic : nics_)
    hosts.push_back(nic.host);
  const std::vector<detail::StarEnds> ends = detail::star_ends(hosts);
  // A list of links by what a route key reads of each: its latency and kind.
  std::map<std::vector<std::pair<double, std::uint32_t>>, std::uint32_t> numbers;
  const auto number = [&](const std::vector<const s4u::Link*>& links) -> std::uint32_t {
    if (links.empty())
      return 0;
    std::vector<std::pair<double, std::uint32_t>> read;
    for (const s4u::Link* link : links)
      read.emplace_back(link->get_latency(), info(link).kind);
    return numbers.emplace(std::move(read), static_cast<std::uint32_t>(numbers.size()) + 1).first->second;
  };
  const auto first_name = [](const std::vector<const s4u::Link*>& links) {
    return links.empty() ? 0 : info(links.front()).name_id;
  };
  std::vector<const s4u::NetZone*> zones;
  for (std::size_t i = 0; i < nics_.size(); ++i) {
    if (!ends[i].zone)
      continue;
    auto zone = std::find(zones.begin(), zones.end(), ends[i].zone);
    if (zone == zones.end())
      zone = zones.insert(zones.end(), ends[i].zone);
    nics_[i].zone = static_cast<std::uint32_t>(zone - zones.begin()) + 1;
    nics_[i].up = number(ends[i].up);
    nics_[i].down = number(ends[i].down);
    nics_[i].up_name = first_name(ends[i].up);
    nics_[i].down_name = first_name(ends[i].down);
  }
}

void LogGPPlatform::Impl::read_hosts(const s4u::Engine& engine, const PlatformXml& index) {
  std::vector<s4u::Host*> hosts = engine.get_all_hosts();
  std::sort(hosts.begin(), hosts.end(),
            [](const s4u::Host* a, const s4u::Host* b) { return a->get_name() < b->get_name(); });
  std::set<std::string> names;
  for (const s4u::Host* host : hosts)
    names.insert(host->get_name());
  const auto node_of = [&](const std::string& name) -> std::optional<std::string> {
    const auto dot = name.rfind('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == name.size() || !names.contains(name.substr(0, dot)))
      return std::nullopt;
    return name.substr(0, dot);
  };
  std::map<std::string, std::vector<std::string>> nics_of;
  for (const s4u::Host* host : hosts) {
    const std::string& name = host->get_name();
    const std::string owner = "host " + name;
    const std::string zone = "zone " + host->get_englobing_zone()->get_name();
    const std::optional<std::string> node = node_of(name);
    if (node && node_of(*node))
      fail(file_, index.line(owner),
           "host '" + name + "' reads as a NIC of '" + *node + "', which is itself a NIC of '" + *node_of(*node) +
               "'; rail names cannot contain '.'");
    PlatformNode attrs;
    for (const auto& [key, value] : sorted(host->get_properties())) {
      if (!detail::is_xover_prop(key))
        continue;
      // A <prop> inside <cluster> is copied to every host of the cluster.
      int line = index.line(owner + " " + key);
      if (line == 0)
        line = index.line(zone + " " + key);
      if (line == 0)
        line = index.line(owner);
      if (node)
        fail(file_, line, "host '" + name + "': " + key + " belongs on the node host '" + *node + "', not on its NIC");
      bool known = false;
      try {
        known = detail::read_node_prop(attrs, key, value);
      } catch (const std::invalid_argument& error) {
        fail(file_, line, "host '" + name + "': " + key + ": " + error.what());
      }
      if (!known)
        fail(file_, line,
             "host '" + name + "': unknown property '" + key + "' (known: " + std::string(detail::kNodeProps) +
                 "; the other xover: properties go on links)");
    }
    if (node) {
      nics_of[*node].push_back(name);
      rail_of_nic_.emplace(name, name.substr(node->size() + 1));
    } else {
      attrs.name = name;
      nodes_.push_back(std::move(attrs));
    }
  }
  // NICs in the order of their <host> elements; generated ones after, by name.
  const auto position = [&](const std::string& host) {
    const auto it = index.host_order.find(host);
    return it == index.host_order.end() ? std::numeric_limits<std::size_t>::max() : it->second;
  };
  for (PlatformNode& node : nodes_) {
    std::vector<std::string>& nics = nics_of[node.name];
    std::stable_sort(nics.begin(), nics.end(),
                     [&](const std::string& a, const std::string& b) { return position(a) < position(b); });
    node.nics = nics.empty() ? std::vector<std::string>{node.name} : std::move(nics);
    std::vector<s4u::Host*>& hosts_of = nic_hosts_.emplace_back();
    std::vector<const std::string*>& rails = nic_rails_.emplace_back();
    for (const std::string& nic : node.nics) {
      hosts_of.push_back(s4u::Host::by_name(nic));
      const auto rail = rail_of_nic_.find(nic);
      rails.push_back(rail == rail_of_nic_.end() ? nullptr : &rail->second);
    }
  }
}

std::size_t LogGPPlatform::Impl::node_index(const std::string& name) const {
  const auto it = std::lower_bound(nodes_.begin(), nodes_.end(), name,
                                   [](const PlatformNode& node, const std::string& key) { return node.name < key; });
  if (it != nodes_.end() && it->name == name)
    return static_cast<std::size_t>(it - nodes_.begin());
  std::string list;
  for (const PlatformNode& node : nodes_)
    list += (list.empty() ? "" : ", ") + node.name;
  throw PlatformError(file_ + ": unknown node '" + name + "' (nodes: " + list + ")");
}

const PlatformNode& LogGPPlatform::Impl::node(const std::string& name) const {
  return nodes_[node_index(name)];
}

std::vector<LogGPPlatform::Impl::Lane> LogGPPlatform::Impl::lanes(std::size_t from, std::size_t to) const {
  const PlatformNode& src = nodes_.at(from);
  const PlatformNode& dst = nodes_.at(to);
  std::vector<Lane> result;
  for (std::uint32_t a = 0; a < src.nics.size(); ++a) {
    for (std::uint32_t b = 0; b < dst.nics.size(); ++b) {
      s4u::Host* const a_host = nic_hosts_[from][a];
      s4u::Host* const b_host = nic_hosts_[to][b];
      if (a_host == b_host)
        continue;
      std::vector<s4u::Link*> route;
      double latency = 0;
      try {
        a_host->route_to(b_host, route, &latency);
      } catch (const std::exception&) {
        // Floyd zones throw for a missing route, and so does a missing
        // zoneRoute between zones; Full zones give an empty route.
        continue;
      }
      if (route.empty())
        continue;
      LaneAttrs attrs = merge(route);
      attrs.name = lane_name(nic_rails_[from][a], nic_rails_[to][b], info(route.front()).lane_name);
      attrs.latency = latency;
      attrs.gap = std::max(attrs.gap, src.gap);
      result.push_back(Lane{a, b, std::move(attrs)});
    }
  }
  if (result.empty())
    throw PlatformError(file_ + ": no route from " + src.name + " to " + dst.name);
  return result;
}

LaneAttrs LogGPPlatform::Impl::merge(const std::vector<s4u::Link*>& route) const {
  LaneAttrs attrs;
  attrs.bandwidth = std::numeric_limits<BytesPerSecond>::infinity();
  std::uint32_t merged = 0;
  for (const s4u::Link* link : route) {
    attrs.bandwidth = std::min(attrs.bandwidth, link->get_bandwidth());
    detail::merge_link_props(attrs, merged, info(link).props);
  }
  // `xover:bandwidth` on some links: the lane moves at the slowest of those
  // steps and the other links' bandwidth, size by size.
  if (!attrs.bandwidth_steps.empty()) {
    std::vector<SizeStep> steps = attrs.bandwidth_steps.steps();
    for (SizeStep& step : steps)
      step.value = std::min(step.value, attrs.bandwidth);
    attrs.bandwidth_steps = SizeSteps(std::move(steps));
    attrs.bandwidth = attrs.bandwidth_steps.steps().front().value;
  }
  return attrs;
}

std::string LogGPPlatform::Impl::lane_name(const std::string* src_rail, const std::string* dst_rail,
                                           const std::string& first_link) {
  if (src_rail && dst_rail)
    return *src_rail == *dst_rail ? *src_rail : *src_rail + "-" + *dst_rail;
  if (src_rail)
    return *src_rail;
  if (dst_rail)
    return *dst_rail;
  return first_link;
}

LogGPPlatform::LogGPPlatform(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

LogGPPlatform LogGPPlatform::load(const std::string& file) {
  std::error_code error;
  if (!std::filesystem::exists(file, error))
    throw PlatformError(file + ": no such file");
  std::ifstream in(file, std::ios::binary);
  if (!std::filesystem::is_regular_file(file, error) || !in)
    throw PlatformError(file + ": cannot read it (not a readable regular file)");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const PlatformXml index = detail::read_platform_xml(file, text);

  s4u::Engine& engine = engine_for(file);
  try {
    engine.load_platform(file);
    engine.seal_platform();
  } catch (const simgrid::ParseError& parse_error) {
    // what() reads "Parse error at FILE:LINE: message".
    constexpr std::string_view kLead = "Parse error at ";
    const std::string_view what = parse_error.what();
    throw PlatformError(what.starts_with(kLead) ? std::string(what.substr(kLead.size()))
                                                : file + ": " + std::string(what));
  } catch (const std::exception& other) {
    throw PlatformError(file + ": " + other.what());
  }

  auto impl = std::make_shared<Impl>();
  impl->file_ = file;
  impl->read_links(engine, index);
  impl->read_hosts(engine, index);
  impl->sort_nodes_into_kinds();
  impl->index_nics(index.bypass_routes);
  return LogGPPlatform(std::move(impl));
}

const std::string& LogGPPlatform::file() const {
  return impl_->file_;
}

const std::vector<PlatformNode>& LogGPPlatform::nodes() const {
  return impl_->nodes_;
}

const PlatformNode& LogGPPlatform::node(const std::string& name) const {
  return impl_->node(name);
}

std::size_t LogGPPlatform::node_index(const std::string& name) const {
  return impl_->node_index(name);
}

s4u::Host* LogGPPlatform::nic_host(std::size_t node, std::size_t nic) const {
  return impl_->nic_hosts_.at(node).at(nic);
}

LogGPPlatform::RouteKey LogGPPlatform::route_key(std::size_t from, std::size_t to) const {
  RouteKey key;
  route_key(from, to, key);
  return key;
}

void LogGPPlatform::route_key(std::size_t from, std::size_t to, RouteKey& key) const {
  // What lanes() builds a route from, in numbers: the NICs of each lane,
  // its SimGrid route's latency and links, its rails; and the nodes. The
  // route of two NICs of one star zone is read off their ends' numbers
  // instead, marked kStarRoute in its first word (a NIC's index never
  // reaches that bit), so that it never reads as a SimGrid route's words.
  constexpr std::uint64_t kStarRoute = std::uint64_t{1} << 63;
  const Impl& impl = *impl_;
  key.assign({from, impl.node_kind_.at(to)});
  const Impl::Nic* const src = impl.nics_.data() + impl.first_nic_.at(from);
  const Impl::Nic* const dst = impl.nics_.data() + impl.first_nic_.at(to);
  const std::uint32_t src_nics = impl.first_nic_[from + 1] - impl.first_nic_[from];
  const std::uint32_t dst_nics = impl.first_nic_[to + 1] - impl.first_nic_[to];
  thread_local std::vector<s4u::Link*> links;  // its storage kept from call to call
  for (std::uint32_t a = 0; a < src_nics; ++a) {
    for (std::uint32_t b = 0; b < dst_nics; ++b) {
      s4u::Host* const a_host = src[a].host;
      s4u::Host* const b_host = dst[b].host;
      if (a_host == b_host)
        continue;
      const std::uint64_t rails = std::uint64_t{src[a].rail} << 32 | dst[b].rail;
      if (src[a].zone != 0 && src[a].zone == dst[b].zone) {
        if (src[a].up != 0 || dst[b].down != 0)
          key.insert(key.end(), {kStarRoute | std::uint64_t{a} << 32 | b, rails,
                                 std::uint64_t{src[a].up} << 32 | dst[b].down,
                                 src[a].up != 0 ? src[a].up_name : dst[b].down_name});
        continue;
      }
      links.clear();
      double latency = 0;
      try {
        a_host->route_to(b_host, links, &latency);
      } catch (const std::exception&) {
        continue;  // as lanes() does
      }
      if (links.empty())
        continue;
      key.insert(key.end(), {std::uint64_t{a} << 32 | b, std::bit_cast<std::uint64_t>(latency), rails,
                             Impl::info(links.front()).name_id, links.size()});
      for (const s4u::Link* link : links)
        key.push_back(Impl::info(link).kind);
    }
  }
}

LogGPPlatform::IndexedRoute LogGPPlatform::route(std::size_t from, std::size_t to) const {
  const PlatformNode& src = impl_->nodes_.at(from);
  const PlatformNode& dst = impl_->nodes_.at(to);
  IndexedRoute out{Path{{},
                        {},
                        {},
                        src.memcpy_bw,
                        dst.memcpy_bw,
                        src.memcpy_steps,
                        dst.memcpy_steps,
                        src.device_copy,
                        dst.device_copy,
                        detail::combine_steps(src.bw_factor, 1, dst.bw_factor, 1, false)},
                   {}};
  for (Impl::Lane& lane : impl_->lanes(from, to)) {
    out.path.lanes.push_back(std::move(lane.attrs));
    out.nics.emplace_back(lane.src_nic, lane.dst_nic);
  }
  return out;
}

std::pair<Path, std::vector<NicPair>> LogGPPlatform::path_and_nics(const std::string& from,
                                                                   const std::string& to) const {
  const std::size_t a = impl_->node_index(from);
  const std::size_t b = impl_->node_index(to);
  IndexedRoute route = this->route(a, b);
  route.path.from = from;
  route.path.to = to;
  std::vector<NicPair> nics;
  for (const auto& [src, dst] : route.nics)
    nics.push_back(NicPair{impl_->nodes_[a].nics[src], impl_->nodes_[b].nics[dst]});
  return {std::move(route.path), std::move(nics)};
}

Path LogGPPlatform::path(const std::string& from, const std::string& to) const {
  return path_and_nics(from, to).first;
}

std::vector<NicPair> LogGPPlatform::nics(const std::string& from, const std::string& to) const {
  return path_and_nics(from, to).second;
}

}  // namespace xover::sim
