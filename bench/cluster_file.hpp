// The platform of the benchmarks: a SimGrid cluster of plain hosts n0, n1,
// ... (each host is a node and its own NIC, platforms/README.md), one
// SPLITDUPLEX private link per host and no backbone, with the exact-LogGP
// <config> block of DESIGN.md. Written to a temporary file, removed with
// the object.
#pragma once

#include <string>

#include "protocols/units.hpp"

namespace xover::bench {

/// The cluster's wire: every host's private link. A message crosses two of
/// them (source up, destination down), so it takes 2·kLinkLatency + n/B.
inline constexpr Seconds kLinkLatency = 0.5e-6;
inline constexpr BytesPerSecond kLinkBandwidth = 12.5e9;

class ClusterFile {
 public:
  /// Writes a cluster of `hosts` hosts to a new file under $TMPDIR (or /tmp).
  /// Throws std::runtime_error when the file cannot be written.
  explicit ClusterFile(int hosts);
  ~ClusterFile();
  ClusterFile(const ClusterFile&) = delete;
  ClusterFile& operator=(const ClusterFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// The host a rank runs on: "n<rank>".
std::string host_name(unsigned rank);

}  // namespace xover::bench
