// The two renderings of `xover proto-info`: a table for people, in the
// spirit of UCX_PROTO_INFO, and JSON for scripts. Both show the same
// content: the thresholds table with lanes and shares, every protocol's cost
// lines, and the seed's closed-form thresholds beside the envelope's.
#pragma once

#include <string>
#include <vector>

#include "protocols/select/closed_form.hpp"
#include "protocols/select/threshold_table.hpp"

namespace xover::tools {

struct ProtoInfoReport {
  std::string platform_file;
  Path path;
  SelectConfig config;
  ThresholdTable table;
  std::vector<ClosedFormComparison> closed_form;
};

/// A size range as the tables print it: "0..204", "23122..inf".
std::string range_text(Bytes from, Bytes to);

/// One row of a thresholds table as proto-info prints it, for any
/// operation (tag_send, the alltoall).
struct TableRow {
  Bytes from = 0;
  Bytes to = kSizeMax;
  std::string protocol;
  std::string lanes;  ///< "r0 50%, r1 50%", or "-"
};

/// The boxed table: size range, protocol, lanes, in row order, with a
/// "(no protocol)" row for each size no row covers.
std::string format_table_rows(const std::vector<TableRow>& rows);

/// One cost line: protocol, its size range, c, m and its description.
std::string format_cost_line(std::string_view protocol, Bytes from, Bytes to, const LinearFunc& line,
                             std::string_view description);

/// One lane's "#   lane ..." line.
std::string format_lane_line(const LaneAttrs& lane);

std::string format_proto_info_text(const ProtoInfoReport& report);
std::string format_proto_info_json(const ProtoInfoReport& report);

}  // namespace xover::tools
