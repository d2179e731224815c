#include "protocols/workload/scenario.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace xover {
namespace {

constexpr std::array<std::pair<WorkloadKind, std::string_view>, 5> kWorkloadNames{{
    {WorkloadKind::PingPong, "pingpong"},
    {WorkloadKind::Stream, "stream"},
    {WorkloadKind::Unexpected, "unexpected"},
    {WorkloadKind::Pairs, "pairs"},
    {WorkloadKind::Alltoall, "alltoall"},
}};

}  // namespace

std::string_view workload_name(WorkloadKind kind) {
  for (const auto& [k, name] : kWorkloadNames)
    if (k == kind)
      return name;
  return "?";
}

std::optional<WorkloadKind> workload_from_name(std::string_view name) {
  for (const auto& [kind, n] : kWorkloadNames)
    if (n == name)
      return kind;
  return std::nullopt;
}

std::vector<Bytes> geometric_sizes(Bytes from, Bytes to, double factor) {
  if (from == 0)
    throw std::invalid_argument("a geometric sweep starts at 1 byte or more (list 0 in list= instead)");
  if (from > to)
    throw std::invalid_argument("from (" + std::to_string(from) + ") is larger than to (" + std::to_string(to) + ")");
  if (!std::isfinite(factor) || !(factor > 1))
    throw std::invalid_argument("factor must be a number greater than 1, got " + std::to_string(factor));
  // 2^64: sizes at or above it do not fit in Bytes.
  constexpr double kPastBytes = 18446744073709551616.0;
  std::vector<Bytes> sizes;
  for (double k = 0;; ++k) {
    // from·factor^k rather than a running product, so rounding errors do not pile up.
    const double exact = std::round(static_cast<double>(from) * std::pow(factor, k));
    if (exact >= kPastBytes)
      break;
    const auto size = static_cast<Bytes>(exact);
    if (size > to)
      break;
    if (!sizes.empty() && size <= sizes.back())
      continue;
    if (sizes.size() == kMaxSweepSizes)
      throw std::invalid_argument("the sweep gives more than " + std::to_string(kMaxSweepSizes) +
                                  " sizes: use a larger factor or a smaller range");
    sizes.push_back(size);
    // With a factor near 1 many steps round to the same size: skip to the last
    // k below the next size, size + 0.5 = from·factor^k (floor stays at or
    // below the step that reaches it, so no size is lost).
    const double next = std::floor(std::log((static_cast<double>(size) + 0.5) / static_cast<double>(from)) /
                                   std::log(factor));
    k = std::max(k, next - 1);
  }
  return sizes;
}

}  // namespace xover
