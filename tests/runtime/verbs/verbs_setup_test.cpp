// The verbs backend's set-up logic that needs no RDMA device, where none
// exists: the queue pair transition table and its plans for InfiniBand and
// RoCE, --ib-dev and the choice of ports, link rates, MTU codes, the RoCE
// GID choice, the no-device reason, and a lane's attributes from the
// port and the wire-up's figures.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <optional>

#include "runtime/verbs/verbs_figures.hpp"
#include "runtime/verbs/verbs_memlock.hpp"
#include "runtime/verbs/verbs_port.hpp"
#include "runtime/verbs/verbs_qp_plan.hpp"

namespace xover::runtime::verbs {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ---------------------------------------------------------------- queue pair plan

TEST(VerbsQpPlan, TheThreeStepsSetTheirAttributes) {
  const auto steps = qp_steps();
  ASSERT_EQ(steps.size(), 3U);
  EXPECT_EQ(steps[0].to, QpState::Init);
  EXPECT_THAT(steps[0].attrs, ElementsAre(QpAttr::State, QpAttr::PkeyIndex, QpAttr::Port, QpAttr::AccessFlags));
  EXPECT_EQ(steps[1].to, QpState::Rtr);
  EXPECT_THAT(steps[1].attrs, ElementsAre(QpAttr::State, QpAttr::AddressVector, QpAttr::PathMtu, QpAttr::DestQpn,
                                          QpAttr::RqPsn, QpAttr::MaxDestRdAtomic, QpAttr::MinRnrTimer));
  EXPECT_EQ(steps[2].to, QpState::Rts);
  EXPECT_THAT(steps[2].attrs, ElementsAre(QpAttr::State, QpAttr::SqPsn, QpAttr::Timeout, QpAttr::RetryCount,
                                          QpAttr::RnrRetry, QpAttr::MaxQpRdAtomic));
}

LaneAddress ib_port(std::uint16_t lid, std::uint32_t mtu, std::uint8_t rd_atomic) {
  LaneAddress a;
  a.link_layer = LinkLayer::Infiniband;
  a.lid = lid;
  a.mtu = mtu;
  a.rd_atomic = rd_atomic;
  a.gid = {0xfe, 0x80};
  return a;
}

TEST(VerbsQpPlan, InfiniBandWithinASubnet) {
  const QpPlan p = plan_qp(1, ib_port(3, 4096, 16), {0x101, 0x111}, ib_port(9, 2048, 8), {0x202, 0x222}, 16, 106);
  EXPECT_EQ(p.port, 1);
  EXPECT_TRUE(p.remote_read && p.remote_write && p.remote_atomic);
  EXPECT_FALSE(p.av.is_global);
  EXPECT_EQ(p.av.traffic_class, 0);  // no GRH: no traffic class
  EXPECT_EQ(p.av.dlid, 9);
  EXPECT_EQ(p.av.port, 1);
  EXPECT_EQ(p.path_mtu, 2048U);
  EXPECT_EQ(p.dest_qpn, 0x202U);
  EXPECT_EQ(p.rq_psn, 0x222U);        // the peer's first PSN
  EXPECT_EQ(p.sq_psn, 0x111U);        // ours
  EXPECT_EQ(p.max_dest_rd_atomic, 16);  // the reads this port serves
  EXPECT_EQ(p.max_rd_atomic, 8);        // what the peer serves, below our initiator depth
  EXPECT_EQ(p.min_rnr_timer, 13);
  EXPECT_EQ(p.timeout, 18);
  EXPECT_EQ(p.retry_cnt, 7);
  EXPECT_EQ(p.rnr_retry, 7);
}

// Another InfiniBand subnet is reached through a router, whose LID only the
// subnet manager's path records give: refused with the reason, not
// connected to the peer's own LID (which the router does not answer to).
TEST(VerbsQpPlan, InfinibandAcrossSubnetsIsRefusedWithTheReason) {
  LaneAddress far = ib_port(9, 4096, 16);
  far.gid[0] = 0xfd;
  try {
    plan_qp(1, ib_port(3, 4096, 16), {1, 1}, far, {2, 2}, 4, 106);
    ADD_FAILURE() << "planned a path to another InfiniBand subnet";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("another subnet"));
    EXPECT_THAT(e.what(), HasSubstr("router's LID"));
  }
}

