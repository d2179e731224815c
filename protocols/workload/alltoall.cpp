// The alltoall: each of `pes` PEs puts n bytes to every other one with
// put_signal and completes when its own signal word shows the P − 1 puts
// (protocols/coll/alltoall_pe.hpp runs one PE's stages). A sample is the
// whole exchange, from a start date every PE waits for to the last PE's
// completion. Its curves are `auto` and the collective protocols; `auto`
// takes the flavour alltoall_selection() picks with the put lane's L, B, g
// and the device figures (the simulated node's, or on hardware the
// platform's: RunContext::device). Every byte is checked against a pattern
// naming its source, destination, offset and exchange, and every signal
// word must show exactly the puts sent to it; problems go to the point's
// errors and notes.
//
// On a backend that keeps the PEs' buffers on a device (RunContext::
// device_alltoall, the cuda backend's GPU PEs), that engine runs each
// exchange in place of AlltoallPe, from the same start date: each PE
// launches at it, and its time runs from the launch to its signal showing
// every put. The notes then give the device's measured o_device, o_proxy
// and W and what the engine says of the device (PEs sharing one).
//
// Each exchange: every PE writes its bytes, checks its signal word (no put
// can be on its way to it then) and says it is ready to PE 0,
// which sends back a start date 2 ms ahead on its clock (a PE whose clock
// is more than a second away, on another machine, starts 2 ms after the
// message instead); after the exchange each PE reports its time, and PE 0
// keeps the largest as the sample. These control messages go through the
// Worker (tagged messages), outside the timed part.
//
// Attributes (AlltoallSettings, alltoall.hpp): pes (required, 2 to 1048576;
// the platform's first `pes` nodes, so <platform> names no from or to),
// threads (posting threads of a PE, 1 to 1048576; default the platform's
// `xover:threads`), batch (puts per simulated transfer, at least 1, or
// auto: sim/alltoall_sim.hpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <thread>

#include "protocols/coll/alltoall_pe.hpp"
#include "protocols/coll/device_alltoall.hpp"
#include "protocols/registry.hpp"
#include "protocols/workload/alltoall.hpp"
#include "protocols/workload/workloads.hpp"

