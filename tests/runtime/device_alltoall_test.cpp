// The alltoall workload with a backend's engine for device memory
// (protocols/coll/device_alltoall.hpp), where the engine is this test's
// own: a scripted engine on the host, which moves no bytes and answers
// each exchange with figures the test gives, so that what the workload
// makes of them is known exactly. Two ranks on shared memory carry the
// start dates and the reports (processes: this runs in every build). The workload must take the engine in place
// of AlltoallPe, start every exchange from the same date, keep the
// slowest PE's time (the limit for an exchange that did not complete),
// count the engine's errors, and write the figures' medians and the
// engine's notes. The backend table offers an engine on the cuda row only.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "protocols/workload/alltoall.hpp"
#include "protocols/workload/workloads.hpp"
#include "runtime/backends.hpp"
#include "runtime/launch/launch.hpp"
#include "runtime/shm/shm_transport.hpp"

namespace xover::test {
namespace {

/// What went wrong, one line each.
using Problems = std::vector<std::string>;

/// Runs `body` on two ranks over shared memory (processes), and returns
/// each rank's problems, prefixed "rank R: ".
Problems run_two(const std::function<void(Rank, Transport&, Problems&)>& body) {
  runtime::LaunchOptions launch;
  launch.deadline = 60;
  const runtime::LaunchResult result = runtime::launch_local(2, launch, [&](runtime::LocalBootstrap& boot) {
    Problems p;
    try {
      const std::unique_ptr<Transport> t = runtime::make_shm_transport(boot, runtime::RuntimeOptions{});
      body(boot.rank(), *t, p);
      // Neither rank lets go of its transport while the other may still read from it.
      boot.barrier();
    } catch (const std::exception& e) {
      p.push_back(std::string("threw: ") + e.what());
    }
    std::string report;
    for (const std::string& line : p)
      report += "rank " + std::to_string(boot.rank()) + ": " + line + "\n";
    boot.report(report);
    return 0;
  });
  Problems out;
  if (!result.ok)
    out.push_back("the run failed: " + result.message);
  for (const std::string& r : result.reports)
    if (!r.empty())
      out.push_back(r);
  return out;
}

std::string join(const Problems& problems) {
  std::string out;
  for (const std::string& p : problems)
    out += p + "\n";
  return out;
}

constexpr std::size_t kIterations = 4;
constexpr std::size_t kWarmup = 1;
/// The size at which every verify() finds one wrong put.
constexpr Bytes kWrongAt = 64;
/// The size at which the proxy's exchange does not complete.
constexpr Bytes kStallsAt = 512;
/// The workload's limit on an exchange (workload/alltoall.cpp).
constexpr Seconds kLimit = 2.0;

/// What each rank's engine saw, checked at the end of its run (ranks are
/// processes: each has its own).
struct Seen {
  Rank pes = 0;
  Bytes max_size = 0;
  std::size_t prepared = 0, exchanged = 0, verified = 0, finished = 0;
  std::vector<std::string> problems;
};
Seen seen;

/// The scripted engine: rank 1 takes 2 us longer than rank 0 over every
/// exchange, so that the sample is rank 1's.
class ScriptedEngine final : public DeviceAlltoall {
 public:
  explicit ScriptedEngine(Rank me) : me_(me) {}

  void prepare(Bytes n) override {
    ++seen.prepared;
    prepared_ = n;
  }
  DeviceExchange exchange(AlltoallFlavour flavour, Bytes n, Seconds timeout) override {
    ++seen.exchanged;
    if (n != prepared_)
      seen.problems.push_back("exchange of " + std::to_string(n) + " B after prepare(" + std::to_string(prepared_) + ")");
    if (timeout != kLimit)
      seen.problems.push_back("timeout " + std::to_string(timeout));
    DeviceExchange x;
    x.complete = true;
    x.time = (flavour == AlltoallFlavour::Direct ? 5e-6 : 9e-6) + me_ * 2e-6;
    x.post = {2e-6};
    if (flavour == AlltoallFlavour::Proxy) {
      x.post = {1e-6};
      x.serve = {3e-6};
      x.wake = {4e-6};
      x.clock_uncertainty = 0.5e-6;
      if (n == kStallsAt) {
        x.complete = false;
        x.problem = "scripted: the proxy stalled";
      }
    }
    return x;
  }
  Findings verify(Bytes n) override {
    ++seen.verified;
    Findings f;
    if (n == kWrongAt) {
      f.errors = 1;
      f.problems.push_back("PE " + std::to_string(me_) + ": scripted wrong byte");
    }
    return f;
  }
  std::vector<std::string> notes() const override { return {"PEs per GPU 2 (scripted)"}; }
  void finish(Worker&) override { ++seen.finished; }

