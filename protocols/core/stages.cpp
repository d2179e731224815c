#include "protocols/core/stages.hpp"

namespace xover::stages {

void send_control(Worker& worker, Rank peer, wire::AmKind kind, const wire::HeaderWriter& header,
                  std::function<void()> on_error) {
  const auto am = worker.table(peer).lanes().am;
  if (!am) {
    on_error();
    return;
  }
  worker.submit([&worker, peer, kind, lane = *am, bytes = std::vector<std::byte>(header.bytes().begin(), header.bytes().end()),
                 on_error = std::move(on_error)]() {
    const Status st = worker.transport().am_send(lane, peer, kind, bytes, {}, AmMode::Short, [](Status) {});
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
    worker.release_regions(req);
    worker.complete(req, req.status);
  }
}

}  // namespace xover::stages
