// Reading a scenario file with pugixml (scenario_xml.hpp). The format is
// scenarios/README.md; scenarios/scenario.xsd says the same as a schema, and
// this reader checks what a schema cannot (protocol names, units, the
// platform file's existence). It knows no workload: the workload a file
// names reads its own attributes of <workload> (Workload::parse, through an
// Attributes of that element) and says which curves it draws.
#include "formats/scenario_xml.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "protocols/registry.hpp"
#include "protocols/workload/workloads.hpp"

namespace xover {
namespace {

using Names = std::vector<std::string_view>;

/// The elements of a <scenario>, each at most once, in any order.
struct Children {
  pugi::xml_node description, platform, workload, sizes, curves, select, payload;
};

struct ChildRule {
  std::string_view name;
  pugi::xml_node Children::*slot;
  bool required;
  bool text;  ///< holds text (and nothing else); the others hold nothing
};

constexpr std::array<ChildRule, 7> kChildRules{{
    {"description", &Children::description, false, true},
    {"platform", &Children::platform, true, false},
    {"workload", &Children::workload, true, false},
    {"sizes", &Children::sizes, true, false},
    {"curves", &Children::curves, false, true},
    {"select", &Children::select, false, false},
    {"payload", &Children::payload, false, false},
}};

/// The attributes of <workload> every workload takes; each adds its own.
constexpr std::array<std::string_view, 3> kWorkloadAttributes{"kind", "iterations", "warmup"};

std::string join(const Names& names) {
  std::string out;
  for (std::string_view name : names)
    out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::vector<std::string_view> split(std::string_view text, std::string_view separators) {
  std::vector<std::string_view> items;
  while (!text.empty()) {
    const auto start = text.find_first_not_of(separators);
    if (start == std::string_view::npos)
      break;
    text.remove_prefix(start);
    const auto end = text.find_first_of(separators);
    items.push_back(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end);
  }
  return items;
}

constexpr std::string_view kSpaces = " \t\r\n";

/// The registry's point-to-point protocols' names, comma separated, in registry order.
std::string known_protocols() {
  std::string out;
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
    out += (out.empty() ? "" : ", ") + std::string(protocol->name);
  return out;
}

/// `text` with whitespace runs collapsed to one space, none at either end.
std::string collapse(std::string_view text) {
  std::string out;
  for (std::string_view word : split(text, kSpaces))
    out += (out.empty() ? "" : " ") + std::string(word);
  return out;
}

/// Reads one scenario text; every method that finds a problem throws
/// ScenarioError with the line of the node at fault.
class ScenarioReader {
 public:
  ScenarioReader(const std::string& text, const std::string& file, const std::string& base_dir)
      : text_(text), file_(file), base_dir_(base_dir) {}

  Scenario read() {
    pugi::xml_document doc;
    const pugi::xml_parse_result parsed =
        doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed)
      fail_at(parsed.offset, std::string("malformed XML: ") + parsed.description());
    const pugi::xml_node root = doc.document_element();
    if (std::string_view(root.name()) != "scenario")
      fail(root, "the root element is <" + std::string(root.name()) + ">; a scenario file holds one <scenario>");

    scenario_.file = file_;
    read_scenario(root);
    const Children children = collect(root);
    read_description(children.description);
    read_platform(children.platform);
    read_workload(children.workload);
    read_sizes(children.sizes);
    read_curves(children.curves);
    read_select(children.select);
    read_payload(children.payload);
    return std::move(scenario_);
  }

 private:
  /// The attributes of one element, placed at its line.
  class Element final : public Attributes {
   public:
    Element(const ScenarioReader& reader, const pugi::xml_node& node) : reader_(reader), node_(node) {}
    std::string_view element() const override { return node_.name(); }
    std::optional<std::string_view> find(std::string_view name) const override {
      for (const pugi::xml_attribute& a : node_.attributes())
        if (name == a.name())
          return std::string_view(a.value());
      return std::nullopt;
    }
    std::string place() const override { return reader_.file_ + ":" + std::to_string(reader_.line(node_)); }

   private:
    const ScenarioReader& reader_;
    pugi::xml_node node_;
  };

  int line_at(std::ptrdiff_t offset) const {
    const auto end = text_.begin() + std::clamp<std::ptrdiff_t>(offset, 0, static_cast<std::ptrdiff_t>(text_.size()));
    return static_cast<int>(std::count(text_.begin(), end, '\n')) + 1;
  }
  int line(const pugi::xml_node& node) const { return line_at(node.offset_debug()); }

  [[noreturn]] void fail_at(std::ptrdiff_t offset, const std::string& what) const {
    throw ScenarioError(file_ + ":" + std::to_string(line_at(offset)) + ": " + what);
  }
  [[noreturn]] void fail(const pugi::xml_node& node, const std::string& what) const {
    fail_at(node.offset_debug(), what);
  }

  static std::string tag(const pugi::xml_node& node) { return "<" + std::string(node.name()) + ">"; }

  /// Refuses repeated attributes (pugixml keeps both) and empty values.
  void check_repeats_and_empties(const pugi::xml_node& node) const {
    std::vector<std::string_view> seen;
    for (const pugi::xml_attribute& attribute : node.attributes()) {
      const std::string_view name = attribute.name();
      if (std::find(seen.begin(), seen.end(), name) != seen.end())
        fail(node, "duplicate attribute '" + std::string(name) + "' on " + tag(node));
      seen.push_back(name);
      if (*attribute.value() == '\0')
        fail(node, "empty attribute '" + std::string(name) + "' on " + tag(node));
    }
  }

  /// Refuses attributes outside `allowed` (none when `allowed` is empty),
  /// then repeated attributes and empty values.
  void check_attributes(const pugi::xml_node& node, const Names& allowed) const {
    for (const pugi::xml_attribute& attribute : node.attributes())
      if (std::find(allowed.begin(), allowed.end(), std::string_view(attribute.name())) == allowed.end())
        fail(node, "unknown attribute '" + std::string(attribute.name()) + "' on " + tag(node) +
                       (allowed.empty() ? " (it takes none)" : " (allowed: " + join(allowed) + ")"));
    check_repeats_and_empties(node);
  }

  /// A message size; "inf" is a limit, not a size.
  static Bytes size(const Element& element, std::string_view name, std::string_view value) {
    try {
      const Bytes n = parse_size(value);
      if (n == kSizeMax)
        throw std::invalid_argument("'" + std::string(value) + "' is not a message size");
      return n;
    } catch (const std::invalid_argument& e) {
      element.bad(name, value, e.what());
    }
  }

  static bool is_text(const pugi::xml_node& node) {
    return node.type() == pugi::node_pcdata || node.type() == pugi::node_cdata;
  }

  /// The text of a text-only element, whitespace runs collapsed to one space.
  static std::string text_of(const pugi::xml_node& node) {
    std::string raw;
    for (const pugi::xml_node& child : node.children())
      if (is_text(child))
        raw += child.value();
    return collapse(raw);
  }

  [[noreturn]] void fail_text(const pugi::xml_node& text, const pugi::xml_node& parent) const {
    std::string shown = collapse(text.value());
    if (shown.size() > 30)
      shown = shown.substr(0, 27) + "...";
    // The text node starts with the whitespace before its first word: count that word's line.
    const std::string_view value = text.value();
    const auto lead = value.substr(0, value.find_first_not_of(kSpaces));
    const auto newlines = static_cast<std::ptrdiff_t>(std::count(lead.begin(), lead.end(), '\n'));
    throw ScenarioError(file_ + ":" + std::to_string(line(text) + newlines) + ": text '" + shown + "' in " +
                        tag(parent) + ", which holds none");
  }

  /// Refuses child elements, and text unless `text` allows it.
  void check_content(const pugi::xml_node& node, bool text) const {
    for (const pugi::xml_node& child : node.children()) {
      if (child.type() == pugi::node_element)
        fail(child, "unknown element <" + std::string(child.name()) + "> in " + tag(node) + " (it holds " +
                        (text ? "only text" : "nothing") + ")");
      if (!text && is_text(child))
        fail_text(child, node);
    }
  }

  void read_scenario(const pugi::xml_node& root) {
    check_attributes(root, {"name", "seed", "xmlns:xsi", "xsi:noNamespaceSchemaLocation"});
    const Element element(*this, root);
    const std::string_view name = element.required("name");
    const bool good = std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
             c == '-';
    });
    if (!good)
      element.bad("name", name, "use letters, digits, '.', '_' and '-'");
    scenario_.name = name;
    if (element.find("seed"))
      scenario_.seed = element.count("seed", 0);
  }

