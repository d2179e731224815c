#include "bench/pairs.hpp"

#include <algorithm>
#include <cstdio>

namespace xover::bench {

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double PairRatios::median() const {
  return bench::median(ratios_);
}

double PairRatios::min() const {
  return ratios_.empty() ? 0 : *std::min_element(ratios_.begin(), ratios_.end());
}

double PairRatios::max() const {
  return ratios_.empty() ? 0 : *std::max_element(ratios_.begin(), ratios_.end());
}

std::string PairRatios::text() const {
  char out[64];
  std::snprintf(out, sizeof out, "%.2f (%.2f-%.2f)", median(), min(), max());
  return out;
}

std::string PairRatios::verdict(double bound, bool at_most) const {
  if (ratios_.empty())
    return "not measured";
  const bool met = at_most ? median() <= bound : median() >= bound;
  std::string out = std::string(met ? "met" : "MISSED") + " (median " + text() + ", " +
                    std::to_string(ratios_.size()) + " pairs";
  const bool below = at_most ? min() <= bound : min() < bound;
  const bool above = at_most ? max() > bound : max() >= bound;
  if (below && above) {
    char note[48];
    std::snprintf(note, sizeof note, "; the range straddles %g", bound);
    out += note;
  }
  if (ratios_.size() < kMinPairs)
    out += "; fewer than " + std::to_string(kMinPairs) + ": indicative only";
  return out + ")";
}

}  // namespace xover::bench
