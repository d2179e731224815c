#include "tools/proto_info_format.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "tools/json.hpp"

namespace xover::tools {

std::string range_text(Bytes from, Bytes to) {
  return std::to_string(from) + ".." + (to == kSizeMax ? std::string("inf") : std::to_string(to));
}

namespace {

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width)
    s.append(width - s.size(), ' ');
  return s;
}

std::string optional_size(const std::optional<Bytes>& n) {
  return n ? std::to_string(*n) + " B" : std::string("none");
}

const char* perf_name(PerfType perf) {
  return perf == PerfType::Latency ? "latency" : "streaming";
}

void settings_line(std::ostringstream& os, const SelectConfig& c) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g%% (d = %g)", c.rndv_perf_diff, c.rndv_bias());
  os << "# settings    reg_cache=" << (c.reg_cache ? "on" : "off") << "  rndv_perf_diff=" << buf
     << "  max_eager_lanes=" << c.lanes.max_eager_lanes << "  max_rndv_lanes=" << c.lanes.max_rndv_lanes
     << "  min_bw_ratio=" << c.lanes.min_bw_ratio;
  if (c.eager_limit)
    os << "  eager_limit=" << *c.eager_limit;
  if (c.multi_eager_limit)
    os << "  multi_eager_limit=" << *c.multi_eager_limit;
  if (c.rndv_thresh)
    os << "  rndv_thresh=" << *c.rndv_thresh;
  for (const std::string& p : c.forced)
    os << "  proto=" << p;
  for (const std::string& p : c.disabled)
    os << "  disable=" << p;
  os << "\n";
}

}  // namespace

std::string format_table_rows(const std::vector<TableRow>& rows) {
  std::size_t width = 19;
  for (const TableRow& row : rows)
    width = std::max(width, row.protocol.size() + 1);
  const std::string rule = "+----------------------------+" + std::string(width + 1, '-') +
                           "+--------------------------------+\n";
  std::ostringstream os;
  os << rule << "| " << pad("size range", 27) << "| " << pad("protocol", width) << "| "
     << pad("lanes (share of bytes)", 31) << "|\n"
     << rule;
  auto row = [&](const std::string& range, const std::string& proto, const std::string& lanes) {
    os << "| " << pad(range, 27) << "| " << pad(proto, width) << "| " << pad(lanes, 31) << "|\n";
  };
  Bytes expected = 0;
  for (const TableRow& r : rows) {
    if (r.from > expected)
      row(range_text(expected, r.from - 1), "(no protocol)", "-");
    row(range_text(r.from, r.to), r.protocol, r.lanes);
    expected = r.to == kSizeMax ? kSizeMax : r.to + 1;
  }
  if (rows.empty() || rows.back().to != kSizeMax)
    row(range_text(expected, kSizeMax), "(no protocol)", "-");
  os << rule;
  return os.str();
}

std::string format_cost_line(std::string_view protocol, Bytes from, Bytes to, const LinearFunc& line,
                             std::string_view description) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-20s %-22s c %-11s m %8.5f ns/B  (%s)\n", std::string(protocol).c_str(),
                range_text(from, to).c_str(), format_time(line.c).c_str(), line.m * 1e9,
                std::string(description).c_str());
  return buf;
}

std::string format_lane_line(const LaneAttrs& lane) {
  // The two terms that are seldom set, only where they are.
  const std::string after =
      lane.o_send_after > 0 ? " (" + format_time(lane.o_send_after) + " after the message has left)" : "";
  std::string copy =
      std::string(lane.bcopy_copies ? "" : "  bcopy_copy no") + (lane.cpu_moves ? "  cpu_moves yes" : "") +
      (lane.get_served ? "  get_served yes" : "");
  char per_byte[96];
  if (lane.o_send_per_byte > 0 || lane.o_recv_per_byte > 0) {
    std::snprintf(per_byte, sizeof per_byte, "  per byte: o_send %.5f ns/B, o_recv %.5f ns/B",
                  lane.o_send_per_byte * 1e9, lane.o_recv_per_byte * 1e9);
    copy += per_byte;
  }
  if (lane.o_core_send > 0 || lane.o_core_recv > 0)
    copy += "  the core's part: o_send " + format_time(lane.o_core_send) + ", o_recv " + format_time(lane.o_core_recv);
  char buf[512];
  std::snprintf(buf, sizeof buf, "#   lane %-6s L %s  %.3f GB/s  o_send %s%s  o_recv %s  g %s  caps %s%s\n",
                lane.name.c_str(), format_time(lane.latency).c_str(), lane.bandwidth / 1e9,
                format_time(lane.o_send).c_str(), after.c_str(), format_time(lane.o_recv).c_str(),
                format_time(lane.gap).c_str(), lane.caps.to_string().c_str(), copy.c_str());
  return buf;
}

