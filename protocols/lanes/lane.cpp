#include "protocols/lanes/lane.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace xover {
namespace {

constexpr std::array<std::pair<LaneCap, std::string_view>, 7> kCapNames{{
    {LaneCap::AmShort, "am_short"},
    {LaneCap::AmBcopy, "am_bcopy"},
    {LaneCap::AmZcopy, "am_zcopy"},
    {LaneCap::PutZcopy, "put_zcopy"},
    {LaneCap::GetZcopy, "get_zcopy"},
    {LaneCap::Atomics, "atomics"},
    {LaneCap::ConnectToIface, "connect_to_iface"},
}};

}  // namespace

std::string LaneCaps::to_string() const {
  std::string out;
  for (auto [cap, name] : kCapNames) {
    if (!has(cap))
      continue;
    if (!out.empty())
      out += ',';
    out += name;
  }
  return out;
}

LaneCaps LaneCaps::parse(std::string_view text) {
  LaneCaps caps;
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    if (!item.empty()) {
      bool known = false;
      for (auto [cap, name] : kCapNames) {
        if (item == name) {
          caps.add(cap);
          known = true;
        }
      }
      if (!known) {
        std::string names;
        for (auto [cap, name] : kCapNames)
          names += (names.empty() ? "" : ", ") + std::string(name);
        throw std::invalid_argument("unknown capability '" + std::string(item) + "' (known: " + names + ")");
      }
    }
    if (comma == std::string_view::npos)
      break;
    text.remove_prefix(comma + 1);
  }
  return caps;
}

}  // namespace xover
