#include "runtime/verbs/verbs_ibv.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace xover::runtime::verbs {
namespace {

GidType gid_type_of(std::uint32_t type) {
  switch (type) {
    case IBV_GID_TYPE_ROCE_V1: return GidType::RoceV1;
    case IBV_GID_TYPE_ROCE_V2: return GidType::RoceV2;
    default: return GidType::Ib;
  }
}

GidEntry gid_entry(const ibv_gid_entry& e) {
  GidEntry g;
  g.index = static_cast<std::uint8_t>(e.gid_index);
  g.type = gid_type_of(e.gid_type);
  std::copy(std::begin(e.gid.raw), std::end(e.gid.raw), g.gid.begin());
  return g;
}

DeviceKind kind_of(const ibv_device* dev) {
  switch (dev->transport_type) {
    case IBV_TRANSPORT_IB: return dev->node_type == IBV_NODE_CA ? DeviceKind::InfinibandCa : DeviceKind::Other;
    case IBV_TRANSPORT_IWARP: return DeviceKind::Iwarp;
    case IBV_TRANSPORT_USNIC:
    case IBV_TRANSPORT_USNIC_UDP: return DeviceKind::Usnic;
    default: return DeviceKind::Other;
  }
}

/// The subnet prefix length of each IPv4 GID, from the interface that holds
/// its address (getifaddrs); left 0 where none does.
void fill_prefixes(std::vector<PortInfo>& ports, std::size_t first) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0)
    return;
  for (std::size_t p = first; p < ports.size(); ++p)
    for (GidEntry& g : ports[p].gids) {
      if (!is_ipv4_gid(g.gid))
        continue;
      for (const ifaddrs* a = list; a; a = a->ifa_next) {
        if (!a->ifa_addr || !a->ifa_netmask || a->ifa_addr->sa_family != AF_INET)
          continue;
        const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
        if (std::memcmp(&in->sin_addr, g.gid.data() + 12, 4) != 0)
          continue;
        const auto* mask = reinterpret_cast<const sockaddr_in*>(a->ifa_netmask);
        g.prefix = static_cast<std::uint8_t>(std::popcount(mask->sin_addr.s_addr));
        break;
      }
    }
  freeifaddrs(list);
}

// The valid GID entries of the ports of a device from `first` on (the GID
// table of each `lengths[i]` long): one call for the whole table, or entry
// by entry where the kernel lacks it.
void read_gids(ibv_context* context, std::vector<PortInfo>& ports, std::size_t first,
               const std::vector<std::uint32_t>& lengths) {
  std::size_t table = 0;
  for (const std::uint32_t n : lengths)
    table += n;
  std::vector<ibv_gid_entry> entries(table);
  const ssize_t n = table ? ibv_query_gid_table(context, entries.data(), entries.size(), 0) : 0;
  if (n >= 0) {
    for (ssize_t i = 0; i < n; ++i)
      for (std::size_t p = first; p < ports.size(); ++p)
        if (ports[p].port == entries[static_cast<std::size_t>(i)].port_num && entries[static_cast<std::size_t>(i)].gid_index < 256)
          ports[p].gids.push_back(gid_entry(entries[static_cast<std::size_t>(i)]));
    return;
  }
  for (std::size_t p = first; p < ports.size(); ++p)
    for (std::uint32_t index = 0; index < std::min<std::uint32_t>(lengths[p - first], 256); ++index) {
      ibv_gid_entry e{};
      const int error = ibv_query_gid_ex(context, ports[p].port, index, &e, 0);
      if (error == 0)
        ports[p].gids.push_back(gid_entry(e));
      else if (error != ENODATA)  // ENODATA: an empty entry
        break;
    }
}

}  // namespace

Slab make_slab(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t size = std::max<std::size_t>(page, (bytes + page - 1) / page * page);
  auto* p = static_cast<std::byte*>(std::aligned_alloc(page, size));
  if (!p)
    throw std::bad_alloc();
  std::memset(p, 0, size);
  return Slab(p);
}

