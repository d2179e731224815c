// The LogGP platform loader: reads a SimGrid platform file into the
// simulator and turns its hosts, routes and `xover:` properties into the
// nodes and lanes the protocol core works with (platforms/README.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocols/coll/alltoall.hpp"
#include "protocols/lanes/lane.hpp"
#include "protocols/units.hpp"
#include "sim/platform_error.hpp"

namespace simgrid::s4u {
class Host;
}

namespace xover::sim {

/// The SimGrid host names of the two NICs at the ends of one lane.
struct NicPair {
  std::string src_host;  ///< NIC of the sending node
  std::string dst_host;  ///< NIC of the receiving node

  bool operator==(const NicPair&) const = default;
};

/// A node of the platform: a CPU that runs ranks, and the NICs it sends with.
struct PlatformNode {
  std::string name;                 ///< the node's host name
  std::vector<std::string> nics;    ///< NIC host names in platform order; {name} when the node has no NIC hosts
  BytesPerSecond memcpy_bw = 10e9;  ///< the `xover:memcpy_bw` host property (default 10GBps)
  SizeSteps memcpy_steps = {};           ///< its steps by copy size when it has several (memcpy_bw is the first's)
  SizeSteps bw_factor = {};         ///< `xover:bw_factor`: its messages' pace by their size (empty: 1 at every size)
  Seconds gap = 0;                  ///< `xover:gap` on the node: its NIC's gap, for lanes whose links set a smaller one
  DeviceAttrs device;               ///< `xover:device_o`, `xover:threads`, `xover:proxy_o`, `xover:proxy_wake`
  DeviceCopy device_copy;           ///< `xover:stage_o`, `xover:stage_bw`, `xover:ipc_bw` (zeros: no device memory)
};

/// A SimGrid platform read as LogGP lanes (platforms/README.md has the full rules).
///
/// Nodes and NICs ("lanes are rails"): a host named `<node>.<rail>`, split at
/// the last '.', where `<node>` is also a host, is a NIC of that node, and
/// `<rail>` names its lanes (`node0.r0` carries lane "r0"; a route between
/// NICs of two rails gives lane "r0-r1"). Every other host is a node. A node
/// with no NIC hosts is its own only NIC; its lanes are then named after the
/// first link of their route, without the `_UP`/`_DOWN` suffix of a duplex
/// pair, so that any platform SimGrid accepts (clusters included) loads
/// unchanged. NICs keep the order of their `<host>` elements in the file.
///
/// Lanes: one for each pair (NIC a of `from`, NIC b of `to`), a != b, with a
/// non-empty route. Its latency is the route's latency (the sum over its
/// links), its bandwidth the smallest link bandwidth on the route, and its
/// other attributes come from the `xover:` link properties (`o_send`,
/// `o_recv`, `gap`, `reg_cost`: times; `reg_growth`: seconds per byte written
/// as a time, "0.06ns" or "0.06ns/B"; `max_short`, `max_bcopy`, `max_zcopy`,
/// `seg_size`: sizes; `caps`: LaneCaps::parse list; `bandwidth`: the lane's
/// bandwidth in place of the links', at most theirs). `o_send`, `o_recv`,
/// `bandwidth` and the hosts' `memcpy_bw` may be size steps
/// ("0:0.3us;1KiB:0.5us", SizeSteps::parse); `bw_factor`, factors in
/// (0, 1] by message size as on a node, is the lane's own message factor
/// (LaneAttrs::message_factor). When several links of a route set one,
/// times and sizes take the largest value, `caps` the intersection, and
/// `bandwidth` and `bw_factor` the smallest at each size (a link without
/// `bw_factor` counts as 1); when none does, LaneAttrs' default applies. Properties
/// written on a SPLITDUPLEX `<link>` apply to both directions. On node hosts
/// (or a `<cluster>`), `xover:memcpy_bw` is a bandwidth, 10GBps by default;
/// `xover:bw_factor` the pace of a message's bytes by the message's size,
/// factors in (0, 1] (a route's Path::message_factor is the smaller of its
/// two nodes' at each size), none by default;
/// `xover:gap` is the gap of the node's NIC, which its lanes take when their
/// links give a smaller one (a `<cluster>` cannot put properties on the links
/// it makes); and the alltoall's device properties are read into
/// PlatformNode::device.
///
/// Caveats: SimGrid allows one engine and one platform per process, so load()
/// succeeds at most once per process (tests load in a child process).
/// SimGrid 3.32 aborts the process when asked for a route missing from a
/// Dijkstra zone, so load() rejects Dijkstra zones that are not fully connected.
class LogGPPlatform {
 public:
  /// Loads `file` into the process's s4u::Engine, creating it if none exists
  /// (with SimGrid's logging set to errors and above), then reads the nodes
  /// and `xover:` properties and validates them. The file's `<config>` block
  /// chooses the network model and must open `<platform>` (platforms/README.md
  /// gives the settings that make SimGrid exact LogGP).
  /// @throws PlatformError, naming the file and, where there is one, the line,
  /// for a missing file, malformed XML, anything SimGrid refuses, an unknown
  /// `xover:` property or unit, a negative latency or time, a bandwidth that
  /// is not positive, a zero size that a capability needs (`max_short` for
  /// am_short, `max_bcopy` for am_bcopy, `max_zcopy` for any zcopy, `seg_size`
  /// for any active message), a NIC of a NIC, `xover:memcpy_bw` on a NIC, a
  /// Dijkstra zone that is not fully connected, or a second platform in the
  /// same process.
  static LogGPPlatform load(const std::string& file);