LaneAddress roce_port(std::uint8_t last, std::uint8_t prefix) {
  LaneAddress a;
  a.link_layer = LinkLayer::Ethernet;
  a.gid_type = GidType::RoceV2;
  a.gid_index = 3;
  a.mtu = 1024;
  a.rd_atomic = 16;
  a.prefix = prefix;
  a.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, last};
  return a;
}

TEST(VerbsQpPlan, RoceRoutesByGidWithTheTrafficClass) {
  const LaneAddress a = roce_port(1, 24);
  LaneAddress b = roce_port(2, 24);
  b.gid_index = 5;
  const QpPlan p = plan_qp(2, a, {1, 1}, b, {2, 2}, 16, 106);
  EXPECT_TRUE(p.av.is_global);
  EXPECT_EQ(p.av.sgid_index, 3);  // ours
  EXPECT_EQ(p.av.dgid, b.gid);    // theirs
  EXPECT_EQ(p.av.hop_limit, 64);
  EXPECT_EQ(p.av.traffic_class, 106);  // DSCP 26, ECN capable: the lossless class, not best effort
  EXPECT_EQ(p.av.dlid, 0);
  EXPECT_EQ(p.path_mtu, 1024U);
  EXPECT_EQ(plan_qp(2, a, {1, 1}, b, {2, 2}, 16, 96).av.traffic_class, 96);

  EXPECT_THROW(plan_qp(1, a, {1, 1}, ib_port(3, 4096, 16), {2, 2}, 16, 106), std::invalid_argument);
  b.gid_type = GidType::RoceV1;
  EXPECT_THROW(plan_qp(1, a, {1, 1}, b, {2, 2}, 16, 106), std::invalid_argument);
}

TEST(VerbsQpPlan, RoceV2OutsideThePortsSubnetIsRefused) {
  LaneAddress far = roce_port(2, 24);
  far.gid[14] = 7;  // 10.0.7.2, not in 10.0.0.0/24
  try {
    plan_qp(1, roce_port(1, 24), {1, 1}, far, {2, 2}, 16, 106);
    ADD_FAILURE() << "planned a RoCE path across IPv4 subnets";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("10.0.7.2 is outside this port's subnet 10.0.0.1/24"));
  }
  EXPECT_NO_THROW(plan_qp(1, roce_port(1, 16), {1, 1}, far, {2, 2}, 16, 106));  // a /16 holds both
  EXPECT_NO_THROW(plan_qp(1, roce_port(1, 0), {1, 1}, far, {2, 2}, 16, 106));   // prefix unknown: not judged
}

TEST(VerbsQpPlan, TheTrafficClassComesFromSysfsOrIsDscp26) {
  EXPECT_EQ(roce_traffic_class(std::nullopt), 106);
  EXPECT_EQ(roce_traffic_class("Global tclass=96\n"), 96);
  EXPECT_EQ(roce_traffic_class("104\n"), 104);
  EXPECT_EQ(roce_traffic_class("garbage"), 106);
  EXPECT_EQ(roce_traffic_class("tclass=300"), 106);
}

// ---------------------------------------------------------------- ports

PortInfo port(const std::string& device, std::uint8_t n, bool active) {
  PortInfo p;
  p.device = device;
  p.port = n;
  p.active = active;
  p.state = active ? "PORT_ACTIVE" : "PORT_DOWN";
  return p;
}

