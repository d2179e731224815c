#include "runtime/cuda/cuda_clock.hpp"

#include <algorithm>
#include <stdexcept>

namespace xover::runtime {
namespace {

Seconds seconds(std::int64_t ns) {
  return ns > 0 ? static_cast<Seconds>(ns) * 1e-9 : 0;
}

}  // namespace

ClockOffset estimate_offset(std::span<const ClockSample> samples) {
  if (samples.empty())
    throw std::invalid_argument("estimate_offset: no samples");
  const ClockSample* best = nullptr;
  for (const ClockSample& s : samples) {
    if (s.host_after < s.host_before)
      throw std::invalid_argument("estimate_offset: a sample whose host clock goes backwards");
    if (!best || s.host_after - s.host_before < best->host_after - best->host_before)
      best = &s;
  }
  const std::int64_t span = best->host_after - best->host_before;
  return {best->gpu - (best->host_before + span / 2), span / 2};
}

ExchangeFigures exchange_figures(const ExchangeStamps& s, const ClockOffset& offset) {
  ExchangeFigures out;
  // No clock rate (the runtime reported none): no o_device rather than infinite ones.
  const std::size_t posts = s.sm_cycles_per_second > 0 ? std::min(s.post_begin.size(), s.post_end.size()) : 0;
  for (std::size_t i = 0; i < posts; ++i)
    out.post.push_back(s.post_end[i] > s.post_begin[i]
                           ? static_cast<Seconds>(s.post_end[i] - s.post_begin[i]) / s.sm_cycles_per_second
                           : 0);
  for (std::size_t i = 0; i < s.seen.size() && i < s.served.size() && i < s.written.size(); ++i) {
    out.serve.push_back(seconds(s.served[i] - s.seen[i]));
    const std::int64_t written_host = static_cast<std::int64_t>(s.written[i]) - offset.gpu_minus_host;
    out.wake.push_back(seconds(s.seen[i] - written_host));
  }
  return out;
}

}  // namespace xover::runtime
