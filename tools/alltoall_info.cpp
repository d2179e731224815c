#include "tools/alltoall_info.hpp"

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

}  // namespace

std::string format_alltoall_info_text(const AlltoallInfo& info) {
  const AlltoallParams& p = info.params;
  std::ostringstream os;
  os << "# xover proto-info --alltoall " << p.pes << "\n";
  os << "# platform    " << info.platform_file << "\n";
  os << "# lane        " << info.lane << "  L " << format_time(p.latency) << "  " << p.bandwidth / 1e9
     << " GB/s  g " << format_time(p.gap) << " (bandwidth-bound from " << gap_bound(p) + 1 << " B)\n";
  os << "# device      o_d " << format_time(p.device.device_o) << "  threads " << p.device.threads << "  proxy o_p "
     << format_time(p.device.proxy_o) << "  wake-up " << format_time(p.device.proxy_wake) << "\n";
  os << "# operation   alltoall of " << p.pes << " PEs, n bytes to each other PE; the direct flavour must win by "
     << info.direct_perf_diff << " %\n";
  const std::string rule(60, '-');
  os << rule << "\n";
  char buf[256];
  for (const EnvelopeRange& range : alltoall_selection(p, info.direct_perf_diff)) {
    std::snprintf(buf, sizeof buf, "  %-30s %s\n", range_text(range.from, range.to).c_str(),
                  std::string(coll_registry()[range.index]->name).c_str());
    os << buf;
  }
  os << rule << "\n\ncost lines, T(n) = c + m*n from the start to the last put's landing\n";
  for (const CollProtocol* protocol : coll_registry())
    for (const Piece& piece : alltoall_cost(protocol->flavour, p)) {
      std::snprintf(buf, sizeof buf, "  %-22s %-26s c %-11s m %10.5f ns/B  (%s)\n",
                    std::string(protocol->name).c_str(), range_text(piece.from, piece.to).c_str(),
                    format_time(piece.f.c).c_str(), piece.f.m * 1e9, std::string(protocol->description).c_str());
      os << buf;
    }
  return os.str();
}

std::string format_alltoall_info_json(const AlltoallInfo& info) {
  const AlltoallParams& p = info.params;
  JsonWriter json;
  json.begin_object();
  json.key("platform").value(info.platform_file);
  json.key("pes").value(std::uint64_t{p.pes});
  json.key("lane").begin_object();
  json.key("name").value(info.lane).key("latency").value(p.latency).key("bandwidth").value(p.bandwidth);
  json.key("gap").value(p.gap).end_object();
  json.key("device").begin_object();
  json.key("device_o").value(p.device.device_o).key("threads").value(std::uint64_t{p.device.threads});
  json.key("proxy_o").value(p.device.proxy_o).key("proxy_wake").value(p.device.proxy_wake).end_object();
  json.key("direct_perf_diff").value(info.direct_perf_diff);
  json.key("ranges").begin_array();
  for (const EnvelopeRange& range : alltoall_selection(p, info.direct_perf_diff)) {
    json.begin_object().key("from").value(std::uint64_t{range.from}).key("to").size_limit(range.to);
    json.key("protocol").value(coll_registry()[range.index]->name).end_object();
  }
  json.end_array();
  json.key("costs").begin_array();
  for (const CollProtocol* protocol : coll_registry())
    for (const Piece& piece : alltoall_cost(protocol->flavour, p)) {
      json.begin_object().key("protocol").value(protocol->name).key("from").value(std::uint64_t{piece.from});
      json.key("to").size_limit(piece.to).key("c").value(piece.f.c).key("m").value(piece.f.m).end_object();
    }
  json.end_array();
  json.end_object();
  return json.str();
}

}  // namespace xover::tools
