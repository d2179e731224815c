// The ends of a star zone's hosts. In a star zone the route from host x to
// host y is U_x then D_y, each link once (U: x's links up, D: y's links
// down). Take three routes, P = x→y, Q = x→z and S = w→y, where z and w are
// neither x nor y: every link of U_x is in P and Q, every link of D_y in P
// and S. Where each link of P is in exactly one of Q and S, U_x is P's links
// that are in Q and D_y those in S, in P's order (a link of P in Q and not in
// U_x would be in D_y, so in S too). With the zone's hosts in a ring
// h_0 ... h_{n-1}, x = h_i, y = h_{i+1}, z = h_{i+2} and w = h_{i-1}: two
// routes per host, h_i → h_{i+1} and h_i → h_{i+2}, give every host's ends.
#include "sim/platform_star.hpp"

#include <simgrid/kernel/routing/StarZone.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

namespace s4u = simgrid::s4u;

namespace xover::sim::detail {
namespace {

using Links = std::vector<const s4u::Link*>;

/// SimGrid's route from `a` to `b` into `out`; false where it has none.
bool route(const s4u::Host* a, const s4u::Host* b, Links& out) {
  std::vector<s4u::Link*> links;
  double latency = 0;
  try {
    a->route_to(b, links, &latency);
  } catch (const std::exception&) {
    return false;
  }
  out.assign(links.begin(), links.end());
  return true;
}

bool has(const Links& links, const s4u::Link* link) {
  return std::find(links.begin(), links.end(), link) != links.end();
}

/// P = x→y split into U_x and D_y by Q = x→z and S = w→y (above); false
/// where it does not split so.
bool split(const Links& p, const Links& q, const Links& s, Links& up, Links& down) {
  up.clear();
  down.clear();
  for (const s4u::Link* link : p) {
    const bool in_q = has(q, link);
    if (in_q == has(s, link) || (in_q && !down.empty()) || has(up, link) || has(down, link))
      return false;
    (in_q ? up : down).push_back(link);
  }
  return true;
}

/// The ends of `members`, the distinct hosts of star zone `zone` that the
/// caller routes between, into `found`; nothing where they cannot be told
/// apart, or where a host's up link is another's down link (the route from
/// one to the other would hold that link once, not twice).
void find_in_ring(const s4u::NetZone* zone, const std::vector<const s4u::Host*>& members,
                  std::map<const s4u::Host*, StarEnds>& found) {
  const std::size_t n = members.size();
  if (n < 3)
    return;
  std::vector<Links> next(n);   // h_i → h_{i+1}
  std::vector<Links> after(n);  // h_i → h_{i+2}
  for (std::size_t i = 0; i < n; ++i)
    if (!route(members[i], members[(i + 1) % n], next[i]) || !route(members[i], members[(i + 2) % n], after[i]))
      return;
  std::vector<StarEnds> ends(n);
  for (std::size_t i = 0; i < n; ++i)
    if (!split(next[i], after[i], after[(i + n - 1) % n], ends[i].up, ends[(i + 1) % n].down))
      return;
  std::unordered_map<const s4u::Link*, std::size_t> down_of;  // the host whose down list holds it, n for several
  for (std::size_t i = 0; i < n; ++i)
    for (const s4u::Link* link : ends[i].down)
      if (const auto [it, added] = down_of.emplace(link, i); !added && it->second != i)
        it->second = n;
  for (std::size_t i = 0; i < n; ++i)
    for (const s4u::Link* link : ends[i].up)
      if (const auto it = down_of.find(link); it != down_of.end() && it->second != i)
        return;
  for (std::size_t i = 0; i < n; ++i) {
    ends[i].zone = zone;
    found.emplace(members[i], std::move(ends[i]));
  }
}

}  // namespace

std::vector<StarEnds> star_ends(const std::vector<s4u::Host*>& hosts) {
  // The distinct hosts of each star zone, in the order first met.
  std::vector<std::pair<const s4u::NetZone*, std::vector<const s4u::Host*>>> zones;
  for (const s4u::Host* host : hosts) {
    const s4u::NetZone* zone = host->get_englobing_zone();
    if (!dynamic_cast<const simgrid::kernel::routing::StarZone*>(zone->get_impl()))
      continue;
    auto mine = std::find_if(zones.begin(), zones.end(), [&](const auto& entry) { return entry.first == zone; });
    if (mine == zones.end())
      mine = zones.insert(zones.end(), {zone, {}});
    if (std::find(mine->second.begin(), mine->second.end(), host) == mine->second.end())
      mine->second.push_back(host);
  }
  std::map<const s4u::Host*, StarEnds> found;
  for (const auto& [zone, members] : zones)
    find_in_ring(zone, members, found);
  std::vector<StarEnds> out(hosts.size());
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (const auto it = found.find(hosts[i]); it != found.end())
      out[i] = it->second;
  return out;
}

}  // namespace xover::sim::detail
