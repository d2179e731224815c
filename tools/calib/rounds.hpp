// Calibration in rounds: `xover calibrate` measures everything once per
// round (probe sizes and sweep points in a shuffled order), folds the rounds
// into one set of figures, refits, and stops once a round no longer moves
// the fits. Pure functions of measured numbers; the rounds themselves are
// run by the calibrate command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/calib/calibration.hpp"

namespace xover::calib {

/// Each size's figures over the rounds: the median of each round's median
/// (a stream: the fastest round, as a stream run is only ever slowed down
/// by an interruption). Every round holds the same sizes; the result is in
/// size order whatever order a round measured them in.
/// @throws std::invalid_argument when the rounds hold different sizes.
std::vector<PrttPoint> combine_prtt(const std::vector<std::vector<PrttPoint>>& rounds);

/// Each size's get time over the rounds: the median of the rounds', in size order.
/// @throws std::invalid_argument when the rounds hold different sizes.
std::vector<GetPoint> combine_gets(const std::vector<std::vector<GetPoint>>& rounds);

/// How far the fits moved from `before` to `now`: the largest relative
/// change of a lane's one-message time L + o_s + o_r and bandwidth, and of
/// each protocol cost line's time at the ends of its fitted range.
struct FitChange {
  double relative = 0;  ///< the largest change, |now − before| / before
  std::string what;     ///< which figure moved most ("eager/bcopy at 8 KiB")
};
FitChange fit_change(const Calibration& before, const Calibration& now);

/// Why the rounds ended.
enum class RoundsEnd {
  Stable,     ///< the last round moved no fit by the tolerance or more
  TimeLimit,  ///< another round would have ended past the time limit
  Count,      ///< as many rounds as were asked for
};

/// When the rounds end: a rule of the number of rounds, their time and the
/// fits' stability.
struct RoundRule {
  double time_limit = 120;  ///< seconds of rounds, at most
  /// Exactly this many rounds, whatever the fits and the time; 0: until
  /// stable or the time limit.
  std::size_t rounds = 0;
};

/// After `done` rounds in `elapsed` seconds, the last leaving the fits
/// `stable` or not: nothing when another round is to run, else why not.
/// With no round count, the rounds end once the fits are stable, or when a
/// round as long as the average so far would end past the time limit.
std::optional<RoundsEnd> rounds_end(const RoundRule& rule, std::size_t done, double elapsed, bool stable);

/// The `calibrate` comment line on how the rounds went.
std::string rounds_note(std::size_t rounds, double seconds, const FitChange& last, double tolerance, RoundsEnd end);

/// The sizes of `sizes` in an order drawn from `seed` (the same on every rank).
std::vector<Bytes> shuffled(std::vector<Bytes> sizes, std::uint64_t seed);

}  // namespace xover::calib
