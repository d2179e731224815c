// Two ranks in two network namespaces joined by two veth pairs, shaped by
// TBF to 200 and 100 Mbit/s: the TCP backend measures each lane, the lane
// selection weighs them by what it measured, and a rendezvous stripes its
// bytes over both in that proportion, as the interfaces' own byte counters
// show. Needs root and iproute2; skips otherwise.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "protocols/core/worker.hpp"
#include "runtime/tcp/tcp_options.hpp"
#include "runtime/tcp/tcp_transport.hpp"
#include "runtime/launch/launch.hpp"
#include "tests/support/run.hpp"

namespace xover::test {
namespace {

constexpr double kRate0 = 200e6 / 8;  // bytes per second on x0
constexpr double kRate1 = 100e6 / 8;  // on x1
constexpr Bytes kMessage = 3 << 20;
constexpr int kMessages = 4;

/// Two namespaces, two veth pairs (x0, x1 on both sides), each shaped.
class Namespaces {
 public:
  Namespaces() {
    const std::string id = std::to_string(getpid());
    a_ = "xo-a-" + id;
    b_ = "xo-b-" + id;
    const std::string script =
        "set -e; ip netns add " + a_ + "; ip netns add " + b_ + ";"
        "for i in 0 1; do ip link add x$i netns " + a_ + " type veth peer name x$i netns " + b_ + ";"
        " ip -n " + a_ + " addr add 10.231.$i.1/24 dev x$i; ip -n " + b_ + " addr add 10.231.$i.2/24 dev x$i;"
        " ip -n " + a_ + " link set x$i up; ip -n " + b_ + " link set x$i up; done;"
        "ip -n " + a_ + " link set lo up; ip -n " + b_ + " link set lo up;"
        "for ns in " + a_ + " " + b_ + "; do"
        " tc -n $ns qdisc add dev x0 root tbf rate 200mbit burst 32kb latency 200ms;"
        " tc -n $ns qdisc add dev x1 root tbf rate 100mbit burst 32kb latency 200ms; done";
    const CommandResult r = run_command(script);
    ok_ = r.status == 0;
    why_ = r.err;
  }
  ~Namespaces() { run_command("ip netns del " + a_ + " 2>/dev/null; ip netns del " + b_ + " 2>/dev/null"); }
  bool ok() const { return ok_; }
  const std::string& why() const { return why_; }
  std::string name(Rank r) const { return r == 0 ? a_ : b_; }

 private:
  std::string a_, b_;
  bool ok_ = false;
  std::string why_;
};

/// Bytes sent per interface, from this process's network namespace.
std::map<std::string, double> tx_bytes() {
  std::ifstream in("/proc/self/net/dev");
  std::map<std::string, double> out;
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::replace(line.begin(), line.end(), ':', ' ');
    std::stringstream ss(line);
    std::string name;
    double v[9];
    ss >> name;
    for (double& x : v)
      ss >> x;
    out[name] = v[8];
  }
  return out;
}

TEST(TcpNetns, RendezvousStripesByMeasuredBandwidth) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root for network namespaces";
  if (run_command("command -v ip && command -v tc").status != 0)
    GTEST_SKIP() << "needs iproute2 (ip, tc)";
  Namespaces ns;
  ASSERT_TRUE(ns.ok()) << "could not make the namespaces: " << ns.why();

  runtime::LaunchOptions launch;
  launch.deadline = 120;
  const runtime::LaunchResult r = runtime::launch_local(2, launch, [&](runtime::LocalBootstrap& boot) {
    const int fd = open(("/var/run/netns/" + ns.name(boot.rank())).c_str(), O_RDONLY);
    if (fd < 0 || setns(fd, CLONE_NEWNET) != 0)
      return 10;
    runtime::RuntimeOptions options;
    options.backend = runtime::TcpOptions{.interfaces = {"x0", "x1"}};
    auto transport = runtime::make_tcp_transport(boot, options);
    std::ostringstream report;
    const Path& path = transport->path(1 - boot.rank());
    for (const LaneAttrs& lane : path.lanes)
      report << "lane " << lane.name << " " << lane.bandwidth << "\n";
    SelectConfig config;
    config.set("proto", "rndv");
    config.set("max_rndv_lanes", "2");
    {
      Worker worker(*transport, config);
      const ProtoChoice* choice = worker.table(1 - boot.rank()).lookup(kMessage);
      report << "protocol " << (choice ? std::string(choice->protocol->name) : "none") << " lanes "
             << (choice ? choice->candidate.lanes.size() : 0) << "\n";
      std::vector<std::byte> buf(kMessage);
      const auto before = tx_bytes();
      Seconds took = 0;
      for (int i = 0; i < kMessages; ++i) {
        for (Bytes k = 0; boot.rank() == 0 && k < kMessage; ++k)
          buf[k] = static_cast<std::byte>(k * 7 + i);
        // Both sides ready (filled, checked) before the clock starts.
        boot.barrier();
        const Seconds t0 = transport->now();
        Request* q = boot.rank() == 0 ? worker.tag_send(1, {buf.data(), kMessage}, 5)
                                      : worker.tag_recv({buf.data(), kMessage}, 5);
        worker.wait(q);
        took += transport->now() - t0;
        bool good = q->status == Status::Ok;
        for (Bytes k = 0; boot.rank() == 1 && k < kMessage; ++k)
          good = good && buf[k] == static_cast<std::byte>(k * 7 + i);
        if (!good)
          report << "problem: message " << i << " corrupt\n";
        worker.release(q);
      }
      const auto after = tx_bytes();
      report << "moved " << after.at("x0") - before.at("x0") << " " << after.at("x1") - before.at("x1") << " in "
             << took << "\n";
    }
    boot.report(report.str());
    boot.barrier();
    return 0;
  });
  ASSERT_TRUE(r.ok) << r.message << "\n" << r.reports[0] << r.reports[1];

