// The installed library's own times, measured at a few sizes by running the
// library itself (bench/tune_probe.py: `ucx_perftest -t tag_lat` with the
// protocol forced, or ob1 under mpirun), and what they add to its cost
// lines: the per-message and per-fragment (or per-byte) costs of the
// library's own code that a platform calibrated on xover's transports
// cannot know (UCX's posix fragments, its CMA reads, ob1's matching and
// copies).
//
// A probe file names, per line, a protocol of the library's model, a
// message size and the seconds one message took (a ping-pong's half round
// trip):
//
//   # comments
//   library ucx
//   backend shm
//   ucx/eager/bcopy/multi 20620 1.52e-05
//   stream ucx/eager/bcopy/multi 20620 4.1e-06
//
// A line that starts with `slow` is one message's latency in the machine's
// slow state, where the library's runs of one size fell in two (UCX's
// posix eager on this machine runs 3-4x slower in spells of seconds to
// minutes, which neither a user nor a setting chooses): each
// line with slow probes gets a slow cost of its own, fitted through them
// (and its ordinary probes at the sizes without one); the other lines cost
// the same in both states.
//
// A line that starts with `stream` is the time per message of a stream of
// them back to back (`ucx_perftest -t tag_bw`): its residual is added to
// the line's stream cost the same way. Stream times are used only when
// every line kept has them (else one message's latency alone decides, and
// a note says so).
//
// Each probed line gets the residual of its probes (measured − the line on
// the platform) as a line of its own, c + m·n: the constant through one
// probe, the least-squares line through two or more. A line no probe
// measured is left out of the choice (the library was not, or cannot be,
// made to run it), unless no line was probed at all.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "tools/tune/installed.hpp"
#include "tools/tune/library_model.hpp"

namespace xover::tools::tune {

/// Bad probe input: the message is `file:line: what is wrong`.
class ProbeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Probe {
  std::string protocol;  ///< a line's name: "ucx/rndv/get_zcopy"
  Bytes size = 0;
  Seconds seconds = 0;
  int line = 0;          ///< where in the file
  bool stream = false;   ///< a stream's time per message, not one message's latency
  bool slow = false;     ///< one message's latency in the machine's slow state
};

struct Probes {
  std::string file;
  std::string library;   ///< "ucx", "ompi"
  std::string backend;   ///< "shm", "tcp", "verbs"
  int library_line = 0;
  int backend_line = 0;
  std::vector<Probe> points;
};

/// Parses a probe file's text (`file` names it in errors).
/// @throws ProbeError for a line that is not a key or a probe, a size or
/// time that is not a positive number, a missing `library` or `backend`.
Probes parse_probes(const std::string& text, const std::string& file);

/// Reads and parses `file`. @throws ProbeError (also when it cannot be read).
Probes load_probes(const std::string& file);

/// Adds each probed line's residual to it and leaves out the lines no probe
/// measured, saying so in `notes`; the slow probes' to a slow cost of each
/// line (where there are any); the stream probes' residuals to the
/// lines' stream costs, or, where a kept line has none, every line's stream
/// cost dropped (a note says so).
/// @throws ProbeError when the file is for another library or backend, or
/// names a protocol the lines lack or a size its line does not cover (a
/// stream probe: a line not priced for streams).
void apply_probes(std::vector<LibLine>& lines, const Probes& probes, Library library, const std::string& backend,
                  std::vector<std::string>& notes);

}  // namespace xover::tools::tune
