#include "tools/tune/settings.hpp"

#include "tools/tune/policy.hpp"

#include <algorithm>
#include <cmath>

namespace xover::tools::tune {

std::optional<Seconds> stream_cost_at(const LibLine& line, Bytes n) {
  Seconds t = 0;
  return !line.stream.empty() && evaluate(line.stream, n, t) ? std::optional<Seconds>(t) : std::nullopt;
}

std::optional<Seconds> slow_cost_at(const LibLine& line, Bytes n) {
  Seconds t = 0;
  return !line.slow.empty() && evaluate(line.slow, n, t) ? std::optional<Seconds>(t) : std::nullopt;
}

const LibLine* cheapest_if(const std::vector<LibLine>& lines, Bytes n, const std::function<bool(const LibLine&)>& keep,
                           Price price) {
  const LibLine* best = nullptr;
  Seconds best_t = 0;
  for (const LibLine& line : lines) {
    const std::optional<Seconds> t = price(line, n);
    if (t && keep(line) && (!best || *t < best_t)) {
      best = &line;
      best_t = *t;
    }
  }
  return best;
}

std::optional<Bytes> handover(const Policy& earlier, const Policy& later, Bytes from, Bytes to, Price price) {
  auto wins = [&](Bytes n) {
    const LibLine* a = earlier(n);
    const LibLine* b = later(n);
    const std::optional<Seconds> tb = b ? price(*b, n) : std::nullopt;
    const std::optional<Seconds> ta = a ? price(*a, n) : std::nullopt;
    return tb && (!ta || *tb < *ta);
  };
  // Walk sizes by 1/64 of an octave to the first winner, then bisect back.
  Bytes lo = from;
  for (double x = std::max<double>(from, 1); x <= static_cast<double>(to); x *= std::pow(2.0, 1.0 / 64)) {
    const Bytes n = static_cast<Bytes>(x);
    if (wins(n)) {
      Bytes hi = n;
      while (hi > lo + 1) {
        const Bytes mid = lo + (hi - lo) / 2;
        (wins(mid) ? hi : lo) = mid;
      }
      return wins(lo) ? lo : hi;
    }
    lo = n;
  }
  return std::nullopt;
}

std::optional<Difference> difference(const Policy& library, const Policy& recommended, Bytes from, Bytes to) {
  if (from > to)
    return std::nullopt;
  std::vector<Bytes> sizes{from, to};
  for (Bytes p = 1; p != 0 && p <= to; p <<= 1)
    if (p > from)
      sizes.push_back(p);
  std::optional<Difference> out;
  for (const Bytes n : sizes) {
    const LibLine* a = library(n);
    const LibLine* b = recommended(n);
    if (!a || !b)
      continue;
    const double ratio = *cost_at(*a, n) / *cost_at(*b, n);
    if (!out || ratio > out->worst_ratio)
      out = Difference{from, to, ratio, n, a->name, b->name};
  }
  return out;
}

std::string bytes_value(Bytes n) {
  return n == kSizeMax ? "inf" : std::to_string(n);
}

namespace {

/// A rendezvous scheme other than auto's is set only where auto's costs
/// more than this times it at the threshold: below, the difference is
/// within what the library's own runs of one size vary by (the probes'
/// runs of UCX's rendezvous over tcp spread by 10-13 % on this machine).
constexpr int kSchemeMarginPercent = 10;
constexpr double kSchemeMargin = 1 + kSchemeMarginPercent / 100.0;

bool is_zcopy(const LibLine& l) {
  return l.phase == Phase::Eager && l.name.find("zcopy") != std::string::npos;
}

/// The installed UCX's name for its lanes setting: LANES, or RAILS in the
/// versions that call them that (1.13 among them).
std::string lanes_name(const Installed& installed, const std::string& kind) {
  const std::string rails = "UCX_MAX_" + kind + "_RAILS";
  return installed.get(rails) && !installed.get("UCX_MAX_" + kind + "_LANES") ? rails : "UCX_MAX_" + kind + "_LANES";
}

/// "ucx/rndv/am drops below ucx/eager/bcopy/multi from 64K B on".
std::string crossing_text(Bytes at, const Policy& eager, const Policy& rndv) {
  if (at == kSizeMax)
    return "no rendezvous scheme beats eager at any size on this path";
  const LibLine* e = eager(at - 1);
  const LibLine* v = rndv(at);
  return (v ? v->name : std::string("rndv")) + " drops below " + (e ? e->name : std::string("eager")) + " from " +
         format_size(at) + " B on";
}

/// Where one test's rendezvous first beats its eager: "in a stream", ...
struct Crossing {
  std::string test;
  Bytes at = kSizeMax;
};

/// The rendezvous threshold from where one message's latency crosses
/// (`latency_at`, a ping-pong) and where the other tests do (`others`: a
/// stream's pace, tag_bw; one message in the machine's slow state). Where
/// they differ, the sizes between are won by eager in one test and by
/// rendezvous in another, so no threshold there makes every test faster;
/// the library's own hand-over `own` is kept where it lies between them
/// and otherwise moved to the nearest crossing: then every size whose
/// protocol changes gets faster in every test and none gets slower in any.
/// Without the library's own, nothing to keep: the latency's crossing.
std::pair<Bytes, std::string> rndv_threshold(Bytes latency_at, const std::vector<Crossing>& others,
                                             const std::optional<Bytes>& own, const Policy& eager,
                                             const Policy& rndv) {
  std::string why = crossing_text(latency_at, eager, rndv);
  Bytes lo = latency_at;
  Bytes hi = latency_at;
  for (const Crossing& c : others) {
    lo = std::min(lo, c.at);
    hi = std::max(hi, c.at);
  }
  if (lo == hi)
    return {latency_at, why + (others.empty() ? "" : " in every test priced")};
  why += " in one message's latency";
  for (const Crossing& c : others)
    why += ", " + c.test + " from " + bytes_value(c.at) + " B";
  why += ": between them one test runs faster eager, another rendezvous";
  if (!own)
    return {latency_at, why + "; the library's own hand-over unknown: the latency's"};
  if (*own < lo)
    return {lo, why + "; the lowest, above the library's own " + std::to_string(*own) +
                    " B: what moves to eager is faster in every test"};
  if (*own > hi)
    return {hi, why + "; the highest, below the library's own " + std::to_string(*own) +
                    " B: what moves to rendezvous is faster in every test"};
  return {*own, why + "; the library's own " + std::to_string(*own) +
                    " B lies between them: any other threshold makes one test slower, left as it is"};
}

void ucx_rndv_setting(TuneResult& r, Bytes thresh, std::string why, const std::optional<Bytes>& own,
                      const Policy& eager, const Policy& rndv, const Policy& library_rndv, const std::string& backend) {
  Setting s;
  s.name = "UCX_RNDV_THRESH";
  s.size = thresh;
  s.value = bytes_value(thresh);
  const std::optional<std::string> current = r.installed.get("UCX_RNDV_THRESH");
  if (current && current->find("intra:") != std::string::npos)
    s.value = (backend == "shm" ? "intra:" : "inter:") + s.value;
  s.why = std::move(why);
  if (own) {
    s.library = std::to_string(*own) + " (its own hand-over, tag_send)";
    const Policy lib = [&, d = *own](Bytes n) { return n < d ? eager(n) : library_rndv(n); };
    const Policy rec = [&, t = thresh](Bytes n) { return n < t ? eager(n) : rndv(n); };
    s.compared = true;
    s.cost = difference(lib, rec, std::min(*own, thresh), std::min(std::max(*own, thresh), kLargestCompared + 1) - 1);
  }
  r.settings.push_back(s);
}

/// UCX_RNDV_SCHEME where the cheapest scheme at the threshold is not the
/// one UCX's auto picks.
/// `cheapest_at`: where the cheapest scheme crosses eager; `rndv` is the
/// scheme chosen (auto's where another is within kSchemeMargin there).
void ucx_scheme_setting(TuneResult& r, Bytes thresh, const Policy& rndv, const Policy& library_rndv,
                        Bytes cheapest_at) {
  const LibLine* best = rndv(thresh);
  const LibLine* own = library_rndv(thresh);
  const std::string name = best->name.substr(best->name.rfind('/') + 1);
  if (own == best) {
    const std::vector<LibLine>& lines = r.lines;
    const LibLine* cheaper = cheapest(lines, cheapest_at, Phase::Rndv);
    r.notes.push_back(cheaper == own ? "UCX_RNDV_SCHEME: UCX's auto already runs " + name +
                                           ", the cheapest scheme at the threshold: left alone"
                                     : "UCX_RNDV_SCHEME: " + cheaper->name + " is cheaper than auto's " + own->name +
                                           " by less than " + std::to_string(kSchemeMarginPercent) +
                                           " % where it crosses eager: left alone");
    return;
  }
  Setting s{"UCX_RNDV_SCHEME", name, thresh, best->name + " is cheaper than " + own->name + ", which auto runs, at the threshold",
            r.installed.get("UCX_RNDV_SCHEME"), true, std::nullopt};
  s.cost = difference(library_rndv, rndv, thresh, kLargestCompared);
  r.settings.push_back(s);
}

void ucx_zcopy_setting(TuneResult& r, const UcxLimits& limits, Bytes thresh) {
  if (limits.max_zcopy == 0) {
    r.notes.push_back("UCX_ZCOPY_THRESH: " + limits.transports + " has no zero-copy active message: left alone");
    return;
  }
  const std::vector<LibLine>& lines = r.lines;
  const Policy bcopy = [&](Bytes n) { return cheapest_if(lines, n, [](const LibLine& l) { return l.phase == Phase::Eager && !is_zcopy(l); }); };
  const Policy zcopy = [&](Bytes n) { return cheapest_if(lines, n, is_zcopy); };
  if (std::none_of(lines.begin(), lines.end(), [](const LibLine& l) { return l.phase == Phase::Eager && !is_zcopy(l); })) {
    r.notes.push_back("UCX_ZCOPY_THRESH: the copied eager protocols were not measured: left alone");
    return;
  }
  const Bytes top = thresh == kSizeMax ? Bytes{64} << 20 : thresh - 1;
  const std::optional<Bytes> z = handover(bcopy, zcopy, 1, top);
  Setting s;
  s.name = "UCX_ZCOPY_THRESH";
  s.size = z;
  s.value = z ? std::to_string(*z) : "inf";
  s.why = z ? (zcopy(*z)->name + " drops below " + bcopy(*z)->name + " from " + format_size(*z) + " B on")
            : "no zero-copy eager beats the copied one below the rendezvous threshold";
  if (r.installed.handover) {
    const std::string& line = r.installed.handover->v1_line;
    const std::size_t at = line.find("..<egr/zcopy>");
    if (at != std::string::npos) {
      const std::size_t start = line.rfind("..", at - 1);
      if (const std::optional<Bytes> own = parse_memunits(line.substr(start + 2, at - start - 2))) {
        s.library = std::to_string(*own) + " (its own hand-over, tag_send)";
        s.compared = true;
        const Bytes rec = z.value_or(kSizeMax);
        const Policy lib = [&, d = *own](Bytes n) { return n < d ? bcopy(n) : zcopy(n); };
        const Policy mine = [&, rec](Bytes n) { return n < rec ? bcopy(n) : zcopy(n); };
        s.cost = difference(lib, mine, std::min(*own, rec), std::min(std::max(*own, rec), top + 1) - 1);
      }
    }
  }
  r.settings.push_back(s);
}

void ucx_lanes_settings(TuneResult& r, const Path& path, const UcxLimits& limits, Bytes thresh) {
  std::size_t am = 0;
  std::size_t rma = 0;
  for (const LaneAttrs& lane : path.lanes) {
    am += lane.caps.has(LaneCap::AmBcopy) ? 1 : 0;
    rma += lane.caps.has_any({LaneCap::GetZcopy, LaneCap::PutZcopy}) ? 1 : 0;
  }
  if (am > 1 && thresh > limits.max_bcopy + 1) {
    const Bytes n = thresh == kSizeMax ? Bytes{1} << 20 : thresh - 1;
    const std::vector<LibLine> wide = ucx_lines(path, limits, am, rma);
    const bool better = *cost_at(*cheapest(wide, n, Phase::Eager), n) < *cost_at(*cheapest(r.lines, n, Phase::Eager), n);
    r.settings.push_back({lanes_name(r.installed, "EAGER"), better ? std::to_string(am) : "1", n,
                          better ? "fragments striped over the " + std::to_string(am) + " AM lanes are faster at " + format_size(n)
                                 : "one lane is as fast as several at " + format_size(n),
                          r.installed.get(lanes_name(r.installed, "EAGER")), false, std::nullopt});
  }
  if (rma > 2)
    r.settings.push_back({lanes_name(r.installed, "RNDV"), std::to_string(rma), std::nullopt,
                          "the path has " + std::to_string(rma) + " RMA lanes, the default stripes over 2",
                          r.installed.get(lanes_name(r.installed, "RNDV")), false, std::nullopt});
  else
    r.notes.push_back(lanes_name(r.installed, "RNDV") + ": the path has " + std::to_string(rma) +
                      " RMA lane(s), within the default of 2: left alone");
}

}  // namespace

std::optional<Seconds> cost_at(const LibLine& line, Bytes n) {
  Seconds t = 0;
  return evaluate(line.cost, n, t) ? std::optional<Seconds>(t) : std::nullopt;
}

const LibLine* cheapest(const std::vector<LibLine>& lines, Bytes n, std::optional<Phase> phase) {
  return cheapest_if(lines, n, [&](const LibLine& l) { return !phase || l.phase == *phase; });
}

TuneResult tune_ucx(const Path& path, const std::string& backend, const Installed& installed,
                    const Probes* probes) {
  TuneResult r;
  r.library = Library::Ucx;
  r.backend = backend;
  r.installed = installed;
  const UcxLimits limits = ucx_limits(backend, installed);
  r.transports = limits.transports;
  r.transports_env = limits.env;
  r.limits_source = limits.source;
  r.lines = ucx_lines(path, limits);
  if (probes)
    apply_probes(r.lines, *probes, Library::Ucx, backend, r.notes);
  const std::vector<LibLine>& lines = r.lines;
  const Policy eager = [&](Bytes n) { return cheapest(lines, n, Phase::Eager); };
  const Policy rndv = [&](Bytes n) { return cheapest(lines, n, Phase::Rndv); };
  // UCX's own scheme (auto): a read where a lane can, else a write, else
  // active messages.
  const Policy library_rndv = [&](Bytes n) -> const LibLine* {
    for (const char* scheme : {"ucx/rndv/get_zcopy", "ucx/rndv/put_zcopy", "ucx/rndv/am"})
      for (const LibLine& l : lines)
        if (l.name == scheme && cost_at(l, n))
          return &l;
    return nullptr;
  };
  // The scheme is set only where it beats auto's by more than the margin
  // at the threshold; otherwise the threshold is where auto's scheme crosses.
  const Bytes best = handover(eager, rndv, 1, kSizeMax / 2).value_or(kSizeMax);
  const bool scheme_pays = best != kSizeMax && library_rndv(best) != rndv(best) &&
                           *cost_at(*library_rndv(best), best) > kSchemeMargin * *cost_at(*rndv(best), best);
  const Policy& runs = scheme_pays ? rndv : library_rndv;
  const Bytes latency_at = scheme_pays ? best : handover(eager, library_rndv, 1, kSizeMax / 2).value_or(kSizeMax);
  const bool streams = std::all_of(lines.begin(), lines.end(), [](const LibLine& l) { return !l.stream.empty(); });
  const Policy stream_eager = [&](Bytes n) {
    return cheapest_if(lines, n, [](const LibLine& l) { return l.phase == Phase::Eager; }, stream_cost_at);
  };
  const Bytes most = kSizeMax / 2;
  std::vector<Crossing> others;
  if (streams)
    others.push_back({"in a stream of messages", handover(stream_eager, runs, 1, most, stream_cost_at).value_or(kSizeMax)});
  if (std::any_of(lines.begin(), lines.end(), [](const LibLine& l) { return !l.slow.empty(); })) {
    const Policy slow_eager = [&](Bytes n) {
      return cheapest_if(lines, n, [](const LibLine& l) { return l.phase == Phase::Eager; }, slow_cost_at);
    };
    others.push_back({"in the machine's slow state", handover(slow_eager, runs, 1, most, slow_cost_at).value_or(kSizeMax)});
  }
  std::optional<Bytes> own;
  const bool v2 = installed.get("UCX_PROTO_ENABLE") == "y";
  if (installed.handover)
    own = v2 ? installed.handover->v2_rndv : installed.handover->v1_rndv;
  auto [thresh, why] = rndv_threshold(latency_at, others, own, eager, runs);
  ucx_rndv_setting(r, thresh, std::move(why), own, eager, runs, library_rndv, backend);
  ucx_zcopy_setting(r, limits, thresh);
  if (thresh != kSizeMax)
    ucx_scheme_setting(r, thresh, scheme_pays ? rndv : library_rndv, library_rndv, best);
  ucx_lanes_settings(r, path, limits, thresh);
  if (v2)
    r.settings.push_back({"UCX_PROTO_ENABLE", "n", std::nullopt,
                          "these thresholds price the v1 protocols; v2 selects by its own model", "y", false, std::nullopt});
  else if (installed.present)
    r.notes.push_back("UCX_PROTO_ENABLE: this UCX runs v1's protocols by default, which these settings price: left alone");
  return r;
}

}  // namespace xover::tools::tune
