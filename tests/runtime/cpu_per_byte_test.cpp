// The runtime's least-squares lines, and the CPUs' time per payload byte
// from synthetic probe records whose answer is known (cpu_per_byte.hpp):
// each side's figure exact, a disturbed or impossible line refused with its
// reason, and the lane's bandwidth left as the wire's share.
#include "runtime/cpu_per_byte.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "runtime/line_fit.hpp"

namespace xover::runtime {
namespace {

TEST(FitLine, RecoversAnExactLineEitherWay) {
  const std::vector<double> x{8, 64, 512, 4096, 32768};
  std::vector<double> y;
  for (double v : x)
    y.push_back(1e-6 + 2e-10 * v);
  for (Weighting w : {Weighting::Absolute, Weighting::Relative}) {
    const LineFit f = fit_line(x, y, w);
    EXPECT_NEAR(f.c, 1e-6, 1e-15);
    EXPECT_NEAR(f.m, 2e-10, 1e-19);
    EXPECT_NEAR(f.rel_rms, 0, 1e-9);
    EXPECT_NEAR(f.r2, 1, 1e-9);
    EXPECT_EQ(f.samples, 5U);
  }
}

TEST(FitLine, RelativeWeightingMinimisesTheRelativeResiduals) {
  // One 10 % outlier at the largest size: the ordinary fit bends the line
  // toward it at the small sizes' expense; the relative fit keeps the
  // relative residuals smaller overall, and its relative RMS says so.
  const std::vector<double> x{8, 64, 512, 4096, 4194304};
  std::vector<double> y;
  for (double v : x)
    y.push_back(1e-6 + 1e-10 * v);
  y.back() *= 1.1;
  const LineFit relative = fit_line(x, y, Weighting::Relative);
  const LineFit absolute = fit_line(x, y, Weighting::Absolute);
  EXPECT_LT(relative.rel_rms, absolute.rel_rms);
  EXPECT_LT(absolute.rms, relative.rms);
}

TEST(FitLine, RefusesMismatchedEmptyOrNonPositiveInput) {
  const std::vector<double> two{1, 2}, one{1}, none, bad{1, -1};
  EXPECT_THROW(fit_line(two, one), std::invalid_argument);
  EXPECT_THROW(fit_line(none, none), std::invalid_argument);
  EXPECT_THROW(fit_line(two, bad, Weighting::Relative), std::invalid_argument);
  EXPECT_DOUBLE_EQ(fit_line(one, one).c, 1);
}

constexpr SecondsPerByte kSend = 0.2e-9;     // the sender's CPU per byte of a post
constexpr SecondsPerByte kRecv = 0.1e-9;     // the receiver's, out of the socket
constexpr SecondsPerByte kHandler = 0.05e-9;  // a probe handler's own copy
constexpr SecondsPerByte kMessage = 0.5e-9;  // one message's whole time per byte

/// Probes of 1..64 KiB: posts 2 us + s·0.2 ns, take-ins 3 us + s·(0.1 +
/// 0.05) ns, round trips 2·(6 us + s·0.5 ns).
std::vector<CopyProbe> probes() {
  std::vector<CopyProbe> out;
  for (const Bytes s : {1024, 16384, 32768, 49152, 65536}) {
    const double n = static_cast<double>(s);
    out.push_back({s, 2e-6 + kSend * n, 3e-6 + (kRecv + kHandler) * n, 2 * (6e-6 + kMessage * n)});
  }
  return out;
}

TEST(CpuPerByte, ThePostsAndTheTakeInGiveEachSidesTimePerByte) {
  const std::optional<CpuPerByte> f = fit_cpu_per_byte(probes(), kHandler);
  ASSERT_TRUE(f);
  EXPECT_NEAR(f->send_per_byte, kSend, 1e-9 * kSend);
  EXPECT_NEAR(f->recv_per_byte, kRecv, 1e-9 * kRecv);
  EXPECT_NEAR(f->message, kMessage, 1e-9 * kMessage);
  EXPECT_NEAR(f->send.c, 2e-6, 1e-15);
  EXPECT_NEAR(f->recv.c, 3e-6, 1e-15);
  EXPECT_EQ(f->from, 1024u);
  EXPECT_EQ(f->to, 65536u);
  EXPECT_TRUE(f->send_refused.empty() && f->recv_refused.empty());
  EXPECT_TRUE(refusal_lines(*f, "tcp:lo").empty());
  // Timed alone (no handler's copy), the take-in's whole slope is the receiver's.
  EXPECT_NEAR(fit_cpu_per_byte(probes(), 0)->recv_per_byte, kRecv + kHandler, 1e-9 * kRecv);
  EXPECT_FALSE(fit_cpu_per_byte(std::span<const CopyProbe>(probes()).first(1), 0));
}

// A take-in whose runs were disturbed (2 ms more at every other size) gives
// no receiver's figure, and a post slower per byte than a whole message
// none for the sender: each is 0, with one line saying why.
TEST(CpuPerByte, ADisturbedOrImpossibleLineGivesNoFigure) {
  std::vector<CopyProbe> disturbed = probes();
  for (std::size_t i = 0; i < disturbed.size(); i += 2)
    disturbed[i].take_in += 2e-3;
  const std::optional<CpuPerByte> f = fit_cpu_per_byte(disturbed, kHandler);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->recv_per_byte, 0);
  EXPECT_NE(f->recv_refused.find("R2"), std::string::npos) << f->recv_refused;
  EXPECT_NEAR(f->send_per_byte, kSend, 1e-9 * kSend);
  const std::vector<std::string> lines = refusal_lines(*f, "tcp:lo");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("lane tcp:lo: no receiver's time per byte: ", 0), 0u) << lines[0];

  std::vector<CopyProbe> steep = probes();
  for (CopyProbe& p : steep)
    p.post += static_cast<double>(p.size) * 1e-9;
  const std::optional<CpuPerByte> slow = fit_cpu_per_byte(steep, kHandler);
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->send_per_byte, 0);
  EXPECT_NEAR(slow->recv_per_byte, kRecv, 1e-9 * kRecv);
  EXPECT_NE(slow->send_refused.find("1.20000 ns/B is more than one message's whole time per byte, 0.50000 ns/B"),
            std::string::npos)
      << slow->send_refused;
}

// The lane takes both figures, and its bandwidth becomes the wire's share:
// 1 ns/B less the receiver's 0.1 is 0.9 ns/B; a receiver's figure past the
// whole leaves 1 % of it.
TEST(CpuPerByte, TheLaneKeepsTheWiresShareOfItsTimePerByte) {
  const CpuPerByte f = *fit_cpu_per_byte(probes(), kHandler);
  LaneAttrs lane;
  lane.bandwidth = 1e9;
  apply_cpu_per_byte(f, lane);
  EXPECT_NEAR(lane.o_send_per_byte, kSend, 1e-9 * kSend);
  EXPECT_NEAR(lane.o_recv_per_byte, kRecv, 1e-9 * kRecv);
  EXPECT_NEAR(1 / lane.bandwidth, 0.9e-9, 1e-18);
  EXPECT_NEAR(wire_per_byte(1e-9, 2e-9), 1e-11, 1e-20);
}

}  // namespace
}  // namespace xover::runtime
