// The protocols of UCX (v1's tagged send, the stack UCX 1.13 runs by
// default) and of Open MPI's ob1 as cost lines of their own, priced on the
// lanes of a calibrated platform's path. xover's own protocols
// (protocols/) are the ones its core runs; these are the library's, with
// the library's limits (UCX's segment and inline sizes per transport, ob1's
// phase-1 fragment and send pipeline) and schemes (UCX's rendezvous
// get_zcopy / put_zcopy / am; ob1's RGET, put protocol, send pipeline and
// RDMA pipeline, each where Open MPI 4.1 runs it),
// so that the threshold `xover tune` recommends is where *that library's*
// eager and rendezvous lines cross on this path.
//
// Every line is the latency of one message of n payload bytes (what a
// ping-pong's half round trip measures), built from the cost pieces of
// protocols/proto_costs.hpp; each line's `formula` says how. UCX's lines
// also price a stream of such messages back to back (what `ucx_perftest -t
// tag_bw` measures): the same pieces as factors, paced by the busiest of
// the sender's CPU, the receiver's and the wire (PerfFactors::streaming).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "protocols/lanes/lane.hpp"
#include "protocols/perf/envelope.hpp"
#include "tools/tune/installed.hpp"

namespace xover::tools::tune {

/// A path that lacks what a library's protocols need (an active-message
/// lane): the message says what is missing.
class PathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Phase { Eager, Rndv };

/// What the installed library's own probes added to a line
/// (tools/tune/probes.hpp): c + m·n on top of the platform's pieces.
struct Measured {
  Seconds c = 0;  ///< per message
  double m = 0;   ///< per byte (times the fragment: per fragment)
  std::vector<std::pair<Bytes, Seconds>> points;  ///< the probes: size, seconds measured
};

/// One protocol of the library as a cost line, by message size.
struct LibLine {
  LibLine() = default;
  LibLine(std::string name_, Phase phase_, PiecewiseFunc cost_, std::string formula_, Bytes fragment_ = 0)
      : name(std::move(name_)), phase(phase_), cost(std::move(cost_)), formula(std::move(formula_)),
        fragment(fragment_) {}

