#include "protocols/units.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace xover {
namespace {

struct Unit {
  std::string_view suffix;
  double scale;
};

// Longest suffixes first so that "ms" is not read as "s".
constexpr std::array kTimeUnits{Unit{"ps", 1e-12}, Unit{"ns", 1e-9}, Unit{"us", 1e-6}, Unit{"ms", 1e-3},
                                Unit{"s", 1.0},    Unit{"m", 60.0},   Unit{"h", 3600.0}, Unit{"d", 86400.0},
                                Unit{"w", 604800.0}};

constexpr double kKi = 1024.0;
constexpr std::array kSizeUnits{
    Unit{"EiB", kKi * kKi * kKi * kKi * kKi * kKi}, Unit{"PiB", kKi * kKi * kKi * kKi * kKi},
    Unit{"TiB", kKi * kKi * kKi * kKi},             Unit{"GiB", kKi * kKi * kKi},
    Unit{"MiB", kKi * kKi},                         Unit{"KiB", kKi},
    Unit{"Eib", kKi * kKi * kKi * kKi * kKi * kKi / 8}, Unit{"Pib", kKi * kKi * kKi * kKi * kKi / 8},
    Unit{"Tib", kKi * kKi * kKi * kKi / 8},         Unit{"Gib", kKi * kKi * kKi / 8},
    Unit{"Mib", kKi * kKi / 8},                     Unit{"Kib", kKi / 8},
    Unit{"EB", 1e18}, Unit{"PB", 1e15}, Unit{"TB", 1e12}, Unit{"GB", 1e9}, Unit{"MB", 1e6}, Unit{"kB", 1e3},
    Unit{"KB", 1e3},  Unit{"Eb", 1e18 / 8}, Unit{"Pb", 1e15 / 8}, Unit{"Tb", 1e12 / 8}, Unit{"Gb", 1e9 / 8},
    Unit{"Mb", 1e6 / 8}, Unit{"kb", 1e3 / 8}, Unit{"Kb", 1e3 / 8}, Unit{"B", 1.0}, Unit{"b", 1.0 / 8}};

// Splits "12.5GBps" into 12.5 and "GBps"; throws when no number leads.
std::pair<double, std::string_view> split_number(std::string_view text, std::string_view what) {
  const std::string s(text);
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(s, &used);
  } catch (const std::exception&) {
    throw std::invalid_argument("'" + s + "' is not a " + std::string(what) + " (expected a number and a unit)");
  }
  if (!std::isfinite(value))
    throw std::invalid_argument("'" + s + "' is not a finite " + std::string(what));
  return {value, text.substr(used)};
}

template <std::size_t N>
double apply_unit(std::string_view text, std::string_view what, const std::array<Unit, N>& units,
                  std::string_view rate_suffix, std::string_view examples) {
  auto [value, suffix] = split_number(text, what);
  if (suffix.empty())
    return value;
  if (!rate_suffix.empty()) {
    if (suffix.size() <= rate_suffix.size() || !suffix.ends_with(rate_suffix))
      throw std::invalid_argument("'" + std::string(text) + "': unknown " + std::string(what) + " unit '" +
                                  std::string(suffix) + "' (use " + std::string(examples) + ")");
    suffix.remove_suffix(rate_suffix.size());
  }
  for (const Unit& unit : units)
    if (suffix == unit.suffix)
      return value * unit.scale;
  throw std::invalid_argument("'" + std::string(text) + "': unknown " + std::string(what) + " unit '" +
                              std::string(suffix) + "' (use " + std::string(examples) + ")");
}

}  // namespace

Seconds parse_time(std::string_view text) {
  return apply_unit(text, "time", kTimeUnits, "", "ps, ns, us, ms, s");
}

Bytes parse_size(std::string_view text) {
  if (text == "inf")
    return kSizeMax;
  const double bytes = apply_unit(text, "size", kSizeUnits, "", "B, KiB, MiB, GiB, kB, MB, GB");
  if (bytes < 0)
    throw std::invalid_argument("'" + std::string(text) + "': a size cannot be negative");
  if (bytes != std::floor(bytes))
    throw std::invalid_argument("'" + std::string(text) + "': a size must be a whole number of bytes");
  if (bytes >= 18446744073709551616.0)
    return kSizeMax;
  return static_cast<Bytes>(bytes);
}

BytesPerSecond parse_bandwidth(std::string_view text) {
  const double rate = apply_unit(text, "bandwidth", kSizeUnits, "ps", "Bps, MBps, GBps, GiBps, Gbps");
  if (!(rate > 0))
    throw std::invalid_argument("'" + std::string(text) + "': a bandwidth must be positive");
  return rate;
}

std::string format_size(Bytes n) {
  if (n == kSizeMax)
    return "inf";
  constexpr std::array<std::pair<Bytes, char>, 4> kSteps{
      {{Bytes{1} << 40, 'T'}, {Bytes{1} << 30, 'G'}, {Bytes{1} << 20, 'M'}, {Bytes{1} << 10, 'K'}}};
  char buf[32];
  for (auto [step, letter] : kSteps) {
    if (n >= step && n % step == 0) {
      std::snprintf(buf, sizeof buf, "%llu%c", static_cast<unsigned long long>(n / step), letter);
      return buf;
    }
  }
  std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
  return buf;
}

std::string format_time(Seconds t) {
  const double a = std::fabs(t);
  char buf[32];
  if (a == 0)
    return "0";
  if (a < 1e-6)
    std::snprintf(buf, sizeof buf, "%.3fns", t * 1e9);
  else if (a < 1e-3)
    std::snprintf(buf, sizeof buf, "%.3fus", t * 1e6);
  else if (a < 1)
    std::snprintf(buf, sizeof buf, "%.3fms", t * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3fs", t);
  return buf;
}

std::string format_percent(double fraction, PercentFormat how) {
  char buf[32];
  std::snprintf(buf, sizeof buf, how.sign ? "%+.1f%s%%" : "%.1f%s%%", fraction * 100, how.space ? " " : "");
  return buf;
}

}  // namespace xover
