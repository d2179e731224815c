#include "protocols/workload/workloads.hpp"

#include <array>
#include <stdexcept>

namespace xover {
namespace {

const std::array kWorkloads{
    &pingpong_workload, &stream_workload, &unexpected_workload, &pairs_workload, &alltoall_workload,
};

}  // namespace

std::span<const Workload* const> workload_registry() {
  return kWorkloads;
}

const Workload* find_workload(std::string_view name) {
  for (const Workload* workload : kWorkloads)
    if (workload->name == name)
      return workload;
  return nullptr;
}

std::string workload_names() {
  std::string out;
  for (const Workload* workload : kWorkloads)
    out += (out.empty() ? "" : ", ") + std::string(workload->name);
  return out;
}

Rank workload_ranks(const Scenario& scenario) {
  return scenario.workload->ranks(scenario);
}

std::uint32_t workload_threads(const Scenario& scenario, const RunContext& context) {
  return scenario.workload->threads ? scenario.workload->threads(scenario, context) : 1;
}

void run_workload(const Scenario& scenario, Rank rank, Transport& transport, Results& results,
                  const RunContext& context) {
  if (!scenario.workload->run)
    throw std::invalid_argument("scenario '" + scenario.name + "': the " + std::string(scenario.workload->name) +
                                " runs in simulation only (sim::simulate), not over a Transport");
  scenario.workload->run(scenario, context, rank, transport, results);
}

}  // namespace xover
