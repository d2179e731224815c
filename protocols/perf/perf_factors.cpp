#include "protocols/perf/perf_factors.hpp"

#include <algorithm>

namespace xover {

std::string_view factor_name(Factor f) {
  switch (f) {
    case Factor::LocalCpu:
      return "local_cpu";
    case Factor::RemoteCpu:
      return "remote_cpu";
    case Factor::Network:
      return "network";
    case Factor::Latency:
      return "latency";
  }
  return "?";
}

PerfFactors PerfFactors::operator+(const PerfFactors& o) const {
  PerfFactors out = *this;
  for (std::size_t k = 0; k < kFactorCount; ++k)
    out.f[k] += o.f[k];
  out.gap = std::max(gap, o.gap);
  return out;
}

LinearFunc PerfFactors::single() const {
  LinearFunc sum;
  for (const LinearFunc& factor : f)
    sum += factor;
  return sum;
}

PiecewiseFunc PerfFactors::streaming(Bytes from, Bytes to) const {
  return upper_envelope({(*this)[Factor::LocalCpu], (*this)[Factor::RemoteCpu], (*this)[Factor::Network],
                         LinearFunc::constant(gap)},
                        from, to);
}

PiecewiseFunc PerfFactors::cost(PerfType type, Bytes from, Bytes to) const {
  if (type == PerfType::Latency)
    return {Piece{from, to, single()}};
  return streaming(from, to);
}

PerfFactors PerfFactors::scaled(double k) const {
  PerfFactors out = *this;
  for (LinearFunc& factor : out.f)
    factor = factor.scale(k);
  out.gap *= k;
  return out;
}

}  // namespace xover
