// The rendezvous protocols, listed in protocols/registry.cpp.
#pragma once

#include "protocols/proto.hpp"

namespace xover {

extern const Protocol rndv_am_proto;
extern const Protocol rndv_get_proto;

/// The RTR or ACK direction: the receiver posts (o_send at the remote side),
/// the sender takes it in (o_recv at the local side). Both ends have the same
/// hardware (the seed's assumption 1), so the lane's attributes serve.
PerfFactors reply_message(const LaneAttrs& lane);

}  // namespace xover
