#include "protocols/registry.hpp"

#include <array>

#include "protocols/eager/eager.hpp"
#include "protocols/rndv/rndv.hpp"

namespace xover {
namespace {

const std::array kRegistry{
    &eager_short_proto, &eager_bcopy_proto,       &eager_zcopy_proto, &eager_multi_bcopy_proto,
    &eager_multi_zcopy_proto, &rndv_am_proto,     &rndv_get_proto,
};

}  // namespace

std::span<const Protocol* const> protocol_registry() {
  return kRegistry;
}

bool protocol_matches(const Protocol& protocol, std::string_view pattern) {
  return protocol.name == pattern ||
         (protocol.name.size() > pattern.size() && protocol.name.starts_with(pattern) &&
          protocol.name[pattern.size()] == '/');
}

bool protocol_name_known(std::string_view name) {
  for (const Protocol* protocol : kRegistry)
    if (protocol_matches(*protocol, name))
      return true;
  return false;
}

}  // namespace xover
