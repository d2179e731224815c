// The TCP transport's set-up: listen on each interface, swap the addresses
// through the bootstrap, connect every lane to every peer (the lower rank
// connects, the higher one accepts and checks the hello), then measure each
// lane to each peer in both directions. What it hands over is a socket per
// (peer, lane) and the measured paths; the data path is tcp_transport.cpp's.
//
// Measuring, peer by peer in a round-robin schedule (each rank measures with
// one partner at a time, so pairs do not share a CPU or a link while they
// are timed), and lane by lane:
//   latency   40 ping-pongs of 8 bytes, busy-polled; the median half
//             round trip is o_send − o_send_after + L + o_recv, where o_send
//             and o_recv are the medians of the send and the receive system
//             calls; where they overlap, as on the loopback, L = 0 and the
//             overlap is o_send_after, the part of o_send after the segment
//             has left (what o_send cannot hold comes off o_recv).
//   bcopy     none: a copied message is written from the user's buffer
//             into the socket (bcopy_copies false).
//   bandwidth a bulk transfer of at least 4 MiB and at least 20 ms each way,
//             timed by the receiver from its first to its last byte and
//             reported back to the sender.
//   memcpy    each rank times a large memcpy once (measure_memcpy, common.hpp); the bootstrap swaps it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocols/lanes/lane.hpp"
#include "runtime/bootstrap.hpp"
#include "runtime/tcp/tcp_frame.hpp"
#include "runtime/tcp/tcp_transport.hpp"

namespace xover::runtime::tcp {

/// Sockets and measured paths, ready for the data path.
struct Wiring {
  std::vector<std::string> lane_names;  ///< per lane, the same on every rank
  std::vector<std::vector<int>> fds;    ///< [peer][lane]: connected, non-blocking; empty for this rank
  std::vector<Path> paths;              ///< [peer]: lanes with their measured attributes
};

/// What each rank publishes through the bootstrap: its memcpy bandwidth,
/// its host name and a listener per interface.
struct Card {
  double memcpy_bw = 0;
  std::string host;
  std::vector<TcpListener> listeners;
};

Blob encode_card(double memcpy_bw, const std::string& host, const std::vector<TcpListener>& listeners);
/// Reads the card rank `rank` published, with one listener per interface.
/// @throws RuntimeError when it is malformed.
Card decode_card(const Blob& b, Rank rank, std::size_t interfaces);

/// What an accepting rank checks a hello against.
struct HelloRules {
  std::uint64_t job = 0;                        ///< the hash of this run's job name
  Rank rank = 0;                                ///< the accepting rank
  Rank size = 0;
  const std::vector<std::string>& lane_names;   ///< per lane
  std::size_t connections = 1;                  ///< lanes per interface
};

/// Why the hello that came in on the listener of interface `iface` is
/// refused, or empty when it opens lane `hello.lane` from `hello.rank`;
/// `fds` ([peer][lane], -1 while down) says which lanes are up already.
std::string refuse_hello(const Hello& hello, const HelloRules& rules, std::size_t iface,
                         const std::vector<std::vector<int>>& fds);

/// The collective set-up; see the file comment.
/// @throws RuntimeError when an interface has no IPv4 address, a lane
/// cannot be connected, or a peer does not answer within options.timeout.
Wiring wire_up(Bootstrap& boot, const RuntimeOptions& options, const TcpTestHooks& hooks);

/// The data path (tcp_transport.cpp) over lanes already wired: what
/// make_tcp_transport() builds after wire_up(), for a harness that wires
/// socket pairs itself.
std::unique_ptr<Transport> make_wired_transport(Rank rank, Rank size, Seconds timeout, Wiring wiring);

}  // namespace xover::runtime::tcp