 private:
  Rank me_;
  Bytes prepared_ = 0;
};

std::unique_ptr<DeviceAlltoall> make_scripted(Transport& t, Worker&, Bytes max_size, std::uint64_t) {
  seen.pes = t.size();
  seen.max_size = max_size;
  return std::make_unique<ScriptedEngine>(t.rank());
}

Scenario scenario(std::vector<std::string> curves) {
  Scenario s;
  s.name = "device-alltoall-test";
  s.workload = &alltoall_workload;
  s.settings = AlltoallSettings{.pes = 2, .threads = 1};
  s.sizes = {8, kWrongAt, kStallsAt};
  s.curves = std::move(curves);
  s.iterations = kIterations;
  s.warmup = kWarmup;
  return s;
}

/// A backend's run: the platform's figures and the scripted engine.
const RunContext kContext{.backend = "scripted",
                          .device = DeviceAttrs{0.5e-6, 1, 1.5e-6, 3e-6},
                          .device_alltoall = {.make = make_scripted}};

/// A problem unless `point` has kIterations samples, each `each` (to a picosecond: sums of microseconds).
void expect_samples(const Point& point, Seconds each, Problems& p) {
  if (point.samples.size() != kIterations)
    p.push_back(point.curve + " at " + std::to_string(point.size) + " B: " + std::to_string(point.samples.size()) +
                " samples");
  for (const Seconds s : point.samples)
    if (std::abs(s - each) > 1e-12)
      p.push_back(point.curve + " at " + std::to_string(point.size) + " B: a sample of " + std::to_string(s));
}

const Point* find(const Results& r, const std::string& curve, Bytes size) {
  for (const Point* point : r.points())
    if (point->curve == curve && point->size == size)
      return point;
  return nullptr;
}

TEST(DeviceAlltoall, TheWorkloadRunsTheEngineAndReportsItsFigures) {
  const Problems problems = run_two([](Rank rank, Transport& t, Problems& p) {
    const Scenario s = scenario({"coll/alltoall/direct", "coll/alltoall/proxy"});
    Results results;
    run_workload(s, rank, t, results, kContext);
    const std::size_t exchanges = s.sizes.size() * s.curves.size() * (kIterations + kWarmup);
    if (seen.pes != 2 || seen.max_size != kStallsAt)
      p.push_back("the engine was made for " + std::to_string(seen.pes) + " PEs and " +
                  std::to_string(seen.max_size) + " B");
    if (seen.prepared != exchanges || seen.exchanged != exchanges || seen.verified != exchanges || seen.finished != 1)
      p.push_back("prepared " + std::to_string(seen.prepared) + ", exchanged " + std::to_string(seen.exchanged) +
                  ", verified " + std::to_string(seen.verified) + ", finished " + std::to_string(seen.finished) +
                  " for " + std::to_string(exchanges) + " exchanges");
    p.insert(p.end(), seen.problems.begin(), seen.problems.end());
    for (const Point* point : results.points())
      if (point->errors != (point->size == kWrongAt ? kIterations + kWarmup : 0))
        p.push_back(point->curve + " at " + std::to_string(point->size) + " B: " + std::to_string(point->errors) +
                    " errors");
    if (rank != 0)
      return;
    const Point* direct = find(results, "coll/alltoall/direct", 8);
    const Point* proxy = find(results, "coll/alltoall/proxy", 8);
    const Point* stalled = find(results, "coll/alltoall/proxy", kStallsAt);
    const Point* wrong = find(results, "coll/alltoall/direct", kWrongAt);
    if (!direct || !proxy || !stalled || !wrong) {
      p.push_back("a point is missing");
      return;
    }
    expect_samples(*direct, 7e-6, p);
    expect_samples(*proxy, 11e-6, p);
    expect_samples(*stalled, kLimit, p);
    if (direct->selected != "coll/alltoall/direct" || direct->moved != Bytes{8})
      p.push_back("direct at 8 B: selected " + direct->selected);
    const std::string want_direct = "PE 0 measured on the device: o_device 2us (medians)";
    const std::string want_proxy =
        "PE 0 measured on the device: o_device 1us, o_proxy 3us, W 4us (clocks within 0.5us) (medians)";
    if (direct->notes.find(want_direct) == std::string::npos || direct->notes.find("PEs per GPU 2 (scripted)") == std::string::npos ||
        direct->notes.find("verified=yes") == std::string::npos)
      p.push_back("direct at 8 B: notes " + direct->notes);
    if (proxy->notes.find(want_proxy) == std::string::npos)
      p.push_back("proxy at 8 B: notes " + proxy->notes);
    if (stalled->notes.find("PE 0: scripted: the proxy stalled") == std::string::npos)
      p.push_back("proxy at 512 B: notes " + stalled->notes);
    if (wrong->notes.find("PE 0: scripted wrong byte") == std::string::npos)
      p.push_back("direct at 64 B: notes " + wrong->notes);
  });
  EXPECT_TRUE(problems.empty()) << join(problems);
}

TEST(DeviceAlltoall, AutoTakesAFlavourWithThePlatformsFigures) {
  const Problems problems = run_two([](Rank rank, Transport& t, Problems& p) {
    Results results;
    run_workload(scenario({"auto"}), rank, t, results, kContext);
    if (rank != 0)
      return;
    for (const Point* point : results.points()) {
      if (point->selected != "coll/alltoall/direct" && point->selected != "coll/alltoall/proxy")
        p.push_back("auto at " + std::to_string(point->size) + " B selected '" + point->selected + "'");
      if (!point->model || !(*point->model > 0))
        p.push_back("auto at " + std::to_string(point->size) + " B has no model");
      if (point->notes.find("PE 0 measured on the device: ") == std::string::npos)
        p.push_back("auto at " + std::to_string(point->size) + " B: notes " + point->notes);
    }
  });
  EXPECT_TRUE(problems.empty()) << join(problems);
}

TEST(DeviceAlltoall, OnlyTheCudaRowOffersAnEngine) {
  for (const runtime::Backend* backend : runtime::backends())
    EXPECT_EQ(backend->device_alltoall.make != nullptr, backend->name == "cuda") << backend->name;
}

}  // namespace
}  // namespace xover::test
