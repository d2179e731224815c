#include "tools/tune/probes.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "base/text.hpp"

namespace xover::tools::tune {
namespace {

std::string at(const std::string& file, int line) {
  return file + ":" + std::to_string(line) + ": ";
}

std::optional<Bytes> whole(const std::string& text) {
  Bytes n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  return ec == std::errc() && end == text.data() + text.size() && n > 0 ? std::optional<Bytes>(n) : std::nullopt;
}

std::optional<Seconds> seconds(const std::string& text) {
  std::size_t used = 0;
  try {
    const double s = std::stod(text, &used);
    return used == text.size() && std::isfinite(s) && s > 0 ? std::optional<Seconds>(s) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// The constant through one size's residuals, the least-squares line
/// through two sizes or more.
LinearFunc residual_line(const std::vector<std::pair<Bytes, Seconds>>& residuals) {
  double sx = 0, sy = 0;
  for (const auto& [n, r] : residuals) {
    sx += static_cast<double>(n);
    sy += r;
  }
  const double k = static_cast<double>(residuals.size());
  const double mx = sx / k, my = sy / k;
  double sxx = 0, sxy = 0;
  for (const auto& [n, r] : residuals) {
    sxx += (static_cast<double>(n) - mx) * (static_cast<double>(n) - mx);
    sxy += (static_cast<double>(n) - mx) * (r - my);
  }
  if (sxx == 0)
    return {my, 0};
  const double m = sxy / sxx;
  return {my - m * mx, m};
}

std::string measured_text(const LibLine& l, const LinearFunc& added) {
  std::ostringstream out;
  out << "; the library's own probes (";
  for (std::size_t i = 0; i < l.measured->points.size(); ++i)
    out << (i ? ", " : "") << l.measured->points[i].first << " B " << format_time(l.measured->points[i].second);
  out << ") add " << format_time(added.c) << " per message";
  if (l.fragment > 0)
    out << " and " << format_time(added.m * static_cast<double>(l.fragment)) << " per fragment of "
        << format_size(l.fragment);
  else
    out << " and " << added.m * 1e9 << " ns/B";
  return out.str();
}

}  // namespace

Probes parse_probes(const std::string& text, const std::string& file) {
  Probes p;
  p.file = file;
  std::istringstream in(text);
  int number = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++number;
    const std::vector<std::string> w = split_words(raw.substr(0, raw.find('#')));
    if (w.empty())
      continue;
    if (w.size() == 2 && (w[0] == "library" || w[0] == "backend")) {
      (w[0] == "library" ? p.library : p.backend) = w[1];
      (w[0] == "library" ? p.library_line : p.backend_line) = number;
      continue;
    }
    const bool stream = w[0] == "stream";
    const bool slow = w[0] == "slow";
    if (w.size() != (stream || slow ? 4u : 3u))
      throw ProbeError(at(file, number) +
                       "expected 'library NAME', 'backend NAME', '[stream|slow] PROTOCOL SIZE SECONDS', got '" + raw +
                       "'");
    const std::size_t k = stream || slow ? 1 : 0;
    const std::optional<Bytes> size = whole(w[k + 1]);
    if (!size)
      throw ProbeError(at(file, number) + "size '" + w[k + 1] + "' is not a positive whole number of bytes");
    const std::optional<Seconds> t = seconds(w[k + 2]);
    if (!t)
      throw ProbeError(at(file, number) + "time '" + w[k + 2] + "' is not a positive number of seconds");
    p.points.push_back({w[k], *size, *t, number, stream, slow});
  }
  if (p.library.empty() || p.backend.empty())
    throw ProbeError(file + ": no '" + std::string(p.library.empty() ? "library" : "backend") +
                     "' line: which library and path the probes measured");
  return p;
}

Probes load_probes(const std::string& file) {
  std::ifstream in(file);
  if (!in)
    throw ProbeError(file + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_probes(text.str(), file);
}

namespace {

using Residuals = std::map<std::string, std::vector<std::pair<Bytes, Seconds>>>;

/// Each probe's residual over its line (the stream cost for a stream
/// probe), and the times measured, by protocol.
void residuals_of(const std::vector<LibLine>& lines, const Probes& probes, const std::string& lib,
                  const std::string& backend, bool stream, bool slow, Residuals& residuals, Residuals& measured) {
  for (const Probe& probe : probes.points) {
    if (probe.stream != stream || probe.slow != slow)
      continue;
    std::string known;
    const LibLine* line = nullptr;
    for (const LibLine& l : lines) {
      known += (known.empty() ? "" : ", ") + l.name;
      if (l.name == probe.protocol)
        line = &l;
    }
    if (!line)
      throw ProbeError(at(probes.file, probe.line) + "no protocol '" + probe.protocol + "' among " + lib + "'s on " +
                       backend + " (" + known + ")");
    if (stream && line->stream.empty())
      throw ProbeError(at(probes.file, probe.line) + probe.protocol + " is not priced for streams");
    Seconds model = 0;
    if (!evaluate(stream ? line->stream : line->cost, probe.size, model))
      throw ProbeError(at(probes.file, probe.line) + probe.protocol + " does not carry " +
                       std::to_string(probe.size) + " B");
    residuals[probe.protocol].push_back({probe.size, probe.seconds - model});
    measured[probe.protocol].push_back({probe.size, probe.seconds});
  }
}

/// The stream probes' residuals added to the kept lines' stream costs;
/// every stream cost dropped where a line has none.
void apply_stream_probes(std::vector<LibLine>& lines, const Probes& probes, const std::string& lib,
                         const std::string& backend, std::vector<std::string>& notes) {
  Residuals residuals;
  Residuals measured;
  residuals_of(lines, probes, lib, backend, true, false, residuals, measured);
  if (std::none_of(lines.begin(), lines.end(), [](const LibLine& l) { return !l.stream.empty(); }))
    return;
  std::string missing;
  for (const LibLine& l : lines)
    if (!residuals.count(l.name))
      missing += (missing.empty() ? "" : ", ") + l.name;
  if (!missing.empty()) {
    for (LibLine& l : lines)
      l.stream.clear();
    notes.push_back(residuals.empty()
                        ? "streams: " + probes.file +
                              " has no stream times: one message's latency alone sets the threshold"
                        : "streams: no stream probe of " + missing + " in " + probes.file +
                              ": one message's latency alone sets the threshold");
    return;
  }
  for (LibLine& l : lines) {
    const LinearFunc added = residual_line(residuals[l.name]);
    for (Piece& piece : l.stream)
      piece.f += added;
    l.stream_measured = Measured{added.c, added.m, measured[l.name]};
  }
}

/// A line's cost in the slow state: the platform's `cost` plus the line
/// through the slow probes' residuals and the ordinary ones at the sizes no
/// slow probe measured.
PiecewiseFunc slow_cost(PiecewiseFunc cost, const std::vector<std::pair<Bytes, Seconds>>& ordinary,
                        const std::vector<std::pair<Bytes, Seconds>>& slow) {
  std::vector<std::pair<Bytes, Seconds>> points = slow;
  for (const auto& point : ordinary)
    if (std::none_of(slow.begin(), slow.end(), [&](const auto& s) { return s.first == point.first; }))
      points.push_back(point);
  const LinearFunc added = residual_line(points);
  for (Piece& piece : cost)
    piece.f += added;
  return cost;
}

}  // namespace

void apply_probes(std::vector<LibLine>& lines, const Probes& probes, Library library, const std::string& backend,
                  std::vector<std::string>& notes) {
  const std::string lib(library_name(library));
  if (probes.library != lib)
    throw ProbeError(at(probes.file, probes.library_line) + "probes of '" + probes.library + "', not of " + lib);
  if (probes.backend != backend)
    throw ProbeError(at(probes.file, probes.backend_line) + "probes of the " + probes.backend + " path, not of " +
                     backend);
  Residuals residuals;
  Residuals measured;
  residuals_of(lines, probes, lib, backend, false, false, residuals, measured);
  if (residuals.empty())
    return;
  Residuals slow;
  Residuals slow_measured;
  residuals_of(lines, probes, lib, backend, false, true, slow, slow_measured);
  for (const Probe& probe : probes.points)
    if (probe.slow && library != Library::Ucx)
      throw ProbeError(at(probes.file, probe.line) + "a slow state is priced for UCX's threshold only, not " + lib +
                       "'s");
  std::vector<LibLine> kept;
  for (LibLine& l : lines) {
    const auto it = residuals.find(l.name);
    if (it == residuals.end()) {
      notes.push_back(l.name + ": left out, no probe of " + probes.file + " measured it");
      continue;
    }
    if (!slow.empty()) {
      const auto own = slow.find(l.name);
      l.slow = slow_cost(l.cost, it->second, own == slow.end() ? Residuals::mapped_type{} : own->second);
    }
    const LinearFunc added = residual_line(it->second);
    for (Piece& piece : l.cost)
      piece.f += added;
    l.measured = Measured{added.c, added.m, measured[l.name]};
    l.formula += measured_text(l, added);
    kept.push_back(std::move(l));
  }
  for (const auto& entry : slow) {
    const std::string& name = entry.first;  // named, not bound: clang 14 refuses a binding in a lambda's capture
    if (std::none_of(kept.begin(), kept.end(), [&](const LibLine& l) { return l.name == name; }))
      throw ProbeError(probes.file + ": slow probes of " + name + ", which no ordinary probe measured");
  }
  if (!slow.empty())
    notes.push_back("two machine states: " + std::to_string(slow.size()) + " line(s) with slow probes in " +
                    probes.file + ", priced in each state");
  for (const Phase phase : {Phase::Eager, Phase::Rndv})
    if (std::none_of(kept.begin(), kept.end(), [&](const LibLine& l) { return l.phase == phase; }))
      throw ProbeError(probes.file + ": no probe of " + lib + "'s " + (phase == Phase::Eager ? "eager" : "rendezvous") +
                       " protocols: the hand-over needs both");
  apply_stream_probes(kept, probes, lib, backend, notes);
  lines = std::move(kept);
}

}  // namespace xover::tools::tune
