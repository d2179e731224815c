// The one list of workloads, in order: the order in which scenario files'
// messages name them.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "protocols/workload/workload.hpp"

namespace xover {

/// Every workload, in registry order.
std::span<const Workload* const> workload_registry();

/// The workload called `name`, or null.
const Workload* find_workload(std::string_view name);

/// The workloads' names, comma separated, in registry order: "pingpong, stream, ...".
std::string workload_names();

extern const Workload pingpong_workload;    ///< pingpong.cpp
extern const Workload stream_workload;      ///< stream.cpp
extern const Workload unexpected_workload;  ///< unexpected.cpp
extern const Workload pairs_workload;       ///< pingpong.cpp
extern const Workload alltoall_workload;    ///< alltoall.cpp

}  // namespace xover