namespace xover {
namespace {

/// The most PEs an alltoall takes, and the most threads.
constexpr std::uint64_t kMaxPes = 1u << 20;

std::any parse_alltoall(const Attributes& attributes, const Scenario& scenario) {
  if (!scenario.from.empty())
    attributes.fail("an alltoall runs on the platform's first 'pes' nodes; <platform> takes no 'from' or 'to' with it");
  AlltoallSettings settings;
  const std::uint64_t pes = attributes.count("pes", 2);
  if (pes > kMaxPes)
    attributes.bad("pes", *attributes.find("pes"), "at most " + std::to_string(kMaxPes));
  settings.pes = static_cast<std::uint32_t>(pes);
  if (const auto value = attributes.find("threads")) {
    const std::uint64_t threads = attributes.count("threads", 1);
    if (threads > kMaxPes)
      attributes.bad("threads", *value, "at most " + std::to_string(kMaxPes));
    settings.threads = static_cast<std::uint32_t>(threads);
  }
  if (const auto value = attributes.find("batch"); value && *value != "auto")
    settings.batch = attributes.count("batch", 1);
  return settings;
}

std::optional<std::string> alltoall_curve_error(const Scenario&, std::string_view curve) {
  if (curve == "auto" || protocol_named(curve, ProtoOp::Alltoall))
    return std::nullopt;
  std::string known;
  for (const Protocol* protocol : protocols_for(ProtoOp::Alltoall))
    known += (known.empty() ? "" : ", ") + std::string(protocol->name);
  return "unknown protocol '" + std::string(curve) + "' in <curves> for an alltoall (known: auto, " + known + ")";
}

std::optional<std::string> alltoall_nodes_error(const Scenario& scenario, std::size_t nodes,
                                                std::string_view platform) {
  const std::uint32_t pes = workload_settings<AlltoallSettings>(scenario).pes;
  if (pes <= nodes)
    return std::nullopt;
  return "pes=\"" + std::to_string(pes) + "\": an alltoall of " + std::to_string(pes) +
         " PEs needs as many nodes, and " + std::string(platform) + " has " + std::to_string(nodes);
}

Rank alltoall_ranks(const Scenario& scenario) {
  return workload_settings<AlltoallSettings>(scenario).pes;
}

/// The device figures a PE prices with: those its threads are charged
/// (simulation), else the run's (hardware: the platform's), else the
/// defaults; the scenario's `threads` over them.
DeviceAttrs device_of(const Scenario& scenario, const RunContext& context, const std::optional<DeviceAttrs>& charged) {
  DeviceAttrs device = charged.value_or(context.device.value_or(DeviceAttrs{}));
  if (const std::optional<std::uint32_t> threads = workload_settings<AlltoallSettings>(scenario).threads)
    device.threads = *threads;
  return device;
}

/// Posting threads per PE, and the proxy where a curve may take that flavour.
std::uint32_t alltoall_threads(const Scenario& scenario, const RunContext& context) {
  const DeviceAttrs device = device_of(scenario, context, std::nullopt);
  const std::uint32_t pes = workload_settings<AlltoallSettings>(scenario).pes;
  const std::uint32_t posters = std::clamp<std::uint32_t>(device.threads, 1, std::max<std::uint32_t>(pes, 2) - 1);
  const bool proxy = std::any_of(scenario.curves.begin(), scenario.curves.end(), [](const std::string& c) {
    const Protocol* p = protocol_named(c, ProtoOp::Alltoall);
    return !p || p->flavour == AlltoallFlavour::Proxy;
  });
  return posters + (proxy ? 1 : 0);
}

/// The start of an exchange ahead of PE 0's clock, and how long an exchange
/// may take before a PE gives up on a put that never came.
constexpr Seconds kStartMargin = 2e-3;
constexpr Seconds kExchangeLimit = 2.0;
/// A clock further than this from PE 0's is another machine's.
constexpr Seconds kSameClock = 1.0;
/// Problems kept in a point's notes per PE.
constexpr std::size_t kNotedProblems = 3;

enum ControlKind : std::uint64_t { kReady = 2, kGo = 3, kReport = 4 };

Tag control_tag(ControlKind kind, Rank from, std::uint64_t exchange) {
  return kind | (Tag{from} << 8) | (exchange << 32);
}

std::string micros(Seconds t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3gus", t * 1e6);
  return buf;
}

/// What one exchange gave this PE, on the host or on a device.
struct Exchanged {
  Seconds took = 0;  ///< from the start date to its signal showing every put, or the limit
  std::vector<Seconds> post, serve, wake;
  Seconds clock_uncertainty = 0;  ///< a device's: how far each wake may be off
};

/// The device's figures for a point's notes: medians over PE 0's puts (and
/// commands), W with how far the clocks may be off.
std::string device_figures_note(const std::vector<Seconds>& post, const std::vector<Seconds>& serve,
                                const std::vector<Seconds>& wake, Seconds clock_uncertainty) {
  std::string out = "PE 0 measured on the device: o_device " + micros(quantile(post, 0.5));
  if (!serve.empty())
    out += ", o_proxy " + micros(quantile(serve, 0.5));
  if (!wake.empty())
    out += ", W " + micros(quantile(wake, 0.5)) + " (clocks within " + micros(clock_uncertainty) + ")";
  return out + " (medians)";
}

/// One rank's run: the PE (AlltoallPe, or the backend's device engine),
/// its worker, the control messages.
class AlltoallRun {
 public:
  AlltoallRun(const Scenario& s, const RunContext& context, Rank rank, Transport& t, Results& results)
      : s_(s), context_(context), me_(rank), t_(t), results_(results), worker_(t, s.select),
        device_(device_of(s, context, t.threads().device())) {
    const Bytes largest = *std::max_element(s.sizes.begin(), s.sizes.end());
    if (context.device_alltoall.make)
      on_device_ = context.device_alltoall.make(t, worker_, largest, s.seed);
    else
      pe_.emplace(t, worker_, largest, s.seed);
  }