  // Rank 1 reads the data with RDMA-like gets: its requests go out, rank 0
  // sends the bytes. Rank 0's counters carry the payload; rank 1's clock,
  // from each receive's post to its completion, the transfer time.
  std::map<std::string, double> bw;
  double moved0 = 0, moved1 = 0, took = 0;
  std::string protocol;
  std::size_t lanes = 0;
  std::istringstream in(r.reports[0]);
  for (std::string word; in >> word;) {
    if (word == "lane") {
      std::string name;
      double b;
      in >> name >> b;
      bw[name] = b;
    } else if (word == "protocol") {
      std::string w;
      in >> protocol >> w >> lanes;
    } else if (word == "moved") {
      std::string w;
      double rank0_took;
      in >> moved0 >> moved1 >> w >> rank0_took;
    } else if (word == "problem:") {
      ADD_FAILURE() << r.reports[0];
    }
  }
  EXPECT_EQ(r.reports[1].find("problem"), std::string::npos) << r.reports[1];
  const std::size_t in_at = r.reports[1].rfind(" in ");
  ASSERT_NE(in_at, std::string::npos) << r.reports[1];
  took = std::stod(r.reports[1].substr(in_at + 4));
  ASSERT_EQ(bw.size(), 2U) << r.reports[0];
  EXPECT_EQ(lanes, 2U) << protocol;
  // The measured bandwidths are the shaped rates, within 25 %, as each
  // rank measured them.
  const double b0 = bw.begin()->second, b1 = std::next(bw.begin())->second;
  EXPECT_NEAR(b0 / kRate0, 1.0, 0.25) << "x0 measured " << b0;
  EXPECT_NEAR(b1 / kRate1, 1.0, 0.25) << "x1 measured " << b1;
  // Rank 1, the receiver, cuts the message into gets by the bandwidths it
  // measured itself (rndv_get.cpp, stage 2); TBF's burst lets the two
  // ranks' short measurements differ by more than the split's tolerance.
  std::vector<double> getter;
  std::istringstream in1(r.reports[1]);
  for (std::string word; in1 >> word;)
    if (word == "lane") {
      std::string name;
      double b;
      in1 >> name >> b;
      getter.push_back(b);
    }
  ASSERT_EQ(getter.size(), 2U) << r.reports[1];
  EXPECT_NEAR(getter[0] / kRate0, 1.0, 0.25) << "x0 measured by rank 1: " << getter[0];
  EXPECT_NEAR(getter[1] / kRate1, 1.0, 0.25) << "x1 measured by rank 1: " << getter[1];
  // The bytes split as the receiver's measured bandwidths, within 10 %, and
  // the transfer took what both lanes together allow.
  const double payload = static_cast<double>(kMessage) * kMessages;
  std::printf("measured %.1f and %.1f Mbit/s (rank 1: %.1f and %.1f); sent %.0f and %.0f bytes (ratio %.3f, rank 1's "
              "bandwidths' %.3f) in %.3f s\n",
              b0 * 8e-6, b1 * 8e-6, getter[0] * 8e-6, getter[1] * 8e-6, moved0, moved1, moved0 / moved1,
              getter[0] / getter[1], took);
  EXPECT_GT(moved0 + moved1, payload);
  EXPECT_NEAR((moved0 / moved1) / (getter[0] / getter[1]), 1.0, 0.10) << moved0 << " and " << moved1 << " bytes";
  EXPECT_LT(took, 1.3 * payload / (kRate0 + kRate1)) << "s for " << payload << " bytes";
  EXPECT_GT(took, payload / (kRate0 + kRate1) / 1.1);
}

}  // namespace
}  // namespace xover::test
