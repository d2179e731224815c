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

std::string format_proto_info_text(const ProtoInfoReport& report);
std::string format_proto_info_json(const ProtoInfoReport& report);

}  // namespace xover::tools
