// The results of a run: one point per (curve, size), and the CSV that the
// simulation and the hardware backends both write.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocols/units.hpp"

namespace xover {

/// The q-quantile of `samples` by the nearest-rank method (q in [0, 1]),
/// always one of the samples; 0 when there are none. The median of a
/// measured quantity's samples is quantile(samples, 0.5), the lower middle
/// one of an even count: a point's median, p10 and p90, and every figure a
/// backend or the calibration measures, as median_interval's order
/// statistics are.
double quantile(std::vector<double> samples, double q);

/// The median of figures that are not samples of one quantity — the medians
/// of several runs, relative errors over sizes — as statistics defines it:
/// the middle value of an odd count, the mean of the two middle ones of an
/// even count (of two runs, their mean, not the faster); 0 when there are
/// none.
double median(std::vector<double> values);

/// A 95 % confidence interval for the median of `samples`, free of any
/// assumption on their distribution (Le Boudec, "Performance Evaluation of
/// Computer and Communication Systems", 2010, theorem 2.1): with the
/// samples sorted x(1) <= ... <= x(n), [x(j), x(k)] for
///   j = floor(n/2 − 0.98·√n),  k = ceil(n/2 + 1 + 0.98·√n)
/// when n >= 6; [min, max] for fewer samples, whose interval is wider than
/// the samples span. {0, 0} when there are none.
std::pair<double, double> median_interval(std::vector<double> samples);

/// One measured point. Samples are seconds per message (a half round trip
/// for ping-pongs, a window's time over its size for streams, a late
/// receive's post-to-completion time for unexpected receives).
struct Point {
  std::string curve;      ///< "auto" or the forced protocol
  std::string selected;   ///< the protocol that ran
  std::string lanes;      ///< its lanes and shares: "r0:0.5 r1:0.5"
  Bytes size = 0;
  /// The bytes one sample moves per rank, for bandwidth(): `size`, or
  /// (P − 1)·size for an alltoall.
  std::optional<Bytes> moved;
  std::vector<Seconds> samples;
  std::optional<Seconds> model;  ///< the selected protocol's cost at `size`
  std::size_t errors = 0;        ///< corrupt or missing messages
  Bytes buffered_peak = 0;       ///< the receiver's most bytes held unexpectedly
  /// What a reader of the numbers should know, "; "-separated: whether the
  /// bytes were checked (verified=yes|no), the machine oversubscribed, what
  /// went wrong. No tabs or newlines.
  std::string notes;

  /// Appends `note` to notes unless it is there already.
  void add_note(const std::string& note);

  Seconds median() const;
  Seconds p10() const;
  Seconds p90() const;
  /// The 95 % confidence interval of median() (median_interval()).
  std::pair<Seconds, Seconds> median_ci() const;
  /// Bytes per second at the median time: moved (or size) over the median.
  double bandwidth() const;
};

/// Collects points from every rank of a run, by curve and size.
class Results {
 public:
  /// Adds samples and errors to the point (curve, size), creating it.
  Point& point(const std::string& curve, Bytes size);
  /// Points in curve order (as first added), then size order.
  std::vector<const Point*> points() const;
  std::size_t errors() const;
  /// Adds `note` to every point.
  void note_all(const std::string& note);

  /// The points as text, one line each, every number bit for bit, for a
  /// rank (of a hardware run, or of a simulated sweep) to hand its findings
  /// to the rank that writes the results.
  std::string to_text() const;
  /// Adds the points of to_text() to these: samples appended, errors
  /// summed, held bytes the larger, names, moved bytes and model kept where
  /// already set.
  /// @throws std::invalid_argument when a line is malformed.
  void merge_text(std::string_view text);

  /// Called with each new point as a run reaches it (for a progress line).
  std::function<void(const Point&)> on_new_point;
  /// Called as a two-sided workload starts visit `index` of `visits`
  /// (pair_driver.hpp), with the point it visits (for a progress line).
  std::function<void(const Point&, std::size_t index, std::size_t visits)> on_visit;

 private:
  std::vector<std::string> curves_;
  std::map<std::pair<std::size_t, Bytes>, Point> points_;
};

/// The results CSV header. The median's 95 % confidence interval
/// (`t_ci_lo_us,t_ci_hi_us`, median_interval()) comes last; files written
/// before it end at `notes`, and older ones at `errors`
/// (tools/results_csv.hpp reads all three).
inline constexpr const char* kCsvHeader =
    "scenario,backend,platform,workload,protocol,selected,lanes,size,iterations,t_median_us,t_p10_us,t_p90_us,"
    "bandwidth_MBps,model_us,errors,notes,t_ci_lo_us,t_ci_hi_us";

/// Writes the header and one row per point.
void write_csv(std::ostream& os, const Results& results, const std::string& scenario, const std::string& backend,
               const std::string& platform, const std::string& workload);

}  // namespace xover
