// What one side of one benchmark case measured, and how it crosses from the
// child process that ran it to the parent that prints the table.
#pragma once

#include <cstdint>
#include <string>

#include "base/clock.hpp"

namespace xover::bench {

/// One run of one case by one program (xover or bare SimGrid).
struct Measurement {
  std::uint64_t messages = 0;  ///< messages delivered and checked
  std::uint64_t errors = 0;    ///< messages missing, misrouted or corrupt, plus setup mistakes
  double load_s = 0;           ///< wall seconds to load the platform
  double setup_s = 0;          ///< wall seconds from loaded platform to the first actor (routes, transports)
  double run_s = 0;            ///< wall seconds of the simulation itself (Engine::run)
  double sim_s = 0;            ///< simulated seconds at the end
  long max_rss_kib = 0;        ///< the child's peak resident memory
  std::string note;            ///< what went wrong, when errors > 0

  double wall_s() const { return load_s + setup_s + run_s; }

  /// One line of text; parse() reads it back.
  std::string serialize() const;
  /// Throws std::runtime_error when `text` is not what serialize() writes.
  static Measurement parse(const std::string& text);
};

/// Wall-clock seconds since construction or the last lap().
class Stopwatch {
 public:
  double lap() {
    const double now = clock_now();
    const double s = now - start_;
    start_ = now;
    return s;
  }

 private:
  double start_ = clock_now();
};

/// The calling process's peak resident memory, in KiB.
long max_rss_kib();

}  // namespace xover::bench
