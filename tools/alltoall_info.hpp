// `xover proto-info --alltoall P`: which alltoall flavour each size uses for
// P PEs of a platform, each flavour's cost lines, and where the direct one
// stops winning; the same table, cost lines and JSON keys as the
// point-to-point protocols' (proto_info_format.hpp), the device figures
// beside the lane's.
#pragma once

#include <string>
#include <vector>

#include "protocols/coll/alltoall.hpp"

namespace xover::tools {

struct AlltoallInfo {
  std::string platform_file;
  LaneAttrs lane;              ///< the first lane between the first two PEs
  AlltoallParams params;       ///< P, the lane's L, B, g and the first PE's device; size unused
  double direct_perf_diff = 0; ///< percent (SelectConfig)
};

std::string format_alltoall_info_text(const AlltoallInfo& info);
std::string format_alltoall_info_json(const AlltoallInfo& info);

}  // namespace xover::tools
