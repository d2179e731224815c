#include "tools/calib/rounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace xover::calib {
namespace {

/// Each round in size order, after checking that every round holds the same sizes.
template <typename PointT>
std::vector<std::vector<PointT>> by_size(const std::vector<std::vector<PointT>>& rounds) {
  std::vector<std::vector<PointT>> sorted = rounds;
  for (std::vector<PointT>& round : sorted)
    std::sort(round.begin(), round.end(), [](const PointT& a, const PointT& b) { return a.size < b.size; });
  for (const std::vector<PointT>& round : sorted) {
    if (round.size() != sorted.front().size())
      throw std::invalid_argument("calibration rounds measured different sizes");
    for (std::size_t i = 0; i < round.size(); ++i)
      if (round[i].size != sorted.front()[i].size)
        throw std::invalid_argument("calibration rounds measured different sizes");
  }
  return sorted;
}

/// The median over the rounds of point i's `field`.
template <typename PointT>
double median_of(const std::vector<std::vector<PointT>>& rounds, std::size_t i, double PointT::*field) {
  std::vector<double> values;
  for (const std::vector<PointT>& round : rounds)
    values.push_back(round[i].*field);
  return quantile(values, 0.5);
}

double relative(double before, double now) {
  return before > 0 ? std::abs(now - before) / before : (now > 0 ? 1.0 : 0.0);
}

}  // namespace

std::vector<PrttPoint> combine_prtt(const std::vector<std::vector<PrttPoint>>& rounds) {
  if (rounds.empty())
    return {};
  const std::vector<std::vector<PrttPoint>> sorted = by_size(rounds);
  std::vector<PrttPoint> out = sorted.front();
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (double PrttPoint::*field : {&PrttPoint::rtt1, &PrttPoint::spread, &PrttPoint::rttn, &PrttPoint::rttd,
                                     &PrttPoint::o_send, &PrttPoint::delay, &PrttPoint::posts_delayed})
      out[i].*field = median_of(sorted, i, field);
    for (const std::vector<PrttPoint>& round : sorted)
      out[i].stream = std::min(out[i].stream, round[i].stream);
  }
  return out;
}

std::vector<GetPoint> combine_gets(const std::vector<std::vector<GetPoint>>& rounds) {
  if (rounds.empty())
    return {};
  const std::vector<std::vector<GetPoint>> sorted = by_size(rounds);
  std::vector<GetPoint> out = sorted.front();
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i].time = median_of(sorted, i, &GetPoint::time);
  return out;
}

FitChange fit_change(const Calibration& before, const Calibration& now) {
  FitChange out;
  auto consider = [&](double a, double b, const std::string& what) {
    const double r = relative(a, b);
    if (r > out.relative) {
      out.relative = r;
      out.what = what;
    }
  };
  for (const LaneAttrs& b : before.draft.lanes)
    for (const LaneAttrs& n : now.draft.lanes)
      if (n.name == b.name) {
        consider(b.latency + b.o_send - b.sent_after() + b.o_recv, n.latency + n.o_send - n.sent_after() + n.o_recv,
                 "lane " + b.name + " L + o_s + o_r");
        consider(b.bandwidth, n.bandwidth, "lane " + b.name + " bandwidth");
      }
  for (const ProtocolFit& b : before.protocols)
    for (const ProtocolFit& n : now.protocols)
      if (n.curve == b.curve)
        for (Bytes size : {b.from, b.to})
          consider(b.line.at(static_cast<double>(size)), n.line.at(static_cast<double>(size)),
                   b.curve + " at " + format_size(size));
  return out;
}

std::optional<RoundsEnd> rounds_end(const RoundRule& rule, std::size_t done, double elapsed, bool stable) {
  if (rule.rounds > 0)
    return done >= rule.rounds ? std::optional(RoundsEnd::Count) : std::nullopt;
  if (stable)
    return RoundsEnd::Stable;
  // A round takes about as long as the rounds so far did, on average.
  if (done > 0 && elapsed * static_cast<double>(done + 1) / static_cast<double>(done) > rule.time_limit)
    return RoundsEnd::TimeLimit;
  return std::nullopt;
}

std::string rounds_note(std::size_t rounds, double seconds, const FitChange& last, double tolerance, RoundsEnd end) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%zu rounds in %.0f s, sizes and points shuffled in each; the last round moved the fits by %.1f %% "
                "(%s): %s",
                rounds, seconds, last.relative * 100, last.what.empty() ? "-" : last.what.c_str(),
                end == RoundsEnd::Stable      ? "stable"
                : end == RoundsEnd::TimeLimit ? "NOT stable within the time limit"
                                              : "as many rounds as asked for");
  std::string out = buf;
  std::snprintf(buf, sizeof buf, " (limit %.1f %%)", tolerance * 100);
  return out + buf;
}

std::vector<Bytes> shuffled(std::vector<Bytes> sizes, std::uint64_t seed) {
  std::mt19937_64 draw(seed);
  for (std::size_t i = sizes.size(); i > 1; --i)
    std::swap(sizes[i - 1], sizes[draw() % i]);
  return sizes;
}

}  // namespace xover::calib
