// The simulator's row of the backend table (backends.hpp): the first,
// with no transport to make (sim/simulate.hpp runs a whole scenario in one
// process). It is here, not in sim/, because the table lists it in every
// build, and a build without SimGrid has no sim/.
#include "runtime/backends.hpp"

namespace xover::runtime {
namespace {

std::string why_unavailable() {
#ifdef XOVER_WITH_SIMGRID
  return "";
#else
  return std::string(kNotCompiledIn) + ": this build has no SimGrid (configured with XOVER_WITH_SIMGRID=OFF)";
#endif
}

BackendInfo describe() {
  BackendInfo info;
#ifdef XOVER_WITH_SIMGRID
  info.add("simgrid", std::string(XOVER_SIMGRID_VERSION));
#endif
  return info;
}

}  // namespace

// extern: the table in backends.cpp lists it.
extern constinit const Backend sim_backend{
    .name = "sim",
    .summary = "SimGrid simulation of the scenario's platform (LogGP lanes)",
    .make = nullptr,
    .why_unavailable = why_unavailable,
    .describe = describe,
};

}  // namespace xover::runtime
