// The shared-memory backend: ranks are processes on one node, after UCX's
// posix `mm` and `cma` transports. Two lanes per peer, in this order on both
// ends (rendezvous headers carry lane indices):
//
//   lane 0 "mm"   active messages (short, bcopy) through a ring in the
//                 receiver's segment, one per sender (shm_ring.hpp): a FIFO
//                 of 128-byte cells, which hold messages of up to 112 bytes
//                 inline and name an 8 KiB descriptor for larger ones; the
//                 receiver busy-polls the FIFOs
//   lane 1 "cma"  get and put with process_vm_readv / process_vm_writev into
//                 the peer's address space; left out, with one line on
//                 stderr, when the kernel refuses it (ptrace restrictions)
//
// Lane attributes are measured at wire-up (shm_wireup.cpp says how). The
// transport watches its peers while it waits: a peer process that has gone,
// or silence past RuntimeOptions::timeout, fails the transport
// (Transport::failure()); every operation then returns Error.
#pragma once

#include <memory>

#include "runtime/backend_info.hpp"
#include "runtime/bootstrap.hpp"

namespace xover::runtime {

/// Collective over `boot`: creates this rank's segment, swaps names, maps every peer's, measures the lanes, unlinks.
/// Nothing is left in /dev/shm once it returns, even if a rank is killed later.
/// @throws RuntimeError with a clear message when set-up fails.
std::unique_ptr<Transport> make_shm_transport(Bootstrap& boot, const RuntimeOptions& options);

/// For `xover info` (shm_info.cpp): the cores, the room in /dev/shm, Yama's
/// ptrace_scope, and whether cross-memory attach works toward this process
/// and toward a child that allows it, as ranks do (forks once).
BackendInfo describe_shm();

namespace testing {

/// Test hook, for tests only: publishes a cell into `peer`'s ring whose
/// header claims `header_len` AM header bytes and `payload_len` payload
/// bytes for AM `id` in `descriptor` (shm::kInline, or a descriptor's
/// index), whatever they are, with zeroes for inline contents and no
/// descriptor claimed or written; this is how a test forges a corrupt
/// cell. `transport` must come from make_shm_transport(). Returns
/// NoResource when the ring is full.
Status shm_publish_raw_cell(Transport& transport, Rank peer, AmId id, std::uint16_t header_len,
                            std::uint16_t payload_len, std::uint16_t descriptor);

}  // namespace testing
}  // namespace xover::runtime
