#include "tools/tune/library_model.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "protocols/proto_costs.hpp"

namespace xover::tools::tune {
namespace {

/// A cost line of the path as one message of n bytes sees it.
using Pricer = std::function<LinearFunc(const Path& at_message)>;
/// The same as factors: one message's latency and a stream's pace.
using FactorPricer = std::function<PerfFactors(const Path& at_message)>;

/// The pieces of [from, to] between each two of the path's breakpoints:
/// each priced on the path as a message at the piece's start sees it
/// (Path::for_message).
std::vector<std::pair<Bytes, Bytes>> pieces(const Path& path, Bytes from, Bytes to) {
  std::vector<std::pair<Bytes, Bytes>> out;
  if (from > to)
    return out;
  std::set<Bytes> cuts{from};
  for (const Bytes b : path.breakpoints())
    if (b > from && b <= to)
      cuts.insert(b);
  for (auto it = cuts.begin(); it != cuts.end(); ++it) {
    const auto next = std::next(it);
    out.emplace_back(*it, next == cuts.end() ? to : *next - 1);
  }
  return out;
}

/// `price` on [from, to], piece by piece.
PiecewiseFunc priced(const Path& path, Bytes from, Bytes to, const Pricer& price) {
  PiecewiseFunc out;
  for (const auto& [lo, hi] : pieces(path, from, to))
    out.push_back(Piece{lo, hi, price(path.for_message(lo))});
  return out;
}

/// A line of one message's latency (the sum of the factors) and of a
/// stream's pace (the busiest factor), piece by piece.
LibLine factor_line(std::string name, Phase phase, const Path& path, Bytes from, Bytes to,
                    const FactorPricer& price, std::string formula, Bytes fragment = 0) {
  LibLine line(std::move(name), phase, {}, std::move(formula), fragment);
  for (const auto& [lo, hi] : pieces(path, from, to)) {
    const PerfFactors f = price(path.for_message(lo));
    line.cost.push_back(Piece{lo, hi, f.single()});
    for (const Piece& p : f.streaming(lo, hi))
      line.stream.push_back(p);
  }
  return line;
}

/// A message the receiver sends back (an RTR): its CPUs' roles swapped.
PerfFactors reply(PerfFactors f) {
  std::swap(f[Factor::LocalCpu], f[Factor::RemoteCpu]);
  return f;
}

std::size_t am_lane(const Path& path) {
  for (std::size_t i = 0; i < path.lanes.size(); ++i)
    if (path.lanes[i].caps.has(LaneCap::AmBcopy))
      return i;
  throw PathError("no lane from " + path.from + " to " + path.to +
                  " carries active messages (am_bcopy): the library's eager protocols need one");
}

/// Up to `most` lanes with `cap`, weighted by bandwidth.
std::vector<LaneShare> lanes_with(const Path& path, LaneCap cap, std::size_t most) {
  std::vector<LaneShare> out;
  double total = 0;
  for (std::size_t i = 0; i < path.lanes.size() && out.size() < most; ++i)
    if (path.lanes[i].caps.has(cap)) {
      out.push_back({i, path.lanes[i].bandwidth});
      total += path.lanes[i].bandwidth;
    }
  for (LaneShare& share : out)
    share.weight /= total;
  return out;
}

/// One active message of n payload bytes with `header`, the sender's copy
/// where `copies`, and the receiver's copy out of its segment.
PerfFactors eager_one(const Path& p, std::size_t lane, Bytes header, bool copies) {
  PerfFactors f = cost::am_message(p.lanes[lane], header);
  if (copies)
    f[Factor::LocalCpu] += cost::bcopy_send_copy(p.lanes[lane], p.memcpy_bw_local);
  f[Factor::RemoteCpu] += cost::copy(p.memcpy_bw_remote);
  return f;
}

/// Fragments of `frag` payload bytes back to back over `lanes`, each with
/// o_s (+ the sender's copy where `copies`) and o_r + the receiver's copy.
PerfFactors eager_pipeline(const Path& p, const std::vector<LaneShare>& lanes, Bytes frag, bool copies) {
  const Path f = p.at(frag);
  const LaneAttrs& first = f.lanes[lanes.front().lane];
  const LinearFunc send = LinearFunc::constant(first.o_send) +
                          (copies ? cost::bcopy_send_copy(first, f.memcpy_bw_local) : LinearFunc{});
  const LinearFunc recv = LinearFunc::constant(first.o_recv) + cost::copy(f.memcpy_bw_remote);
  return cost::fragment_pipeline(f, lanes, frag, kUcxFirstHdr, send, recv);
}

/// One RDMA read (`read`) or write of n bytes striped over `lanes`:
/// k posts, 2L for a read (request and data) or L for a write, n/ΣB, and
/// the far side's o_r where its CPU serves it (every lane is charged it:
/// an RDMA NIC's o_r is its completion). A read is posted by the
/// receiver and served by the sender, a write the other way round.
PerfFactors rma(const Path& p, const std::vector<LaneShare>& lanes, bool read) {
  Seconds post = 0;
  Seconds latency = 0;
  Seconds serve = 0;
  double bw = 0;
  for (const LaneShare& share : lanes) {
    const LaneAttrs& lane = p.lanes[share.lane];
    post += lane.o_send;
    latency = std::max(latency, lane.latency);
    serve = std::max(serve, lane.o_recv);
    bw += lane.bandwidth;
  }
  PerfFactors f;
  f[read ? Factor::RemoteCpu : Factor::LocalCpu] = LinearFunc::constant(post);
  f[read ? Factor::LocalCpu : Factor::RemoteCpu] = LinearFunc::constant(serve);
  f[Factor::Latency] = LinearFunc::constant((read ? 2 : 1) * latency);
  f[Factor::Network] = LinearFunc{0, 1.0 / bw};
  return f;
}

PerfFactors control(const Path& p, std::size_t lane, Bytes header) {
  return cost::control_message(p.lanes[lane], header);
}

void add_ucx_eager(std::vector<LibLine>& out, const Path& path, const UcxLimits& l, std::size_t am,
                   const std::vector<LaneShare>& eager) {
  out.push_back(factor_line("ucx/eager/short", Phase::Eager, path, 0, l.max_short,
                            [&](const Path& p) { return eager_one(p, am, kUcxEagerHdr, false); },
                            "o_s + L + (8+n)/B + o_r + n/M_r: inline, copied out of the receive segment"));
  out.push_back(factor_line("ucx/eager/bcopy", Phase::Eager, path, 0, l.max_bcopy,
                            [&](const Path& p) { return eager_one(p, am, kUcxEagerHdr, true); },
                            "o_s + n/M_s + L + (8+n)/B + o_r + n/M_r: one bounce buffer of at most " +
                                format_size(l.max_bcopy)));
  if (l.max_zcopy > 0)
    out.push_back(factor_line("ucx/eager/zcopy", Phase::Eager, path, 0, l.max_zcopy,
                              [&](const Path& p) { return eager_one(p, am, kUcxEagerHdr, false); },
                              "o_s + L + (8+n)/B + o_r + n/M_r: from the user's buffer (UCX's registration cache "
                              "hits), one receive segment of at most " + format_size(l.max_zcopy)));
  out.push_back(factor_line("ucx/eager/bcopy/multi", Phase::Eager, path, l.max_bcopy + 1, kSizeMax,
                            [&](const Path& p) { return eager_pipeline(p, eager, l.max_bcopy, true); },
                            "fragments of " + format_size(l.max_bcopy) + " back to back: fill + (n - S)·max(stage)/S",
                            l.max_bcopy));
  if (l.max_zcopy > 0)
    out.push_back(factor_line("ucx/eager/zcopy/multi", Phase::Eager, path, l.max_zcopy + 1, kSizeMax,
                              [&](const Path& p) { return eager_pipeline(p, eager, l.max_zcopy, false); },
                              "fragments of " + format_size(l.max_zcopy) + " back to back, no sender copy",
                              l.max_zcopy));
}

/// The rendezvous schemes. An RTR is the receiver's message to the sender
/// (reply); in a stream each scheme's control messages overlap the other
/// messages' data, so the busiest CPU or the wire paces it.
void add_ucx_rndv(std::vector<LibLine>& out, const Path& path, const UcxLimits& l, std::size_t am,
                  std::size_t rndv_lanes) {
  const std::vector<LaneShare> get = lanes_with(path, LaneCap::GetZcopy, rndv_lanes);
  const std::vector<LaneShare> put = lanes_with(path, LaneCap::PutZcopy, rndv_lanes);
  if (l.get_zcopy && !get.empty())
    out.push_back(factor_line("ucx/rndv/get_zcopy", Phase::Rndv, path, 0, kSizeMax,
                              [&](const Path& p) { return control(p, am, kUcxRtsHdr) + rma(p, get, true); },
                              "RTS + get(n): o_s + L + 48/B + o_r, then k posts + 2L + o_r + n/ΣB over " +
                                  std::to_string(get.size()) + " lane(s); the ATS is off the receiver's path"));
  if (l.put_zcopy && !put.empty())
    out.push_back(factor_line("ucx/rndv/put_zcopy", Phase::Rndv, path, 0, kSizeMax,
                              [&](const Path& p) {
                                return control(p, am, kUcxRtsHdr) + reply(control(p, am, kUcxRtsHdr)) +
                                       rma(p, put, false) + control(p, am, kUcxEagerHdr);
                              },
                              "RTS + RTR + put(n) + ATP: three control messages and k posts + L + o_r + n/ΣB over " +
                                  std::to_string(put.size()) + " lane(s)"));
  const Bytes frag = l.max_zcopy > 0 ? l.max_zcopy : l.max_bcopy;
  const std::vector<LaneShare> one{{am, 1}};
  out.push_back(factor_line("ucx/rndv/am", Phase::Rndv, path, 0, kSizeMax,
                            [&](const Path& p) {
                              return control(p, am, kUcxRtsHdr) + reply(control(p, am, kUcxRtsHdr)) +
                                     eager_pipeline(p, one, frag, l.max_zcopy == 0);
                            },
                            "RTS + RTR + fragments of " + format_size(frag) + " as active messages", frag));
}

}  // namespace

std::string ucx_env(std::string_view backend) {
  if (backend == "shm")
    return "UCX_TLS=posix,cma";
  if (backend == "tcp")
    return "UCX_TLS=tcp UCX_NET_DEVICES=lo";
  if (backend == "verbs")
    return "UCX_TLS=rc_verbs";
  throw std::invalid_argument("UCX has no transports for backend '" + std::string(backend) + "'");
}

UcxLimits ucx_limits(std::string_view backend, const Installed& installed) {
  UcxLimits l;
  auto seg = [&](const std::string& key, Bytes fallback) {
    const std::optional<std::string> v = installed.get(key);
    const std::optional<Bytes> b = v ? parse_memunits(*v) : std::nullopt;
    return b.value_or(fallback);
  };
  // UCX 1.13's defaults (`ucx_info -c`, `ucx_info -d`): posix has no AM
  // zcopy, and its FIFO element of 128 B carries the inline message; tcp
  // sends up to its TX segment (8 KiB) inline or copied and zero-copy up to
  // its RX segment (64 KiB), and writes but cannot read remote memory;
  // rc_verbs inlines up to TX_MIN_INLINE (64 B).
  if (backend == "shm") {
    l = {"posix,cma", ucx_env(backend), 92, seg("UCX_POSIX_SEG_SIZE", 8256) - kUcxEagerHdr, 0, true, true, ""};
  } else if (backend == "tcp") {
    l = {"tcp", ucx_env(backend), 8184, seg("UCX_TCP_TX_SEG_SIZE", 8192) - kUcxEagerHdr,
         seg("UCX_TCP_RX_SEG_SIZE", 65536) - kUcxEagerHdr, false, true, ""};
  } else if (backend == "verbs") {
    l = {"rc_verbs", ucx_env(backend), seg("UCX_RC_VERBS_TX_MIN_INLINE", 64) - kUcxEagerHdr,
         seg("UCX_RC_VERBS_SEG_SIZE", 8256) - kUcxEagerHdr, seg("UCX_RC_VERBS_SEG_SIZE", 8256) - kUcxEagerHdr,
         true, true, ""};
  } else {
    throw std::invalid_argument("UCX has no transports for backend '" + std::string(backend) + "'");
  }
  l.source = installed.present ? "the installed UCX's segment sizes" : "UCX 1.13's defaults (UCX not installed)";
  // The installed library's own short limit: `0..<egr/short>..N..` sends
  // sizes below N inline.
  if (installed.handover && !installed.handover->v1_line.empty()) {
    const std::string& line = installed.handover->v1_line;
    const std::size_t at = line.find("<egr/short>..");
    if (at != std::string::npos) {
      const std::size_t end = line.find("..", at + 13);
      if (const std::optional<Bytes> n = parse_memunits(line.substr(at + 13, end - at - 13)); n && *n > 0) {
        l.max_short = *n - 1;
        l.source += " and its own eager short limit";
      }
    }
  }
  return l;
}

Ob1Btl ob1_btl(std::string_view backend, const Installed& installed) {
  Ob1Btl b;
  // Open MPI 4.1's defaults (`ompi_info --param btl all --level 9`); of
  // the three BTLs only openib registers memory, and only tcp's
  // prepare_src sends from the user's buffer (btl_tcp.c).
  if (backend == "shm")
    b = {"vader", 4096, 32768, 32768, 0, 0, true, true, false, false, ""};
  else if (backend == "tcp")
    b = {"tcp", 65536, 65536, 131072, 196608, kOb1EagerCap, false, true, false, true, ""};
  else if (backend == "verbs")
    b = {"openib", 12288, 12288, 65536, 1060864, kOb1EagerCap, true, true, true, false, ""};
  else
    throw std::invalid_argument("Open MPI has no BTL for backend '" + std::string(backend) + "'");
  auto param = [&](const std::string& suffix, Bytes& into) {
    const std::optional<std::string> v = installed.get("btl_" + b.name + "_" + suffix);
    if (const std::optional<Bytes> n = v ? parse_memunits(*v) : std::nullopt)
      into = *n;
  };
  param("eager_limit", b.eager_limit);
  param("rndv_eager_limit", b.rndv_eager_limit);
  param("max_send_size", b.max_send_size);
  param("min_rdma_pipeline_size", b.min_rdma_pipeline);
  if (b.name == "vader") {
    Bytes segment = Bytes{4} << 20;
    Bytes free_list = 8;
    param("segment_size", segment);
    param("free_list_num", free_list);
    b.eager_cap = std::min(kOb1EagerCap, segment / (free_list + 1));
  }
  if (const std::optional<std::string> flags = installed.get("btl_" + b.name + "_flags")) {
    b.get = flags->find("get") != std::string::npos;
    b.put = flags->find("put") != std::string::npos;
  }
  b.source = installed.present ? "the installed Open MPI's parameters" : "Open MPI 4.1's defaults (not installed)";
  return b;
}

std::vector<LibLine> ucx_lines(const Path& path, const UcxLimits& limits, std::size_t eager_lanes,
                               std::size_t rndv_lanes) {
  const std::size_t am = am_lane(path);
  std::vector<LaneShare> eager = lanes_with(path, LaneCap::AmBcopy, std::max<std::size_t>(eager_lanes, 1));
  std::vector<LibLine> out;
  add_ucx_eager(out, path, limits, am, eager);
  add_ucx_rndv(out, path, limits, am, std::max<std::size_t>(rndv_lanes, 1));
  return out;
}

std::vector<LibLine> ob1_lines(const Path& path, const Ob1Btl& btl) {
  const std::size_t am = am_lane(path);
  const std::vector<LaneShare> one{{am, 1}};
  std::vector<LibLine> out;
  out.push_back({"ob1/eager", Phase::Eager, priced(path, 0, btl.eager_cap - kOb1LimitHdr, [&](const Path& p) {
                   return eager_one(p, am, kOb1MatchHdr, !btl.sends_in_place).single();
                 }),
                 btl.sends_in_place ? "one fragment from the user's buffer: o_s + L + (14+n)/B + o_r + n/M_r"
                                    : "one fragment: o_s + n/M_s + L + (14+n)/B + o_r + n/M_r"});
  const Bytes phase1 = btl.rndv_eager_limit > kOb1RndvHdr ? btl.rndv_eager_limit - kOb1RndvHdr : 0;
  const Bytes frag = std::max<Bytes>(btl.max_send_size, 1);
  if (btl.get) {
    const std::vector<LaneShare> get = lanes_with(path, LaneCap::GetZcopy, 1);
    if (!get.empty())
      out.push_back({"ob1/rndv/rget", Phase::Rndv, priced(path, 0, kSizeMax, [&](const Path& p) {
                       return (control(p, am, kOb1RndvHdr) + rma(p, get, true)).single();
                     }),
                     "RGET header, then the receiver reads all n: o_s + L + o_r, k posts + 2L + o_r + n/B"});
  }
  const std::vector<LaneShare> put = lanes_with(path, LaneCap::PutZcopy, 1);
  if (btl.put && !btl.get && !btl.registers && !put.empty()) {
    // pml_ob1_sendreq.c, start_rdma without get: a RNDV header with no
    // payload; the receiver answers with a PUT request (its buffer's
    // address); the sender writes all n into it and sends the FIN behind
    // the data on the same connection, so the FIN's L overlaps the put's.
    out.push_back({"ob1/rndv/put", Phase::Rndv, priced(path, 0, kSizeMax, [&](const Path& p) {
                     PerfFactors fin = control(p, am, kOb1FinHdr);
                     fin[Factor::Latency] = LinearFunc{};
                     return (control(p, am, kOb1RndvHdr) + reply(control(p, am, kOb1PutHdr)) + rma(p, put, false) +
                             fin)
                         .single();
                   }),
                   "RNDV header without payload, the receiver's PUT request, the write of all n into the user's "
                   "buffer, FIN behind it: 3 (o_s + L + o_r) + k posts + n/B + o_s + o_r"});
    return out;
  }
  out.push_back({"ob1/rndv/send", Phase::Rndv, priced(path, phase1, kSizeMax, [&](const Path& p) {
                   const LinearFunc first = eager_one(p, am, kOb1RndvHdr, true).single();
                   const LinearFunc rest = eager_pipeline(p, one, frag, true).single();
                   // Phase 1 carries P bytes, the pipeline the other n - P.
                   const Seconds ack = control(p, am, kOb1MatchHdr).single().c;
                   return LinearFunc{first.apply(static_cast<double>(phase1)) + ack +
                                         rest.c - rest.m * static_cast<double>(phase1),
                                     rest.m};
                 }),
                 "RNDV with " + format_size(phase1) + " (rndv_eager_limit), ACK, then n - P in fragments of " +
                     format_size(frag) + " (max_send_size) copied in and out",
                 frag});
  if (btl.put && !put.empty())
    out.push_back({"ob1/rndv/rdma-pipeline", Phase::Rndv,
                   priced(path, std::max(btl.min_rdma_pipeline, phase1), kSizeMax, [&](const Path& p) {
                     const LinearFunc first = eager_one(p, am, kOb1RndvHdr, true).single();
                     const LinearFunc w = rma(p, put, false).single();
                     const Seconds ctrl = control(p, am, kOb1MatchHdr).single().c;
                     return LinearFunc{first.apply(static_cast<double>(phase1)) + ctrl + w.c -
                                           w.m * static_cast<double>(phase1) + ctrl,
                                       w.m};
                   }),
                   "RNDV with P bytes, ACK, RDMA write of n - P, FIN: from min_rdma_pipeline_size"});
  return out;
}

}  // namespace xover::tools::tune
