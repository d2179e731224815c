#include "tools/alltoall_info.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "protocols/registry.hpp"
#include "tools/json.hpp"
#include "tools/proto_info_format.hpp"

namespace xover::tools {
namespace {

/// Where the NIC becomes the bandwidth bound: n·G = g.
Bytes gap_bound(const AlltoallParams& p) {
  return static_cast<Bytes>(p.gap * p.bandwidth);
}

/// The factor selection multiplies a flavour's cost by.
double bias(const Protocol& protocol, double direct_perf_diff) {
  return protocol.flavour == AlltoallFlavour::Direct ? 1 + direct_perf_diff / 100 : 1.0;
}

/// The GPU lane's terms (launch, posting contention, doorbell batch, the
/// engine's gap and bandwidth, proxy threads, ring capacity): a line only
/// where the platform sets one, as a host platform sets none.
std::string gpu_lane_line(const DeviceAttrs& d) {
  const DeviceAttrs none;
  if (d.launch == none.launch && d.post_slope == none.post_slope && d.doorbell_batch == none.doorbell_batch &&
      d.engine_gap == none.engine_gap && d.engine_bw == none.engine_bw && d.proxy_threads == none.proxy_threads &&
      d.ring_capacity == none.ring_capacity)
    return "";
  char bw[32] = "unbounded";
  if (std::isfinite(d.engine_bw))
    std::snprintf(bw, sizeof bw, "%.3f GB/s", d.engine_bw / 1e9);
  std::ostringstream os;
  os << "#   gpu lane launch " << format_time(d.launch) << "  post slope " << format_time(d.post_slope)
     << "  doorbell batch " << d.doorbell_batch << "  engine gap " << format_time(d.engine_gap) << "  engine "
     << bw << "  proxy threads " << d.proxy_threads << "  ring " << d.ring_capacity << " commands\n";
  return os.str();
}

}  // namespace

std::string format_alltoall_info_text(const AlltoallInfo& info) {
  const AlltoallParams& p = info.params;
  std::ostringstream os;
  os << "# xover proto-info --alltoall " << p.pes << "\n";
  os << "# platform    " << info.platform_file << "\n";
  os << "# PEs         the platform's first " << p.pes
     << " nodes; every pair as the first two, over their put lane (the first with put_zcopy)\n";
  os << format_lane_line(info.lane);
  os << "#   device   o_d " << format_time(p.device.device_o) << "  threads " << p.device.threads << "  proxy o_p "
     << format_time(p.device.proxy_o) << "  wake-up " << format_time(p.device.proxy_wake) << "\n";
  os << gpu_lane_line(p.device);
  os << "# operation   alltoall of " << p.pes << " PEs, n bytes to each other PE with put_signal, host memory ("
     << "bandwidth-bound from " << gap_bound(p) + 1 << " B)\n";
  char diff[32];
  std::snprintf(diff, sizeof diff, "%g%%", info.direct_perf_diff);
  os << "# settings    direct_perf_diff=" << diff << " (coll/alltoall/direct must win by it)\n";
  std::vector<TableRow> rows;
  for (const EnvelopeRange& range : alltoall_selection(p, info.direct_perf_diff))
    rows.push_back(
        {range.from, range.to, std::string(protocols_for(ProtoOp::Alltoall)[range.index]->name), info.lane.name});
  os << format_table_rows(rows);
  os << "\ncost lines, T(n) = c + m*n from the start to the last put's landing (selection multiplies "
        "coll/alltoall/direct by 1 + direct_perf_diff)\n";
  for (const Protocol* protocol : protocols_for(ProtoOp::Alltoall))
    for (const Piece& piece : alltoall_cost(protocol->flavour, p))
      os << format_cost_line(protocol->name, piece.from, piece.to, piece.f, protocol->description);
  return os.str();
}

std::string format_alltoall_info_json(const AlltoallInfo& info) {
  const AlltoallParams& p = info.params;
  const LaneAttrs& lane = info.lane;
  JsonWriter json;
  json.begin_object();
  json.key("platform").value(info.platform_file);
  json.key("operation").value("alltoall");
  json.key("memory").value("host");
  json.key("pes").value(std::uint64_t{p.pes});
  json.key("lanes").begin_array().begin_object();
  json.key("name").value(lane.name).key("latency").value(lane.latency).key("bandwidth").value(lane.bandwidth);
  json.key("o_send").value(lane.o_send).key("o_recv").value(lane.o_recv).key("gap").value(lane.gap);
  json.key("caps").value(lane.caps.to_string()).end_object().end_array();
  json.key("device").begin_object();
  json.key("device_o").value(p.device.device_o).key("threads").value(std::uint64_t{p.device.threads});
  json.key("proxy_o").value(p.device.proxy_o).key("proxy_wake").value(p.device.proxy_wake);
  json.key("launch").value(p.device.launch).key("post_slope").value(p.device.post_slope);
  json.key("doorbell_batch").value(std::uint64_t{p.device.doorbell_batch}).key("engine_gap").value(p.device.engine_gap);
  if (std::isfinite(p.device.engine_bw))
    json.key("engine_bw").value(p.device.engine_bw);
  else
    json.key("engine_bw").null();
  json.key("proxy_threads").value(std::uint64_t{p.device.proxy_threads});
  json.key("ring_capacity").value(std::uint64_t{p.device.ring_capacity}).end_object();
  json.key("direct_perf_diff").value(info.direct_perf_diff);
  json.key("ranges").begin_array();
  for (const EnvelopeRange& range : alltoall_selection(p, info.direct_perf_diff)) {
    json.begin_object().key("from").value(std::uint64_t{range.from}).key("to").size_limit(range.to);
    json.key("protocol").value(protocols_for(ProtoOp::Alltoall)[range.index]->name);
    json.key("lanes").begin_array().begin_object().key("name").value(lane.name).key("share").value(1.0);
    json.end_object().end_array().end_object();
  }
  json.end_array();
  json.key("costs").begin_array();
  for (const Protocol* protocol : protocols_for(ProtoOp::Alltoall)) {
    json.begin_object().key("protocol").value(protocol->name).key("bias").value(bias(*protocol, info.direct_perf_diff));
    json.key("ranges").begin_array();
    for (const Piece& piece : alltoall_cost(protocol->flavour, p)) {
      json.begin_object().key("from").value(std::uint64_t{piece.from}).key("to").size_limit(piece.to);
      json.key("c").value(piece.f.c).key("m").value(piece.f.m).end_object();
    }
    json.end_array().end_object();
  }
  json.end_array();
  json.end_object();
  return json.str();
}

}  // namespace xover::tools
