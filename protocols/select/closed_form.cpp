#include "protocols/select/closed_form.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace xover {
namespace {

// The seed has no header term: thresholds within a thousandth of each other,
// the shift the model's header bytes make, count as agreeing.
constexpr Bytes kAgreePerMille = 1000;

// First whole size above a crossing at x; empty unless x is positive.
std::optional<Bytes> first_size_above(std::optional<double> x) {
  if (!x || !std::isfinite(*x) || *x <= 0 || *x >= 1.8446744073709552e19)
    return std::nullopt;
  return static_cast<Bytes>(std::floor(*x)) + 1;
}

std::string describe(const char* what, const LinearFunc& seed, const LinearFunc& model) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: seed %s + %.4g ns/B x n, model %s + %.4g ns/B x n", what,
                format_time(seed.c).c_str(), seed.m * 1e9, format_time(model.c).c_str(), model.m * 1e9);
  return buf;
}

bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)) + 1e-18;
}

const ProtoChoice* find_choice(const ThresholdTable& table, std::string_view name, std::size_t* index = nullptr) {
  for (std::size_t i = 0; i < table.choices().size(); ++i) {
    if (table.choices()[i].protocol->name == name) {
      if (index)
        *index = i;
      return &table.choices()[i];
    }
  }
  return nullptr;
}

// The piece of a protocol's (biased) single-message cost that holds at the
// crossing with `eager`, or its last piece.
LinearFunc crossing_piece(const ProtoChoice& choice, const LinearFunc& eager) {
  const auto& ranges = choice.candidate.ranges;
  for (const PerfRange& range : ranges) {
    const LinearFunc line = range.factors.scaled(choice.bias).single();
    const auto at = first_size_above(line.intersect(eager));
    if (at && *at >= range.from && *at <= range.to)
      return line;
  }
  return ranges.back().factors.scaled(choice.bias).single();
}

std::optional<Bytes> first_table_size(const ThresholdTable& table, std::string_view name) {
  for (const ThresholdRange& range : table.ranges())
    if (table.choices()[range.choice].protocol->name == name)
      return range.from;
  return std::nullopt;
}

/// A lane's bandwidth as one message sees it: the seed has no CPU time per
/// byte, so the receiver's (LaneAttrs::o_recv_per_byte, which a TCP lane
/// takes out of its wire's 1/B) goes back into it; the sender's comes
/// after the message has left.
BytesPerSecond message_bandwidth(const LaneAttrs& lane) {
  return 1 / (1 / lane.bandwidth + lane.o_recv_per_byte);
}

/// The seed's inputs read off the lanes: the eager side the AM lane, the
/// rendezvous side its lanes (closed_form.hpp, SeedInputs).
SeedInputs seed_inputs(const Path& path, std::size_t am_lane, const std::vector<LaneShare>& rndv_lanes,
                       const SelectConfig& config) {
  SeedInputs in;
  const LaneAttrs& eager_lane = path.lanes[am_lane];
  if (!config.reg_cache) {
    in.ecost = eager_lane.reg_cost;
    in.egro = eager_lane.reg_growth;
  }
  in.ebw = message_bandwidth(eager_lane);
  in.eover = eager_lane.o_send + eager_lane.o_recv;
  for (const LaneShare& share : rndv_lanes) {
    const LaneAttrs& lane = path.lanes[share.lane];
    in.rbw += message_bandwidth(lane);
    if (!config.reg_cache) {
      in.rcost += lane.reg_cost;
      in.rgro += lane.reg_growth;
    }
    in.rlat = std::max(in.rlat, lane.latency);
    in.rover = std::max(in.rover, lane.o_send + lane.o_recv);
  }
  in.d = config.rndv_bias();
  return in;
}

/// Why the seed's lines and the model's differ, term by term.
void explain_lines(ClosedFormComparison& cmp, const LinearFunc& model_eager, const LinearFunc& model_rndv) {
  const SeedInputs& in = *cmp.inputs;
  const LinearFunc seed_eager = seed_eager_line(in);
  const LinearFunc seed_rndv = seed_rndv_line(in, cmp.rrc).scale(in.d);
  if (!close(seed_eager.c, model_eager.c) || !close(seed_eager.m, model_eager.m))
    cmp.reasons.push_back(
        describe("eager/zcopy", seed_eager, model_eager) +
        (close(seed_eager.c, model_eager.c)
             ? ""
             : "; the seed's etime has no latency or header term, the model pays L once and puts the "
               "header's bytes on the wire") +
        (close(seed_eager.m, model_eager.m) ? "" : "; the model adds the receiver's copy out of its segment"));
  if (!close(seed_rndv.c, model_rndv.c) || !close(seed_rndv.m, model_rndv.m))
    cmp.reasons.push_back(
        describe((cmp.rndv + " (times d)").c_str(), seed_rndv, model_rndv) +
        (close(seed_rndv.c, model_rndv.c) ? ""
                                          : "; the seed counts 4 latencies and 3 overheads up to the sender's "
                                            "ACK, the model stops at the receiver's completion and puts the RTS "
                                            "and read-request headers on the wire") +
        (close(seed_rndv.m, model_rndv.m) ? ""
                                          : "; the model paces fragments by their slowest stage (here not the "
                                            "wire), the seed by n/rbw"));
}

