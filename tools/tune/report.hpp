// `xover tune`'s three outputs from one TuneResult: a shell file to source
// (export lines, each after a comment with its size and reason), JSON for
// scripts (bench/tune_check.py reads it) and a table for people.
#pragma once

#include <string>

#include "tools/tune/settings.hpp"

namespace xover::tools::tune {

/// `export UCX_RNDV_THRESH=...` (UCX) or `export OMPI_MCA_btl_tcp_eager_limit=...` (ob1).
std::string format_shell(const TuneResult& r);
std::string format_json(const TuneResult& r);
std::string format_table(const TuneResult& r);

/// The name a setting takes in the environment: itself for UCX,
/// OMPI_MCA_ before an MCA parameter.
std::string env_name(const TuneResult& r, const Setting& s);

}  // namespace xover::tools::tune
