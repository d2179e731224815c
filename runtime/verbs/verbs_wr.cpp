#include "runtime/verbs/verbs_wr.hpp"

namespace xover::runtime::verbs {

WorkRequest send_wr(std::uint64_t wr_id, Sge first, std::optional<Sge> second, bool inline_data, bool signaled) {
  WorkRequest wr;
  wr.op = WorkRequest::Op::Send;
  wr.wr_id = wr_id;
  wr.signaled = signaled;
  wr.inline_data = inline_data;
  wr.sge[0] = first;
  wr.num_sge = 1;
  if (second && second->length > 0) {
    wr.sge[1] = *second;
    wr.num_sge = 2;
  }
  return wr;
}

WorkRequest read_wr(std::uint64_t wr_id, Sge local, std::uint64_t remote_addr, std::uint32_t rkey, bool signaled) {
  WorkRequest wr;
  wr.op = WorkRequest::Op::RdmaRead;
  wr.wr_id = wr_id;
  wr.signaled = signaled;
  wr.sge[0] = local;
  wr.num_sge = 1;
  wr.remote_addr = remote_addr;
  wr.rkey = rkey;
  return wr;
}

WorkRequest write_wr(std::uint64_t wr_id, Sge local, std::uint64_t remote_addr, std::uint32_t rkey, bool signaled) {
  WorkRequest wr;
  wr.op = WorkRequest::Op::RdmaWrite;
  wr.wr_id = wr_id;
  wr.signaled = signaled;
  if (local.length > 0) {
    wr.sge[0] = local;
    wr.num_sge = 1;
  }
  wr.remote_addr = remote_addr;
  wr.rkey = rkey;
  return wr;
}

WorkRequest flush_wr(std::uint64_t wr_id) {
  return write_wr(wr_id, {}, 0, 0, true);
}

std::optional<WrChain> put_signal_chain(std::uint64_t wr_id, Sge data, std::uint64_t dest_addr, std::uint32_t dest_rkey,
                                        Sge fetch_slot, std::uint64_t signal_addr, std::uint32_t signal_rkey,
                                        std::uint64_t add) {
  if (signal_addr % 8 != 0 || fetch_slot.length != 8 || fetch_slot.addr % 8 != 0)
    return std::nullopt;
  WrChain chain;
  chain.wr[0] = write_wr(wr_id, data, dest_addr, dest_rkey, false);
  WorkRequest& atomic = chain.wr[1];
  atomic.op = WorkRequest::Op::FetchAdd;
  atomic.wr_id = wr_id;
  atomic.signaled = true;
  // The fence: the atomic does not begin before every read and atomic
  // ahead of it on the queue pair is done, so that the order of data and
  // signal does not rest on what else the chain follows.
  atomic.fence = true;
  atomic.sge[0] = fetch_slot;
  atomic.num_sge = 1;
  atomic.remote_addr = signal_addr;
  atomic.rkey = signal_rkey;
  atomic.add = add;
  return chain;
}

}  // namespace xover::runtime::verbs
