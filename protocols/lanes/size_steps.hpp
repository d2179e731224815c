// A figure that changes with the size of one operation (SMPI's `smpi/os`
// sections, UCX protocols v2's perf ranges): from each step's size up to the
// next step's, one value. The copy bandwidth in and out of cache and the CPU
// overheads of small and large messages are such figures.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "protocols/units.hpp"

namespace xover {

struct SizeStep {
  Bytes from = 0;    ///< the smallest operation size the value holds for
  double value = 0;  ///< seconds or bytes per second, as the figure is

  bool operator==(const SizeStep&) const = default;
};

/// Steps in increasing `from` order, the first from 0; empty when the figure
/// is one value at every size (the plain field beside it holds it).
class SizeSteps {
 public:
  SizeSteps() = default;
  /// @throws std::invalid_argument unless the sizes start at 0 and increase.
  explicit SizeSteps(std::vector<SizeStep> steps);

  bool empty() const { return steps_.empty(); }
  const std::vector<SizeStep>& steps() const { return steps_; }
  /// The value for an operation of n bytes; `plain` when there are no steps.
  double at(Bytes n, double plain) const;
  /// The sizes where a step after the first starts.
  std::vector<Bytes> breakpoints() const;

  /// Reads "0:12GBps;32KiB:6GBps" (size:value sections; sizes in parse_size's
  /// units, ascending, the first 0) or a plain value, which is one step from
  /// 0, with `parse_value` for the values.
  /// @throws std::invalid_argument naming the bad section.
  static SizeSteps parse(std::string_view text, double (*parse_value)(std::string_view));
  /// "0:12GB/s; 32K:6GB/s", values through `format_value`.
  std::string to_string(std::string (*format_value)(double)) const;

  bool operator==(const SizeSteps&) const = default;

 private:
  std::vector<SizeStep> steps_;
};

}  // namespace xover
