#include "protocols/perf/linear_func.hpp"

namespace xover {

std::optional<double> LinearFunc::intersect(const LinearFunc& o) const {
  if (m == o.m)
    return std::nullopt;
  return (o.c - c) / (m - o.m);
}

}  // namespace xover
