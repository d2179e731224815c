// The seed's closed-form multi-lane rendezvous threshold (UCX wiki,
// "Rendezvous protocol threshold for multilane mode"), computed beside the
// envelope so that the two can be compared and their difference explained.
//
//   etime = ecost + n·egro + n/ebw + eover
//   rtime = d·((1+rrc)(rcost + n·rgro) + 4·rlat + 3·rover + n/rbw)
//   n     = (d((1+rrc)rcost + 4rlat + 3rover) − ecost − eover)
//           / (egro + 1/ebw − d((1+rrc)rgro + 1/rbw))
// rrc = 0 for rndv/am, 1 for rndv/get (the receiver registers too).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocols/select/threshold_table.hpp"

namespace xover {

/// The seed's definitions, read off the lanes: the eager side is the AM lane
/// (where eager/zcopy runs), the rendezvous side the rendezvous lanes, with
/// bw = Σ lane bandwidth as one message sees it (1/(1/B + o_recv_per_byte):
/// the receiver's CPU time per byte, which a TCP lane keeps apart from its
/// wire's, is in it; the sender's comes after the message has left),
/// cost = Σ reg_cost, gro = Σ reg_growth (zero with the registration cache
/// on), over = o_send + o_recv, lat = the largest L.
struct SeedInputs {
  Seconds ecost = 0;
  SecondsPerByte egro = 0;
  BytesPerSecond ebw = 0;
  Seconds eover = 0;
  Seconds rcost = 0;
  SecondsPerByte rgro = 0;
  BytesPerSecond rbw = 0;
  Seconds rlat = 0;
  Seconds rover = 0;
  double d = 1;
};

/// etime as a line.
LinearFunc seed_eager_line(const SeedInputs& in);
/// rtime / d as a line.
LinearFunc seed_rndv_line(const SeedInputs& in, int rrc);
/// The seed's n; empty when the formula has no positive solution.
std::optional<double> seed_threshold(const SeedInputs& in, int rrc);

/// The closed form against the envelope for one rendezvous protocol.
struct ClosedFormComparison {
  std::string rndv;                  ///< "rndv/am" or "rndv/get"
  int rrc = 0;
  std::optional<SeedInputs> inputs;  ///< empty when either side has no lane
  /// First whole size at which rendezvous wins, per the seed's formula.
  std::optional<Bytes> closed_form;
  /// First whole size at which the protocol model's d·rndv line drops below
  /// its eager/zcopy line (both lines extended over all sizes).
  std::optional<Bytes> envelope;
  /// First size the thresholds table gives to this rendezvous protocol.
  std::optional<Bytes> table;
  /// closed_form and envelope within one byte, or within 0.1 %: the seed
  /// has no header term, and the model's header bytes shift the crossover
  /// by about (header bytes)/(B·Δm).
  bool agree = false;
  std::vector<std::string> reasons;  ///< why they differ, term by term
};

std::vector<ClosedFormComparison> compare_closed_form(const ThresholdTable& table, const Path& path,
                                                      const SelectConfig& config);

}  // namespace xover