  Children collect(const pugi::xml_node& root) const {
    Children children;
    for (const pugi::xml_node& child : root.children()) {
      if (is_text(child))
        fail_text(child, root);
      if (child.type() != pugi::node_element)
        continue;
      const auto rule = std::find_if(kChildRules.begin(), kChildRules.end(),
                                     [&](const ChildRule& r) { return r.name == child.name(); });
      if (rule == kChildRules.end())
        fail(child, "unknown element <" + std::string(child.name()) +
                        "> in <scenario> (allowed: description, platform, workload, sizes, curves, select, payload)");
      pugi::xml_node& slot = children.*(rule->slot);
      if (slot)
        fail(child, "duplicate " + tag(child) + " (the first is at line " + std::to_string(line(slot)) + ")");
      slot = child;
      check_content(child, rule->text);
    }
    for (const ChildRule& rule : kChildRules)
      if (rule.required && !(children.*(rule.slot)))
        fail(root, "<scenario> has no <" + std::string(rule.name) + "> (required: platform, workload, sizes)");
    return children;
  }

  void read_description(const pugi::xml_node& node) {
    if (!node)
      return;
    check_attributes(node, {});
    scenario_.description = text_of(node);
  }

  void read_platform(const pugi::xml_node& node) {
    namespace fs = std::filesystem;
    check_attributes(node, {"file", "from", "to"});
    const Element element(*this, node);
    const std::string_view file = element.required("file");
    fs::path path(file);
    if (path.is_relative() && !base_dir_.empty())
      path = fs::path(base_dir_) / path;
    path = path.lexically_normal();
    std::error_code error;
    if (!fs::is_regular_file(path, error))
      fail(node, "platform file '" + std::string(file) + "' not found (looked for '" + path.string() + "')");
    scenario_.platform = path.string();
    scenario_.platform_line = line(node);

    const auto from = element.find("from");
    const auto to = element.find("to");
    if (from.has_value() != to.has_value())
      fail(node, "<platform> needs both 'from' and 'to', or neither (the platform's first two nodes)");
    if (from && *from == *to)
      fail(node, "<platform> from and to are both '" + std::string(*from) + "'; a scenario runs between two nodes");
    scenario_.from = from.value_or("");
    scenario_.to = to.value_or("");
  }