TEST(VerbsPorts, IbDevNamesParse) {
  EXPECT_THAT(parse_port_names({"mlx5_0:1", "mlx5_1:2"}),
              ElementsAre(PortName{"mlx5_0", 1}, PortName{"mlx5_1", 2}));
  EXPECT_THAT(parse_port_names({"mlx5_0:1,mlx5_1"}), ElementsAre(PortName{"mlx5_0", 1}, PortName{"mlx5_1", 0}));
  EXPECT_THAT(parse_port_names({}), IsEmpty());
  for (const char* bad : {"mlx5_0:", ":1", "mlx5_0:x", "mlx5_0:0", "mlx5_0:256", "mlx5_0:1x"}) {
    try {
      parse_port_names({bad});
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr(std::string("'") + bad + "'"));
    }
  }
}

TEST(VerbsPorts, EveryActivePortIsALaneUnlessNamed) {
  const std::vector<PortInfo> ports{port("mlx5_0", 1, true), port("mlx5_0", 2, false), port("mlx5_1", 1, true)};
  EXPECT_THAT(select_ports(ports, {}), ElementsAre(0U, 2U));
  EXPECT_THAT(select_ports(ports, {{"mlx5_1", 1}, {"mlx5_0", 1}}), ElementsAre(2U, 0U));
  EXPECT_THAT(select_ports(ports, {{"mlx5_0", 0}}), ElementsAre(0U));  // a device: its ACTIVE ports
  auto message = [&](const std::vector<PortName>& names) {
    try {
      select_ports(ports, names);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message({{"mlx5_9", 1}}), HasSubstr("--ib-dev mlx5_9:1: no such device or port (ports: mlx5_0:1 "
                                                   "PORT_ACTIVE, mlx5_0:2 PORT_DOWN, mlx5_1:1 PORT_ACTIVE)"));
  EXPECT_THAT(message({{"mlx5_0", 2}}), HasSubstr("--ib-dev mlx5_0:2 is PORT_DOWN, not ACTIVE"));
  EXPECT_THAT(message({{"mlx5_0", 1}, {"mlx5_0", 1}}), HasSubstr("names mlx5_0:1 twice"));
  EXPECT_THAT(message({{"mlx5_0", 1}, {"mlx5_0", 0}}), HasSubstr("names mlx5_0:1 twice"));
  const std::vector<PortInfo> down{port("mlx5_0", 1, false)};
  EXPECT_THROW(select_ports(down, {}), std::invalid_argument);
  EXPECT_THROW(select_ports(down, {{"mlx5_0", 0}}), std::invalid_argument);
}

// siw, iWARP, EFA or usNIC beside a ConnectX: skipped unless named (and
// refused, with the reason, when named), never a failed set-up.
TEST(VerbsPorts, OnlyInfinibandAndRoceDevicesBecomeLanes) {
  PortInfo siw = port("siw0", 1, true);
  siw.kind = DeviceKind::Iwarp;
  PortInfo efa = port("efa_0", 1, true);
  efa.kind = DeviceKind::Other;
  PortInfo usnic = port("usnic_0", 1, true);
  usnic.kind = DeviceKind::Usnic;
  const std::vector<PortInfo> ports{efa, port("mlx5_0", 1, true), siw, usnic};
  EXPECT_THAT(select_ports(ports, {}), ElementsAre(1U));
  EXPECT_FALSE(ports[0].usable());
  EXPECT_TRUE(ports[1].usable());
  try {
    select_ports(ports, {{"siw0", 1}});
    ADD_FAILURE() << "siw0:1 taken as a lane";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("siw0:1 is a port of an iWARP"));
    EXPECT_THAT(e.what(), HasSubstr("InfiniBand or RoCE devices only"));
  }
  EXPECT_THROW(select_ports(ports, {{"efa_0", 0}}), std::invalid_argument);
  try {
    select_ports({siw, efa}, {});
    ADD_FAILURE() << "a lane without an InfiniBand or RoCE device";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("no ACTIVE port of an InfiniBand or RoCE device"));
    EXPECT_THAT(e.what(), HasSubstr("siw0:1 PORT_ACTIVE (iWARP: connects through rdma_cm only)"));
  }
}

