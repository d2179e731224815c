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

/// Receive handlers.
void rts_handle(Worker& worker, const AmMessage& msg);
void rtr_handle(Worker& worker, const AmMessage& msg);
void rndv_data_handle(Worker& worker, const AmMessage& msg);
void ack_handle(Worker& worker, const AmMessage& msg);

/// The RTR direction: the receiver posts (o_send at the remote side), the
/// sender takes it in (o_recv at the local side). Both ends have the same
/// hardware (the seed's assumption 1), so the lane's attributes serve.
PerfFactors reply_message(const LaneAttrs& lane);

}  // namespace xover
