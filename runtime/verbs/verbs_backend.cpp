// The verbs backend's row of the backend table (runtime/backends.hpp). In a
// build without libibverbs the row stays, with its options (read without a
// device), and says why it cannot run: not compiled in.
#include "runtime/backends.hpp"
#include "runtime/verbs/verbs_options.hpp"
#include "runtime/verbs/verbs_transport.hpp"

namespace xover::runtime {
namespace {

#ifdef XOVER_WITH_VERBS
constexpr auto make = make_verbs_transport;
constexpr auto why_unavailable = verbs_unavailable;
constexpr auto describe = describe_verbs;
#else
std::string why_unavailable() {
  return std::string(kNotCompiledIn) +
         ": this build has no libibverbs (install libibverbs-dev, then configure again with XOVER_VERBS on)";
}
std::unique_ptr<Transport> make(Bootstrap&, const RuntimeOptions&) {
  throw RuntimeError("verbs: " + why_unavailable());
}
constexpr BackendInfo (*describe)() = nullptr;
#endif

}  // namespace

// extern: the table in runtime/backends.cpp lists it.
extern constinit const Backend verbs_backend{
    .name = "verbs",
    .summary = "rdma-core verbs: an RC queue pair per port and peer, send/recv AMs, RDMA read/write",
    .make = make,
    .why_unavailable = why_unavailable,
    .describe = describe,
    .options = kVerbsOptions,
    .read_options = read_verbs_options,
};

}  // namespace xover::runtime
