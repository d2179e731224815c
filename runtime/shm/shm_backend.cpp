// The shm backend's row of the backend table (runtime/backends.hpp).
#include "runtime/backends.hpp"
#include "runtime/shm/shm_transport.hpp"

namespace xover::runtime {
namespace {

/// xover's shm lanes are a ring in a shared segment and gets by cross-memory
/// attach: UCX's posix and cma.
UcxTransports ucx(const OptionValues&) {
  return {"posix,cma", "UCX_TLS=posix,cma"};
}

}  // namespace

// extern: the table in runtime/backends.cpp lists it.
extern constinit const Backend shm_backend{
    .name = "shm",
    .summary = "shared memory on this node: mm rings, cross-memory attach",
    .make = make_shm_transport,
    .why_unavailable = nullptr,
    .describe = describe_shm,
    .ucx = ucx,
};

}  // namespace xover::runtime
