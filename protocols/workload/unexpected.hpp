// The unexpected receive's settings (unexpected.cpp): what
// <workload kind="unexpected"> says.
#pragma once

#include "protocols/units.hpp"

namespace xover {

struct UnexpectedSettings {
  /// How long after the send the receiver posts, at least 0.
  Seconds delay = 10e-6;
};

}  // namespace xover
