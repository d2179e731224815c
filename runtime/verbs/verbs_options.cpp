#include "runtime/verbs/verbs_options.hpp"

namespace xover::runtime {

std::any read_verbs_options(const OptionValues& values, BackendUse) {
  const std::string ports = option_text(values, kVerbsOptions, "ib-dev");
  return VerbsOptions{verbs::parse_port_names(ports.empty() ? std::vector<std::string>{}
                                                            : std::vector<std::string>{ports})};
}

VerbsOptions verbs_options(const RuntimeOptions& options) {
  return options.backend.has_value() ? std::any_cast<const VerbsOptions&>(options.backend) : VerbsOptions{};
}

}  // namespace xover::runtime
