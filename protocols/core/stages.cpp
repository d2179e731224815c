#include "protocols/core/stages.hpp"

#include <algorithm>

namespace xover::stages {

void send_control(Worker& worker, Rank peer, Bytes message, AmId kind, const wire::ControlHeader& header,
                  std::function<void()> on_error) {
  const auto am = worker.table(peer).lanes().am;
  if (!am) {
    on_error();
    return;
  }
  // Inline when it fits (an RTS of many lanes, or of rndv/ipc's handle, may not).
  const AmMode mode =
      header.bytes().size() <= worker.transport().path(peer).lanes[*am].max_short ? AmMode::Short : AmMode::Bcopy;
  worker.submit([&worker, peer, message, kind, lane = *am, mode, header, on_error = std::move(on_error)]() {
    const Transport::MessageScope scope(worker.transport(), message, peer);
    const Status st = worker.transport().am_send(lane, peer, kind, header.bytes(), {}, mode, [](Status) {});
    if (st == Status::Error)
      on_error();
    return st;
  });
}

void part_done(Worker& worker, Request& req, Status status, bool all_handed_over) {
  if (status == Status::Error)
    req.status = Status::Error;
  --req.outstanding;
  if (req.outstanding == 0 && all_handed_over) {
    if (req.tail_used && !req.regions.empty())
      worker.release_regions(req);
    worker.complete(req, req.status);
  }
}

void send_fragments(Worker& worker, Request& req, AmId kind, AmMode mode, Bytes payload,
                    const std::function<void(wire::FragmentHeader&, Bytes offset)>& header) {
  Bytes offset = 0;
  do {
    const Bytes n = std::min(payload, req.length - offset);
    const std::size_t lane = req.lanes[worker.next_lane(req)].lane;
    wire::FragmentHeader bytes;
    header(bytes, offset);
    part_started(req);
    worker.submit([&worker, &req, kind, mode, lane, bytes, offset, n]() {
      auto done = [&worker, &req](Status s) { part_done(worker, req, s, req.offset == req.length); };
      const Transport::MessageScope scope(worker.transport(), req.length, req.peer);
      const Status st =
          worker.transport().am_send(lane, req.peer, kind, bytes.bytes(), req.send_buf.slice(offset, n), mode, done);
      if (st != Status::NoResource)
        req.offset = offset + n;
      if (st == Status::Ok || st == Status::Error)
        done(st);
      return st;
    });
    offset += n;
  } while (offset < req.length);
}

}  // namespace xover::stages
