// Reading a results CSV back (the file `xover run` writes) for the tools
// that plot and compare runs: every row checked, a bad one reported as
// `file:line: what is wrong`.
#pragma once

#include <istream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocols/units.hpp"

namespace xover::tools {

/// A results CSV that cannot be read, with `file:line: what is wrong`.
class ResultsCsvError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// One row: one protocol curve at one size.
struct ResultRow {
  std::string protocol;   ///< the curve: "auto" or a forced protocol
  std::string selected;   ///< the protocol that ran
  std::string lanes;
  Bytes size = 0;
  std::size_t iterations = 0;
  double t_median_us = 0;  ///< always positive
  double t_p10_us = 0;
  double t_p90_us = 0;
  double bandwidth_MBps = 0;
  std::optional<double> model_us;  ///< empty when the run had no model
  std::size_t errors = 0;
  std::string notes;     ///< empty in files written before the column
  /// The median's 95 % confidence interval (median_interval()),
  /// t_ci_lo_us <= t_median_us <= t_ci_hi_us; empty in files written
  /// before the columns.
  std::optional<double> t_ci_lo_us, t_ci_hi_us;
  std::size_t line = 0;  ///< its line in the file, for messages
};

/// A whole results file. Every row names the same scenario, backend,
/// platform and workload; no (protocol, size) appears twice.
struct ResultsFile {
  std::string file;
  std::string scenario;
  std::string backend;
  std::string platform;
  std::string workload;
  std::vector<ResultRow> rows;  ///< in file order

  /// The curves' names in the order they first appear.
  std::vector<std::string> protocols() const;
};

/// Reads a results CSV from `in`; `file` names it in messages. The header
/// is kCsvHeader; or the same without its last two columns (the median's
/// confidence interval), as files written before them have; or without
/// `notes` too, as older files have.
/// @throws ResultsCsvError when the header, a field or a row is wrong, a
/// (protocol, size) repeats, or there is no row.
ResultsFile read_results_csv(std::istream& in, const std::string& file);

/// Reads the results CSV `file`.
/// @throws ResultsCsvError also when the file cannot be opened.
ResultsFile read_results_csv(const std::string& file);

}  // namespace xover::tools