  /// The common attributes here, the workload's own by its parse(); an
  /// attribute that another workload takes is named as such.
  void read_workload(const pugi::xml_node& node) {
    const Element element(*this, node);
    const std::string_view kind_name = element.required("kind");
    const Workload* workload = find_workload(kind_name);
    if (!workload)
      fail(node, "unknown workload kind '" + std::string(kind_name) + "' (known: " + workload_names() + ")");
    scenario_.workload = workload;
    scenario_.workload_line = line(node);
    Names allowed(kWorkloadAttributes.begin(), kWorkloadAttributes.end());
    for (const Workload* other : workload_registry()) {
      for (std::string_view name : other->attributes) {
        allowed.push_back(name);
        if (other != workload && element.find(name) &&
            std::find(workload->attributes.begin(), workload->attributes.end(), name) == workload->attributes.end())
          fail(node, "attribute '" + std::string(name) + "' does not apply to kind=\"" + std::string(kind_name) +
                         "\" (only to kind=\"" + std::string(other->name) + "\")");
      }
    }
    check_attributes(node, allowed);

    if (element.find("iterations"))
      scenario_.iterations = element.count("iterations", 1);
    if (element.find("warmup"))
      scenario_.warmup = element.count("warmup", 0);
    if (workload->parse)
      scenario_.settings = workload->parse(element, scenario_);
  }

