// xover proto-info: the thresholds table for one path of a platform.
#include <boost/program_options.hpp>
#include <iostream>

#include "sim/alltoall_sim.hpp"
#include "sim/platform_loader.hpp"
#include "tools/alltoall_info.hpp"
#include "tools/commands.hpp"
#include "tools/data_dir.hpp"
#include "tools/proto_info_format.hpp"

namespace po = boost::program_options;

namespace xover::tools {

namespace {

int alltoall_info(const po::variables_map& vm, const SelectConfig& config) {
  AlltoallInfo info;
  info.platform_file = vm["platform"].as<std::string>();
  info.direct_perf_diff = config.direct_perf_diff;
  const std::uint32_t pes = vm["alltoall"].as<std::uint32_t>();
  if (pes < 2 || vm.count("from") || vm.count("to") || (vm.count("threads") && vm["threads"].as<std::uint32_t>() == 0)) {
    std::cerr << "xover proto-info: --alltoall takes at least 2 PEs, no --from or --to, and --threads of 1 or more\n";
    return kExitBadInput;
  }
  try {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(info.platform_file);
    sim::AlltoallSpec spec;
    spec.pes = pes;
    if (vm.count("threads"))
      spec.threads = vm["threads"].as<std::uint32_t>();
    const std::vector<std::string> nodes = sim::alltoall_nodes(platform, pes);
    info.params = sim::alltoall_params(platform, nodes, spec);
    const Path path = platform.path(nodes[0], nodes[1]);
    info.lane = path.lanes[put_lane(path).value_or(0)];
  } catch (const sim::PlatformError& e) {
    std::cerr << "xover proto-info: " << e.what() << "\n";
    return kExitBadInput;
  }
  std::cout << (vm.count("json") ? format_alltoall_info_json(info) : format_alltoall_info_text(info));
  return 0;
}

}  // namespace

int proto_info_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover proto-info [--platform FILE] [--from NODE --to NODE] [--set KEY=VALUE ...] [--json]\n"
      "       xover proto-info --alltoall P [--threads T] [--platform FILE] [--set direct_perf_diff=PCT] [--json]\n\n"
      "Prints the protocol thresholds table from one node to another of a SimGrid platform: which\n"
      "protocol each message size uses, over which lanes, each protocol's cost line, and the seed's\n"
      "closed-form rendezvous thresholds beside the envelope's. With --alltoall, the same for an\n"
      "alltoall of P PEs on the platform's first P nodes: where coll/alltoall/direct stops winning.\n\noptions");
  opts.add_options()("help,h", "this help")(
      "platform,p", po::value<std::string>()->default_value(default_platform()), "SimGrid platform file")(
      "from", po::value<std::string>(), "sending node (default: the first node by name)")(
      "to", po::value<std::string>(), "receiving node (default: the second node by name)")(
      "set,s", po::value<std::vector<std::string>>()->composing(), "a selection setting KEY=VALUE (repeatable)")(
      "alltoall", po::value<std::uint32_t>(), "the alltoall table for this many PEs (at least 2)")(
      "threads", po::value<std::uint32_t>(), "with --alltoall: device threads, overriding xover:threads")(
      "mem", po::value<std::string>()->default_value("host"), "the buffers' memory type: host or cuda")(
      "json", "print JSON for scripts");
  po::variables_map vm;
  if (const auto status = parse_options("proto-info", args, opts, {}, vm)) {
    if (*status == 0)
      std::cout << "\nsettings for --set:\n" << SelectConfig::help();
    return *status;
  }

  ProtoInfoReport report;
  try {
    if (vm.count("set"))
      for (const std::string& assignment : vm["set"].as<std::vector<std::string>>())
        report.config.set(assignment);
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover proto-info: --set " << e.what() << "\n";
    return kExitBadInput;
  }

  if (vm.count("alltoall"))
    return alltoall_info(vm, report.config);
  if (vm.count("threads")) {
    std::cerr << "xover proto-info: --threads goes with --alltoall\n";
    return kExitBadInput;
  }

  try {
    report.platform_file = vm["platform"].as<std::string>();
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(report.platform_file);
    const auto& nodes = platform.nodes();
    if (nodes.size() < 2 && !(vm.count("from") && vm.count("to")))
      throw sim::PlatformError(report.platform_file + ": needs at least two nodes, has " +
                               std::to_string(nodes.size()));
    const std::string from = vm.count("from") ? vm["from"].as<std::string>() : nodes[0].name;
    const std::string to = vm.count("to") ? vm["to"].as<std::string>() : nodes[1].name;
    report.path = platform.path(from, to);
  } catch (const sim::PlatformError& e) {
    std::cerr << "xover proto-info: " << e.what() << "\n";
    return kExitBadInput;
  }

  const std::optional<MemType> mem = mem_type_named(vm["mem"].as<std::string>());
  if (!mem) {
    std::cerr << "xover proto-info: --mem: unknown memory type '" << vm["mem"].as<std::string>()
              << "' (known: host, cuda)\n";
    return kExitBadInput;
  }
  try {
    report.table = ThresholdTable::build(report.path, report.config, *mem);
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover proto-info: --set " << e.what() << "\n";
    return kExitBadInput;
  }
  // The seed's closed form prices host buffers.
  if (*mem == MemType::Host)
    report.closed_form = compare_closed_form(report.table, report.path, report.config);
  std::cout << (vm.count("json") ? format_proto_info_json(report) : format_proto_info_text(report));
  return 0;
}

}  // namespace xover::tools
