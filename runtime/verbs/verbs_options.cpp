#include "runtime/verbs/verbs_options.hpp"

#include <array>

namespace xover::runtime {
namespace {

constexpr std::array<BackendOption, 1> kOptions{{
    {"ib-dev", "", "ports to use, one lane each (mlx5_0:1,mlx5_1:1; default every ACTIVE port)"},
}};

}  // namespace

std::span<const BackendOption> verbs_option_list() {
  return kOptions;
}

std::any read_verbs_options(const OptionValues& values, BackendUse) {
  const std::string ports = option_text(values, kOptions, "ib-dev");
  return VerbsOptions{verbs::parse_port_names(ports.empty() ? std::vector<std::string>{}
                                                            : std::vector<std::string>{ports})};
}

VerbsOptions verbs_options(const RuntimeOptions& options) {
  return options.backend.has_value() ? std::any_cast<const VerbsOptions&>(options.backend) : VerbsOptions{};
}

}  // namespace xover::runtime