/// What else sets the table's hand-over apart from the crossover: eager's
/// size limit, the table's own choice, the perf type, sized figures.
void explain_context(ClosedFormComparison& cmp, const ThresholdTable& table, const Path& path,
                     const SelectConfig& config, Bytes eager_max) {
  if (cmp.envelope && *cmp.envelope > eager_max + 1)
    cmp.reasons.push_back("eager/zcopy carries at most " + std::to_string(eager_max) +
                          " B (one receive segment), below the crossover; the seed assumes one zero-copy "
                          "message of any size");
  if (cmp.table && cmp.envelope && *cmp.table != *cmp.envelope && *cmp.table > 0) {
    const ProtoChoice* before = table.lookup(*cmp.table - 1);
    cmp.reasons.push_back("the table hands over to " + cmp.rndv + " at " + std::to_string(*cmp.table) +
                          " B from " + std::string(before ? before->protocol->name : "no protocol") +
                          ", not at the eager/zcopy crossover");
  }
  if (!cmp.table)
    cmp.reasons.push_back("the table never selects " + cmp.rndv);
  if (config.perf == PerfType::Streaming)
    cmp.reasons.push_back("the table optimises streaming; the closed form and the crossover are single-message "
                          "latency");
  if (!path.breakpoints().empty())
    cmp.reasons.push_back("the path's figures change with the operation's size (steps from " +
                          format_size(path.breakpoints().front()) +
                          "); the seed's inputs and both lines are the first step's, the table's are each size's");
}

/// The closed form against the envelope for rndv/am (rrc 0) or rndv/get (rrc 1).
ClosedFormComparison compare_one(const ThresholdTable& table, const Path& path, const SelectConfig& config, int rrc) {
  const EndpointLanes& lanes = table.lanes();
  ClosedFormComparison cmp;
  cmp.rrc = rrc;
  cmp.rndv = rrc == 0 ? "rndv/am" : "rndv/get";
  const std::vector<LaneShare>& rndv_lanes = table.bw_lanes(cmp.rndv);
  cmp.table = first_table_size(table, cmp.rndv);
  if (!lanes.am || rndv_lanes.empty()) {
    cmp.reasons.push_back("no lane for " + std::string(lanes.am ? cmp.rndv : "eager") +
                          ": the seed's formula needs both sides");
    return cmp;
  }
  cmp.inputs = seed_inputs(path, *lanes.am, rndv_lanes, config);
  cmp.closed_form = first_size_above(seed_threshold(*cmp.inputs, rrc));

  const ProtoChoice* eager = find_choice(table, "eager/zcopy");
  const ProtoChoice* rndv = find_choice(table, cmp.rndv);
  if (!eager || !rndv) {
    cmp.reasons.push_back(std::string(!eager ? "eager/zcopy" : cmp.rndv) +
                          " is not available (no capable lane, disabled, or outside a forced set), "
                          "so the protocol model has no line to compare");
    return cmp;
  }
  const LinearFunc model_eager = eager->candidate.ranges.front().factors.single();
  const LinearFunc model_rndv = crossing_piece(*rndv, model_eager);
  cmp.envelope = first_size_above(model_rndv.intersect(model_eager));
  const Bytes apart = cmp.closed_form && cmp.envelope ? std::max(*cmp.closed_form, *cmp.envelope) -
                                                            std::min(*cmp.closed_form, *cmp.envelope)
                                                      : 0;
  cmp.agree = (!cmp.closed_form && !cmp.envelope) ||
              (cmp.closed_form && cmp.envelope && apart <= std::max<Bytes>(1, *cmp.closed_form / kAgreePerMille));
  if (!cmp.closed_form || !cmp.envelope || apart > 1)
    explain_lines(cmp, model_eager, model_rndv);
  explain_context(cmp, table, path, config, eager->candidate.ranges.back().to);
  return cmp;
}

}  // namespace

LinearFunc seed_eager_line(const SeedInputs& in) {
  return {in.ecost + in.eover, in.egro + 1.0 / in.ebw};
}

LinearFunc seed_rndv_line(const SeedInputs& in, int rrc) {
  return {(1 + rrc) * in.rcost + 4 * in.rlat + 3 * in.rover, (1 + rrc) * in.rgro + 1.0 / in.rbw};
}

std::optional<double> seed_threshold(const SeedInputs& in, int rrc) {
  const double num = in.d * ((1 + rrc) * in.rcost + 4 * in.rlat + 3 * in.rover) - in.ecost - in.eover;
  const double den = in.egro + 1.0 / in.ebw - in.d * ((1 + rrc) * in.rgro + 1.0 / in.rbw);
  if (den <= 0 || num <= 0)
    return std::nullopt;
  return num / den;
}

std::vector<ClosedFormComparison> compare_closed_form(const ThresholdTable& table, const Path& path,
                                                      const SelectConfig& config) {
  std::vector<ClosedFormComparison> out;
  for (int rrc : {0, 1})
    out.push_back(compare_one(table, path, config, rrc));
  return out;
}

}  // namespace xover