  std::string name;     ///< "ucx/eager/zcopy/multi", "ob1/rndv/rget"
  Phase phase = Phase::Eager;
  PiecewiseFunc cost;   ///< seconds for one message of n payload bytes
  std::string formula;  ///< how it is priced, for the report
  Bytes fragment = 0;   ///< the fragment of a multi-fragment line; 0 for one message
  std::optional<Measured> measured;  ///< the library's own probes, where applied
  /// Seconds per message of n bytes in a stream of them back to back;
  /// empty where the line is priced for one message only (ob1's).
  PiecewiseFunc stream;
  std::optional<Measured> stream_measured;  ///< the library's own stream probes, where applied
  /// One message's latency in the machine's slow state, where the
  /// library's own probes found two (tools/tune/probes.hpp); empty where
  /// they found one.
  PiecewiseFunc slow;
};

/// UCX's limits on one backend's transports, in payload bytes (tag header
/// taken off): its defaults, or the installed library's own.
struct UcxLimits {
  std::string transports;  ///< "posix,cma", "tcp", "rc_verbs"
  std::string env;         ///< what selects them: "UCX_TLS=posix,cma"
  Bytes max_short = 0;     ///< eager short up to here
  Bytes max_bcopy = 0;     ///< one bcopy message up to here; the fragment of multi-bcopy
  Bytes max_zcopy = 0;     ///< one zcopy message up to here; 0: the transport has no AM zcopy
  bool get_zcopy = false;  ///< a transport of the path can read remote memory
  bool put_zcopy = false;  ///< ... write it
  std::string source;      ///< where the limits come from
};

/// The environment that selects UCX's transports for `backend` (what
/// `ucx_info` and `ucx_perftest` run with): "UCX_TLS=posix,cma" for shm,
/// tcp on the loopback, rc_verbs.
/// @throws std::invalid_argument for another backend.
std::string ucx_env(std::string_view backend);

/// UCX's limits for `backend` (shm, tcp, verbs): UCX 1.13's defaults,
/// replaced by the installed library's segment sizes (`ucx_info -c`) and
/// short limit (its own thresholds line) where it is installed.
/// @throws std::invalid_argument for another backend.
UcxLimits ucx_limits(std::string_view backend, const Installed& installed);

/// ob1 and the BTL a backend uses (vader, tcp, openib) with its figures.
struct Ob1Btl {
  std::string name;                ///< "vader"
  Bytes eager_limit = 0;           ///< header included, as the MCA parameter
  Bytes rndv_eager_limit = 0;      ///< phase-1 bytes of a rendezvous, header included
  Bytes max_send_size = 0;         ///< a send-pipeline fragment
  Bytes min_rdma_pipeline = 0;     ///< from here the RDMA pipeline (BTLs with put)
  /// The largest eager limit the BTL accepts: kOb1EagerCap, and for vader
  /// segment_size / (free_list_num + 1): its free list of eager fragments
  /// must fit in its shared segment beside the others, or the BTL leaves
  /// itself out at start-up (Open MPI 4.1.4, 4 MiB and 8: 458752 ran,
  /// 524288 was refused).
  Bytes eager_cap = 0;
  bool get = false;                ///< the BTL reads remote memory: ob1's RGET
  bool put = false;                ///< ... writes it: ob1's put protocol or RDMA pipeline
  /// The BTL registers memory (btl_register_mem: openib). Only then may
  /// ob1 leave its RDMA path for the pipelines (min_rdma_pipeline_size);
  /// over a BTL that registers nothing (tcp, vader) every contiguous
  /// message past the eager limit takes the RDMA path: RGET where the BTL
  /// reads, else the put protocol (Open MPI 4.1, pml_ob1_rdma.c,
  /// mca_pml_ob1_rdma_btls).
  bool registers = false;
  /// The BTL sends an eager message from the user's buffer (tcp: its
  /// prepare_src hands writev the user's bytes): no copy in at the sender.
  bool sends_in_place = false;
  std::string source;
};

/// The BTL of `backend` with Open MPI 4.1's defaults, replaced by the
/// installed library's (`ompi_info`) where present.
/// @throws std::invalid_argument for another backend.
Ob1Btl ob1_btl(std::string_view backend, const Installed& installed);

/// UCX's tagged-send protocols on `path` within `limits`, with eager over
/// `eager_lanes` active-message lanes and rendezvous over up to
/// `rndv_lanes` RMA lanes.
/// @throws PathError when no lane carries active messages.
std::vector<LibLine> ucx_lines(const Path& path, const UcxLimits& limits, std::size_t eager_lanes = 1,
                               std::size_t rndv_lanes = 2);

/// ob1's point-to-point protocols on `path` over `btl`.
/// @throws PathError when no lane carries active messages.
std::vector<LibLine> ob1_lines(const Path& path, const Ob1Btl& btl);

/// Header sizes the lines charge (payload limits leave them out).
inline constexpr Bytes kUcxEagerHdr = 8;        ///< tag
inline constexpr Bytes kUcxFirstHdr = 24;       ///< tag, message id, total length
inline constexpr Bytes kUcxRtsHdr = 48;         ///< tag, request, address, length, rkey
inline constexpr Bytes kOb1MatchHdr = 14;       ///< mca_pml_ob1_match_hdr_t
inline constexpr Bytes kOb1RndvHdr = 40;        ///< match header, message length, request
inline constexpr Bytes kOb1PutHdr = 56;         ///< mca_pml_ob1_rdma_hdr_t: the receiver's PUT request
inline constexpr Bytes kOb1FinHdr = 24;         ///< mca_pml_ob1_fin_hdr_t
/// ob1 sends eager what fits in eager_limit less its largest header
/// (sizeof(mca_pml_ob1_hdr_t), the union: 56 B), not less the match
/// header it sends.
inline constexpr Bytes kOb1LimitHdr = 56;
/// ob1's eager fragments are preallocated per peer at eager_limit: the
/// eager line stops at 1 MiB, past which no one sets it.
inline constexpr Bytes kOb1EagerCap = Bytes{1} << 20;

}  // namespace xover::tools::tune