TEST(VerbsPorts, WidthTimesSpeedIsTheLinkRate) {
  EXPECT_DOUBLE_EQ(*link_bandwidth(2, 32), 100e9 / 8);  // 4x EDR
  EXPECT_DOUBLE_EQ(*link_bandwidth(2, 64), 200e9 / 8);  // 4x HDR
  EXPECT_DOUBLE_EQ(*link_bandwidth(2, 128), 400e9 / 8);  // 4x NDR
  EXPECT_DOUBLE_EQ(*link_bandwidth(1, 1), 2e9 / 8);     // 1x SDR after 8b/10b
  EXPECT_NEAR(*link_bandwidth(2, 16), 4 * 14.0625e9 * 64 / 66 / 8, 1);  // 4x FDR
  EXPECT_FALSE(link_bandwidth(3, 32));
  EXPECT_FALSE(link_bandwidth(2, 3));
  for (std::uint32_t mtu : {256U, 512U, 1024U, 2048U, 4096U})
    EXPECT_EQ(mtu_bytes(mtu_code(mtu)), mtu);
  EXPECT_EQ(mtu_code(1500), 0);
  EXPECT_EQ(mtu_bytes(6), 0U);
}

// What xover info prints for verbs: each port with its state, link layer,
// LID (InfiniBand only), MTU and link rate, and the problems discovery met.
TEST(VerbsPorts, InfoListsEveryPort) {
  PortInfo ib = port("mlx5_0", 1, true);
  ib.lid = 7;
  ib.mtu = 4096;
  ib.width_code = 2;
  ib.speed_code = 64;
  PortInfo roce = port("mlx5_1", 1, false);
  roce.link_layer = LinkLayer::Ethernet;
  roce.mtu = 1024;
  const BackendInfo info = port_info(3, {ib, roce}, {"mlx5_2: cannot open: Permission denied"});
  ASSERT_EQ(info.devices.size(), 2U);
  EXPECT_EQ(info.devices[0].name, "mlx5_0:1");
  auto field = [](const std::vector<InfoField>& fields, const std::string& key) -> InfoValue {
    for (const InfoField& f : fields)
      if (f.key == key)
        return f.value;
    return std::string("absent");
  };
  EXPECT_EQ(field(info.devices[0].fields, "state"), InfoValue(std::string("PORT_ACTIVE")));
  EXPECT_EQ(field(info.devices[0].fields, "link_layer"), InfoValue(std::string("InfiniBand")));
  EXPECT_EQ(field(info.devices[0].fields, "lid"), InfoValue(std::int64_t{7}));
  EXPECT_EQ(field(info.devices[0].fields, "active_mtu"), InfoValue(std::int64_t{4096}));
  EXPECT_EQ(field(info.devices[0].fields, "link_gbps"), InfoValue(std::int64_t{200}));
  EXPECT_EQ(field(info.devices[1].fields, "link_layer"), InfoValue(std::string("Ethernet (RoCE)")));
  EXPECT_EQ(field(info.devices[1].fields, "lid"), InfoValue(std::string("absent")));
  EXPECT_EQ(field(info.devices[1].fields, "link_gbps"), InfoValue(std::string("unknown width/speed code")));
  EXPECT_EQ(field(info.fields, "devices_listed"), InfoValue(std::int64_t{3}));
  EXPECT_EQ(field(info.fields, "problem"), InfoValue(std::string("mlx5_2: cannot open: Permission denied")));
}

