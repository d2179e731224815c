// xover proto-info: the thresholds table for one path of a platform.
#include <boost/program_options.hpp>
#include <iostream>

#include "sim/platform_loader.hpp"
#include "tools/commands.hpp"
#include "tools/proto_info_format.hpp"

namespace po = boost::program_options;

namespace xover::tools {

int proto_info_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover proto-info [--platform FILE] [--from NODE --to NODE] [--set KEY=VALUE ...] [--json]\n\n"
      "Prints the protocol thresholds table from one node to another of a SimGrid platform: which\n"
      "protocol each message size uses, over which lanes, each protocol's cost line, and the seed's\n"
      "closed-form rendezvous thresholds beside the envelope's.\n\noptions");
  opts.add_options()("help,h", "this help")(
      "platform,p", po::value<std::string>()->default_value(XOVER_DEFAULT_PLATFORM), "SimGrid platform file")(
      "from", po::value<std::string>(), "sending node (default: the first node by name)")(
      "to", po::value<std::string>(), "receiving node (default: the second node by name)")(
      "set,s", po::value<std::vector<std::string>>()->composing(), "a selection setting KEY=VALUE (repeatable)")(
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

  try {
    report.table = ThresholdTable::build(report.path, report.config);
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover proto-info: --set " << e.what() << "\n";
    return kExitBadInput;
  }
  report.closed_form = compare_closed_form(report.table, report.path, report.config);
  std::cout << (vm.count("json") ? format_proto_info_json(report) : format_proto_info_text(report));
  return 0;
}

}  // namespace xover::tools
