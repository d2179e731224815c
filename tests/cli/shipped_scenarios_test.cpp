// Every shipped scenario (scenarios/*.xml, and those of its folders: the
// validation suite's, scenarios/validate/) is an example that runs. Each is
// read as `xover run` reads it, shrunk to run in a second or two (at most 2
// timed iterations after 1 warm-up, sizes up to 256 KiB, at most 16 PEs),
// simulated with sim::simulate in a child process (one platform per
// process), written as the results CSV and read back as `xover compare`
// reads it: every curve present, no errors, times positive and finite, the
// model where the workload has one. A scenario whose workload runs over a
// Transport runs on shared memory too, through the same workload driver
// (with one posting thread per PE, the machine's cores being few).
// The schema (scenarios/scenario.xsd) accepts each.
//
// The folder is listed when CTest discovers the tests (DISCOVERY_MODE
// PRE_TEST), so a new scenario file is a new test, and an empty folder
// fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "base/child.hpp"
#include "formats/scenario_xml.hpp"
#include "protocols/workload/alltoall.hpp"
#include "protocols/workload/workloads.hpp"
#include "sim/simulate.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/run.hpp"
#include "tools/results_csv.hpp"

namespace xover {
namespace {

namespace fs = std::filesystem;

const std::string kShipped = XOVER_SOURCE_DIR "/scenarios";

/// The shipped scenario files, sorted, those of the folders too.
std::vector<std::string> shipped() {
  std::vector<std::string> out;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(kShipped))
    if (entry.path().extension() == ".xml")
      out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The largest size a shrunk scenario keeps (its smallest is kept whatever it is).
constexpr Bytes kLargest = Bytes{256} << 10;

/// The scenario in `file`, shrunk: what it runs, fewer times, at fewer sizes, on fewer PEs.
Scenario shrunk(const std::string& file) {
  Scenario s = load_scenario(file);
  s.iterations = std::min<std::size_t>(s.iterations, 2);
  s.warmup = std::min<std::size_t>(s.warmup, 1);
  if (s.workload == &alltoall_workload) {
    AlltoallSettings settings = workload_settings<AlltoallSettings>(s);
    settings.pes = std::min<std::uint32_t>(settings.pes, 16);
    s.settings = settings;
  }
  std::erase_if(s.sizes, [&](Bytes n) { return n > kLargest && n != s.sizes.front(); });
  return s;
}

bool positive_finite(double x) {
  return std::isfinite(x) && x > 0;
}

/// True when `selected` is `curve` or lies under it ("eager/multi/zcopy" under "eager/multi").
bool under(const std::string& selected, const std::string& curve) {
  return curve == "auto" || selected == curve || selected.starts_with(curve + "/");
}

/// Checks a run's results CSV as `xover compare` reads it: the scenario
/// and workload, every point timed and free of errors, its protocol under
/// its curve, the model where the workload has one. Every curve ran when
/// `every_curve`; otherwise (hardware, whose lanes may not carry a forced
/// protocol) at least `auto`.
void expect_good_csv(const Scenario& s, const std::string& csv, bool every_curve) {
  std::istringstream in(csv);
  const tools::ResultsFile results = tools::read_results_csv(in, s.file);
  EXPECT_EQ(results.scenario, s.name);
  EXPECT_EQ(results.workload, s.workload->name);
  const std::vector<std::string> curves = results.protocols();
  ASSERT_FALSE(curves.empty());
  if (every_curve)
    EXPECT_EQ(curves, s.curves);
  else
    EXPECT_EQ(curves.front(), s.curves.front());
  for (const std::string& curve : curves)
    EXPECT_NE(std::find(s.curves.begin(), s.curves.end(), curve), s.curves.end()) << curve;
  // No cost line prices a late receive; every other workload has a model.
  const bool modelled = s.workload != &unexpected_workload;
  for (const tools::ResultRow& row : results.rows) {
    const std::string at = row.protocol + " at " + std::to_string(row.size) + " B";
    EXPECT_EQ(row.errors, 0u) << at;
    // Each pair of a pairs workload adds its samples.
    EXPECT_GE(row.iterations, s.iterations) << at;
    EXPECT_TRUE(under(row.selected, row.protocol)) << at << " ran " << row.selected;
    EXPECT_TRUE(positive_finite(row.t_median_us)) << at;
    EXPECT_TRUE(positive_finite(row.t_p10_us)) << at;
    EXPECT_TRUE(positive_finite(row.t_p90_us)) << at;
    EXPECT_TRUE(positive_finite(row.bandwidth_MBps)) << at;
    EXPECT_EQ(row.model_us.has_value(), modelled) << at;
    if (row.model_us) {
      EXPECT_TRUE(positive_finite(*row.model_us)) << at;
    }
  }
}

/// Results as the CSV `xover run` writes.
std::string csv_of(const Scenario& s, const Results& results, const std::string& backend) {
  std::ostringstream out;
  write_csv(out, results, s.name, backend, s.platform, std::string(s.workload->name));
  return out.str();
}

/// The file's path under scenarios/, without `.xml`: "validate_stream_w4".
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).lexically_relative(kShipped).replace_extension().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

TEST(ShippedScenarios, TheFolderHoldsScenarios) {
  EXPECT_FALSE(shipped().empty()) << "no scenario files in " << kShipped;
}

TEST(ShippedScenarios, EveryWorkloadRunsInSimulation) {
  for (const Workload* workload : workload_registry())
    EXPECT_TRUE(sim::simulates(*workload)) << workload->name;
}

class ShippedScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedScenario, RunsInSimulation) {
  const Scenario s = shrunk(GetParam());
  const std::string csv = in_child([&] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(s.platform);
    return csv_of(s, sim::simulate(s, platform), "sim");
  });
  ASSERT_EQ(child_error(csv), std::nullopt) << csv;
  expect_good_csv(s, csv, true);
}

