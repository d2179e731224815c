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

/// Receive handlers.
void pipe_rtr_handle(Worker& worker, const AmMessage& msg);
void pipe_data_handle(Worker& worker, const AmMessage& msg);
void ipc_ack_handle(Worker& worker, const AmMessage& msg);

}  // namespace xover
