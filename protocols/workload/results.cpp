#include "protocols/workload/results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace xover {

double quantile(std::vector<double> samples, double q) {
  if (samples.empty())
    return 0;
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(samples.size())));
  return samples[std::clamp<std::size_t>(rank, 1, samples.size()) - 1];
}

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::pair<double, double> median_interval(std::vector<double> samples) {
  if (samples.empty())
    return {0, 0};
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  if (samples.size() < 6)
    return {samples.front(), samples.back()};
  const auto j = static_cast<std::size_t>(std::floor(n / 2 - 0.98 * std::sqrt(n)));
  const auto k = static_cast<std::size_t>(std::ceil(n / 2 + 1 + 0.98 * std::sqrt(n)));
  return {samples[std::clamp<std::size_t>(j, 1, samples.size()) - 1],
          samples[std::clamp<std::size_t>(k, 1, samples.size()) - 1]};
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char ch : s)
    out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace

void Point::add_note(const std::string& note) {
  std::string clean = note;
  for (char& c : clean)
    if (c == '\t' || c == '\n' || c == '\r')
      c = ' ';
  if (clean.empty())
    return;
  std::size_t at = 0;
  while ((at = notes.find(clean, at)) != std::string::npos) {
    const bool starts = at == 0 || notes.compare(at - 2, 2, "; ") == 0;
    const std::size_t end = at + clean.size();
    if (starts && (end == notes.size() || notes.compare(end, 2, "; ") == 0))
      return;
    at = end;
  }
  notes += (notes.empty() ? "" : "; ") + clean;
}

Seconds Point::median() const {
  return quantile(samples, 0.5);
}

Seconds Point::p10() const {
  return quantile(samples, 0.1);
}

Seconds Point::p90() const {
  return quantile(samples, 0.9);
}

std::pair<Seconds, Seconds> Point::median_ci() const {
  return median_interval(samples);
}

double Point::bandwidth() const {
  const Seconds t = median();
  return t > 0 ? static_cast<double>(moved.value_or(size)) / t : 0;
}

Point& Results::point(const std::string& curve, Bytes size) {
  auto it = std::find(curves_.begin(), curves_.end(), curve);
  if (it == curves_.end())
    it = curves_.insert(curves_.end(), curve);
  const std::size_t index = static_cast<std::size_t>(it - curves_.begin());
  auto [at, added] = points_.try_emplace({index, size});
  Point& p = at->second;
  if (added) {
    p.curve = curve;
    p.size = size;
    if (on_new_point)
      on_new_point(p);
  }
  return p;
}

std::vector<const Point*> Results::points() const {
  std::vector<const Point*> out;
  for (const auto& [key, point] : points_)
    out.push_back(&point);
  return out;
}

std::size_t Results::errors() const {
  std::size_t n = 0;
  for (const auto& [key, point] : points_)
    n += point.errors;
  return n;
}

void Results::note_all(const std::string& note) {
  for (auto& [key, point] : points_)
    point.add_note(note);
}

// One line a point: curve, selected, lanes, size, errors, held bytes,
// bytes moved per sample (or -), model (or -), notes, then the samples;
// tab-separated (names and notes hold no tabs).
std::string Results::to_text() const {
  std::string out;
  char buf[64];
  for (const Point* p : points()) {
    out += p->curve + '\t' + p->selected + '\t' + p->lanes + '\t' + std::to_string(p->size) + '\t' +
           std::to_string(p->errors) + '\t' + std::to_string(p->buffered_peak) + '\t' +
           (p->moved ? std::to_string(*p->moved) : std::string("-")) + '\t';
    if (p->model) {
      std::snprintf(buf, sizeof buf, "%.17g", *p->model);
      out += buf;
    } else {
      out += '-';
    }
    out += '\t' + p->notes;
    for (Seconds t : p->samples) {
      std::snprintf(buf, sizeof buf, "\t%.17g", t);
      out += buf;
    }
    out += '\n';
  }
  return out;
}

void Results::merge_text(std::string_view text) {
  auto number = [](const std::string& field) {
    std::size_t used = 0;
    const double v = std::stod(field, &used);
    if (used != field.size() || !std::isfinite(v) || v < 0)
      throw std::invalid_argument("not a number: '" + field + "'");
    return v;
  };
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::vector<std::string> fields;
    std::size_t start = 0;
    const std::string_view line = text.substr(0, end);
    while (true) {
      const std::size_t tab = std::min(line.find('\t', start), line.size());
      fields.emplace_back(line.substr(start, tab - start));
      if (tab == line.size())
        break;
      start = tab + 1;
    }
    text.remove_prefix(std::min(end + 1, text.size()));
    if (fields.size() < 9)
      throw std::invalid_argument("a results line has " + std::to_string(fields.size()) + " fields, not 9 or more");
    try {
      Point& p = point(fields[0], static_cast<Bytes>(number(fields[3])));
      if (p.selected.empty()) {
        p.selected = fields[1];
        p.lanes = fields[2];
      }
      p.errors += static_cast<std::size_t>(number(fields[4]));
      p.buffered_peak = std::max(p.buffered_peak, static_cast<Bytes>(number(fields[5])));
      if (!p.moved && fields[6] != "-")
        p.moved = static_cast<Bytes>(number(fields[6]));
      if (!p.model && fields[7] != "-")
        p.model = number(fields[7]);
      std::string_view notes = fields[8];
      while (!notes.empty()) {
        const std::size_t end = std::min(notes.find("; "), notes.size());
        p.add_note(std::string(notes.substr(0, end)));
        notes.remove_prefix(std::min(end + 2, notes.size()));
      }
      for (std::size_t i = 9; i < fields.size(); ++i)
        p.samples.push_back(number(fields[i]));
    } catch (const std::logic_error& e) {
      throw std::invalid_argument(std::string("a malformed results line: ") + e.what());
    }
  }
}

void write_csv(std::ostream& os, const Results& results, const std::string& scenario, const std::string& backend,
               const std::string& platform, const std::string& workload) {
  os << kCsvHeader << "\n";
  for (const Point* p : results.points()) {
    char numbers[256];
    std::snprintf(numbers, sizeof numbers, "%llu,%zu,%.6f,%.6f,%.6f,%.9g,", static_cast<unsigned long long>(p->size),
                  p->samples.size(), p->median() * 1e6, p->p10() * 1e6, p->p90() * 1e6, p->bandwidth() / 1e6);
    os << csv_field(scenario) << ',' << backend << ',' << csv_field(platform) << ',' << workload << ','
       << csv_field(p->curve) << ',' << csv_field(p->selected) << ',' << csv_field(p->lanes) << ',' << numbers;
    if (p->model) {
      char model[32];
      std::snprintf(model, sizeof model, "%.6f", *p->model * 1e6);
      os << model;
    }
    const auto [ci_lo, ci_hi] = p->median_ci();
    char ci[64];
    std::snprintf(ci, sizeof ci, ",%.6f,%.6f", ci_lo * 1e6, ci_hi * 1e6);
    os << ',' << p->errors << ',' << csv_field(p->notes) << ci << "\n";
  }
}

}  // namespace xover
