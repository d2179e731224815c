// Units of the protocol core and the parser for unit strings.
//
// Time is in seconds, sizes in bytes, rates in bytes per second, all spelled
// out in the type names. Unit strings ("1.5us", "12.5GBps", "4KiB") follow
// SimGrid's unit tables and are parsed only at a file or command-line
// boundary; a bad one throws std::invalid_argument saying what was expected.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace xover {

using Seconds = double;
using Bytes = std::uint64_t;
using BytesPerSecond = double;
using SecondsPerByte = double;

/// The largest message size; a thresholds table always ends here.
inline constexpr Bytes kSizeMax = std::numeric_limits<Bytes>::max();

/// "1.5us", "2ms", "0.5" (seconds). Units: ps ns us ms s m h d w.
Seconds parse_time(std::string_view text);

/// "8", "4KiB", "1MiB", "10kB" (bytes, a whole number). IEC units are powers
/// of 1024, SI units powers of 1000; "b" suffixes are bits.
Bytes parse_size(std::string_view text);

/// "12.5GBps", "100Gbps", "1e9" (bytes per second). Must be positive.
BytesPerSecond parse_bandwidth(std::string_view text);

/// Sizes for people: 8, 1K, 64K, 1M, 1.5M, "inf" for kSizeMax.
std::string format_size(Bytes n);

/// Times for people with three significant decimals in the best unit.
std::string format_time(Seconds t);

/// How format_percent writes: `sign`, a "+" before a positive figure;
/// `space`, a space before the "%" ("12.5 %" in sentences, "12.5%" in a
/// table's columns).
struct PercentFormat {
  bool sign = false;
  bool space = true;
};

/// A fraction for people, in percent with one decimal: 0.125 is "12.5 %".
std::string format_percent(double fraction, PercentFormat how = {});

}  // namespace xover
