// The alltoall's per-put path in simulation (its stages run put by put over
// SimTransport, bytes and all) against the closed form
// (alltoall_closed_form) on the contention-free star: each exchange to 1e-6.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "base/child.hpp"
#include "sim/alltoall_sim.hpp"
#include "sim/simulate.hpp"
#include "tests/support/alltoall_scenario.hpp"

namespace xover::test {
namespace {

// The per-put path in simulation against the closed form, on the star:
// P from 2 to 16 (one posting round or several), sizes on both sides of
// g·B = 250 B, both flavours through every curve.
TEST(AlltoallPerPut, TakesTheClosedFormsTime) {
  const std::string report = in_child([] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(star());
    std::ostringstream out;
    out.precision(17);
    for (const auto& [pes, threads] : {std::pair<std::uint32_t, std::uint32_t>{2, 1}, {3, 1}, {8, 4}, {16, 4}, {16, 32}}) {
      const Scenario s = alltoall_scenario(pes, threads, {1, 8, 4096, 65536});
      if (sim::alltoall_batched(s, platform))
        return std::string("batched: P=") + std::to_string(pes);
      const Results results = sim::simulate(s, platform);
      for (const Point* p : results.points())
        out << pes << ' ' << threads << ' ' << p->curve << ' ' << p->size << ' ' << p->errors << ' ' << p->median()
            << ' ' << p->p10() << ' ' << p->p90() << ' ' << *p->model << '\n';
    }
    return out.str();
  });
  std::istringstream in(report);
  std::size_t points = 0;
  std::uint32_t pes = 0, threads = 0;
  std::string curve;
  Bytes size = 0;
  std::size_t errors = 0;
  double median = 0, p10 = 0, p90 = 0, model = 0;
  while (in >> pes >> threads >> curve >> size >> errors >> median >> p10 >> p90 >> model) {
    ++points;
    const std::string what = "P=" + std::to_string(pes) + " T=" + std::to_string(threads) + " " + curve + " n=" +
                             std::to_string(size);
    EXPECT_EQ(errors, 0u) << what;
    EXPECT_NEAR(median, model, 1e-6 * model) << what;
    EXPECT_NEAR(p10, model, 1e-6 * model) << what;
    EXPECT_NEAR(p90, model, 1e-6 * model) << what;
  }
  EXPECT_EQ(points, 5u * 3 * 4) << report;
}

}  // namespace
}  // namespace xover::test
