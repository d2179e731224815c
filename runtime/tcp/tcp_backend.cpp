// The tcp backend's row of the backend table (runtime/backends.hpp).
#include "runtime/backends.hpp"
#include "runtime/tcp/tcp_options.hpp"
#include "runtime/tcp/tcp_transport.hpp"

namespace xover::runtime {
namespace {

/// xover's tcp lane is UCX's tcp on the same interface.
UcxTransports ucx(const OptionValues& values) {
  const std::string interfaces = option_text(values, kTcpOptions, "tcp-if");
  return {"tcp on " + interfaces, "UCX_TLS=tcp UCX_NET_DEVICES=" + interfaces};
}

}  // namespace

// extern: the table in runtime/backends.cpp lists it.
extern constinit const Backend tcp_backend{
    .name = "tcp",
    .summary = "TCP sockets, a lane per interface and connection",
    .make = make_tcp_transport,
    .why_unavailable = nullptr,
    .describe = describe_tcp,
    .options = kTcpOptions,
    .read_options = read_tcp_options,
    .ucx = ucx,
};

}  // namespace xover::runtime
