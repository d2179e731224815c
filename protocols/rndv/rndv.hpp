// The rendezvous protocols, listed in protocols/registry.cpp.
#pragma once

#include <utility>
#include <vector>

#include "protocols/core/worker.hpp"
#include "protocols/proto.hpp"

namespace xover {

extern const Protocol rndv_am_proto;
extern const Protocol rndv_get_proto;

/// Sends the RTS of `req`, with the (lane, address) pairs the receiver may
/// read from (rndv/get) or none (rndv/am).
void send_rts(Worker& worker, Request& req, const std::vector<std::pair<std::size_t, RemoteAddr>>& remote);

/// The rendezvous protocols' active messages (protocols/mtype/ has its own
/// beside the RTS).
inline constexpr AmId kAmRts = 3;       ///< the request to send (rndv_rts.cpp), every rendezvous protocol's
inline constexpr AmId kAmRtr = 4;       ///< rndv/am: ready to receive
inline constexpr AmId kAmRndvData = 5;  ///< rndv/am: one data fragment
inline constexpr AmId kAmAck = 6;       ///< rndv/get: the receiver is done

void rts_handle(Worker& worker, const AmMessage& msg);
/// The RTS's receiving stage, which every rendezvous protocol lists.
inline constexpr AmKind kRtsMessage{kAmRts, "rts", rts_handle};

/// The RTR direction: the receiver posts (o_send at the remote side), the
/// sender takes it in (o_recv at the local side). Both ends have the same
/// hardware (the seed's assumption 1), so the lane's attributes serve.
PerfFactors reply_message(const LaneAttrs& lane);

}  // namespace xover
