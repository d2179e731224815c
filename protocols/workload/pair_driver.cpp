#include "protocols/workload/pair_driver.hpp"

#include <cstdio>

#include "protocols/registry.hpp"
#include "protocols/workload/workload.hpp"

namespace xover {
namespace {

std::string lanes_text(const Path& path, const std::vector<LaneShare>& lanes) {
  std::string out;
  for (const LaneShare& share : lanes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%s:%.3g", out.empty() ? "" : " ", path.lanes[share.lane].name.c_str(),
                  share.weight);
    out += buf;
  }
  return out;
}

std::optional<Seconds> model_cost(const ProtoChoice& choice, PerfType perf, Bytes n) {
  for (const PerfRange& range : choice.candidate.ranges) {
    if (n < range.from || n > range.to)
      continue;
    Seconds t = 0;
    evaluate(range.factors.cost(perf, n, n), n, t);
    return t;
  }
  return std::nullopt;
}

/// The registry's protocol names, comma separated, in registry order.
std::string known_protocols() {
  std::string out;
  for (const Protocol* protocol : protocol_registry())
    out += (out.empty() ? "" : ", ") + std::string(protocol->name);
  return out;
}

}  // namespace

PairDriver::PairDriver(const Scenario& scenario, Rank rank, Transport& transport, Results& results)
    : s_(scenario), rank_(rank), t_(transport), results_(results), worker_(transport, scenario.select) {
  leader_ = rank % 2 == 0;
  peer_ = leader_ ? rank + 1 : rank - 1;
}

void PairDriver::run(Step step, std::optional<PerfType> model) {
  for (const std::string& curve : s_.curves) {
    SelectConfig config = s_.select;
    if (curve != "auto")
      config.forced = {curve};
    worker_.configure(config);
    for (std::size_t k = 0; k < s_.sizes.size(); ++k) {
      if (!t_.failure().empty())
        return;  // every request fails now: the caller reports the transport's failure
      const Bytes n = s_.sizes[k];
      const ProtoChoice* choice = worker_.table(peer_).lookup(n);
      if (!choice)
        continue;  // the forced protocol does not carry this size
      Point& point = results_.point(curve, n);
      if (leader_ && point.selected.empty()) {
        point.selected = std::string(choice->protocol->name);
        point.lanes = lanes_text(t_.path(peer_), choice->candidate.lanes);
        if (model)
          point.model = model_cost(*choice, *model, n);
      }
      size_index_ = k;
      worker_.reset_buffered_peak();
      const std::size_t bad_before = worker_.stats().bad_headers;
      step(*this, point, n);
      // A dropped malformed header is a corrupt message too.
      point.errors += worker_.stats().bad_headers - bad_before;
    }
  }
}

Tag PairDriver::tag(std::size_t iteration, std::uint64_t kind) const {
  return (static_cast<Tag>(size_index_) << 40) | (static_cast<Tag>(iteration) << 8) | kind;
}

std::uint64_t PairDriver::seq(std::size_t iteration, std::size_t index) const {
  return (static_cast<std::uint64_t>(size_index_) << 40) | (static_cast<std::uint64_t>(iteration) << 16) | index;
}

void PairDriver::send(const Payload& p, Tag tag) {
  Request* r = worker_.tag_send(peer_, p.send_buffer(), tag);
  worker_.wait(r);
  worker_.release(r);
}

Request* PairDriver::post(Payload& p, Tag tag) {
  return worker_.tag_recv(p.recv_buffer(), tag);
}

void PairDriver::finish(Point& point, Request* r, const Payload& p, std::uint64_t seq_no) {
  worker_.wait(r);
  if (r->status != Status::Ok || !p.check(s_.seed, peer_, seq_no))
    ++point.errors;
  worker_.release(r);
}

void PairDriver::signal_ready(std::size_t iteration) {
  if (!s_.phantom)
    send(ready_, tag(iteration, 7));
}

void PairDriver::wait_ready(Point& point, std::size_t iteration) {
  if (!s_.phantom)
    finish(point, post(ready_, tag(iteration, 7)), ready_, 0);
}

Rank one_pair(const Scenario&) {
  return 2;
}

std::optional<std::string> pair_curve_error(const Scenario& scenario, std::string_view curve) {
  if (coll_protocol(curve))
    return "'" + std::string(curve) + "' in <curves> is an alltoall protocol; the workload is " +
           std::string(scenario.workload->name);
  if (curve != "auto" && !protocol_name_known(curve))
    return "unknown protocol '" + std::string(curve) + "' in <curves> (known: auto, " + known_protocols() +
           ", or a prefix of one such as eager/multi)";
  return std::nullopt;
}

}  // namespace xover
