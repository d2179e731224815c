#include "protocols/perf/envelope.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace xover {
namespace {

struct Active {
  std::size_t index;
  LinearFunc f;
};

// True when a is cheaper than b at n, equal cost going to the lower index.
bool better(const Active& a, const Active& b, double n) {
  const Seconds ta = a.f.apply(n);
  const Seconds tb = b.f.apply(n);
  return ta < tb || (ta == tb && a.index < b.index);
}

// Slopes closer than this, relatively, are parallel: costs summed in another
// order differ in the last bits, and would otherwise cross at 10^18 bytes.
constexpr double kParallel = 1e-12;

// The first whole size after `pos` at which `other` beats `best`, if any.
// `other` is cheaper than `best` for n > x and ties at n = x, where x is the
// crossing of the two lines; only a flatter line can take over.
std::optional<double> takeover(const Active& best, const Active& other, double pos) {
  if (!(best.f.m - other.f.m > kParallel * std::fabs(best.f.m)))
    return std::nullopt;
  const double x = (other.f.c - best.f.c) / (best.f.m - other.f.m);
  // Two infinite fixed costs cross nowhere (their difference is NaN).
  if (!std::isfinite(x))
    return std::nullopt;
  const double n = other.index < best.index ? std::ceil(x) : std::floor(x) + 1;
  return std::max(n, pos + 1);
}

// Lower envelope of lines that are all valid on the whole of [lo, hi].
void envelope_of_lines(const std::vector<Active>& lines, Bytes lo, Bytes hi, std::vector<EnvelopeRange>& out) {
  const double end = static_cast<double>(hi);
  double pos = static_cast<double>(lo);
  Active best = lines.front();
  for (const Active& line : lines)
    if (better(line, best, pos))
      best = line;
  Bytes start = lo;
  for (;;) {
    std::optional<double> next;
    std::optional<Active> next_best;
    for (const Active& line : lines) {
      if (line.index == best.index)
        continue;
      const auto n = takeover(best, line, pos);
      // 2^64 is the first double past kSizeMax: no takeover can happen there.
      if (!n || *n > end || *n >= 18446744073709551616.0)
        continue;
      if (!next || *n < *next || (*n == *next && better(line, *next_best, *n))) {
        next = n;
        next_best = line;
      }
    }
    if (!next) {
      out.push_back({start, hi, best.index});
      return;
    }
    const Bytes switch_at = static_cast<Bytes>(*next);
    out.push_back({start, switch_at - 1, best.index});
    start = switch_at;
    pos = *next;
    best = *next_best;
  }
}

}  // namespace

std::vector<EnvelopeRange> lower_envelope(const std::vector<PiecewiseFunc>& funcs, Bytes from, Bytes to) {
  // Every size where some function starts or stops being defined splits the
  // axis into intervals on which each function is one line or absent.
  std::vector<Bytes> cuts{from};
  for (const PiecewiseFunc& func : funcs) {
    for (const Piece& piece : func) {
      if (piece.from > from && piece.from <= to)
        cuts.push_back(piece.from);
      if (piece.to >= from && piece.to < to)
        cuts.push_back(piece.to + 1);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  std::vector<EnvelopeRange> out;
  for (std::size_t k = 0; k < cuts.size(); ++k) {
    const Bytes lo = cuts[k];
    const Bytes hi = k + 1 < cuts.size() ? cuts[k + 1] - 1 : to;
    std::vector<Active> lines;
    for (std::size_t i = 0; i < funcs.size(); ++i)
      for (const Piece& piece : funcs[i])
        if (piece.from <= lo && hi <= piece.to)
          lines.push_back({i, piece.f});
    if (!lines.empty())
      envelope_of_lines(lines, lo, hi, out);
  }

  std::vector<EnvelopeRange> merged;
  for (const EnvelopeRange& range : out) {
    if (!merged.empty() && merged.back().index == range.index && merged.back().to + 1 == range.from)
      merged.back().to = range.to;
    else
      merged.push_back(range);
  }
  return merged;
}

PiecewiseFunc upper_envelope(const std::vector<LinearFunc>& lines, Bytes from, Bytes to) {
  std::vector<PiecewiseFunc> negated;
  for (const LinearFunc& line : lines)
    negated.push_back({Piece{from, to, line.scale(-1)}});
  PiecewiseFunc out;
  for (const EnvelopeRange& range : lower_envelope(negated, from, to))
    out.push_back({range.from, range.to, lines[range.index]});
  return out;
}

bool evaluate(const PiecewiseFunc& f, Bytes n, Seconds& out) {
  for (const Piece& piece : f) {
    if (piece.from <= n && n <= piece.to) {
      out = piece.f.apply(static_cast<double>(n));
      return true;
    }
  }
  return false;
}

}  // namespace xover
