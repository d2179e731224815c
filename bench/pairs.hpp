// Ratios from interleaved pairs of runs: xover and its peer measured A B,
// B A, A B, ... so that a slow spell of the machine falls on both, each
// pair's ratio taken on its own, and a target judged on their median. A
// single run's ratio decides nothing; a median whose pairs' range crosses
// the target says so.
#pragma once

#include <string>
#include <vector>

namespace xover::bench {

/// The ratios of the pairs of one point.
class PairRatios {
 public:
  void add(double ratio) { ratios_.push_back(ratio); }
  bool empty() const { return ratios_.empty(); }
  std::size_t count() const { return ratios_.size(); }
  double median() const;
  double min() const;
  double max() const;
  /// "1.03 (0.98-1.12)": the median and the range.
  std::string text() const;
  /// The verdict on a target `ratio <= bound` (or `>= bound` when not
  /// `at_most`), on the median: "met (...)" or "MISSED (...)", with the
  /// pairs' range, "; the range straddles BOUND" where some pairs fall on
  /// each side, and "; N pairs: fewer than 5, indicative only" below 5.
  std::string verdict(double bound, bool at_most) const;

 private:
  std::vector<double> ratios_;
};

/// The median of `values` (the mean of the middle two for an even count);
/// 0 for none.
double median(std::vector<double> values);

/// Fewer pairs than this and a verdict is indicative only.
inline constexpr unsigned kMinPairs = 5;

}  // namespace xover::bench
