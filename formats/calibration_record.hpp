// What a calibrated platform says of its own making, in a form a program
// reads back: the fit set (the workloads and curves whose measurements its
// figures were fitted to) and which probe gave each figure. `xover
// calibrate` writes them as `xover:` properties of the platform's zone
// (platforms/README.md, "The calibration record"); `xover validate` reads
// them to tell a prediction (a held-out curve) from a curve the fit saw.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace xover {

/// One (workload, curve) of a fit set: "pingpong:eager/short".
struct FitEntry {
  std::string workload;  ///< the workload's kind, as the results' workload column says it
  std::string curve;     ///< a forced protocol or `auto`

  bool operator==(const FitEntry&) const = default;
  auto operator<=>(const FitEntry&) const = default;
};

struct CalibrationRecord {
  /// Whether the platform has a record at all: a platform written by hand,
  /// or by a calibrate older than the record, has none (and its fit set
  /// reads empty).
  bool recorded = false;
  std::vector<FitEntry> fit_set;  ///< sorted, each once
  /// "LANE.FIGURE" (or "memcpy") -> the probe that gave it, "fit-set" where
  /// it was fitted to the fit set's measurements ("post+fit-set": the
  /// probe's figure with something of the fit set added).
  std::map<std::string, std::string> sources;

  /// Whether (workload, curve) is in the fit set, or `curve` is a family
  /// ("eager") of which the fit set holds a member ("eager/short") of the
  /// same workload: a family runs its members' points.
  bool in_sample(std::string_view workload, std::string_view curve) const;
};

/// The zone properties that hold a record.
inline constexpr std::string_view kFitSetProp = "xover:fit_set";
inline constexpr std::string_view kSourcesProp = "xover:sources";

/// `entries` as xover:fit_set's value: "pingpong:auto pingpong:eager/short".
std::string fit_set_text(const std::vector<FitEntry>& entries);
/// `sources` as xover:sources's value: "mm.latency=prtt mm.o_send=fit-set".
std::string sources_text(const std::map<std::string, std::string>& sources);

/// Reads the record of the platform file `file`.
/// @throws std::invalid_argument "FILE:LINE: what is wrong" for a file that
/// cannot be read or parsed, or a record entry that does not read
/// (a fit set entry without its ':', a source without its '=').
CalibrationRecord read_calibration_record(const std::string& file);

}  // namespace xover
