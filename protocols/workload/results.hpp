// The results of a run: one point per (curve, size), and the CSV that the
// simulation and the hardware backends both write.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/units.hpp"

namespace xover {

/// The q-quantile of `samples` by the nearest-rank method (q in [0, 1]): the
/// median, p10 and p90 of every point; 0 when there are none.
double quantile(std::vector<double> samples, double q);

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

 private:
  std::vector<std::string> curves_;
  std::map<std::pair<std::size_t, Bytes>, Point> points_;
};

/// The results CSV header. `notes` is last; files written before it had
/// every other column (tools/results_csv.hpp reads both).
inline constexpr const char* kCsvHeader =
    "scenario,backend,platform,workload,protocol,selected,lanes,size,iterations,t_median_us,t_p10_us,t_p90_us,"
    "bandwidth_MBps,model_us,errors,notes";

/// Writes the header and one row per point.
void write_csv(std::ostream& os, const Results& results, const std::string& scenario, const std::string& backend,
               const std::string& platform, const std::string& workload);

}  // namespace xover