  void run() {
    t_.threads().set_crowded(std::uint64_t{t_.size()} * alltoall_threads(s_, context_) >
                             std::thread::hardware_concurrency());
    const Rank right = (me_ + 1) % t_.size();
    const LaneAttrs lane = t_.path(right).lanes[pe_ ? pe_->lane(right) : put_lane(t_.path(right)).value_or(0)];
    for (const std::string& curve : s_.curves)
      for (const Bytes n : s_.sizes) {
        if (!t_.failure().empty())
          return;
        AlltoallParams params{t_.size(), n, lane.latency, lane.bandwidth, lane.gap, device_};
        const Protocol* protocol = protocol_named(curve, ProtoOp::Alltoall);
        if (!protocol)
          for (const EnvelopeRange& range : alltoall_selection(params, s_.select.direct_perf_diff))
            if (range.from <= n && n <= range.to)
              protocol = protocols_for(ProtoOp::Alltoall)[range.index];
        Point& point = results_.point(curve, n);
        if (me_ == 0) {
          point.selected = std::string(protocol->name);
          point.lanes = lane.name;
          point.moved = (t_.size() - 1) * n;
          point.model = alltoall_closed_form(protocol->flavour, params);
          point.add_note("verified=yes");
          if (t_.threads().device())
            point.add_note("simulated put by put over the Transport");
        }
        measure(point, protocol->flavour, n);
      }
    if (on_device_) {
      on_device_->finish(worker_);
      return;
    }
    const std::uint64_t last = ++exchange_;
    start(last);
    Point& any = results_.point(s_.curves.back(), s_.sizes.back());
    note(any, pe_->check_signal());
  }

 private:
  void measure(Point& point, AlltoallFlavour flavour, Bytes n) {
    std::vector<Seconds> post, serve, wake;
    Seconds uncertainty = 0;
    for (std::size_t i = 0; i < s_.warmup + s_.iterations && t_.failure().empty(); ++i) {
      const std::uint64_t e = ++exchange_;
      const Exchanged r = on_device_ ? exchange_on_device(point, flavour, n, e) : exchange_on_host(point, flavour, n, e);
      const Seconds slowest = gather(e, r.took);
      if (i < s_.warmup)
        continue;
      if (me_ == 0)
        point.samples.push_back(slowest);
      post.insert(post.end(), r.post.begin(), r.post.end());
      serve.insert(serve.end(), r.serve.begin(), r.serve.end());
      wake.insert(wake.end(), r.wake.begin(), r.wake.end());
      uncertainty = std::max(uncertainty, r.clock_uncertainty);
    }
    if (me_ != 0 || t_.threads().device() || post.empty())
      return;
    if (on_device_) {
      point.add_note(device_figures_note(post, serve, wake, uncertainty));
      for (const std::string& note : on_device_->notes())
        point.add_note(note);
      return;
    }
    std::string figures = "PE 0 measured: post " + micros(quantile(post, 0.5));
    if (!serve.empty())
      figures += ", serve " + micros(quantile(serve, 0.5)) + ", wake " + micros(quantile(wake, 0.5));
    point.add_note(figures + " (medians)");
  }

  /// Exchange `e` by AlltoallPe, its threads waiting for the start date.
  Exchanged exchange_on_host(Point& point, AlltoallFlavour flavour, Bytes n, std::uint64_t e) {
    pe_->prepare(n);
    // Before this PE says it is ready, no put of the next exchange can
    // come, and every put of the last has landed here.
    note(point, pe_->check_signal());
    const Seconds at = start(e);
    ExchangeResult r = pe_->exchange(flavour, n, device_.threads, at, at + kExchangeLimit);
    note(point, pe_->verify(n));
    return {(r.complete ? r.done : at + kExchangeLimit) - at, std::move(r.post), std::move(r.serve), std::move(r.wake),
            0};
  }

  /// Exchange `e` by the device engine, launched at the start date. Its
  /// verify() checks the signal word too; an exchange that did not
  /// complete counts the limit, and its reason goes to the notes.
  Exchanged exchange_on_device(Point& point, AlltoallFlavour flavour, Bytes n, std::uint64_t e) {
    on_device_->prepare(n);
    const Seconds at = start(e);
    while (t_.now() < at) {
    }
    DeviceExchange x = on_device_->exchange(flavour, n, kExchangeLimit);
    if (!x.problem.empty())
      point.add_note("PE " + std::to_string(me_) + ": " + x.problem);
    note(point, on_device_->verify(n));
    return {x.complete ? x.time : kExchangeLimit, std::move(x.post), std::move(x.serve), std::move(x.wake),
            x.clock_uncertainty};
  }