bool Discovery::any_active() const {
  return std::any_of(ports.begin(), ports.end(), [](const PortInfo& p) { return p.usable(); });
}

std::string Discovery::reason() const {
  std::vector<std::string> seen;
  for (const PortInfo& p : ports)
    seen.push_back(p.name() + " " + p.state +
                   (p.kind == DeviceKind::InfinibandCa ? "" : " (" + device_kind_name(p.kind) + ")"));
  seen.insert(seen.end(), problems.begin(), problems.end());
  return no_device_reason(list_errno, listed, seen, any_active());
}

Discovery discover() {
  Discovery d;
  int count = 0;
  errno = 0;
  const std::unique_ptr<ibv_device*, DeviceListFree> list(ibv_get_device_list(&count));
  if (!list) {
    d.list_errno = errno != 0 ? errno : ENODEV;
    return d;
  }
  d.listed = static_cast<std::size_t>(count);
  std::vector<ibv_device*> listed(list.get(), list.get() + count);
  std::sort(listed.begin(), listed.end(), [](ibv_device* a, ibv_device* b) {
    return std::strcmp(ibv_get_device_name(a), ibv_get_device_name(b)) < 0;
  });
  for (ibv_device* dev : listed) {
    auto device = std::make_unique<Device>();
    device->name = ibv_get_device_name(dev);
    const DeviceKind kind = kind_of(dev);
    device->context.reset(ibv_open_device(dev));
    if (!device->context) {
      d.problems.push_back(device->name + ": cannot open: " + errno_text(errno));
      continue;
    }
    if (const int e = ibv_query_device(device->context.get(), &device->attr); e != 0) {
      d.problems.push_back(device->name + ": ibv_query_device: " + errno_text(e));
      continue;
    }
    device->pd.reset(ibv_alloc_pd(device->context.get()));
    if (!device->pd) {
      d.problems.push_back(device->name + ": ibv_alloc_pd: " + errno_text(errno));
      continue;
    }
    const std::size_t first = d.ports.size();
    std::vector<std::uint32_t> lengths;
    for (std::uint8_t port = 1; port <= device->attr.phys_port_cnt && port != 0; ++port) {
      ibv_port_attr attr{};
      if (const int e = ibv_query_port(device->context.get(), port, &attr); e != 0) {
        d.problems.push_back(device->name + ":" + std::to_string(port) + ": ibv_query_port: " + errno_text(e));
        continue;
      }
      PortInfo p;
      p.device = device->name;
      p.kind = kind;
      p.port = port;
      p.state = ibv_port_state_str(attr.state);
      p.active = attr.state == IBV_PORT_ACTIVE;
      p.link_layer = attr.link_layer == IBV_LINK_LAYER_ETHERNET ? LinkLayer::Ethernet : LinkLayer::Infiniband;
      p.lid = attr.lid;
      p.mtu = mtu_bytes(static_cast<std::uint8_t>(attr.active_mtu));
      p.width_code = attr.active_width;
      p.speed_code = attr.active_speed;
      p.max_msg_size = attr.max_msg_sz;
      lengths.push_back(static_cast<std::uint32_t>(std::max(attr.gid_tbl_len, 0)));
      d.ports.push_back(std::move(p));
      d.port_device.push_back(d.devices.size());
    }
    read_gids(device->context.get(), d.ports, first, lengths);
    fill_prefixes(d.ports, first);
    d.devices.push_back(std::move(device));
  }
  return d;
}

std::string wc_status_text(const ibv_wc& wc) {
  char tail[64];
  std::snprintf(tail, sizeof tail, " (status %d, vendor error 0x%x)", static_cast<int>(wc.status), wc.vendor_err);
  return std::string(ibv_wc_status_str(wc.status)) + tail;
}

std::string errno_text(int error) {
  return std::string(std::strerror(error)) + " (errno " + std::to_string(error) + ")";
}

}  // namespace xover::runtime::verbs
