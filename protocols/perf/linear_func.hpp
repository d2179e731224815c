// A cost line T(n) = c + m·n: the way every protocol states its cost
// (UCX protocols v2, "protocol threshold selection").
#pragma once

#include <optional>

#include "protocols/units.hpp"

namespace xover {

struct LinearFunc {
  Seconds c = 0;         ///< fixed cost
  SecondsPerByte m = 0;  ///< cost per byte

  /// T(n) = c + m·n.
  constexpr Seconds apply(double n) const { return c + m * n; }
  constexpr LinearFunc operator+(const LinearFunc& o) const { return {c + o.c, m + o.m}; }
  constexpr LinearFunc& operator+=(const LinearFunc& o) { return *this = *this + o; }
  constexpr LinearFunc scale(double factor) const { return {c * factor, m * factor}; }
  constexpr bool operator==(const LinearFunc&) const = default;

  /// The size where this line and `o` meet: x = (c2 − c1) / (m1 − m2).
  /// Empty when the lines are parallel (including equal).
  std::optional<double> intersect(const LinearFunc& o) const;

  static constexpr LinearFunc constant(Seconds c) { return {c, 0}; }
  static constexpr LinearFunc per_byte(SecondsPerByte m) { return {0, m}; }
};

}  // namespace xover
