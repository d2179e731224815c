// What UCX itself picks for tagged sends on a transport, read from the
// `UCX_PROTO_INFO=y ucx_info -e -u t` output of its two protocol stacks:
// v1's thresholds line (`tag_send: 0..<egr/short>..93..<egr/bcopy>..8256..<rndv>..(inf)`)
// and v2's table (UCX_PROTO_ENABLE=y; rows `| 6238..inf | (?) rendezvous
// zero-copy read from remote | cma/memory |`). `xover validate` prints the
// hand-over beside the measured crossover and xover's own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/units.hpp"

namespace xover::tools {

/// One row of UCX v2's table for tagged sends from host memory.
struct UcxProtoRow {
  Bytes from = 0;
  std::optional<Bytes> to;  ///< none: no end (inf)
  std::string protocol;     ///< "eager copy-in copy-out", "(?) rendezvous zero-copy read from remote"
  std::string lanes;        ///< "posix/memory"
};

struct UcxHandover {
  std::string v1_line;                ///< the v1 `tag_send:` thresholds, as printed; empty when absent
  std::optional<Bytes> v1_rndv;       ///< the first size v1 sends by rendezvous
  std::vector<UcxProtoRow> v2_rows;   ///< v2's table for tagged sends; empty when absent
  std::optional<Bytes> v2_rndv;       ///< the first size of v2's first rendezvous row
};

/// Reads the v1 thresholds from `v1_text` and the v2 table from `v2_text`
/// (each the whole output of one ucx_info run; either may be empty). What
/// is not found stays empty.
UcxHandover parse_ucx_proto_info(std::string_view v1_text, std::string_view v2_text);

}  // namespace xover::tools
