// Which probe gave each figure, and the fit set (provenance.hpp).
#include "tools/calib/provenance.hpp"

#include <algorithm>

namespace xover::calib {
namespace {

bool same_steps(const SizeSteps& a, const SizeSteps& b) { return a.steps() == b.steps(); }

}  // namespace

void set_probe_sources(const LaneAttrs& lane, bool am_probed, bool timed_gets,
                       std::map<std::string, std::string>& sources) {
  const std::string am = am_probed ? "" : "transport";
  const std::string prefix = lane.name + ".";
  // A lane of active messages and gets keeps the PRTTs' L (its gets go on a
  // lane of their own, whose L the gets give).
  const bool gets_latency = timed_gets && !(am.empty() && lane.caps.has(LaneCap::AmBcopy));
  sources[prefix + "latency"] = gets_latency ? "get" : am.empty() ? "prtt" : am;
  sources[prefix + "bandwidth"] = timed_gets ? "get" : am.empty() ? "prtt" : am;
  sources[prefix + "o_send"] = am.empty() ? "post" : am;
  sources[prefix + "o_recv"] = am.empty() ? "delayed-prtt" : am;
  sources[prefix + "gap"] = am.empty() ? "train" : am;
}

void add_fit_set_source(std::map<std::string, std::string>& sources, const std::string& key) {
  std::string& source = sources[key];
  if (source.empty() || source == "fit-set")
    source = "fit-set";
  else if (!source.ends_with("+fit-set"))
    source += "+fit-set";
}

void set_refined_sources(const PlatformDraft& before, const PlatformDraft& after,
                         std::map<std::string, std::string>& sources) {
  for (const LaneAttrs& a : after.lanes) {
    const auto b = std::find_if(before.lanes.begin(), before.lanes.end(),
                                [&a](const LaneAttrs& l) { return l.name == a.name; });
    if (b == before.lanes.end())
      continue;
    const std::string prefix = a.name + ".";
    if (a.latency != b->latency)
      sources[prefix + "latency"] = "fit-set";
    if (a.bandwidth != b->bandwidth || !same_steps(a.bandwidth_steps, b->bandwidth_steps))
      sources[prefix + "bandwidth"] = "fit-set";
    if (a.o_send != b->o_send || !same_steps(a.o_send_steps, b->o_send_steps))
      sources[prefix + "o_send"] = "fit-set";
    if (a.o_recv != b->o_recv || !same_steps(a.o_recv_steps, b->o_recv_steps))
      sources[prefix + "o_recv"] = "fit-set";
    if (a.gap != b->gap)
      sources[prefix + "gap"] = "fit-set";
    if (!same_steps(a.message_factor, b->message_factor))
      sources[prefix + "message_factor"] = "fit-set";
  }
  if (after.memcpy_bw != before.memcpy_bw || !same_steps(after.memcpy_steps, before.memcpy_steps))
    sources["memcpy"] = "fit-set";
  if (!same_steps(after.bw_factor, before.bw_factor))
    sources["message_factor"] = "fit-set";
}

std::vector<FitEntry> pingpong_fit_set(const Results& sweeps) {
  std::vector<FitEntry> out;
  for (const Point* p : sweeps.points())
    if (!p->samples.empty())
      out.push_back({"pingpong", p->curve});
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace xover::calib
