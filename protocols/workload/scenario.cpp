#include "protocols/workload/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace xover {

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
