// The verbs (rdma-core) hardware backend, after UCX's rc_verbs transport:
// every ACTIVE port of every RDMA device is a lane (or the ports
// VerbsOptions::ports names: verbs_options.hpp), with one RC queue pair per
// (peer, lane). Active messages travel as SENDs into a shared receive queue per
// lane under credit flow control; get is an RDMA READ, put an RDMA WRITE;
// put_signal is a WRITE and a fenced FETCH_AND_ADD; registration is
// ibv_reg_mr, cached by address range when the protocol core's reg_cache is
// on (RuntimeOptions::reg_cache) and the memory is xover's own. runtime/verbs/README.md
// has the file map and says what has run where.
//
//   RuntimeOptions options;
//   options.backend = VerbsOptions{.ports = {{"mlx5_0", 1}, {"mlx5_1", 1}}};   // two rails: two lanes
//   auto transport = make_verbs_transport(boot, options);
//
// Limits (every lane): max_short = the queue pair's inline limit less the
// 8-byte wire header, max_bcopy = seg_size = 8 KiB less the wire header
// (AM zcopy fits one segment too), max_zcopy = the port's max_msg_sz, at
// most 1 GiB. Capabilities: am short/bcopy/zcopy, put, get, atomics (and
// so put_signal) where the device has them; not connect-to-iface (RC
// connects to one endpoint).
//
// Faults: a failed work completion (a queue pair in error, a remote access
// error, a peer whose HCA stopped answering: the retry counter exceeded),
// a fatal asynchronous event, a peer process gone from this host, or
// nothing moving for options.timeout seconds while this rank polls fails
// the transport with one line naming the lane, the peer and the verbs
// status (Transport::failure()); every pending completion is called with
// Error and every operation returns it.
#pragma once

#include <memory>
#include <string>

#include "runtime/backend_info.hpp"
#include "runtime/bootstrap.hpp"

namespace xover::runtime {

/// Collective over `boot`: opens the ports, creates the lanes and a queue
/// pair per peer and lane, swaps addresses, connects, measures the lanes.
/// @throws RuntimeError with a clear message: no RDMA device (and why), a
/// port --ib-dev names that does not exist or is not ACTIVE, a verbs call
/// that failed (naming the lane), a peer that sent a malformed card.
std::unique_ptr<Transport> make_verbs_transport(Bootstrap& boot, const RuntimeOptions& options);

/// Why this machine cannot run the verbs backend ("no RDMA device: ..."
/// with what ibv_get_device_list said and what was looked for); empty when
/// an ACTIVE port exists.
std::string verbs_unavailable();

/// What `xover info` says of the verbs backend here: every device and port
/// libibverbs lists (state, link layer, LID, MTU, link rate), or why none.
BackendInfo describe_verbs();

}  // namespace xover::runtime