TEST_P(ShippedScenario, TheSchemaAcceptsIt) {
  if (test::run_command("command -v xmllint").status != 0)
    GTEST_SKIP() << "xmllint is not installed (Debian: apt-get install libxml2-utils)";
  const test::CommandResult r =
      test::run_command("xmllint --noout --schema '" + kShipped + "/scenario.xsd' '" + GetParam() + "'");
  EXPECT_EQ(r.status, 0) << r.err;
}

// Each rank hands back its points as `xover run`'s ranks do (Results::to_text,
// one problem line each), and they are merged as rank 0 merges them.
TEST_P(ShippedScenario, RunsOnSharedMemory) {
  Scenario s = shrunk(GetParam());
  if (!s.workload->run)
    GTEST_SKIP() << "the " << s.workload->name << " workload does not run over a Transport";
  if (s.phantom)
    GTEST_SKIP() << "phantom payloads are for simulation";
  if (s.memory != MemType::Host)
    GTEST_SKIP() << "payloads in " << mem_type_name(s.memory) << " memory run on a GPU (cuda_run_test)";
  // Ranks are processes on this node's few cores: one posting thread each.
  if (s.workload == &alltoall_workload) {
    AlltoallSettings settings = workload_settings<AlltoallSettings>(s);
    settings.threads = 1;
    s.settings = settings;
  }
  const std::string kPoint = "point\t";
  const test::Problems lines =
      test::run_ranks("shm", workload_ranks(s), "", [&](Rank rank, Transport& t, test::Problems& p) {
        Results mine;
        run_workload(s, rank, t, mine);
        std::istringstream text(mine.to_text());
        for (std::string line; std::getline(text, line);)
          p.push_back(kPoint + line);
      });
  Results merged;
  for (const std::string& line : lines) {
    const std::size_t at = line.find(": " + kPoint);
    ASSERT_NE(at, std::string::npos) << line;
    merged.merge_text(line.substr(at + 2 + kPoint.size()));
  }
  expect_good_csv(s, csv_of(s, merged, "shm"), false);
}

INSTANTIATE_TEST_SUITE_P(Files, ShippedScenario, ::testing::ValuesIn(shipped()), test_name);

}  // namespace
}  // namespace xover
