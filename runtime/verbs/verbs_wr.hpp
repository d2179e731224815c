// Send work requests as plain data, before they become ibv_send_wr: what
// each operation of the verbs transport posts, built and checked where no
// device is needed, then translated field for field and posted as one
// chain by post_send() (verbs_lane.cpp).
//
//   am short    SEND, INLINE, one SGE: wire header, AM header and payload
//               assembled on the stack (the HCA copies them at post time)
//   am bcopy    SEND, one SGE: the same bytes in a registered bounce buffer
//   am zcopy    SEND, two SGEs: wire and AM headers in a bounce buffer, then
//               the payload straight from the registered user buffer
//   grant       SEND, INLINE: the 8-byte wire header alone
//   get         RDMA_READ into a registered local buffer
//   put         RDMA_WRITE from a registered local buffer
//   flush       RDMA_WRITE of zero bytes, signalled: its completion says that
//               every request posted before it on the queue pair is done
//   put+signal  RDMA_WRITE, then ATOMIC_FETCH_AND_ADD on the peer's 64-bit
//               signal word with IBV_SEND_FENCE: the add waits for the write
//               (put_signal_chain(); for Transport::put_signal, which the
//               interface does not have yet)
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace xover::runtime::verbs {

/// One scatter-gather element: bytes at `addr` under local key `lkey`.
struct Sge {
  std::uint64_t addr = 0;
  std::uint32_t length = 0;
  std::uint32_t lkey = 0;
  bool operator==(const Sge&) const = default;
};

struct WorkRequest {
  enum class Op : std::uint8_t { Send, RdmaWrite, RdmaRead, FetchAdd };
  Op op = Op::Send;
  std::uint64_t wr_id = 0;
  bool signaled = false;
  bool inline_data = false;
  bool fence = false;  ///< wait for earlier RDMA reads and atomics on the queue pair
  std::array<Sge, 2> sge{};
  std::uint8_t num_sge = 0;
  std::uint64_t remote_addr = 0;
  std::uint32_t rkey = 0;
  std::uint64_t add = 0;  ///< FetchAdd: the value added

  bool operator==(const WorkRequest&) const = default;
};

/// The wr_id of a send: the endpoint's index and the request's sequence
/// number on its queue pair.
inline std::uint64_t send_wr_id(std::uint32_t endpoint, std::uint32_t sn) {
  return (std::uint64_t{endpoint} << 32) | sn;
}
inline std::uint32_t wr_endpoint(std::uint64_t wr_id) { return static_cast<std::uint32_t>(wr_id >> 32); }
inline std::uint32_t wr_sn(std::uint64_t wr_id) { return static_cast<std::uint32_t>(wr_id); }

/// A SEND of `bytes` (one or two SGEs; inline when `inline_data`).
WorkRequest send_wr(std::uint64_t wr_id, Sge first, std::optional<Sge> second, bool inline_data, bool signaled);
/// An RDMA READ of `local.length` bytes from `remote_addr` under `rkey`.
WorkRequest read_wr(std::uint64_t wr_id, Sge local, std::uint64_t remote_addr, std::uint32_t rkey, bool signaled);
/// An RDMA WRITE of `local` (no SGE when its length is 0) to `remote_addr`.
WorkRequest write_wr(std::uint64_t wr_id, Sge local, std::uint64_t remote_addr, std::uint32_t rkey, bool signaled);
/// The zero-byte signalled RDMA WRITE that flushes a queue pair.
WorkRequest flush_wr(std::uint64_t wr_id);

/// The two requests of a put with signal, or none when the signal word is
/// not 8-byte aligned or the fetch slot is not 8 bytes (the HCA would fail
/// the atomic with a local or remote access error): the WRITE of `data` to
/// `dest`, unsignalled, then the fenced, signalled FETCH_AND_ADD of `add` on
/// `signal`, whose old value lands in `fetch_slot`.
struct WrChain {
  std::array<WorkRequest, 2> wr;
};
std::optional<WrChain> put_signal_chain(std::uint64_t wr_id, Sge data, std::uint64_t dest_addr, std::uint32_t dest_rkey,
                                        Sge fetch_slot, std::uint64_t signal_addr, std::uint32_t signal_rkey,
                                        std::uint64_t add);

}  // namespace xover::runtime::verbs
