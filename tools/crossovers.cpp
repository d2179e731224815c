#include "tools/crossovers.hpp"

#include <cmath>
#include <map>
#include <optional>

namespace xover::tools {
namespace {

constexpr const char* kAuto = "auto";

// The rows of one curve by size.
std::map<Bytes, const ResultRow*> curve(const ResultsFile& results, const std::string& protocol) {
  std::map<Bytes, const ResultRow*> out;
  for (const ResultRow& row : results.rows)
    if (row.protocol == protocol)
      out[row.size] = &row;
  return out;
}

void add_crossings(const std::string& a_name, const std::map<Bytes, const ResultRow*>& a, const std::string& b_name,
                   const std::map<Bytes, const ResultRow*>& b, std::vector<Crossover>& out) {
  struct Sample {
    Bytes size;
    double t_a;
    double d;
  };
  std::optional<Sample> last;
  for (const auto& [size, row_a] : a) {
    const auto it = b.find(size);
    if (size == 0 || it == b.end())
      continue;
    const Sample s{size, row_a->t_median_us, row_a->t_median_us - it->second->t_median_us};
    if (s.d == 0)
      continue;
    if (last && (last->d < 0) != (s.d < 0)) {
      const double f = last->d / (last->d - s.d);
      const double la = std::log(double(last->size));
      const double lb = std::log(double(s.size));
      Crossover c;
      c.faster_below = last->d < 0 ? a_name : b_name;
      c.faster_above = last->d < 0 ? b_name : a_name;
      c.last_below = last->size;
      c.first_above = s.size;
      c.size = std::exp(la + f * (lb - la));
      c.t_us = last->t_a + f * (s.t_a - last->t_a);
      out.push_back(c);
    }
    last = s;
  }
}

}  // namespace

double SelectionThreshold::estimate() const {
  return std::sqrt(double(last_from) * double(first_to));
}

std::vector<SelectionThreshold> selection_thresholds(const ResultsFile& results) {
  std::vector<SelectionThreshold> out;
  const ResultRow* prev = nullptr;
  for (const auto& [size, row] : curve(results, kAuto)) {
    if (size == 0)
      continue;
    if (prev && prev->selected != row->selected)
      out.push_back({prev->selected, row->selected, prev->size, size});
    prev = row;
  }
  return out;
}

std::vector<Crossover> find_crossovers(const ResultsFile& results) {
  std::vector<std::string> forced;
  for (const std::string& p : results.protocols())
    if (p != kAuto)
      forced.push_back(p);
  std::vector<Crossover> out;
  for (std::size_t i = 0; i < forced.size(); ++i) {
    const auto a = curve(results, forced[i]);
    for (std::size_t j = i + 1; j < forced.size(); ++j)
      add_crossings(forced[i], a, forced[j], curve(results, forced[j]), out);
  }
  return out;
}

}  // namespace xover::tools
