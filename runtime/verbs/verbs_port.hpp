// What the verbs transport learns from a port, and the choices it makes
// from that alone: which ports become lanes (every ACTIVE one, or those
// --ib-dev names), what a port's width and speed give in bytes per second,
// which GID a RoCE port is addressed by, and the words that say why there
// is no RDMA device. Device-free: verbs_ibv.cpp fills PortInfo from
// ibv_query_port and ibv_query_gid_table, the tests fill it by hand.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/units.hpp"
#include "runtime/backend_info.hpp"

namespace xover::runtime::verbs {

/// The values of enum ibv_port_attr::link_layer (UNSPECIFIED, from old
/// drivers, is InfiniBand).
enum class LinkLayer : std::uint8_t { Infiniband = 1, Ethernet = 2 };
/// The values of enum ibv_gid_type.
enum class GidType : std::uint8_t { Ib = 0, RoceV1 = 1, RoceV2 = 2 };

using Gid = std::array<std::uint8_t, 16>;

/// What kind of RDMA device a port belongs to (ibv_device's transport and
/// node type). Only an InfiniBand channel adapter, with InfiniBand or
/// Ethernet (RoCE) ports, has the RC queue pairs this backend connects by
/// LID or GID; an iWARP device (siw, cxgb4, irdma in iWARP mode) connects
/// only through rdma_cm, usNIC has no RC, and others (EFA: SRD, no RC)
/// neither. UCX skips them the same way.
enum class DeviceKind : std::uint8_t { InfinibandCa, Iwarp, Usnic, Other };

/// "iWARP (connects through rdma_cm only)" and the like.
std::string device_kind_name(DeviceKind kind);

/// One entry of a port's GID table.
struct GidEntry {
  std::uint8_t index = 0;
  GidType type = GidType::Ib;
  Gid gid{};
  std::uint8_t prefix = 0;  ///< an IPv4 GID's subnet prefix length on its interface; 0 when unknown
};

/// One port of one device, as the set-up found it.
struct PortInfo {
  std::string device;            ///< "mlx5_0"
  DeviceKind kind = DeviceKind::InfinibandCa;
  std::uint8_t port = 1;
  std::string state;             ///< ibv_port_state_str: "PORT_ACTIVE", "PORT_DOWN", ...
  bool active = false;
  LinkLayer link_layer = LinkLayer::Infiniband;
  std::uint16_t lid = 0;         ///< InfiniBand: the port's LID
  std::uint32_t mtu = 0;         ///< the active MTU in bytes (256 ... 4096)
  std::uint8_t width_code = 0;   ///< ibv_port_attr::active_width
  std::uint8_t speed_code = 0;   ///< ibv_port_attr::active_speed
  std::uint32_t max_msg_size = 0;
  std::vector<GidEntry> gids;    ///< the valid entries of the GID table

  /// "mlx5_0:1"
  std::string name() const { return device + ":" + std::to_string(port); }
  /// ACTIVE, on an InfiniBand channel adapter: a port that can be a lane.
  bool usable() const { return active && kind == DeviceKind::InfinibandCa; }
};

/// A port asked for by name: "mlx5_0:1", or "mlx5_0" for every ACTIVE port
/// of the device (port 0).
struct PortName {
  std::string device;
  std::uint8_t port = 0;
  bool operator==(const PortName&) const = default;
};

/// Parses --ib-dev's items ("mlx5_0:1", "mlx5_1", or several in one item
/// separated by commas); an empty list means every ACTIVE port. Throws
/// std::invalid_argument naming a bad item.
std::vector<PortName> parse_port_names(const std::vector<std::string>& items);

/// The lanes: indices into `ports`, in order. With no names, every usable
/// port (ACTIVE, of an InfiniBand or RoCE device) in the order found
/// (devices sorted by name, ports ascending), other devices skipped; with
/// names, those, in the order given. Throws std::invalid_argument when a
/// name matches no port, a named port is not ACTIVE or not of an
/// InfiniBand or RoCE device, a port is named twice, or no port is left,
/// listing the ports there are.
std::vector<std::size_t> select_ports(const std::vector<PortInfo>& ports, const std::vector<PortName>& wanted);

/// Bytes of data per second through a port of this width and speed (lanes
/// × per-lane data rate after line coding: SDR 2, DDR 4, QDR 8, FDR10 10,
/// FDR 13.64, EDR 25, HDR 50, NDR 100 Gb/s), or nothing for a code this
/// table does not know.
std::optional<BytesPerSecond> link_bandwidth(std::uint8_t width_code, std::uint8_t speed_code);

/// The value of enum ibv_mtu for an MTU in bytes (256 → 1 ... 4096 → 5), 0
/// when it is not one of them.
std::uint8_t mtu_code(std::uint32_t bytes);
/// The MTU in bytes of an enum ibv_mtu value, 0 when out of range.
std::uint32_t mtu_bytes(std::uint8_t code);

/// The GIDs a port may be addressed by, best first, for the set-up to try
/// in turn (it keeps the first that ibv_create_ah accepts). On Ethernet
/// (RoCE), after UCX's priorities: RoCE v2 with an IPv4 address, RoCE v2
/// with a global IPv6 address, RoCE v1 with an IPv4 address, RoCE v1 with
/// any other (v1 stays within one layer-2 network, where a link-local
/// address is as good); never RoCE v2 with a link-local IPv6 address,
/// which routes nowhere past its link and would connect only by luck. On
/// InfiniBand, GID index 0 (used only when a path needs a global route
/// header). Empty when the table has no usable entry.
std::vector<GidEntry> gid_candidates(LinkLayer link_layer, const std::vector<GidEntry>& gids);

/// An IPv4-mapped GID (::ffff:a.b.c.d).
bool is_ipv4_gid(const Gid& gid);
/// Whether two IPv4-mapped GIDs are in one subnet of `prefix` bits.
bool same_ipv4_subnet(const Gid& a, const Gid& b, std::uint8_t prefix);
/// "192.0.2.1" for an IPv4-mapped GID, else the GID in IPv6 notation.
std::string gid_text(const Gid& gid);

/// The RoCE traffic class (the IP header's DSCP and ECN bits) of a port:
/// what its driver's sysfs file says (`/sys/class/infiniband/DEV/tc/PORT/
/// traffic_class`, "Global tclass=N" or a number), else 106 (DSCP 26 with
/// ECN capable, UCX's default for RoCE: the lossless class of the usual
/// PFC set-ups; 0, best effort, is what such fabrics drop under load).
std::uint8_t roce_traffic_class(std::optional<std::string_view> sysfs);
inline constexpr std::uint8_t kRoceTrafficClass = 106;

/// The reason the backend table gives where no RDMA device can be used,
/// from what ibv_get_device_list said (`list_errno` non-zero when it
/// returned NULL) and the ports found ("mlx5_0:1 PORT_DOWN"); empty when an
/// ACTIVE port exists.
std::string no_device_reason(int list_errno, std::size_t devices, const std::vector<std::string>& ports,
                             bool any_active);

/// What `xover info` says of the verbs backend from what discovery found:
/// the devices listed, each port (state, link layer, LID, active MTU, link
/// rate, GIDs) and the problems met (why no port can be used is the
/// backend row's why-unavailable, which `xover info` prints beside this).
BackendInfo port_info(std::size_t listed, const std::vector<PortInfo>& ports, const std::vector<std::string>& problems);

}  // namespace xover::runtime::verbs
