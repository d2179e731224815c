#include "runtime/verbs/verbs_port.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace xover::runtime::verbs {
namespace {

std::string port_text(const PortInfo& p) {
  std::string text = p.name() + " " + p.state;
  if (p.kind != DeviceKind::InfinibandCa)
    text += " (" + device_kind_name(p.kind) + ")";
  return text;
}

std::string port_list(const std::vector<PortInfo>& ports) {
  std::string out;
  for (const PortInfo& p : ports)
    out += (out.empty() ? "" : ", ") + port_text(p);
  return out.empty() ? "none" : out;
}

bool is_link_local(const Gid& gid) {
  return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

}  // namespace

std::string device_kind_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::InfinibandCa: return "InfiniBand or RoCE";
    case DeviceKind::Iwarp: return "iWARP: connects through rdma_cm only";
    case DeviceKind::Usnic: return "usNIC: no RC queue pairs";
    case DeviceKind::Other: return "not InfiniBand or RoCE (EFA or the like): no RC queue pairs";
  }
  return "unknown";
}

bool is_ipv4_gid(const Gid& gid) {
  for (int i = 0; i < 10; ++i)
    if (gid[static_cast<std::size_t>(i)] != 0)
      return false;
  return gid[10] == 0xff && gid[11] == 0xff;
}

bool same_ipv4_subnet(const Gid& a, const Gid& b, std::uint8_t prefix) {
  const auto v4 = [](const Gid& g) {
    return std::uint32_t{g[12]} << 24 | std::uint32_t{g[13]} << 16 | std::uint32_t{g[14]} << 8 | g[15];
  };
  const std::uint32_t mask = prefix == 0 ? 0 : prefix >= 32 ? 0xffffffffU : ~((std::uint32_t{1} << (32 - prefix)) - 1);
  return (v4(a) & mask) == (v4(b) & mask);
}

std::string gid_text(const Gid& gid) {
  char out[48];
  if (is_ipv4_gid(gid)) {
    std::snprintf(out, sizeof out, "%u.%u.%u.%u", gid[12], gid[13], gid[14], gid[15]);
    return out;
  }
  std::string text;
  for (std::size_t i = 0; i < gid.size(); i += 2) {
    std::snprintf(out, sizeof out, "%s%x", i ? ":" : "", unsigned{gid[i]} << 8 | gid[i + 1]);
    text += out;
  }
  return text;
}

std::uint8_t roce_traffic_class(std::optional<std::string_view> sysfs) {
  if (!sysfs)
    return kRoceTrafficClass;
  std::string_view text = *sysfs;
  if (const std::size_t at = text.find("tclass="); at != std::string_view::npos)
    text.remove_prefix(at + 7);
  unsigned value = 0;
  std::size_t digits = 0;
  for (; digits < text.size() && digits < 4 && text[digits] >= '0' && text[digits] <= '9'; ++digits)
    value = value * 10 + static_cast<unsigned>(text[digits] - '0');
  return digits > 0 && value <= 255 ? static_cast<std::uint8_t>(value) : kRoceTrafficClass;
}

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
      if (ports[i].usable())
        lanes.push_back(i);
    if (lanes.empty())
      throw std::invalid_argument("no ACTIVE port of an InfiniBand or RoCE device (ports: " + port_list(ports) + ")");
    return lanes;
  }
  for (const PortName& w : wanted) {
    bool matched = false;
    for (std::size_t i = 0; i < ports.size(); ++i) {
      const PortInfo& p = ports[i];
      if (p.device != w.device || (w.port != 0 && p.port != w.port))
        continue;
      matched = true;
      if (p.kind != DeviceKind::InfinibandCa)
        throw std::invalid_argument("--ib-dev " + p.name() + " is a port of an " + device_kind_name(p.kind) +
                                    " device; the verbs backend connects RC queue pairs of InfiniBand or RoCE "
                                    "devices only (ports: " + port_list(ports) + ")");
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

std::vector<GidEntry> gid_candidates(LinkLayer link_layer, const std::vector<GidEntry>& gids) {
  std::vector<GidEntry> out;
  if (link_layer == LinkLayer::Infiniband) {
    for (const GidEntry& g : gids)
      if (g.index == 0)
        out.push_back(g);
    if (out.empty() && !gids.empty())
      out.push_back(gids.front());
    return out;
  }
  // Priority classes, best first; within a class, the table's order.
  const auto rank = [](const GidEntry& g) {
    if (g.type == GidType::RoceV2)
      return is_ipv4_gid(g.gid) ? 0 : is_link_local(g.gid) ? -1 : 1;
    if (g.type == GidType::RoceV1)
      return is_ipv4_gid(g.gid) ? 2 : 3;
    return -1;
  };
  for (int want = 0; want <= 3; ++want)
    for (const GidEntry& g : gids)
      if (rank(g) == want)
        out.push_back(g);
  return out;
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
    d.add("device_kind", device_kind_name(p.kind));
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