namespace {

std::string time_text(double t) {
  return format_time(t);
}

std::string rate_text(double rate) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f GB/s", rate / 1e9);
  return buf;
}

std::string factor_text(double factor) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", factor);
  return buf;
}

// The figures of `path` that change with the operation's size, a line each,
// and the message factors, each lane's own and the path's, by the message's
// size.
std::string format_steps(const Path& path) {
  std::string out;
  auto line = [&out](const std::string& what, const SizeSteps& steps, std::string (*text)(double)) {
    if (!steps.empty())
      out += "#     " + what + " by size: " + steps.to_string(text) + "\n";
  };
  for (const LaneAttrs& lane : path.lanes) {
    line("lane " + lane.name + " o_send", lane.o_send_steps, time_text);
    line("lane " + lane.name + " o_recv", lane.o_recv_steps, time_text);
    line("lane " + lane.name + " bandwidth", lane.bandwidth_steps, rate_text);
    line("lane " + lane.name + " message factor", lane.message_factor, factor_text);
  }
  line("memcpy at " + path.from, path.memcpy_local_steps, rate_text);
  line("memcpy at " + path.to, path.memcpy_remote_steps, rate_text);
  line("message factor", path.message_factor, factor_text);
  return out;
}

void steps_json(JsonWriter& j, std::string_view key, const SizeSteps& steps) {
  if (steps.empty())
    return;
  j.key(key).begin_array();
  for (const SizeStep& step : steps.steps()) {
    j.begin_object();
    j.key("from").value(static_cast<std::uint64_t>(step.from));
    j.key("value").value(step.value);
    j.end_object();
  }
  j.end_array();
}

}  // namespace

std::string format_proto_info_text(const ProtoInfoReport& r) {
  const Path& path = r.path;
  const EndpointLanes& el = r.table.lanes();
  std::ostringstream os;
  os << "# xover proto-info\n";
  os << "# platform    " << r.platform_file << "\n";
  os << "# path        " << path.from << " -> " << path.to << "\n";
  for (const LaneAttrs& lane : path.lanes)
    os << format_lane_line(lane);
  os << format_steps(path);
  os << "# operation   tag_send, " << mem_type_name(r.table.mem()) << " memory, optimised for "
     << perf_name(r.table.perf()) << "\n";
  settings_line(os, r.config);
  auto one = [&](const std::optional<std::size_t>& lane) { return lane ? path.lanes[*lane].name : std::string("-"); };
  auto bw = [&](std::string_view protocol) {
    return lanes_text(path, r.table.bw_lanes(protocol), LanesText::Table);
  };
  os << "# lanes       am " << one(el.am) << " | bootstrap " << one(el.bootstrap)
     << (el.needs_bootstrap(path) ? " (wire-up goes through it)" : "") << " | eager " << bw("eager/multi/bcopy")
     << " | rndv/am " << bw("rndv/am") << " | rma " << bw("rndv/get") << "\n";

  std::vector<TableRow> rows;
  for (const ThresholdRange& range : r.table.ranges()) {
    const ProtoChoice& choice = r.table.choices()[range.choice];
    rows.push_back({range.from, range.to, std::string(choice.protocol->name),
                    lanes_text(path, choice.candidate.lanes, LanesText::Table)});
  }
  os << format_table_rows(rows);
  if (rows.empty())
    os << "  (no protocol serves " << mem_type_name(r.table.mem()) << " memory: the table is empty)\n";

  os << "\ncost lines, T(n) = c + m*n to the receiver's completion (selection multiplies rndv/* by d)\n";
  for (const ProtoChoice& choice : r.table.choices())
    for (const PerfRange& range : choice.candidate.ranges)
      os << format_cost_line(choice.protocol->name, range.from, range.to, range.factors.single(),
                             choice.protocol->description);

  if (r.closed_form.empty())
    return os.str();
  os << "\nclosed form (seed) against the envelope: first size where rendezvous wins over eager/zcopy\n";
  for (const ClosedFormComparison& cmp : r.closed_form) {
    os << "  " << pad(cmp.rndv, 9) << " (rrc=" << cmp.rrc << ")  closed form " << pad(optional_size(cmp.closed_form), 12)
       << " envelope " << pad(optional_size(cmp.envelope), 12) << " table " << optional_size(cmp.table) << "  "
       << (cmp.agree ? "agree" : "differ") << "\n";
    for (const std::string& reason : cmp.reasons)
      os << "      why: " << reason << "\n";
  }
  return os.str();
}

