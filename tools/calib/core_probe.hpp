// The protocol core's own time per message, apart from any transport.
// calibrate's probes time the bare transport, and the core's requests,
// matching and progress come on top in every protocol; a transport that
// answers an operation without the core (a TCP get's target:
// LaneAttrs::get_served) pays only the transport's part. This probe drives
// the same Worker pair as a run, forced to eager/short, over two ranks in
// one process whose sends cost nothing but the copy into the peer's inbox
// (InProcessLoop), and times each side's handling of a train of messages:
//   send   the sender's tag_send of every message of the train and its
//          progress until all are complete, released, per message;
//   recv   the receiver's tag_recv of every message (they wait in its
//          inbox) and its progress until all are complete, released, per
//          message;
// each the median over the trains, after untimed trains first.
#pragma once

#include <functional>
#include <memory>

#include "protocols/core/transport.hpp"

namespace xover::calib {

/// The clock the probe reads: the monotonic clock, or a test's own.
using Clock = std::function<Seconds()>;

struct CoreProbeOptions {
  int messages = 64;  ///< messages per train
  int trains = 41;    ///< trains timed; the medians are over these
  int warmup = 4;     ///< untimed trains before them
  Bytes size = 8;     ///< payload bytes per message
};

/// The core's time per message at each end; zero trains: not probed.
struct CoreTimes {
  Seconds send = 0;
  Seconds recv = 0;
  int messages = 0;  ///< per train
  int trains = 0;    ///< timed
};

/// Two ranks in one process, one lane each way (inline and copied active
/// messages, no get or put): an active message is copied into the peer's
/// inbox, and each progress() call hands the oldest one in its own inbox to
/// its handler. Nothing else costs anything; no clock of its own (now() is 0).
class InProcessLoop {
 public:
  InProcessLoop();
  ~InProcessLoop();
  InProcessLoop(const InProcessLoop&) = delete;
  InProcessLoop& operator=(const InProcessLoop&) = delete;

  /// Rank 0 or 1.
  Transport& rank(Rank r);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Times the core over `receiver` (rank 0) and `sender` (rank 1), two ranks
/// of one loop, on `clock`.
/// @throws std::invalid_argument when messages, trains or warmup is out of
///         range (messages and trains at least 1, warmup at least 0), or
///         std::runtime_error when a message fails.
CoreTimes time_core(Transport& receiver, Transport& sender, const Clock& clock, const CoreProbeOptions& options = {});

/// time_core over an InProcessLoop on the monotonic clock.
CoreTimes probe_core(const CoreProbeOptions& options = {});

}  // namespace xover::calib
