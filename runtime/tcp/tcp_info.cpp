// What the TCP backend finds on this machine, for `xover info`: every
// network interface, whether it is up, its IPv4 addresses (the backend
// listens and connects on those: --tcp-if takes the names of interfaces
// that have one), its MTU and, where the kernel knows it, its link speed
// (/sys/class/net/NAME/speed; virtual links and the loopback have none).
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "runtime/tcp/tcp_transport.hpp"

namespace xover::runtime {
namespace {

struct Interface {
  std::string name;
  bool up = false;
  bool loopback = false;
  std::vector<std::string> ipv4;  ///< "10.0.0.2/24"
};

/// A whole number from /sys/class/net/NAME/FILE, or nothing where the file
/// is absent or, as speed is for a link with none, unreadable or negative.
std::optional<std::int64_t> sys_number(const std::string& name, const char* file) {
  std::ifstream in("/sys/class/net/" + name + "/" + file);
  std::int64_t n = -1;
  if (!(in >> n) || n < 0)
    return std::nullopt;
  return n;
}

std::string ipv4_text(const sockaddr* address, const sockaddr* netmask) {
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof text);
  const int prefix =
      netmask ? std::popcount(ntohl(reinterpret_cast<const sockaddr_in*>(netmask)->sin_addr.s_addr)) : 32;
  return std::string(text) + "/" + std::to_string(prefix);
}

}  // namespace

BackendInfo describe_tcp() {
  BackendInfo info;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) {
    info.add("interfaces", std::string("cannot be listed: ") + std::strerror(errno));
    return info;
  }
  std::vector<Interface> interfaces;
  for (const ifaddrs* i = list; i; i = i->ifa_next) {
    auto it = std::find_if(interfaces.begin(), interfaces.end(),
                           [&](const Interface& known) { return known.name == i->ifa_name; });
    if (it == interfaces.end())
      it = interfaces.insert(interfaces.end(), Interface{i->ifa_name, false, false, {}});
    it->up = it->up || (i->ifa_flags & IFF_UP) != 0;
    it->loopback = it->loopback || (i->ifa_flags & IFF_LOOPBACK) != 0;
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET)
      it->ipv4.push_back(ipv4_text(i->ifa_addr, i->ifa_netmask));
  }
  freeifaddrs(list);

  std::int64_t usable = 0;
  for (const Interface& i : interfaces) {
    InfoDevice& device = info.devices.emplace_back();
    device.kind = "interface";
    device.name = i.name;
    std::string addresses;
    for (const std::string& a : i.ipv4)
      addresses += (addresses.empty() ? "" : ", ") + a;
    device.add("state", std::string(i.up ? "up" : "down"));
    device.add("loopback", i.loopback);
    device.add("ipv4", addresses.empty() ? std::string("none") : addresses);
    if (const auto mtu = sys_number(i.name, "mtu"))
      device.add("mtu", *mtu);
    if (const auto speed = sys_number(i.name, "speed"))
      device.add("speed_mbps", *speed);
    else
      device.add("speed_mbps", std::string("unknown"));
    usable += i.up && !i.ipv4.empty() ? 1 : 0;
  }
  info.add("interfaces_up_with_ipv4", usable);
  return info;
}

}  // namespace xover::runtime
