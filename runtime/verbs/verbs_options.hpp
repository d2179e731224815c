// The verbs backend's option (its row's, runtime/backends.hpp): which
// ports become lanes. Device-free: built and tested in every build.
//
//   RuntimeOptions options;
//   options.backend = VerbsOptions{.ports = {{"mlx5_0", 1}, {"mlx5_1", 1}}};   // two rails: two lanes
//   auto transport = make_verbs_transport(boot, options);
#pragma once

#include <any>
#include <array>
#include <vector>

#include "runtime/backend_options.hpp"
#include "runtime/bootstrap.hpp"
#include "runtime/verbs/verbs_port.hpp"

namespace xover::runtime {

struct VerbsOptions {
  /// The ports to use, one lane each ("mlx5_0:1", or "mlx5_0" for every
  /// ACTIVE port of a device); empty: every ACTIVE port.
  std::vector<verbs::PortName> ports;
};

/// --ib-dev, with its default (every ACTIVE port).
inline constexpr std::array<BackendOption, 1> kVerbsOptions{{
    {"ib-dev", "", "ports to use, one lane each (mlx5_0:1,mlx5_1:1; default every ACTIVE port)"},
}};

/// The option's text read into a VerbsOptions.
/// @throws std::invalid_argument naming a bad item of --ib-dev.
std::any read_verbs_options(const OptionValues& values, BackendUse use);

/// The VerbsOptions `options` carries, or the defaults when it carries none.
VerbsOptions verbs_options(const RuntimeOptions& options);

}  // namespace xover::runtime
