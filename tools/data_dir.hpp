// Where xover finds the files it ships: the platforms, the scenarios and
// their schema, and the plotting script. An installed xover finds them in
// its own prefix (PREFIX/bin/xover reads PREFIX/share/xover), wherever that
// prefix was moved or unpacked to; an xover run from its build tree finds
// them in the source tree it was built from. Both hold the same layout:
// platforms/, scenarios/, tools/plot_results.py.
#pragma once

#include <string>

namespace xover::tools {

/// PREFIX/share/xover for an installed xover (found from /proc/self/exe),
/// else the source tree this xover was built from.
const std::string& data_dir();

/// The platform proto-info reads when given none: platforms/hdr-2rail.xml.
std::string default_platform();

/// The script xover plot hands its JSON to: tools/plot_results.py.
std::string plot_script();

}  // namespace xover::tools
