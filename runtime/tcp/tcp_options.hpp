// The tcp backend's options (its row's, runtime/backends.hpp): which
// interfaces its ranks listen and connect on, and how many connections per
// interface and peer; every (interface, connection) is a lane.
//
//   RuntimeOptions options;
//   options.backend = TcpOptions{.interfaces = {"lo"}, .connections = 2};   // lanes "tcp:lo.0", "tcp:lo.1"
//   auto transport = make_tcp_transport(boot, options);
#pragma once

#include <any>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/backend_options.hpp"
#include "runtime/bootstrap.hpp"

namespace xover::runtime {

struct TcpOptions {
  /// The interfaces whose IPv4 addresses the ranks listen on and connect
  /// through, one lane each ("lo"; "eth0,eth1").
  std::vector<std::string> interfaces = {"lo"};
  /// Connections per interface and peer; each one is a lane of its own.
  std::size_t connections = 1;
};

/// --tcp-if and --tcp-conns, with their defaults.
inline constexpr std::array<BackendOption, 2> kTcpOptions{{
    {"tcp-if", "lo", "interfaces to use, one lane each (lo; eth0,eth1; calibrate takes one)"},
    {"tcp-conns", "1", "connections per interface, one lane each (calibrate takes 1)"},
}};

/// The options' text read into a TcpOptions. Calibrate measures one lane:
/// one interface, one connection.
/// @throws std::invalid_argument "--tcp-conns must be from 1 to 16", ...
std::any read_tcp_options(const OptionValues& values, BackendUse use);

/// The TcpOptions `options` carries, or the defaults when it carries none.
TcpOptions tcp_options(const RuntimeOptions& options);

}  // namespace xover::runtime