  void note(Point& point, const Findings& found) {
    point.errors += found.errors;
    for (std::size_t i = 0; i < found.problems.size() && i < kNotedProblems; ++i)
      point.add_note(found.problems[i]);
    if (found.problems.size() > kNotedProblems)
      point.add_note("PE " + std::to_string(me_) + ": and more");
  }

  /// Every PE ready, PE 0 says when to start exchange `e`: that date on this
  /// PE's clock.
  Seconds start(std::uint64_t e) {
    double date = 0;
    if (me_ == 0) {
      std::vector<Request*> ready;
      for (Rank p = 1; p < t_.size(); ++p)
        ready.push_back(worker_.tag_recv({nullptr, 0}, control_tag(kReady, p, e)));
      for (Request* r : ready)
        finish(r);
      date = t_.now() + kStartMargin;
      for (Rank p = 1; p < t_.size(); ++p)
        finish(worker_.tag_send(p, bytes_of(date), control_tag(kGo, 0, e)));
      return date;
    }
    finish(worker_.tag_send(0, {nullptr, 0}, control_tag(kReady, me_, e)));
    finish(worker_.tag_recv({reinterpret_cast<std::byte*>(&date), sizeof date}, control_tag(kGo, 0, e)));
    const Seconds now = t_.now();
    return std::abs(date - now) > kSameClock ? now + kStartMargin : date;
  }

  /// The largest of every PE's `took`, at PE 0 (elsewhere their own).
  Seconds gather(std::uint64_t e, Seconds took) {
    if (me_ != 0) {
      finish(worker_.tag_send(0, bytes_of(took), control_tag(kReport, me_, e)));
      return took;
    }
    std::vector<double> theirs(t_.size(), 0);
    std::vector<Request*> reports;
    for (Rank p = 1; p < t_.size(); ++p)
      reports.push_back(worker_.tag_recv({reinterpret_cast<std::byte*>(&theirs[p]), sizeof(double)},
                                         control_tag(kReport, p, e)));
    for (Request* r : reports)
      finish(r);
    return std::max(took, *std::max_element(theirs.begin(), theirs.end()));
  }

  static ConstBuffer bytes_of(const double& value) { return {reinterpret_cast<const std::byte*>(&value), sizeof value}; }

  /// Waits for `r` and releases it. On hardware the wait yields the core
  /// after a while: a PE waiting for the others must not keep them, when
  /// they outnumber the cores, from the work it waits for.
  void finish(Request* r) {
    for (std::uint64_t round = 0; !r->done; ++round) {
      worker_.progress();
      t_.threads().after_progress(round);
    }
    worker_.release(r);
  }

  const Scenario& s_;
  const RunContext& context_;
  Rank me_;
  Transport& t_;
  Results& results_;
  Worker worker_;
  DeviceAttrs device_;
  std::optional<AlltoallPe> pe_;                ///< PEs in host memory
  std::unique_ptr<DeviceAlltoall> on_device_;  ///< or the backend's engine for device memory
  std::uint64_t exchange_ = 0;
};

void run_alltoall(const Scenario& scenario, const RunContext& context, Rank rank, Transport& transport,
                  Results& results) {
  AlltoallRun(scenario, context, rank, transport, results).run();
}

/// More PEs than the backend's engine for device memory runs.
std::optional<std::string> alltoall_context_error(const Scenario& scenario, const RunContext& context) {
  const std::uint32_t pes = workload_settings<AlltoallSettings>(scenario).pes;
  const std::string why = context.device_alltoall.refusal(context.backend, pes);
  return why.empty() ? std::nullopt : std::optional<std::string>(why);
}

constexpr std::array<std::string_view, 3> kAttributes{"pes", "threads", "batch"};

}  // namespace

const Workload alltoall_workload{
    .name = "alltoall",
    .description = "`pes` PEs each put n bytes to every other: the time of the whole exchange",
    .attributes = kAttributes,
    .parse = parse_alltoall,
    .curve_error = alltoall_curve_error,
    .ranks = alltoall_ranks,
    .placement = RankPlacement::OnePerNode,
    .nodes_error = alltoall_nodes_error,
    .threads = alltoall_threads,
    .device_figures = true,
    .context_error = alltoall_context_error,
    .run = run_alltoall,
    .sample = "exchange",
};

}  // namespace xover
