// Harness: the results CSV reader behind `xover compare` and `xover plot`
// (tools/results_csv.*), and what those commands compute from what it
// accepts (tools/compare.*, tools/crossovers.*).
//
// Input: one CSV, or two joined by a form feed (a simulation's and a
// hardware run's); without one the file is compared with itself.
// Checks: a bad file throws ResultsCsvError and nothing else; an accepted
// file has rows, positive medians, finite non-negative numbers, medians
// inside their confidence intervals and no (protocol, size) twice; compare
// throws CompareError or gives finite errors.
#include <cmath>
#include <set>
#include <sstream>
#include <string>

#include "fuzz/harness.hpp"
#include "tools/compare.hpp"
#include "tools/crossovers.hpp"
#include "tools/results_csv.hpp"

namespace {

using namespace xover::tools;
using xover::fuzz::check;

bool finite_non_negative(double x) {
  return std::isfinite(x) && x >= 0;
}

std::optional<ResultsFile> read(std::string_view text, const char* name) {
  std::istringstream in{std::string(text)};
  try {
    return read_results_csv(in, name);
  } catch (const ResultsCsvError& e) {
    check(std::string_view(e.what()).starts_with(std::string(name) + ":"), "an error names the file");
    return std::nullopt;
  }
}

void check_file(const ResultsFile& file) {
  check(!file.rows.empty(), "an accepted file has rows");
  std::set<std::pair<std::string, xover::Bytes>> seen;
  for (const ResultRow& row : file.rows) {
    check(row.t_median_us > 0 && std::isfinite(row.t_median_us), "a median is positive and finite");
    check(finite_non_negative(row.t_p10_us) && finite_non_negative(row.t_p90_us) &&
              finite_non_negative(row.bandwidth_MBps) && (!row.model_us || finite_non_negative(*row.model_us)),
          "numbers are finite and not negative");
    check(row.t_ci_lo_us.has_value() == row.t_ci_hi_us.has_value() &&
              (!row.t_ci_lo_us || (*row.t_ci_lo_us <= row.t_median_us && row.t_median_us <= *row.t_ci_hi_us &&
                                   std::isfinite(*row.t_ci_hi_us))),
          "a confidence interval has both ends, finite, around the median");
    check(seen.insert({row.protocol, row.size}).second, "no (protocol, size) twice");
  }
  selection_thresholds(file);
  for (const Crossover& crossover : find_crossovers(file))
    check(std::isfinite(crossover.size), "a crossover is at a finite size");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t split = text.find('\f');
  const std::optional<ResultsFile> sim = read(text.substr(0, split), "sim.csv");
  const std::optional<ResultsFile> hw =
      split == std::string_view::npos ? sim : read(text.substr(split + 1), "hw.csv");
  if (!sim || !hw)
    return 0;
  check_file(*sim);
  check_file(*hw);
  try {
    const Comparison comparison = compare_results(*sim, *hw);
    for (const PointError& point : comparison.points)
      check(std::isfinite(point.rel), "a relative error is finite");
    for (const ProtocolErrors& errors : comparison.protocols)
      check(std::isfinite(errors.median_abs_rel) && std::isfinite(errors.worst_abs_rel),
            "per-protocol errors are finite");
  } catch (const CompareError&) {
  }
  return 0;
}
