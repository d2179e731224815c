// The alltoall: each of `pes` PEs puts n bytes to every other one, with a
// completion signal; a sample is the whole exchange, from the start to the
// last put's landing. Its curves are `auto` and the collective protocols
// (protocols/coll/alltoall.hpp). It has no Transport runner: the simulator
// runs it with actors of its own (sim/alltoall_sim.hpp), and the hardware
// backends refuse it.
//
// Attributes: pes (required, 2 to 1048576; the platform's first `pes`
// nodes, so <platform> names no from or to), threads (device threads
// posting at once, 1 to 1048576; default the platform's `xover:threads`),
// batch (puts per simulated transfer, at least 1, or auto).
#include <algorithm>
#include <array>

#include "protocols/registry.hpp"
#include "protocols/workload/workloads.hpp"

namespace xover {
namespace {

/// The most PEs an alltoall takes, and the most threads.
constexpr std::uint64_t kMaxPes = 1u << 20;

void parse_alltoall(const Attributes& attributes, Scenario& scenario) {
  if (!scenario.from.empty())
    attributes.fail("an alltoall runs on the platform's first 'pes' nodes; <platform> takes no 'from' or 'to' with it");
  const std::uint64_t pes = attributes.count("pes", 2);
  if (pes > kMaxPes)
    attributes.bad("pes", *attributes.find("pes"), "at most " + std::to_string(kMaxPes));
  scenario.pes = static_cast<std::uint32_t>(pes);
  if (const auto value = attributes.find("threads")) {
    const std::uint64_t threads = attributes.count("threads", 1);
    if (threads > kMaxPes)
      attributes.bad("threads", *value, "at most " + std::to_string(kMaxPes));
    scenario.threads = static_cast<std::uint32_t>(threads);
  }
  if (const auto value = attributes.find("batch"); value && *value != "auto")
    scenario.batch = attributes.count("batch", 1);
}

std::optional<std::string> alltoall_curve_error(const Scenario&, std::string_view curve) {
  if (curve == "auto" || coll_protocol(curve))
    return std::nullopt;
  std::string known;
  for (const CollProtocol* protocol : coll_registry())
    known += (known.empty() ? "" : ", ") + std::string(protocol->name);
  return "unknown protocol '" + std::string(curve) + "' in <curves> for an alltoall (known: auto, " + known + ")";
}

Rank alltoall_ranks(const Scenario& scenario) {
  return scenario.pes;
}

constexpr std::array<std::string_view, 3> kAttributes{"pes", "threads", "batch"};

}  // namespace

const Workload alltoall_workload{
    .name = "alltoall",
    .description = "`pes` PEs each put n bytes to every other: the time of the whole exchange",
    .attributes = kAttributes,
    .parse = parse_alltoall,
    .curve_error = alltoall_curve_error,
    .ranks = alltoall_ranks,
    .run = nullptr,
    .sample = "exchange",
};

}  // namespace xover
