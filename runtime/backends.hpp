// The hardware backends by name: what `xover run --backend` and the tests
// choose from.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "runtime/bootstrap.hpp"

namespace xover::runtime {

enum class Backend {
  Shm,  ///< shared-memory rings and cross-memory attach (shm_transport.hpp)
  Tcp,  ///< sockets, one lane per interface and connection (tcp_transport.hpp)
};

/// "shm" or "tcp".
std::string_view backend_name(Backend backend);
/// The backend a name means, or nothing.
std::optional<Backend> backend_from_name(std::string_view name);

/// Collective over `boot`: the transport of `backend`, wired up to every rank.
/// @throws RuntimeError when it cannot be set up.
std::unique_ptr<Transport> make_transport(Backend backend, Bootstrap& boot, const RuntimeOptions& options);

}  // namespace xover::runtime
