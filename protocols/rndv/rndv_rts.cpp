// The request to send, shared by the rendezvous protocols:
//   {tag, seq, size, sender request, protocol wire id, k, k × (lane, key, address)}
// It is matched like an eager message (in sequence order); once a receive
// takes it, the protocol named in it runs its receive stages.
#include "protocols/core/stages.hpp"
#include "protocols/registry.hpp"
#include "protocols/rndv/rndv.hpp"

namespace xover {

void send_rts(Worker& worker, Request& req, const std::vector<std::pair<std::size_t, RemoteAddr>>& remote) {
  wire::ControlHeader header;
  header.put(req.tag).put(req.seq).put(req.length).put(req.id).put(req.protocol->wire_id).put(remote.size());
  for (const auto& [lane, addr] : remote)
    header.put(lane).put(addr.key).put(addr.addr);
  stages::send_control(worker, req.peer, req.length, kAmRts, header, [&worker, &req] {
    worker.release_regions(req);
    worker.complete(req, Status::Error);
  });
}

void rts_handle(Worker& worker, const AmMessage& msg) {
  wire::HeaderReader header(msg.header);
  Incoming in;
  in.source = msg.source;
  in.tag = header.get();
  in.seq = header.get();
  in.size = header.get();
  in.remote_id = static_cast<Request::Id>(header.get());
  const Protocol* protocol = protocol_by_wire_id(header.get());
  const std::uint64_t lanes = header.get();
  if (!header.ok() || !protocol || !protocol->recv_start || lanes > wire::kMaxLanes) {
    worker.count_bad_header();
    return;
  }
  in.rndv = protocol;
  for (std::uint64_t i = 0; i < lanes; ++i) {
    const std::uint64_t lane = header.get();
    const RemoteAddr addr{header.get(), header.get()};
    in.remote_lanes.push_back(static_cast<std::size_t>(lane));
    in.remote.push_back(addr);
  }
  if (!header.exact()) {
    worker.count_bad_header();
    return;
  }
  worker.arrive(in, 0, {});
}

}  // namespace xover
