// Private to the loader: the links by which each host of a SimGrid star zone
// (a StarZone: a <cluster>, or a zone routed "Cluster") sends and receives,
// found from a few of its routes at load, so that a route between two of
// its hosts is known without asking SimGrid for it.
#pragma once

#include <simgrid/s4u.hpp>

#include <vector>

namespace xover::sim::detail {

/// A host's two ends in its star zone. SimGrid 3.32 routes host a to another
/// host b of one star zone by a's links up, then b's links down, each link
/// once (StarZone::get_local_route), where no bypass route is declared.
/// `zone` is set where both lists are known and no link of a host's up list
/// is in another host's down list: then the route from a to b is a's `up`
/// followed by b's `down`, in that order, every link once.
struct StarEnds {
  const simgrid::s4u::NetZone* zone = nullptr;  ///< null where the ends are unknown
  std::vector<const simgrid::s4u::Link*> up;
  std::vector<const simgrid::s4u::Link*> down;
};

/// The ends of each of `hosts` (in its order; a host may be listed twice),
/// from two SimGrid routes per host of a star zone of at least three of
/// them. The caller knows that the platform declares no bypass route.
std::vector<StarEnds> star_ends(const std::vector<simgrid::s4u::Host*>& hosts);

}  // namespace xover::sim::detail