namespace {

/// The JSON's lanes, each with its figures and steps by size.
void json_lanes(JsonWriter& j, const Path& path) {
  j.key("lanes").begin_array();
  for (const LaneAttrs& lane : path.lanes) {
    j.begin_object();
    j.key("name").value(lane.name);
    j.key("latency").value(lane.latency);
    j.key("bandwidth").value(lane.bandwidth);
    j.key("o_send").value(lane.o_send);
    j.key("o_send_after").value(lane.o_send_after);
    j.key("o_recv").value(lane.o_recv);
    j.key("gap").value(lane.gap);
    j.key("caps").value(lane.caps.to_string());
    j.key("bcopy_copy").value(lane.bcopy_copies);
    j.key("cpu_moves").value(lane.cpu_moves);
    j.key("get_served").value(lane.get_served);
    j.key("o_core_send").value(lane.o_core_send);
    j.key("o_core_recv").value(lane.o_core_recv);
    steps_json(j, "o_send_steps", lane.o_send_steps);
    steps_json(j, "o_recv_steps", lane.o_recv_steps);
    steps_json(j, "bandwidth_steps", lane.bandwidth_steps);
    steps_json(j, "message_factor", lane.message_factor);
    j.end_object();
  }
  j.end_array();
}

/// Lanes and their shares, as [{"name", "share"}].
void json_shares(JsonWriter& j, const Path& path, const std::vector<LaneShare>& lanes) {
  j.begin_array();
  for (const LaneShare& share : lanes) {
    j.begin_object();
    j.key("name").value(path.lanes[share.lane].name);
    j.key("share").value(share.weight);
    j.end_object();
  }
  j.end_array();
}

/// The thresholds table's ranges.
void json_ranges(JsonWriter& j, const ProtoInfoReport& r) {
  j.key("ranges").begin_array();
  for (const ThresholdRange& range : r.table.ranges()) {
    const ProtoChoice& choice = r.table.choices()[range.choice];
    j.begin_object();
    j.key("from").value(std::uint64_t{range.from});
    j.key("to").size_limit(range.to);
    j.key("protocol").value(choice.protocol->name);
    j.key("lanes");
    json_shares(j, r.path, choice.candidate.lanes);
    j.end_object();
  }
  j.end_array();
}

/// Every candidate's cost lines, with their factors.
void json_costs(JsonWriter& j, const ThresholdTable& table) {
  j.key("costs").begin_array();
  for (const ProtoChoice& choice : table.choices()) {
    j.begin_object();
    j.key("protocol").value(choice.protocol->name);
    j.key("bias").value(choice.bias);
    j.key("ranges").begin_array();
    for (const PerfRange& range : choice.candidate.ranges) {
      const LinearFunc line = range.factors.single();
      j.begin_object();
      j.key("from").value(std::uint64_t{range.from});
      j.key("to").size_limit(range.to);
      j.key("c").value(line.c);
      j.key("m").value(line.m);
      j.key("factors").begin_object();
      for (std::size_t k = 0; k < kFactorCount; ++k) {
        j.key(factor_name(static_cast<Factor>(k))).begin_object();
        j.key("c").value(range.factors.f[k].c);
        j.key("m").value(range.factors.f[k].m);
        j.end_object();
      }
      j.key("gap").value(range.factors.gap);
      j.end_object();
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

/// The closed-form thresholds and their comparison with the envelope.
void json_closed_form(JsonWriter& j, const std::vector<ClosedFormComparison>& closed_form) {
  j.key("closed_form").begin_object();
  for (const ClosedFormComparison& cmp : closed_form)
    j.key(cmp.rrc == 0 ? "rndv_am" : "rndv_get").value(cmp.closed_form);
  j.end_object();
  j.key("comparison").begin_array();
  for (const ClosedFormComparison& cmp : closed_form) {
    j.begin_object();
    j.key("rndv").value(cmp.rndv);
    j.key("rrc").value(std::uint64_t(cmp.rrc));
    j.key("closed_form").value(cmp.closed_form);
    j.key("envelope").value(cmp.envelope);
    j.key("table").value(cmp.table);
    j.key("agree").value(cmp.agree);
    j.key("reasons").begin_array();
    for (const std::string& reason : cmp.reasons)
      j.value(reason);
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

}  // namespace

std::string format_proto_info_json(const ProtoInfoReport& r) {
  const Path& path = r.path;
  JsonWriter j;
  j.begin_object();
  j.key("platform").value(r.platform_file);
  j.key("from").value(path.from);
  j.key("to").value(path.to);
  j.key("operation").value("tag_send");
  j.key("memory").value(std::string(mem_type_name(r.table.mem())));
  j.key("perf").value(perf_name(r.table.perf()));
  json_lanes(j, path);
  steps_json(j, "memcpy_local_steps", path.memcpy_local_steps);
  steps_json(j, "memcpy_remote_steps", path.memcpy_remote_steps);
  steps_json(j, "message_factor", path.message_factor);
  json_ranges(j, r);
  json_costs(j, r.table);
  json_closed_form(j, r.closed_form);
  j.end_object();
  return j.str();
}

}  // namespace xover::tools
