// The TCP hardware backend, after UCX's tcp transport: one lane per
// (interface, connection), every lane a non-blocking TCP socket to every
// peer, active messages and get/put carried in length-checked frames
// (tcp_frame.hpp), lane attributes measured at set-up (tcp_wireup.hpp).
//
//   RuntimeOptions options;
//   options.backend = TcpOptions{.interfaces = {"lo"}, .connections = 2};   // lanes "tcp:lo.0", "tcp:lo.1"
//   auto transport = make_tcp_transport(boot, options);        // tcp_options.hpp
//
// Limits (every lane): max_short 128 B, max_bcopy = seg_size = 64 KiB
// (header included; AM zcopy is bounded by seg_size as well), max_zcopy
// 1 GiB for a get or a put. Capabilities: am short/bcopy/zcopy, put zcopy,
// get zcopy, connect-to-iface; no atomics.
//
// Registration is real: a region gets a fresh random key, and a get or put
// from a peer must name a key registered for that peer and stay wholly inside
// its region, or it fails with Status::Error at the initiator and touches
// nothing. A peer that closes a lane without saying goodbye, that sends a
// malformed frame, that leaves more than 65536 replies to its gets and puts
// unread on a lane (the memory they hold here would grow without end), or
// that lets nothing move for options.timeout seconds while this rank polls
// fails the transport (Transport::failure()): every pending completion is
// called with Error and every operation returns it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/backend_info.hpp"
#include "runtime/bootstrap.hpp"

namespace xover::runtime {

/// Where one rank listens on one interface (IPv4, host byte order).
struct TcpListener {
  std::uint32_t address = 0;
  std::uint16_t port = 0;
};

/// Test hooks: how a test plays a stranger or a corrupt peer. Production
/// code leaves them empty.
struct TcpTestHooks {
  /// Called on each rank (`rank`) once the listeners are swapped and before
  /// any lane connects, with every rank's listener per interface.
  std::function<void(Rank rank, const std::vector<std::vector<TcpListener>>&)> on_listening;
  /// Called with each line the set-up prints when it refuses a connection.
  std::function<void(const std::string&)> on_refused;
};

/// Collective over `boot`: listens on each interface, swaps addresses,
/// connects every lane to every peer, measures the lanes.
/// @throws RuntimeError with a clear message (interface without an IPv4
/// address, connect refused, a peer silent past options.timeout, ...).
std::unique_ptr<Transport> make_tcp_transport(Bootstrap& boot, const RuntimeOptions& options);

/// For `xover info` (tcp_info.cpp): every network interface, up or down,
/// its IPv4 addresses, MTU and link speed where the kernel knows it.
BackendInfo describe_tcp();

/// make_tcp_transport() with test hooks.
std::unique_ptr<Transport> make_tcp_transport(Bootstrap& boot, const RuntimeOptions& options,
                                              const TcpTestHooks& hooks);

/// The socket under a lane of a TCP transport, for a test that writes raw
/// bytes as a corrupt peer would; -1 when `transport` is not TCP.
int tcp_lane_socket(Transport& transport, Rank peer, std::size_t lane);

}  // namespace xover::runtime
