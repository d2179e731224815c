// Writing a calibrated platform: two nodes, node0 and node1, one NIC host
// per lane on each (node0.mm, node1.mm, ...), one link per lane with its
// fitted LogGP figures as `xover:` properties, the alltoall's device
// figures on the nodes, in the form of the shipped platforms
// (platforms/README.md), and a comment block with every fit.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/calibration_record.hpp"
#include "protocols/lanes/lane.hpp"

namespace xover::calib {

struct PlatformDraft {
  std::string title;                  ///< first line of the header comment
  std::vector<std::string> comments;  ///< the fit report, one line each
  /// In the order the hardware lists them; names are rail names. A lane's
  /// message_factor is written on its link.
  std::vector<LaneAttrs> lanes;
  BytesPerSecond memcpy_bw = 10e9;    ///< both nodes' `xover:memcpy_bw`
  /// The same by copy size, where it changes with it (written as size
  /// steps, platforms/README.md); memcpy_bw is then the first step's.
  SizeSteps memcpy_steps = {};
  /// Both nodes' `xover:bw_factor`: the pace of a message's bytes by the
  /// message's size, where its buffers outgrow the caches; none written
  /// when empty.
  SizeSteps bw_factor = {};
  /// Both nodes' `xover:device_o`, `threads`, `proxy_o`, `proxy_wake`, and
  /// the GPU lane's figures that differ from their defaults; none written
  /// when absent.
  std::optional<DeviceAttrs> device;
  /// Both nodes' `xover:stage_o`, `stage_bw`, `ipc_bw`; none written when absent.
  std::optional<DeviceCopy> device_copy;
  /// The calibration record (formats/calibration_record.hpp): the fit set
  /// and which probe gave each figure, written as the zone's
  /// `xover:fit_set` and `xover:sources`.
  std::vector<FitEntry> fit_set;
  std::map<std::string, std::string> sources;
};

/// A lane name as a rail name: every character outside [A-Za-z0-9_-]
/// becomes '-' ("tcp:lo.0" → "tcp-lo-0").
std::string rail_name(const std::string& lane);

/// The platform XML (SimGrid v4.1, CM02 config block) of `draft`. A lane's
/// o_send, o_recv and bandwidth steps and the memcpy steps are written as
/// size steps ("0:33000000000Bps;32768:8000000000Bps"); o_send_after only
/// where it is not 0, bcopy_copy only where it is "no" (the loader's
/// defaults otherwise), and a lane's own message factor
/// (LaneAttrs::message_factor) as its link's `xover:bw_factor` where it has
/// one. The zone's `xover:fit_set` is always written (empty when the fit saw
/// no workload), `xover:sources` where the draft names a figure's probe.
/// @throws std::invalid_argument when a lane's bandwidth is not positive, a
/// time is negative or not finite, or a message factor is outside (0, 1].
std::string platform_xml(const PlatformDraft& draft);

}  // namespace xover::calib
