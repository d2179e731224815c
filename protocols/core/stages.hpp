// Helpers shared by the protocols' stages: sending a header-only control
// message on the AM lane, sending a buffer as fragments, and the
// bookkeeping of multi-part sends.
#pragma once

#include <functional>
#include <vector>

#include "protocols/core/worker.hpp"
#include "protocols/wire.hpp"

namespace xover::stages {

/// Sends a header-only active message to `peer` on its AM lane, in order
/// behind earlier sends. `on_error` runs if the transport fails.
void send_control(Worker& worker, Rank peer, wire::AmKind kind, const wire::ControlHeader& header,
                  std::function<void()> on_error);

/// One more part of `req` is in flight.
inline void part_started(Request& req) {
  ++req.outstanding;
}

/// One part of `req` is done; when it was the last and every part has been
/// handed over (`req.offset == req.length` or the stage says so), the
/// request completes and releases its registrations.
void part_done(Worker& worker, Request& req, Status status, bool all_handed_over);

/// Sends `req`'s buffer as fragments of `payload` bytes (at least one, maybe
/// empty, so that every message is seen), back to back, each on the next
/// lane of `req.lanes` by weight, with the header `header(writer, offset)`
/// writes. The request completes when every fragment is handed over (short,
/// bcopy) or released (zcopy), and releases its registrations.
void send_fragments(Worker& worker, Request& req, wire::AmKind kind, AmMode mode, Bytes payload,
                    const std::function<void(wire::FragmentHeader&, Bytes offset)>& header);

}  // namespace xover::stages
