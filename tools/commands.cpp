#include "tools/commands.hpp"

#include <iostream>

namespace po = boost::program_options;

namespace xover::tools {

std::optional<int> parse_options(const std::string& command, const std::vector<std::string>& args,
                                 const po::options_description& opts,
                                 const po::positional_options_description& positional, po::variables_map& vm) {
  try {
    po::store(po::command_line_parser(args).options(opts).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "xover " << command << ": " << e.what() << " (see xover " << command << " --help)\n";
    return kExitBadInput;
  }
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  return std::nullopt;
}

}  // namespace xover::tools
