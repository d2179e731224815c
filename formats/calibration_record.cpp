// Reading and writing a calibrated platform's record (calibration_record.hpp).
#include "formats/calibration_record.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "base/text.hpp"

namespace xover {
namespace {

/// The line of byte `offset` of `text`.
int line_of(const std::string& text, std::ptrdiff_t offset) {
  const auto end = text.begin() + std::clamp<std::ptrdiff_t>(offset, 0, static_cast<std::ptrdiff_t>(text.size()));
  return 1 + static_cast<int>(std::count(text.begin(), end, '\n'));
}

}  // namespace

bool CalibrationRecord::in_sample(std::string_view workload, std::string_view curve) const {
  // A family ("eager") runs the best of its members at each size: a
  // member in the fit set puts the family's points there too.
  return std::any_of(fit_set.begin(), fit_set.end(), [&](const FitEntry& e) {
    return e.workload == workload &&
           (e.curve == curve || (e.curve.size() > curve.size() && e.curve.starts_with(curve) &&
                                 e.curve[curve.size()] == '/'));
  });
}

std::string fit_set_text(const std::vector<FitEntry>& entries) {
  std::string out;
  for (const FitEntry& e : entries)
    out += (out.empty() ? "" : " ") + e.workload + ":" + e.curve;
  return out;
}

std::string sources_text(const std::map<std::string, std::string>& sources) {
  std::string out;
  for (const auto& [figure, probe] : sources)
    out += (out.empty() ? "" : " ") + figure + "=" + probe;
  return out;
}

CalibrationRecord read_calibration_record(const std::string& file) {
  std::ifstream in(file);
  if (!in)
    throw std::invalid_argument(file + ": cannot read the platform");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed =
      doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed)
    throw std::invalid_argument(file + ":" + std::to_string(line_of(text, parsed.offset)) +
                                ": malformed XML: " + parsed.description());
  CalibrationRecord record;
  for (const pugi::xpath_node& found : doc.select_nodes("/platform//zone/prop")) {
    const pugi::xml_node prop = found.node();
    const std::string id = prop.attribute("id").value();
    const std::string where = file + ":" + std::to_string(line_of(text, prop.offset_debug())) + ": ";
    if (id == kFitSetProp) {
      record.recorded = true;
      for (const std::string& word : split_words(prop.attribute("value").value())) {
        const std::size_t colon = word.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == word.size())
          throw std::invalid_argument(where + std::string(kFitSetProp) + ": '" + word +
                                      "' is not WORKLOAD:CURVE (pingpong:eager/short)");
        record.fit_set.push_back({word.substr(0, colon), word.substr(colon + 1)});
      }
    } else if (id == kSourcesProp) {
      for (const std::string& word : split_words(prop.attribute("value").value())) {
        const std::size_t eq = word.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == word.size())
          throw std::invalid_argument(where + std::string(kSourcesProp) + ": '" + word +
                                      "' is not FIGURE=PROBE (mm.latency=prtt)");
        record.sources[word.substr(0, eq)] = word.substr(eq + 1);
      }
    }
  }
  std::sort(record.fit_set.begin(), record.fit_set.end());
  record.fit_set.erase(std::unique(record.fit_set.begin(), record.fit_set.end()), record.fit_set.end());
  return record;
}

}  // namespace xover
