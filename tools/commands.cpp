#include "tools/commands.hpp"

#include <iostream>
#include <stdexcept>

#include "runtime/backends.hpp"

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

const runtime::Backend* usable_backend(const std::string& command, const std::string& name) {
  const runtime::Backend* backend = runtime::find_backend(name);
  if (!backend) {
    std::cerr << "xover " << command << ": unknown backend '" << name << "' (backends: " << runtime::backend_names()
              << ")\n";
    return nullptr;
  }
  if (const std::string why = backend->unavailable(); !why.empty()) {
    std::cerr << "xover " << command << ": backend " << name << ": " << why << "\n";
    return nullptr;
  }
  return backend;
}

std::string backends_help() {
  std::string out;
  for (const runtime::Backend* b : runtime::backends())
    out += "  " + std::string(b->name) + std::string(b->name.size() < 8 ? 8 - b->name.size() : 1, ' ') +
           std::string(b->summary) + "\n";
  return out;
}

void add_backend_options(po::options_description& opts) {
  for (const runtime::Backend* b : runtime::backends())
    for (const runtime::BackendOption& option : b->options)
      opts.add_options()(std::string(option.name).c_str(),
                         po::value<std::string>()->default_value(std::string(option.default_value)),
                         (std::string(b->name) + ": " + std::string(option.help)).c_str());
}

runtime::OptionValues backend_option_values(const runtime::Backend& backend, const po::variables_map& vm) {
  runtime::OptionValues values;
  for (const runtime::BackendOption& option : backend.options)
    if (vm.count(std::string(option.name)))
      values.emplace(option.name, vm[std::string(option.name)].as<std::string>());
  return values;
}

std::optional<std::any> read_backend_options(const std::string& command, const runtime::Backend& backend,
                                             const po::variables_map& vm, runtime::BackendUse use) {
  if (!backend.read_options)
    return std::any();
  try {
    return backend.read_options(backend_option_values(backend, vm), use);
  } catch (const std::invalid_argument& e) {
    std::cerr << "xover " << command << ": " << e.what() << "\n";
    return std::nullopt;
  }
}

}  // namespace xover::tools
