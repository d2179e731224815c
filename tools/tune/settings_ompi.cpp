// ob1's MCA parameters for the BTL in use: eager_limit where ob1's eager
// line and the rendezvous ob1 itself would run cross; where that
// rendezvous is a pipeline (a BTL that registers memory and cannot read),
// rndv_eager_limit (the bytes phase 1 carries) by the slope of the two
// parts and max_send_size the send pipeline's fragment that is fastest for
// a large message.
#include <array>

#include "tools/tune/policy.hpp"
#include "tools/tune/settings.hpp"

namespace xover::tools::tune {
namespace {

const LibLine* named(const std::vector<LibLine>& lines, const std::string& name) {
  for (const LibLine& l : lines)
    if (l.name == name)
      return &l;
  return nullptr;
}

/// The rendezvous ob1 runs at n: RGET where the BTL reads remote memory;
/// the put protocol where it writes and registers nothing; otherwise the
/// send pipeline, and the RDMA pipeline from min_rdma_pipeline_size where
/// the BTL writes.
Policy ob1_rndv(const std::vector<LibLine>& lines) {
  const LibLine* rget = named(lines, "ob1/rndv/rget");
  const LibLine* put = named(lines, "ob1/rndv/put");
  const LibLine* send = named(lines, "ob1/rndv/send");
  const LibLine* rdma = named(lines, "ob1/rndv/rdma-pipeline");
  return [=](Bytes n) -> const LibLine* {
    if (rget)
      return rget;
    if (put)
      return put;
    if (rdma && cost_at(*rdma, n))
      return rdma;
    return send && cost_at(*send, n) ? send : nullptr;
  };
}

/// The sizes max_send_size is chosen among, and the message it is judged at.
constexpr std::array<Bytes, 7> kFragments{Bytes{16} << 10, Bytes{32} << 10,  Bytes{64} << 10, Bytes{128} << 10,
                                          Bytes{256} << 10, Bytes{512} << 10, Bytes{1} << 20};
constexpr Bytes kJudgedAt = Bytes{4} << 20;

void send_size_setting(TuneResult& r, const Path& path, const Ob1Btl& btl) {
  const std::string name = "btl_" + btl.name + "_max_send_size";
  Bytes best = btl.max_send_size;
  Seconds best_t = 0;
  for (const Bytes frag : kFragments) {
    Ob1Btl trial = btl;
    trial.max_send_size = frag;
    const std::vector<LibLine> lines = ob1_lines(path, trial);
    const std::optional<Seconds> t = cost_at(*named(lines, "ob1/rndv/send"), kJudgedAt);
    if (t && (best_t == 0 || *t < best_t)) {
      best = frag;
      best_t = *t;
    }
  }
  r.settings.push_back({name, std::to_string(best), kJudgedAt,
                        "the send pipeline's fastest fragment for a " + format_size(kJudgedAt) + " message" +
                            (btl.get ? " (ob1 reads contiguous messages with RGET; this sizes the send path only)" : ""),
                        r.installed.get(name), false, std::nullopt});
}

}  // namespace

TuneResult tune_ompi(const Path& path, const std::string& backend, const Installed& installed,
                     const Probes* probes) {
  TuneResult r;
  r.library = Library::Ompi;
  r.backend = backend;
  r.installed = installed;
  const Ob1Btl btl = ob1_btl(backend, installed);
  r.transports = btl.name;
  r.transports_env = "OMPI_MCA_pml=ob1 OMPI_MCA_btl=self," + btl.name;
  r.limits_source = btl.source;
  r.lines = ob1_lines(path, btl);
  if (probes)
    apply_probes(r.lines, *probes, Library::Ompi, backend, r.notes);
  const std::vector<LibLine>& lines = r.lines;
  const LibLine* eager_line = named(lines, "ob1/eager");
  const Policy eager = [=](Bytes n) { return cost_at(*eager_line, n) ? eager_line : nullptr; };
  const Policy rndv = ob1_rndv(lines);
  // Sizes up to eager_limit − sizeof(mca_pml_ob1_hdr_t) go eager.
  const Bytes most = btl.eager_cap - kOb1LimitHdr;
  const Bytes first_rndv = handover(eager, rndv, 1, most).value_or(most + 1);
  const Bytes limit = first_rndv - 1 + kOb1LimitHdr;
  const std::string eager_name = "btl_" + btl.name + "_eager_limit";
  Setting e{eager_name, std::to_string(limit), first_rndv, "",
            installed.get(eager_name).value_or(std::to_string(btl.eager_limit) + " (Open MPI 4.1's default)"), false,
            std::nullopt};
  e.why = first_rndv > most
              ? "eager wins up to " + std::to_string(most) + " B, the largest eager message the BTL accepts"
              : rndv(first_rndv)->name + " drops below ob1/eager from " + format_size(first_rndv) +
                    " B on; the limit counts ob1's largest header (56 B), as ob1 does";
  const Bytes own = btl.eager_limit > kOb1LimitHdr ? btl.eager_limit - kOb1LimitHdr + 1 : 1;
  const Policy lib = [=](Bytes n) { return n < own ? eager(n) : rndv(n); };
  const Policy rec = [=](Bytes n) { return n < first_rndv ? eager(n) : rndv(n); };
  e.compared = true;
  e.cost = difference(lib, rec, std::min(own, first_rndv), std::max(own, first_rndv) - 1);
  r.settings.push_back(e);

  if (probes) {
    r.notes.push_back("btl_" + btl.name + "_rndv_eager_limit and btl_" + btl.name +
                      "_max_send_size: the probes measured ob1's rendezvous with the installed values: left alone");
    return r;
  }
  const char* whole = btl.get ? "reads every message past the eager limit with RGET"
                     : !btl.registers && btl.put
                         ? "writes every contiguous message past the eager limit with its put protocol (the BTL "
                           "registers no memory, so min_rdma_pipeline_size does not apply)"
                         : nullptr;
  if (whole) {
    r.notes.push_back(std::string("ob1 ") + whole + " over " + btl.name + ": btl_" + btl.name +
                      "_rndv_eager_limit and btl_" + btl.name + "_max_send_size do not change its cost there: left alone");
    return r;
  }
  // Phase 1's bytes go before the ACK's round trip at the eager line's
  // slope; the rest at the pipeline's: all of the eager limit when that is
  // no steeper, none (the header alone) otherwise.
  const std::string rndv_name = "btl_" + btl.name + "_rndv_eager_limit";
  const LibLine* send = named(lines, "ob1/rndv/send");
  const double eager_slope = eager_line->cost.back().f.m;
  const double rest_slope = send ? send->cost.back().f.m : eager_slope;
  const bool all = eager_slope <= rest_slope;
  r.settings.push_back({rndv_name, std::to_string(all ? limit : kOb1RndvHdr), std::nullopt,
                        all ? "phase 1 moves bytes no slower than the pipeline after the ACK: as many as the eager limit"
                            : "the pipeline after the ACK is cheaper per byte than phase 1: the header alone",
                        installed.get(rndv_name), false, std::nullopt});
  send_size_setting(r, path, btl);
  return r;
}

}  // namespace xover::tools::tune