  /// The file as given to load().
  const std::string& file() const;

  /// Every node, sorted by name.
  const std::vector<PlatformNode>& nodes() const;

  /// The node called `name`.
  /// @throws PlatformError "FILE: unknown node 'x' (nodes: a, b)".
  const PlatformNode& node(const std::string& name) const;

  /// The lanes from node `from` to node `to`, in the platform's NIC order,
  /// with the memcpy bandwidth of each end.
  /// @throws PlatformError for an unknown node, or "FILE: no route from A to B"
  /// when no NIC of `from` has a route to a NIC of `to`.
  Path path(const std::string& from, const std::string& to) const;

  /// The NIC hosts of each lane of path(from, to), in the same order; a
  /// transport sends that lane's bytes from `src_host` to `dst_host`.
  /// @throws PlatformError as path() does.
  std::vector<NicPair> nics(const std::string& from, const std::string& to) const;

  /// path() and nics() in one pass.
  std::pair<Path, std::vector<NicPair>> path_and_nics(const std::string& from, const std::string& to) const;

  // By index, for the simulator's hot path: no name is looked up.

  /// The index of node `name` in nodes().
  /// @throws PlatformError as node() does.
  std::size_t node_index(const std::string& name) const;
  /// The SimGrid host of NIC `nic` (an index in `nics`) of node `node` (an
  /// index in nodes()), found once at load.
  simgrid::s4u::Host* nic_host(std::size_t node, std::size_t nic) const;
  /// path() between nodes by index, with its node names left empty, and
  /// each lane's NICs as indices in the two nodes' `nics` (nic_host()).
  struct IndexedRoute {
    Path path;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> nics;  ///< per lane: (source NIC, destination NIC)
  };
  /// @throws PlatformError "FILE: no route from A to B" as path() does.
  IndexedRoute route(std::size_t from, std::size_t to) const;
  /// What route(from, to) is made of, in a few numbers: the nodes (the
  /// destination by its kind), and per lane its NICs, rails, latency and
  /// the kinds of its links (links of equal bandwidth and properties are of
  /// one kind). Equal keys give equal routes, so that a caller builds one
  /// route per key rather than per pair of nodes. A pair of NICs of one
  /// star zone (a <cluster>) has its route read off the two NICs' links
  /// found at load, where the platform declares no bypass route; SimGrid is
  /// asked for the route of any other pair of NICs. No lane is built and
  /// nothing is thrown (a pair with no route has a key of its nodes only).
  using RouteKey = std::vector<std::uint64_t>;
  RouteKey route_key(std::size_t from, std::size_t to) const;
  /// The same into `key`, whose storage is reused: no allocation once it
  /// has held a key as long.
  void route_key(std::size_t from, std::size_t to, RouteKey& key) const;

 private:
  struct Impl;
  explicit LogGPPlatform(std::shared_ptr<const Impl> impl);

  std::shared_ptr<const Impl> impl_;  ///< immutable after load(), so copies share it
};

}  // namespace xover::sim
