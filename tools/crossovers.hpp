// What a results file says about hand-over sizes: where the `auto` curve's
// selected protocol changes (the selection engine's thresholds, as
// sampled), and where two forced curves cross (the measured crossovers).
// Shared by `xover plot` and `xover compare`.
#pragma once

#include <string>
#include <vector>

#include "tools/results_csv.hpp"

namespace xover::tools {

/// A change of the `auto` curve's selected protocol between two sampled
/// sizes: the engine hands over somewhere in (last_from, first_to].
struct SelectionThreshold {
  std::string from;     ///< selected at last_from
  std::string to;       ///< selected at first_to
  Bytes last_from = 0;  ///< the largest sampled size still given to `from`
  Bytes first_to = 0;   ///< the next sampled size, given to `to`
  /// The log-midpoint sqrt(last_from · first_to): the estimate used when
  /// the threshold is compared with a measured crossover.
  double estimate() const;
};

/// Two forced curves crossing: `faster_below` is the faster one below
/// `size`, `faster_above` above it.
struct Crossover {
  std::string faster_below;
  std::string faster_above;
  Bytes last_below = 0;  ///< the sampled sizes either side of the crossing
  Bytes first_above = 0;
  double size = 0;  ///< interpolated, in bytes
  double t_us = 0;  ///< both curves' interpolated time there
};

/// The `auto` curve's hand-overs, by size; none when the file has no
/// `auto` curve. A size of 0 B, which has no place on a log axis, is
/// skipped.
std::vector<SelectionThreshold> selection_thresholds(const ResultsFile& results);

/// Every crossing of every pair of forced (non-`auto`) curves, pairs in the
/// order their curves first appear, crossings by size.
///
/// For curves A and B, d(s) = t_A(s) − t_B(s) on the sizes both sampled
/// (sizes of 0 B, which have no logarithm, and sizes where d = 0 are
/// skipped). Between consecutive such sizes a < b where d changes sign, the
/// crossing is where d, taken as linear in log(size), is zero:
///   f = d(a) / (d(a) − d(b)),  size = exp(ln a + f·(ln b − ln a)),
/// and its time is t_A(a) + f·(t_A(b) − t_A(a)) (= the same for B).
std::vector<Crossover> find_crossovers(const ResultsFile& results);

}  // namespace xover::tools