// Candidates best first, for the set-up to try with ibv_create_ah: v2 with
// IPv4, v2 with a global IPv6 address, v1 with IPv4, v1 with the rest;
// RoCE v2 with a link-local address never (it would connect only within
// its link, by luck).
TEST(VerbsPorts, RoceGidCandidatesByPriorityWithoutV2LinkLocal) {
  const Gid link_local{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  const Gid global6{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  const Gid ipv4{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 2};
  const std::vector<GidEntry> table{{0, GidType::RoceV1, link_local}, {1, GidType::RoceV2, link_local},
                                    {2, GidType::RoceV1, ipv4},       {3, GidType::RoceV2, ipv4},
                                    {4, GidType::RoceV1, global6},    {5, GidType::RoceV2, global6}};
  std::vector<int> order;
  for (const GidEntry& g : gid_candidates(LinkLayer::Ethernet, table))
    order.push_back(g.index);
  EXPECT_THAT(order, ElementsAre(3, 5, 2, 0, 4));
  const std::vector<GidEntry> only_link_local{table[1]};
  EXPECT_THAT(gid_candidates(LinkLayer::Ethernet, only_link_local), IsEmpty());  // no fallback to it
  EXPECT_THAT(gid_candidates(LinkLayer::Ethernet, {{0, GidType::Ib, link_local}}), IsEmpty());
  EXPECT_THAT(gid_candidates(LinkLayer::Ethernet, {}), IsEmpty());
  const auto ib = gid_candidates(LinkLayer::Infiniband, {{1, GidType::Ib, ipv4}, {0, GidType::Ib, link_local}});
  ASSERT_EQ(ib.size(), 1U);
  EXPECT_EQ(ib[0].index, 0);
  EXPECT_TRUE(is_ipv4_gid(ipv4));
  EXPECT_FALSE(is_ipv4_gid(global6));
  EXPECT_EQ(gid_text(ipv4), "192.168.1.2");
  EXPECT_EQ(gid_text(global6), "2001:db8:0:0:102:304:506:708");
  Gid other = ipv4;
  other[14] = 9;
  EXPECT_TRUE(same_ipv4_subnet(ipv4, other, 16));
  EXPECT_FALSE(same_ipv4_subnet(ipv4, other, 24));
  EXPECT_TRUE(same_ipv4_subnet(ipv4, other, 0));
}

TEST(VerbsPorts, NoDeviceSaysWhyAndWhatItLookedFor) {
  const std::string nosys = no_device_reason(ENOSYS, 0, {}, false);
  EXPECT_THAT(nosys, HasSubstr("no RDMA device: ibv_get_device_list failed: "));
  EXPECT_THAT(nosys, HasSubstr("ENOSYS: no kernel support"));
  EXPECT_THAT(nosys, HasSubstr("looked for any RDMA device with an ACTIVE port"));
  EXPECT_THAT(no_device_reason(EACCES, 0, {}, false), HasSubstr("(errno " + std::to_string(EACCES) + ")"));
  EXPECT_THAT(no_device_reason(0, 0, {}, false), HasSubstr("found 0 devices"));
  EXPECT_THAT(no_device_reason(0, 2, {"mlx5_0:1 PORT_DOWN", "mlx5_1: cannot open: denied"}, false),
              HasSubstr("2 device(s) but no ACTIVE port (mlx5_0:1 PORT_DOWN, mlx5_1: cannot open: denied)"));
  EXPECT_EQ(no_device_reason(0, 1, {"mlx5_0:1 PORT_ACTIVE"}, true), "");
}

// ---------------------------------------------------------------- locked memory

// What the set-up pins against RLIMIT_MEMLOCK, before the first
// registration: a limit too low is said with both numbers and what to do
// (before, ibv_reg_mr failed with ENOMEM and the message gave neither).
TEST(VerbsMemlock, ALowLimitIsSaidWithNumbersBeforeAnythingIsPinned) {
  const Bytes need = Bytes{52} << 20;
  const std::string problem = memlock_problem(need, {Bytes{8} << 20, false});
  EXPECT_THAT(problem, HasSubstr("pins about 52.0 MiB"));
  EXPECT_THAT(problem, HasSubstr("RLIMIT_MEMLOCK (ulimit -l) is 8.0 MiB"));
  EXPECT_THAT(problem, HasSubstr("ulimit -l unlimited"));
  EXPECT_THAT(memlock_problem(need, {Bytes{64} << 10, false}), HasSubstr("is 64 KiB"));
  EXPECT_EQ(memlock_problem(need, {std::nullopt, false}), "");        // unlimited
  EXPECT_EQ(memlock_problem(need, {Bytes{8} << 20, true}), "");       // CAP_IPC_LOCK: no limit applies
  EXPECT_EQ(memlock_problem(need, {Bytes{64} << 20, false}), "");
  EXPECT_THAT(memlock_hint(Bytes{4} << 20, {Bytes{8} << 20, false}),
              HasSubstr("RLIMIT_MEMLOCK (ulimit -l) is 8.0 MiB and this registration pins 4.0 MiB more"));
  EXPECT_EQ(memlock_hint(Bytes{4} << 20, {std::nullopt, false}), "");
}

// ---------------------------------------------------------------- figures

TEST(VerbsFigures, RegistrationIsFittedByLeastSquares) {
  std::vector<std::pair<Bytes, Seconds>> samples;
  for (const Bytes n : {Bytes{4096}, Bytes{65536}, Bytes{1} << 20, Bytes{8} << 20})
    samples.emplace_back(n, 12e-6 + 0.08e-9 * static_cast<double>(n));
  RegLine line = fit_registration(samples);
  EXPECT_NEAR(line.cost, 12e-6, 1e-12);
  EXPECT_NEAR(line.growth, 0.08e-9, 1e-18);
  samples = {{4096, 1e-6}, {8192, 0.5e-6}};  // falling: noise, floored
  line = fit_registration(samples);
  EXPECT_EQ(line.growth, 0);
  EXPECT_NEAR(line.cost, 0.75e-6, 1e-15);
  EXPECT_THROW(fit_registration({{4096, 1e-6}, {4096, 2e-6}}), std::invalid_argument);
}

TEST(VerbsFigures, LatencyIsWhatTheOverheadsLeave) {
  EXPECT_DOUBLE_EQ(one_way_latency(3e-6, {0.2e-6, 0.3e-6}, {0.25e-6, 0.25e-6}), 1e-6);
  EXPECT_EQ(one_way_latency(0.5e-6, {0.2e-6, 0.3e-6}, {0.25e-6, 0.25e-6}), 0);
}

TEST(VerbsFigures, LaneAttributesFromThePortAndTheMeasurements) {
  LaneLimits limits{220, 8192, Bytes{2} << 30, true, true};
  const LaneAttrs a = lane_attrs("mlx5_0:1", limits, {1.1e-6, 11.5e9, {0.1e-6, 0.2e-6}}, {14e-6, 0.05e-9});
  EXPECT_EQ(a.name, "mlx5_0:1");
  EXPECT_EQ(a.max_short, 212U);
  EXPECT_EQ(a.max_bcopy, 8184U);
  EXPECT_EQ(a.seg_size, 8184U);
  EXPECT_EQ(a.max_zcopy, Bytes{1} << 30);
  EXPECT_EQ(a.latency, 1.1e-6);
  EXPECT_EQ(a.bandwidth, 11.5e9);
  EXPECT_EQ(a.o_send, 0.1e-6);
  EXPECT_EQ(a.o_recv, 0.2e-6);
  EXPECT_EQ(a.reg_cost, 14e-6);
  EXPECT_EQ(a.reg_growth, 0.05e-9);
  EXPECT_EQ(a.caps, (LaneCaps{LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::AmZcopy, LaneCap::PutZcopy,
                              LaneCap::GetZcopy, LaneCap::Atomics}));
  limits = {12, 8192, 1 << 20, false, false, 12.5e9};
  EXPECT_EQ(lane_attrs("x", limits, {1e-6, 13e9, {}, false}, {}).bandwidth, 12.5e9);  // another host: the wire's rate
  EXPECT_EQ(lane_attrs("x", limits, {1e-6, 13e9, {}, true}, {}).bandwidth, 13e9);     // this host: the HCA's loopback
  EXPECT_EQ(lane_attrs("x", limits, {1e-6, 11e9, {}, false}, {}).bandwidth, 11e9);
  const LaneAttrs b = lane_attrs("rxe0:1", limits, {}, {});
  EXPECT_EQ(b.max_short, 0U);
  EXPECT_EQ(b.max_zcopy, Bytes{1} << 20);
  EXPECT_EQ(b.caps, (LaneCaps{LaneCap::AmBcopy, LaneCap::AmZcopy, LaneCap::PutZcopy}));
}

}  // namespace
}  // namespace xover::runtime::verbs
