// The pairs workload's settings (pingpong.cpp): what <workload kind="pairs">
// says. The ping-pong itself takes none.
#pragma once

#include <cstddef>

namespace xover {

struct PairsSettings {
  std::size_t pairs = 2;  ///< ping-pong pairs at once, at least 2
};

}  // namespace xover
