// xover plot: results CSVs drawn as crossover curves. This side reads and
// checks the files and finds the thresholds and crossovers
// (crossovers.hpp); plot_results.py, run by Debian's python3 with
// matplotlib, draws what it is handed as JSON.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "base/spawn.hpp"
#include "tools/commands.hpp"
#include "tools/crossovers.hpp"
#include "tools/data_dir.hpp"
#include "tools/json.hpp"
#include "tools/results_csv.hpp"

namespace po = boost::program_options;

namespace xover::tools {
namespace {

constexpr const char* kPython = XOVER_PYTHON;
// plot_results.py's exit status when matplotlib cannot be imported.
constexpr int kNoMatplotlib = 3;

std::string lower_extension(const std::string& file) {
  std::string ext = std::filesystem::path(file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  return ext;
}

void write_run(JsonWriter& j, const ResultsFile& results) {
  j.begin_object();
  j.key("file").value(results.file);
  j.key("scenario").value(results.scenario);
  j.key("backend").value(results.backend);
  j.key("platform").value(results.platform);
  j.key("workload").value(results.workload);
  j.key("curves").begin_array();
  for (const std::string& protocol : results.protocols()) {
    std::vector<const ResultRow*> rows;
    for (const ResultRow& row : results.rows)
      if (row.protocol == protocol)
        rows.push_back(&row);
    std::sort(rows.begin(), rows.end(), [](const ResultRow* a, const ResultRow* b) { return a->size < b->size; });
    j.begin_object();
    j.key("protocol").value(protocol);
    j.key("sizes").begin_array();
    for (const ResultRow* row : rows)
      j.value(row->size);
    j.end_array();
    j.key("t_us").begin_array();
    for (const ResultRow* row : rows)
      j.value(row->t_median_us);
    j.end_array();
    j.key("selected").begin_array();
    for (const ResultRow* row : rows)
      j.value(row->selected);
    j.end_array();
    // The median's confidence band, where the file has the columns.
    if (std::all_of(rows.begin(), rows.end(), [](const ResultRow* row) { return row->t_ci_lo_us.has_value(); })) {
      j.key("ci_lo_us").begin_array();
      for (const ResultRow* row : rows)
        j.value(*row->t_ci_lo_us);
      j.end_array();
      j.key("ci_hi_us").begin_array();
      for (const ResultRow* row : rows)
        j.value(*row->t_ci_hi_us);
      j.end_array();
    }
    j.end_object();
  }
  j.end_array();
  j.key("thresholds").begin_array();
  for (const SelectionThreshold& t : selection_thresholds(results)) {
    j.begin_object();
    j.key("from").value(t.from);
    j.key("to").value(t.to);
    j.key("last_from").value(t.last_from);
    j.key("first_to").value(t.first_to);
    j.key("estimate").value(t.estimate());
    j.end_object();
  }
  j.end_array();
  j.key("crossovers").begin_array();
  for (const Crossover& c : find_crossovers(results)) {
    j.begin_object();
    j.key("faster_below").value(c.faster_below);
    j.key("faster_above").value(c.faster_above);
    j.key("size").value(c.size);
    j.key("t_us").value(c.t_us);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

// Runs the script on the JSON in `data`; returns its exit status, or -1
// when it could not be started or was killed.
int run_script(const std::string& data, const std::string& out) {
  return spawn_and_wait(kPython, {kPython, plot_script(), data, out});
}

}  // namespace

bool check_plot_output(const std::string& command, const std::string& file) {
  const std::string ext = lower_extension(file);
  if (ext == ".png" || ext == ".svg")
    return true;
  std::cerr << "xover " << command << ": " << file << ": a plot is written as .png or .svg, by its name's extension\n";
  return false;
}

int plot_results(const std::string& command, const std::vector<std::string>& csvs, const std::string& out) {
  if (!check_plot_output(command, out))
    return kExitBadInput;
  std::vector<ResultsFile> runs;
  try {
    for (const std::string& csv : csvs)
      runs.push_back(read_results_csv(csv));
  } catch (const ResultsCsvError& e) {
    std::cerr << "xover " << command << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  for (const ResultsFile& run : runs) {
    if (run.scenario != runs[0].scenario || run.workload != runs[0].workload) {
      std::cerr << "xover " << command << ": " << run.file << " holds " << run.scenario << " (" << run.workload
                << "), " << runs[0].file << " holds " << runs[0].scenario << " (" << runs[0].workload
                << "): one plot draws runs of one scenario\n";
      return kExitBadInput;
    }
  }
  if (access(kPython, X_OK) != 0) {
    std::cerr << "xover " << command << ": no python3 at " << kPython
              << "; install Debian's python3 and python3-matplotlib (tools/setup.sh does)\n";
    return 1;
  }

  JsonWriter j;
  j.begin_object();
  j.key("runs").begin_array();
  for (const ResultsFile& run : runs)
    write_run(j, run);
  j.end_array();
  j.end_object();

  char data[] = "/tmp/xover-plot-XXXXXX";
  const int fd = mkstemp(data);
  if (fd < 0) {
    std::cerr << "xover " << command << ": cannot create a temporary file for the plot's data\n";
    return 1;
  }
  close(fd);
  std::ofstream(data) << j.str();
  const std::filesystem::path dir = std::filesystem::path(out).parent_path();
  std::error_code ec;
  if (!dir.empty())
    std::filesystem::create_directories(dir, ec);
  const int status = run_script(data, out);
  std::remove(data);
  if (status == kNoMatplotlib)
    return 1;
  if (status != 0) {
    std::cerr << "xover " << command << ": " << plot_script() << " failed to draw " << out << "\n";
    return 1;
  }
  std::cout << "plot: " << out << "\n";
  return 0;
}

int plot_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover plot RESULTS.csv... -o FILE.png|FILE.svg\n\n"
      "Draws results CSVs of one scenario: median time against size on log axes, one colour per\n"
      "protocol, the auto curve on top; below, each curve's time over the best curve's at that size.\n"
      "Marks where the auto curve changes protocol (the selection engine's thresholds, between two\n"
      "sampled sizes) and where forced curves cross (the measured crossovers). A simulated and a\n"
      "hardware run of the same scenario are overlaid: same colours, dashed for simulation, solid\n"
      "for hardware, each hardware curve in the shaded band of its median's 95% confidence\n"
      "interval where the CSV has one. Needs Debian's python3 and python3-matplotlib.\n\noptions");
  opts.add_options()("help,h", "this help")("csv", po::value<std::vector<std::string>>(), "results CSVs")(
      "out,o", po::value<std::string>(), "the plot: .png or .svg");
  po::positional_options_description positional;
  positional.add("csv", -1);
  po::variables_map vm;
  if (const auto status = parse_options("plot", args, opts, positional, vm))
    return *status;
  if (!vm.count("csv") || !vm.count("out")) {
    std::cerr << "xover plot: needs results CSVs and -o FILE.png|FILE.svg (see xover plot --help)\n";
    return kExitBadInput;
  }
  return plot_results("plot", vm["csv"].as<std::vector<std::string>>(), vm["out"].as<std::string>());
}

}  // namespace xover::tools
