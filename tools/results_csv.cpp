#include "tools/results_csv.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <utility>

#include "protocols/workload/results.hpp"

namespace xover::tools {
namespace {

/// Columns before `notes`, which the oldest files lack.
constexpr std::size_t kOldColumns = 15;
/// Columns up to `notes`: files written before the confidence interval.
constexpr std::size_t kNotesColumns = 16;

/// kCsvHeader's first `columns` names.
std::string header_prefix(std::size_t columns) {
  const std::string header = kCsvHeader;
  std::size_t end = 0;
  for (std::size_t c = 0; c < columns; ++c)
    end = header.find(',', end) + 1;
  return header.substr(0, end - 1);
}

[[noreturn]] void fail(const std::string& file, std::size_t line, const std::string& what) {
  throw ResultsCsvError(file + ":" + std::to_string(line) + ": " + what);
}

// The fields of one line; a quoted field may hold commas and doubled quotes.
std::vector<std::string> split_fields(const std::string& text, const std::string& file, std::size_t line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        fields.back() += ch;
      }
    } else if (ch == '"' && fields.back().empty()) {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else {
      fields.back() += ch;
    }
  }
  if (quoted)
    fail(file, line, "a quoted field is not closed");
  return fields;
}

template <typename T>
T whole_number(const std::string& text, const char* column, const std::string& file, std::size_t line) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    fail(file, line, std::string(column) + " '" + text + "' is not a whole number");
  return value;
}

double number(const std::string& text, const char* column, const std::string& file, std::size_t line) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0)
    fail(file, line, std::string(column) + " '" + text + "' is not a non-negative number");
  return value;
}

}  // namespace

std::vector<std::string> ResultsFile::protocols() const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const ResultRow& row : rows)
    if (seen.insert(row.protocol).second)
      out.push_back(row.protocol);
  return out;
}

ResultsFile read_results_csv(std::istream& in, const std::string& file) {
  ResultsFile results;
  results.file = file;
  std::string text;
  if (!std::getline(in, text))
    fail(file, 1, "empty file; a results CSV starts with the header " + std::string(kCsvHeader));
  if (!text.empty() && text.back() == '\r')
    text.pop_back();
  const std::string header = kCsvHeader;
  const std::string notes_header = header_prefix(kNotesColumns);
  const std::string old_header = header_prefix(kOldColumns);
  if (text != header && text != notes_header && text != old_header)
    fail(file, 1, "not a results CSV header; expected " + header + " (or, from before the confidence interval, " +
                      notes_header + "; or, from before the notes column, " + old_header + ")");
  const std::size_t columns = text == header ? kNotesColumns + 2 : text == notes_header ? kNotesColumns : kOldColumns;

  std::set<std::pair<std::string, Bytes>> seen;
  for (std::size_t line = 2; std::getline(in, text); ++line) {
    if (!text.empty() && text.back() == '\r')
      text.pop_back();
    if (text.empty())
      continue;
    const std::vector<std::string> f = split_fields(text, file, line);
    if (f.size() != columns)
      fail(file, line, std::to_string(f.size()) + " fields, the header has " + std::to_string(columns));
    if (results.rows.empty()) {
      results.scenario = f[0];
      results.backend = f[1];
      results.platform = f[2];
      results.workload = f[3];
    }
    const std::pair<const char*, const std::string*> same[] = {
        {"scenario", &results.scenario},
        {"backend", &results.backend},
        {"platform", &results.platform},
        {"workload", &results.workload}};
    for (std::size_t c = 0; c < 4; ++c)
      if (f[c] != *same[c].second)
        fail(file, line, std::string(same[c].first) + " '" + f[c] + "' differs from the first row's '" +
                             *same[c].second + "'; one file holds one run");
    if (f[4].empty() || f[5].empty())
      fail(file, line, "protocol and selected must not be empty");

    ResultRow row;
    row.protocol = f[4];
    row.selected = f[5];
    row.lanes = f[6];
    row.size = whole_number<Bytes>(f[7], "size", file, line);
    row.iterations = whole_number<std::size_t>(f[8], "iterations", file, line);
    row.t_median_us = number(f[9], "t_median_us", file, line);
    row.t_p10_us = number(f[10], "t_p10_us", file, line);
    row.t_p90_us = number(f[11], "t_p90_us", file, line);
    row.bandwidth_MBps = number(f[12], "bandwidth_MBps", file, line);
    if (!f[13].empty())
      row.model_us = number(f[13], "model_us", file, line);
    row.errors = whole_number<std::size_t>(f[14], "errors", file, line);
    if (columns > kOldColumns)
      row.notes = f[15];
    row.line = line;
    if (!(row.t_median_us > 0))
      fail(file, line, "t_median_us must be positive");
    if (columns > kNotesColumns) {
      row.t_ci_lo_us = number(f[16], "t_ci_lo_us", file, line);
      row.t_ci_hi_us = number(f[17], "t_ci_hi_us", file, line);
      if (!(*row.t_ci_lo_us <= row.t_median_us && row.t_median_us <= *row.t_ci_hi_us))
        fail(file, line, "the median's confidence interval [" + f[16] + ", " + f[17] + "] does not hold t_median_us " +
                             f[9]);
    }
    if (!seen.insert({row.protocol, row.size}).second)
      fail(file, line, "a second row for " + row.protocol + " at " + f[7] + " B");
    results.rows.push_back(std::move(row));
  }
  if (results.rows.empty())
    fail(file, 2, "no results rows after the header");
  return results;
}

ResultsFile read_results_csv(const std::string& file) {
  std::ifstream in(file);
  if (!in)
    throw ResultsCsvError(file + ": cannot open (no such file, or not readable)");
  return read_results_csv(in, file);
}

}  // namespace xover::tools
