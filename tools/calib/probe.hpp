// The hardware side of `xover calibrate`: timing one lane between two ranks
// over the real Transport, as Netgauge times a network. Rank 0 is the
// client and times; rank 1 is the server and answers. Both call the same
// function with the same arguments.
//
//   active messages (a lane with am_bcopy): PRTT(1,0,s), PRTT(n,0,s),
//     PRTT(n,d,s) and a stream PRTT(N,0,s) of N·s bytes for every size s
//     (fit.hpp says what each is), with the server's handler copying each
//     payload out as the protocol core does, and the client's time per post;
//   get (a lane with get_zcopy): the time of one get of s bytes, from its
//     post to its completion, of bytes the server has just written (as a
//     rendezvous gets what its sender just wrote, not data already in
//     the reader's cache).
// Each figure is the median of `repeats` runs, after untimed ones that warm
// the lane as the protocol's own sweep warms each visit (warm_bytes through
// its buffers): the first round trips after another size find the ring's
// cells and descriptors cold: on shared memory their median ran up to 2.5x
// a warm one, which put the bare lane above the protocol's own ping-pong.
// A stream's figure is the fastest of `stream_repeats` runs.
#pragma once

#include <vector>

#include "protocols/core/transport.hpp"
#include "tools/calib/fit.hpp"

namespace xover::calib {

/// Header bytes of a probe's active message: a message of s payload bytes
/// needs a lane whose max_bcopy holds s + kProbeHeader.
inline constexpr Bytes kProbeHeader = 16;

struct ProbeOptions {
  int messages = 8;       ///< n of PRTT(n, ·, s)
  int repeats = 50;       ///< timed runs per figure
  int warmup = 5;         ///< untimed runs before them, at least
  /// Before each timed series of a size (PRTT(1,0,s), PRTT(n,0,s),
  /// PRTT(n,d,s), gets), untimed round trips (gets) of that size until
  /// their messages add up to this many bytes, each counted as
  /// max(s, kWarmCell): the warm-up the protocol's sweep gives each visit
  /// (Sampling::warm_bytes), so that the probe and the protocol see the
  /// lane alike. 0: `warmup` alone.
  Bytes warm_bytes = 0;
  /// Bytes of a stream run: the messages walk through buffers this large
  /// at both ends, so that their copies see the caches a large message sees
  /// (larger than a core's L2 to see what a multi-megabyte message sees).
  Bytes stream_bytes = Bytes{4} << 20;
  int stream_repeats = 7;  ///< timed stream runs per size
};

/// The untimed round trips before a timed series of `size` bytes:
/// max(warmup, ⌈warm_bytes / max(size, kWarmCell)⌉).
int warm_round_trips(Bytes size, const ProbeOptions& options);

/// One timed get.
struct GetPoint {
  Bytes size = 0;
  Seconds time = 0;  ///< post to completion, median
};

/// Collective between ranks 0 and 1 of `t`: the PRTT points of active
/// messages of `sizes` payload bytes on `lane`. The client (rank 0) gets the
/// points; the server gets an empty vector.
std::vector<PrttPoint> probe_am(Transport& t, std::size_t lane, const std::vector<Bytes>& sizes,
                                const ProbeOptions& options);

/// Collective between ranks 0 and 1: gets of `sizes` bytes on `lane`, from
/// a buffer the server registered and announced on `am_lane`. The client
/// gets the points.
std::vector<GetPoint> probe_get(Transport& t, std::size_t am_lane, std::size_t lane, const std::vector<Bytes>& sizes,
                                const ProbeOptions& options);

}  // namespace xover::calib
