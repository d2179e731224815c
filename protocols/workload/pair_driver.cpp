#include "protocols/workload/pair_driver.hpp"

#include <algorithm>
#include <map>
#include <random>

#include "protocols/registry.hpp"
#include "protocols/workload/workload.hpp"

namespace xover {
namespace {

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
  for (const Protocol* protocol : protocols_for(ProtoOp::TagSend))
    out += (out.empty() ? "" : ", ") + std::string(protocol->name);
  return out;
}

}  // namespace

std::size_t warmup_iterations(const Scenario& s, Bytes n) {
  const Bytes each = std::max(n, kWarmCell);
  return std::max<std::size_t>(s.warmup, (s.sampling.warm_bytes + each - 1) / each);
}

std::vector<Visit> sampling_plan(std::size_t curves, std::size_t sizes, std::size_t iterations,
                                 const Sampling& sampling, std::uint64_t seed) {
  const std::size_t rounds = std::clamp<std::size_t>(sampling.rounds, 1, std::max<std::size_t>(iterations, 1));
  std::vector<Visit> plan;
  std::mt19937_64 draw(seed);
  for (std::size_t r = 0; r < rounds; ++r) {
    const std::size_t share = iterations * (r + 1) / rounds - iterations * r / rounds;
    const std::size_t first = plan.size();
    for (std::size_t c = 0; c < curves; ++c)
      for (std::size_t k = 0; k < sizes; ++k)
        plan.push_back({c, k, share});
    if (rounds == 1)
      break;
    for (std::size_t i = plan.size() - first; i > 1; --i)
      std::swap(plan[first + i - 1], plan[first + draw() % i]);
  }
  return plan;
}

PairDriver::PairDriver(const Scenario& scenario, const RunContext& context, Rank rank, Transport& transport,
                       Results& results)
    : s_(scenario),
      platform_choices_(context.platform_choices),
      rank_(rank),
      t_(transport),
      results_(results),
      worker_(transport, scenario.select),
      ready_(0, false, payload_memory()) {
  leader_ = rank % 2 == 0;
  peer_ = leader_ ? rank + 1 : rank - 1;
}

void PairDriver::run(Step step, std::optional<PerfType> model) {
  // A forced curve runs its protocol; `auto` the transport's own choice,
  // or, where a platform chose, that choice at each size.
  const auto chosen = [&](std::size_t curve, std::size_t size) -> std::optional<std::string> {
    if (s_.curves[curve] != "auto")
      return s_.curves[curve];
    const auto at = platform_choices_.find(s_.sizes[size]);
    return at == platform_choices_.end() ? std::nullopt : std::optional<std::string>(at->second);
  };
  std::optional<std::string> configured_as;
  bool configured_once = false;
  auto configure = [&](std::size_t curve, std::size_t size) {
    const std::optional<std::string> forced = chosen(curve, size);
    if (configured_once && forced == configured_as)
      return;
    SelectConfig config = s_.select;
    if (forced)
      config.forced = {*forced};
    worker_.configure(config);
    configured_as = forced;
    configured_once = true;
  };
  // The points in curve then size order, so that the results keep that
  // order whatever order the visits take; a size the forced protocol does
  // not carry is none.
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> used;
  for (std::size_t c = 0; c < s_.curves.size(); ++c) {
    for (std::size_t k = 0; k < s_.sizes.size(); ++k) {
      configure(c, k);
      const ProtoChoice* choice = worker_.table(peer_, s_.memory).lookup(s_.sizes[k]);
      if (!choice)
        continue;
      used[{c, k}] = 0;
      Point& point = results_.point(s_.curves[c], s_.sizes[k]);
      if (leader_ && point.selected.empty()) {
        point.selected = std::string(choice->protocol->name);
        point.lanes = lanes_text(t_.path(peer_), choice->candidate.lanes, LanesText::Results);
        if (model)
          point.model = model_cost(*choice, *model, s_.sizes[k]);
      }
    }
  }
  const std::vector<Visit> plan = sampling_plan(s_.curves.size(), s_.sizes.size(), s_.iterations, s_.sampling, s_.seed);
  for (std::size_t v = 0; v < plan.size(); ++v) {
    const Visit& visit = plan[v];
    if (!t_.failure().empty())
      return;  // every request fails now: the caller reports the transport's failure
    const auto at = used.find({visit.curve, visit.size});
    if (at == used.end())
      continue;
    configure(visit.curve, visit.size);
    const Bytes n = s_.sizes[visit.size];
    Point& point = results_.point(s_.curves[visit.curve], n);
    size_index_ = visit.size;
    warmup_ = warmup_iterations(s_, n);
    iterations_ = visit.iterations;
    base_ = at->second;
    at->second += warmup_ + iterations_;
    if (results_.on_visit)
      results_.on_visit(point, v, plan.size());
    worker_.reset_buffered_peak();
    const std::size_t bad_before = worker_.stats().bad_headers;
    step(*this, point, n);
    // A dropped malformed header is a corrupt message too.
    point.errors += worker_.stats().bad_headers - bad_before;
  }
}

Tag PairDriver::tag(std::size_t iteration, std::uint64_t kind) const {
  return (static_cast<Tag>(size_index_) << 40) | (static_cast<Tag>(base_ + iteration) << 8) | kind;
}

std::uint64_t PairDriver::seq(std::size_t iteration, std::size_t index) const {
  return (static_cast<std::uint64_t>(size_index_) << 40) | (static_cast<std::uint64_t>(base_ + iteration) << 16) |
         index;
}

void PairDriver::send(const Payload& p, Tag tag) {
  Request* r = worker_.tag_send(peer_, p.send_buffer(), tag);
  worker_.wait(r);
  worker_.release(r);
}

Request* PairDriver::post(Payload& p, Tag tag) {
  return worker_.tag_recv(p.recv_buffer(), tag);
}

void PairDriver::finish(Point& point, Request* r, Payload& p, std::uint64_t seq_no) {
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
  if (protocol_named(curve, ProtoOp::Alltoall))
    return "'" + std::string(curve) + "' in <curves> is an alltoall protocol; the workload is " +
           std::string(scenario.workload->name);
  if (curve != "auto" && !protocol_name_known(curve))
    return "unknown protocol '" + std::string(curve) + "' in <curves> (known: auto, " + known_protocols() +
           ", or a prefix of one such as eager/multi)";
  return std::nullopt;
}

}  // namespace xover
