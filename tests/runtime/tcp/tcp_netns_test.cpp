// Two ranks in two network namespaces joined by two veth pairs, shaped by
// TBF to 200 and 100 Mbit/s: the TCP backend measures each lane, the lane
// selection weighs them by what it measured, and a rendezvous stripes its
// bytes over both in that proportion, as the interfaces' own byte counters
// show. What the lanes measure and how long the transfer takes depend on the
// machine's load beside the shaping, so only what load cannot change is
// judged: no lane measures faster than its shaping, nor any transfer runs
// faster, the faster lane measures faster, and the bytes split as measured.
// Needs root and iproute2; skips otherwise.
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

/// One rank of the test, in its namespace: its lanes as it measured them,
/// then kMessages rendezvous of kMessage bytes from rank 0 to rank 1 on
/// both lanes, every byte checked; its report says what it saw ("lane",
/// "protocol", "moved ... in ...", "problem:").
int stripe_rank(runtime::LocalBootstrap& boot, const Namespaces& ns) {
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
  Worker worker(*transport, config);
  const ProtoChoice* choice = worker.table(1 - boot.rank()).lookup(kMessage);
  report << "protocol " << (choice ? std::string(choice->protocol->name) : "none") << " lanes "
         << (choice ? choice->candidate.lanes.size() : 0) << "\n";
  std::vector<std::byte> buf(kMessage);
  double moved0 = 0, moved1 = 0;
  Seconds took = 0;
  for (int i = 0; i < kMessages; ++i) {
    for (Bytes k = 0; boot.rank() == 0 && k < kMessage; ++k)
      buf[k] = static_cast<std::byte>(k * 7 + i);
    // Both sides ready (filled, checked) before the clock starts.
    boot.barrier();
    const auto before = tx_bytes();
    const Seconds t0 = transport->now();
    Request* q = boot.rank() == 0 ? worker.tag_send(1, {buf.data(), kMessage}, 5)
                                  : worker.tag_recv({buf.data(), kMessage}, 5);
    worker.wait(q);
    took += transport->now() - t0;
    const auto after = tx_bytes();
    moved0 += after.at("x0") - before.at("x0");
    moved1 += after.at("x1") - before.at("x1");
    bool good = q->status == Status::Ok;
    for (Bytes k = 0; boot.rank() == 1 && k < kMessage; ++k)
      good = good && buf[k] == static_cast<std::byte>(k * 7 + i);
    if (!good)
      report << "problem: message " << i << " corrupt\n";
    worker.release(q);
  }
  report << "moved " << moved0 << " " << moved1 << " in " << took << "\n";
  boot.report(report.str());
  boot.barrier();
  return 0;
}

/// A rank's report read back.
struct RankReport {
  std::vector<double> bandwidths;  ///< each lane's, as the rank measured it
  std::string protocol;            ///< what the striped rendezvous selected
  std::size_t lanes = 0;           ///< on how many lanes
  double moved0 = 0, moved1 = 0;   ///< bytes sent on x0 and x1, striped
  double took = 0;                 ///< seconds
  bool problem = false;
};

RankReport read_report(const std::string& text) {
  RankReport out;
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    if (word == "lane") {
      std::string name;
      double b;
      in >> name >> b;
      out.bandwidths.push_back(b);
    } else if (word == "protocol") {
      std::string w;
      in >> out.protocol >> w >> out.lanes;
    } else if (word == "moved") {
      std::string w;
      in >> out.moved0 >> out.moved1 >> w >> out.took;
    } else if (word == "problem:") {
      out.problem = true;
    }
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
  const runtime::LaunchResult r =
      runtime::launch_local(2, launch, [&](runtime::LocalBootstrap& boot) { return stripe_rank(boot, ns); });
  ASSERT_TRUE(r.ok) << r.message << "\n" << r.reports[0] << r.reports[1];

  // Rank 1 reads the data with RDMA-like gets: its requests go out, rank 0
  // sends the bytes. Rank 0's counters carry the payload; rank 1's clock,
  // from each receive's post to its completion, the transfer time.
  const RankReport sender = read_report(r.reports[0]);
  const RankReport getter = read_report(r.reports[1]);
  EXPECT_FALSE(sender.problem) << r.reports[0];
  EXPECT_FALSE(getter.problem) << r.reports[1];
  ASSERT_EQ(sender.bandwidths.size(), 2U) << r.reports[0];
  ASSERT_EQ(getter.bandwidths.size(), 2U) << r.reports[1];
  EXPECT_EQ(sender.lanes, 2U) << sender.protocol;
  // Each rank measured each lane no faster than its shaping lets through
  // (TBF's burst may lend a short probe a quarter more), and the lane shaped
  // faster as the faster: the lanes are measured, not assumed. How close to
  // the shaped rate depends on the machine's load and is not judged.
  // Rank 1, the receiver, cuts the message into gets by the bandwidths it
  // measured itself (rndv_get.cpp, stage 2); TBF's burst lets the two
  // ranks' short measurements differ by more than the split's tolerance.
  for (const RankReport* rank : {&sender, &getter}) {
    const std::vector<double>& m = rank->bandwidths;
    EXPECT_GT(m[1], 0);
    EXPECT_LT(m[0], 1.25 * kRate0) << "x0 measured " << m[0];
    EXPECT_LT(m[1], 1.25 * kRate1) << "x1 measured " << m[1];
    EXPECT_GT(m[0], m[1]) << "x0, shaped twice as fast as x1, measured slower";
  }
  const std::vector<double>& b = sender.bandwidths;
  const std::vector<double>& g = getter.bandwidths;
  // The bytes split as the receiver's measured bandwidths, within 10 %, and
  // the transfer took no less than both lanes together allow.
  const double payload = static_cast<double>(kMessage) * kMessages;
  const double moved0 = sender.moved0, moved1 = sender.moved1;
  std::printf("measured %.1f and %.1f Mbit/s (rank 1: %.1f and %.1f); sent %.0f and %.0f bytes (ratio %.3f, rank 1's "
              "bandwidths' %.3f) in %.3f s\n",
              b[0] * 8e-6, b[1] * 8e-6, g[0] * 8e-6, g[1] * 8e-6, moved0, moved1, moved0 / moved1, g[0] / g[1],
              getter.took);
  EXPECT_GT(moved0 + moved1, payload);
  EXPECT_NEAR((moved0 / moved1) / (g[0] / g[1]), 1.0, 0.10) << moved0 << " and " << moved1 << " bytes";
  EXPECT_GT(getter.took, payload / (kRate0 + kRate1) / 1.1);
}

}  // namespace
}  // namespace xover::test
