// Reading a platform file with pugixml for the loader (platform_xml.hpp).
#include "sim/platform_xml.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <initializer_list>
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

void index_children(const std::string& file, const pugi::xml_node& parent, const std::string& owner,
                    const LineTable& lines, PlatformXml& index) {
  for (const pugi::xml_node& child : parent.children()) {
    if (child.type() != pugi::node_element)
      continue;
    const int line = lines.line(child.offset_debug());
    const std::string id = child.attribute("id").value();
    std::string key;
    if (is_element(child, {"prop"}) && !owner.empty()) {
      index.lines.emplace(owner + " " + id, line);
    } else if (is_element(child, {"link"})) {
      key = "link " + id;
      if (std::string_view(child.attribute("sharing_policy").value()) == "SPLITDUPLEX")
        index.split_links.insert(id);
    } else if (is_element(child, {"host"})) {
      key = "host " + id;
      index.host_order.emplace(id, index.host_order.size());
    } else if (is_element(child, {"zone", "cluster"})) {
      key = "zone " + id;
      check_duplicate_routes(file, child, lines);
      const std::string_view routing = child.attribute("routing").value();
      if (routing == "Dijkstra" || routing == "DijkstraCache")
        check_dijkstra_zone(file, child, lines);
    }
    if (!key.empty())
      index.lines.emplace(key, line);
    index_children(file, child, key, lines, index);
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
  index_children(file, doc, "", lines, index);
  return index;
}

}  // namespace xover::sim::detail
