// The protocols for device buffers (UCX's memory-type protocols), listed in
// protocols/registry.cpp: they serve MemType::Cuda only, and reach the
// device memory through the transport's DeviceMemory.
#pragma once

#include "protocols/core/worker.hpp"
#include "protocols/proto.hpp"

namespace xover {

extern const Protocol eager_staged_proto;
extern const Protocol rndv_pipe_proto;
extern const Protocol rndv_ipc_proto;

/// Their active messages beside the eager message and the RTS they share
/// with the host protocols.
inline constexpr AmId kAmPipeRtr = 7;   ///< rndv/pipe: ready to receive
inline constexpr AmId kAmPipeData = 8;  ///< rndv/pipe: one staged data fragment
inline constexpr AmId kAmIpcAck = 9;    ///< rndv/ipc: the receiver has copied

}  // namespace xover