  void read_sizes(const pugi::xml_node& node) {
    check_attributes(node, {"from", "to", "factor", "list"});
    const Element element(*this, node);
    if (const auto list = element.find("list")) {
      for (const char* other : {"from", "to", "factor"})
        if (element.find(other))
          fail(node, "<sizes> takes either 'list' or 'from', 'to' and 'factor', not both ('" + std::string(other) +
                         "' given with 'list')");
      for (std::string_view item : split(*list, " \t\r\n,")) {
        const Bytes n = size(element, "list", item);
        if (!scenario_.sizes.empty() && n <= scenario_.sizes.back())
          element.bad("list", *list,
                      "sizes must be strictly increasing (" + std::to_string(n) + " after " +
                          std::to_string(scenario_.sizes.back()) + ")");
        scenario_.sizes.push_back(n);
      }
      if (scenario_.sizes.empty())
        element.bad("list", *list, "no sizes in the list");
      return;
    }
    if (!element.find("from") && !element.find("to") && !element.find("factor"))
      fail(node, "<sizes> needs either 'list' or 'from' and 'to' (and optionally 'factor')");
    const Bytes from = size(element, "from", element.required("from"));
    const Bytes to = size(element, "to", element.required("to"));
    double factor = 2;
    if (const auto v = element.find("factor")) {
      std::size_t used = 0;
      try {
        factor = std::stod(std::string(*v), &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != v->size() || !std::isfinite(factor))
        element.bad("factor", *v, "expected a number greater than 1 (2, 1.5)");
      if (!(factor > 1))
        element.bad("factor", *v, "must be greater than 1");
    }
    try {
      scenario_.sizes = geometric_sizes(from, to, factor);
    } catch (const std::invalid_argument& e) {
      fail(node, std::string("bad <sizes>: ") + e.what());
    }
  }

  /// The curves, each checked by the workload.
  void read_curves(const pugi::xml_node& node) {
    if (!node) {
      scenario_.curves = {"auto"};
      return;
    }
    check_attributes(node, {});
    const std::string text = text_of(node);
    for (std::string_view curve : split(text, kSpaces)) {
      if (const auto error = scenario_.workload->curve_error(scenario_, curve))
        fail(node, *error);
      if (std::find(scenario_.curves.begin(), scenario_.curves.end(), curve) != scenario_.curves.end())
        fail(node, "duplicate curve '" + std::string(curve) + "' in <curves>");
      scenario_.curves.emplace_back(curve);
    }
    if (scenario_.curves.empty())
      fail(node, "<curves> lists no curves (leave it out for the default, auto)");
  }

  void read_select(const pugi::xml_node& node) {
    if (!node)
      return;
    check_repeats_and_empties(node);
    for (const pugi::xml_attribute& a : node.attributes()) {
      try {
        scenario_.select.set(a.name(), a.value());
      } catch (const std::invalid_argument& e) {
        fail(node, std::string("bad <select>: ") + e.what());
      }
    }
    // SelectConfig takes any name; the thresholds table checks them later, with no line.
    for (const auto& [key, names] : {std::pair{"proto", &scenario_.select.forced},
                                     std::pair{"disable", &scenario_.select.disabled}})
      for (const std::string& name : *names)
        if (!protocol_name_known(name))
          fail(node, std::string("bad <select>: ") + key + ": unknown protocol '" + name + "' (known: " +
                         known_protocols() + ", or a prefix of one such as eager/multi)");
  }

  void read_payload(const pugi::xml_node& node) {
    if (!node)
      return;
    check_attributes(node, {"mode", "memory"});
    if (const pugi::xml_attribute attribute = node.attribute("mode")) {
      const std::string_view mode = attribute.value();
      if (mode != "verify" && mode != "phantom")
        fail(node, "unknown payload mode '" + std::string(mode) + "' (known: verify, phantom)");
      scenario_.phantom = mode == "phantom";
    }
    if (const pugi::xml_attribute attribute = node.attribute("memory")) {
      const std::optional<MemType> memory = mem_type_named(attribute.value());
      if (!memory)
        fail(node, "unknown payload memory '" + std::string(attribute.value()) + "' (known: host, cuda)");
      scenario_.memory = *memory;
    }
    if (scenario_.phantom && scenario_.memory != MemType::Host)
      fail(node, "a phantom payload has no buffer to place in " + std::string(mem_type_name(scenario_.memory)) +
                     " memory (use mode=\"verify\")");
  }

  const std::string& text_;
  const std::string& file_;
  const std::string& base_dir_;
  Scenario scenario_;
};

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& file, const std::string& base_dir) {
  return ScenarioReader(text, file, base_dir).read();
}

Scenario load_scenario(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(file, error))
    throw ScenarioError(file + ": is a directory, not a scenario file");
  if (!fs::exists(file, error))
    throw ScenarioError(file + ": no such file");
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw ScenarioError(file + ": cannot be opened for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw ScenarioError(file + ": cannot be read");
  return parse_scenario(text.str(), file, fs::path(file).parent_path().string());
}

}  // namespace xover
