#include "runtime/verbs/verbs_port.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace xover::runtime::verbs {
namespace {

std::string port_list(const std::vector<PortInfo>& ports) {
  std::string out;
  for (const PortInfo& p : ports)
    out += (out.empty() ? "" : ", ") + p.name() + " " + p.state;
  return out.empty() ? "none" : out;
}

bool is_ipv4_mapped(const Gid& gid) {
  for (int i = 0; i < 10; ++i)
    if (gid[static_cast<std::size_t>(i)] != 0)
      return false;
  return gid[10] == 0xff && gid[11] == 0xff;
}

}  // namespace

std::vector<PortName> parse_port_names(const std::vector<std::string>& given) {
  std::vector<std::string> items;
  for (const std::string& text : given)
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      if (comma > start)
        items.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
  std::vector<PortName> out;
  for (const std::string& item : items) {
    const std::size_t colon = item.find(':');
    PortName name;
    name.device = item.substr(0, colon);
    if (name.device.empty())
      throw std::invalid_argument("--ib-dev '" + item + "': no device name (give DEVICE:PORT, e.g. mlx5_0:1)");
    if (colon != std::string::npos) {
      const std::string port = item.substr(colon + 1);
      unsigned long n = 0;
      std::size_t used = 0;
      try {
        n = std::stoul(port, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (port.empty() || used != port.size() || n < 1 || n > 255)
        throw std::invalid_argument("--ib-dev '" + item + "': the port must be a number from 1 to 255");
      name.port = static_cast<std::uint8_t>(n);
    }
    out.push_back(name);
  }
  return out;
}

std::vector<std::size_t> select_ports(const std::vector<PortInfo>& ports, const std::vector<PortName>& wanted) {
  std::vector<std::size_t> lanes;
  if (wanted.empty()) {
    for (std::size_t i = 0; i < ports.size(); ++i)
      if (ports[i].active)
        lanes.push_back(i);
    if (lanes.empty())
      throw std::invalid_argument("no ACTIVE port (ports: " + port_list(ports) + ")");
    return lanes;
  }
  for (const PortName& w : wanted) {
    bool matched = false;
    for (std::size_t i = 0; i < ports.size(); ++i) {
      const PortInfo& p = ports[i];
      if (p.device != w.device || (w.port != 0 && p.port != w.port))
        continue;
      matched = true;
      if (!p.active) {
        if (w.port == 0)
          continue;  // a whole device: its ACTIVE ports only
        throw std::invalid_argument("--ib-dev " + p.name() + " is " + p.state + ", not ACTIVE (ports: " +
                                    port_list(ports) + ")");
      }
      for (std::size_t lane : lanes)
        if (lane == i)
          throw std::invalid_argument("--ib-dev names " + p.name() + " twice");
      lanes.push_back(i);
    }
    std::string named = w.device;
    if (w.port != 0) {
      named += ':';
      named += std::to_string(w.port);
    }
    if (!matched)
      throw std::invalid_argument("--ib-dev " + named + ": no such device or port (ports: " + port_list(ports) + ")");
  }
  if (lanes.empty())
    throw std::invalid_argument("--ib-dev names no ACTIVE port (ports: " + port_list(ports) + ")");
  return lanes;
}

std::optional<BytesPerSecond> link_bandwidth(std::uint8_t width_code, std::uint8_t speed_code) {
  double lanes = 0;
  switch (width_code) {
    case 1: lanes = 1; break;
    case 2: lanes = 4; break;
    case 4: lanes = 8; break;
    case 8: lanes = 12; break;
    case 16: lanes = 2; break;
    default: return std::nullopt;
  }
  // Data rate per lane in Gb/s: the signalling rate less the line code
  // (8b/10b up to QDR, 64b/66b for FDR10, FDR and EDR; HDR and NDR as rated).
  double gbps = 0;
  switch (speed_code) {
    case 1: gbps = 2.5 * 0.8; break;
    case 2: gbps = 5.0 * 0.8; break;
    case 4: gbps = 10.0 * 0.8; break;
    case 8: gbps = 10.3125 * 64 / 66; break;
    case 16: gbps = 14.0625 * 64 / 66; break;
    case 32: gbps = 25.78125 * 64 / 66; break;
    case 64: gbps = 50; break;
    case 128: gbps = 100; break;
    default: return std::nullopt;
  }
  return lanes * gbps * 1e9 / 8;
}

std::uint8_t mtu_code(std::uint32_t bytes) {
  for (std::uint8_t code = 1; code <= 5; ++code)
    if (mtu_bytes(code) == bytes)
      return code;
  return 0;
}

std::uint32_t mtu_bytes(std::uint8_t code) {
  return code >= 1 && code <= 5 ? std::uint32_t{128} << code : 0;
}

std::optional<GidEntry> choose_gid(LinkLayer link_layer, const std::vector<GidEntry>& gids) {
  if (gids.empty())
    return std::nullopt;
  if (link_layer == LinkLayer::Infiniband) {
    for (const GidEntry& g : gids)
      if (g.index == 0)
        return g;
    return gids.front();
  }
  const GidEntry* v2 = nullptr;
  const GidEntry* v1 = nullptr;
  for (const GidEntry& g : gids) {
    if (g.type == GidType::RoceV2 && is_ipv4_mapped(g.gid))
      return g;
    if (g.type == GidType::RoceV2 && !v2)
      v2 = &g;
    if (g.type == GidType::RoceV1 && !v1)
      v1 = &g;
  }
  if (v2)
    return *v2;
  if (v1)
    return *v1;
  return std::nullopt;
}

std::string no_device_reason(int list_errno, std::size_t devices, const std::vector<std::string>& ports,
                             bool any_active) {
  const std::string looked = "; looked for any RDMA device with an ACTIVE port through libibverbs' ibv_get_device_list";
  if (list_errno != 0) {
    std::string why = "no RDMA device: ibv_get_device_list failed: " + std::string(std::strerror(list_errno));
    if (list_errno == ENOSYS)
      why += " (ENOSYS: no kernel support: the ib_uverbs module is not loaded, or this kernel or container has no "
             "RDMA subsystem)";
    else
      why += " (errno " + std::to_string(list_errno) + ")";
    return why + looked;
  }
  if (devices == 0)
    return "no RDMA device: ibv_get_device_list found 0 devices (none under /sys/class/infiniband)" + looked;
  if (any_active)
    return {};
  std::string list;
  for (const std::string& p : ports)
    list += (list.empty() ? "" : ", ") + p;
  return "no RDMA device: " + std::to_string(devices) + " device(s) but no ACTIVE port (" +
         (list.empty() ? std::string("no port could be queried") : list) + ")" + looked;
}

BackendInfo port_info(std::size_t listed, const std::vector<PortInfo>& ports, const std::vector<std::string>& problems) {
  BackendInfo info;
  info.add("devices_listed", static_cast<std::int64_t>(listed));
  info.add("ports", static_cast<std::int64_t>(ports.size()));
  for (const PortInfo& p : ports) {
    InfoDevice& d = info.devices.emplace_back(InfoDevice{"port", p.name(), {}});
    d.add("state", p.state);
    d.add("link_layer", std::string(p.link_layer == LinkLayer::Ethernet ? "Ethernet (RoCE)" : "InfiniBand"));
    if (p.link_layer == LinkLayer::Infiniband)
      d.add("lid", static_cast<std::int64_t>(p.lid));
    d.add("active_mtu", static_cast<std::int64_t>(p.mtu));
    if (const std::optional<BytesPerSecond> bw = link_bandwidth(p.width_code, p.speed_code))
      d.add("link_gbps", static_cast<std::int64_t>(*bw * 8 / 1e9 + 0.5));
    else
      d.add("link_gbps", std::string("unknown width/speed code"));
    d.add("gids", static_cast<std::int64_t>(p.gids.size()));
  }
  for (const std::string& problem : problems)
    info.add("problem", problem);
  return info;
}

}  // namespace xover::runtime::verbs
