// The stream's settings (stream.cpp): what <workload kind="stream"> says.
#pragma once

#include <cstddef>

namespace xover {

struct StreamSettings {
  std::size_t window = 16;  ///< messages in flight, at least 1
};

}  // namespace xover
