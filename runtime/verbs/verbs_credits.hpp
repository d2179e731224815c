// Credit flow control of the verbs transport, after UCX's rc transport:
// every receive segment a peer may fill is one it was granted, so a send
// never lands on an empty shared receive queue (RNR retry stays a backstop).
// Device-free, unit-tested.
//
// The shared receive queue of a lane is split among the peers: each peer's
// endpoint on the lane may have `window` active messages unconsumed at this
// rank (plan_srq() sizes the queue and the window). Per endpoint (one RC
// queue pair), both directions:
//
//   sending    one credit per active message; none left: NoResource. A
//              grant from the peer gives credits back (never above the
//              window: more is a corrupt peer).
//   receiving  every active message the peer sent that this rank took in
//              is owed back. From half the window owed, the grant rides on
//              the next message to the peer (piggyback); from three
//              quarters owed (the peer has a quarter or less left, fewer
//              still with messages in flight), an explicit grant message
//              goes out at once. Grants cost the receiver a segment but no
//              credit: the queue keeps kGrantReserve segments per peer for
//              them (after one explicit grant, three quarters of a window
//              must arrive before the next, so at most two are ever in
//              flight).
//
// The two directions have windows of their own: the window a rank sends
// with is the one its peer's SRQ gives it (the peer's address card says
// it), the window it grants by is its own SRQ's share. Two ranks whose
// devices or peer counts differ have different windows.
//
// A segment that a completion handed back is not posted again at once: up
// to kRefillBatch − 1 wait for a batch, and up to kPollBatch more were
// taken by the poll under way, so kRepostSlack segments may be out of the
// queue while their credits are already back with the senders. The plan
// keeps them aside: every peer's window and grants fit in what is left.
#pragma once

#include <cstdint>
#include <string>

namespace xover::runtime::verbs {

/// A lane's shared receive queue: how many segments, and each peer's share.
struct SrqPlan {
  std::uint32_t segments = 0;  ///< receive segments posted on the lane's SRQ
  std::uint16_t window = 0;    ///< credits per peer endpoint
  std::string problem;         ///< non-empty when no plan fits (the reason)
};

inline constexpr std::uint32_t kSrqSegments = 4096;  ///< UCX rc: about 4 k segments per interface
inline constexpr std::uint16_t kMaxWindow = 512;     ///< UCX rc: fc window of 512
inline constexpr std::uint16_t kMinWindow = 4;
inline constexpr std::uint32_t kRefillBatch = 16;    ///< segments reposted together
inline constexpr std::uint32_t kPollBatch = 16;      ///< completions taken by one poll of a CQ
inline constexpr std::uint32_t kRepostSlack = kRefillBatch - 1 + kPollBatch;  ///< segments out of the queue at most
inline constexpr std::uint32_t kGrantReserve = 2;    ///< segments per peer for explicit grants

/// The SRQ of a lane toward `peers` peers, on a device that allows
/// `max_srq_wr` receive requests on one SRQ: kSrqSegments, or more when the
/// peers need more for kMinWindow each (up to the device's limit), and the
/// window each peer gets, at most kMaxWindow:
///   window = min(kMaxWindow, (segments − kRepostSlack) / peers − kGrantReserve)
/// so that peers × (window + kGrantReserve) + kRepostSlack ≤ segments.
SrqPlan plan_srq(std::uint32_t peers, std::uint32_t max_srq_wr);

class Credits {
 public:
  /// Sending with the peer's `send_window`, granting by this rank's
  /// `recv_window`.
  Credits(std::uint16_t send_window, std::uint16_t recv_window)
      : send_window_(send_window), window_(recv_window), credits_(send_window) {}

  /// The window this rank grants by (its SRQ's share for the peer).
  std::uint16_t window() const { return window_; }
  /// The window the peer gives this rank: the most credits it holds.
  std::uint16_t send_window() const { return send_window_; }

  // Sending.
  std::uint16_t credits() const { return credits_; }
  bool can_send() const { return credits_ > 0; }
  /// One active message was posted.
  void consume() { --credits_; }
  /// A grant of `n` credits arrived; false, changing nothing, when it would
  /// take the credits above the send window.
  bool grant_in(std::uint16_t n);

  // Receiving.
  std::uint16_t owed() const { return owed_; }
  /// One active message from the peer was taken in.
  void arrived() { ++owed_; }
  /// The grant the next message to the peer carries: what is owed once it
  /// reaches half the window, else 0. Nothing changes until granted().
  std::uint16_t piggyback() const { return owed_ >= half() ? owed_ : 0; }
  /// Whether an explicit grant message is due now.
  bool grant_due() const { return owed_ >= window_ - window_ / 4; }
  /// `n` credits went out to the peer (piggybacked or explicit).
  void granted(std::uint16_t n) { owed_ = static_cast<std::uint16_t>(owed_ - n); }

 private:
  std::uint16_t half() const { return window_ / 2 > 0 ? window_ / 2 : 1; }

  std::uint16_t send_window_;
  std::uint16_t window_;
  std::uint16_t credits_;
  std::uint16_t owed_ = 0;
};

}  // namespace xover::runtime::verbs
