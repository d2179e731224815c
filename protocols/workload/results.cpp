#include "protocols/workload/results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace xover {
namespace {

// The q-quantile by the nearest-rank method (q in [0, 1]).
Seconds quantile(std::vector<Seconds> samples, double q) {
  if (samples.empty())
    return 0;
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(samples.size())));
  return samples[std::clamp<std::size_t>(rank, 1, samples.size()) - 1];
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char ch : s)
    out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace

Seconds Point::median() const {
  return quantile(samples, 0.5);
}

Seconds Point::p10() const {
  return quantile(samples, 0.1);
}

Seconds Point::p90() const {
  return quantile(samples, 0.9);
}

double Point::bandwidth() const {
  const Seconds t = median();
  return t > 0 ? static_cast<double>(size) / t : 0;
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

void write_csv(std::ostream& os, const Results& results, const std::string& scenario, const std::string& backend,
               const std::string& platform, const std::string& workload) {
  os << kCsvHeader << "\n";
  for (const Point* p : results.points()) {
    char numbers[256];
    std::snprintf(numbers, sizeof numbers, "%llu,%zu,%.6f,%.6f,%.6f,%.3f,", static_cast<unsigned long long>(p->size),
                  p->samples.size(), p->median() * 1e6, p->p10() * 1e6, p->p90() * 1e6, p->bandwidth() / 1e6);
    os << csv_field(scenario) << ',' << backend << ',' << csv_field(platform) << ',' << workload << ','
       << csv_field(p->curve) << ',' << csv_field(p->selected) << ',' << csv_field(p->lanes) << ',' << numbers;
    if (p->model) {
      char model[32];
      std::snprintf(model, sizeof model, "%.6f", *p->model * 1e6);
      os << model;
    }
    os << ',' << p->errors << "\n";
  }
}

}  // namespace xover
