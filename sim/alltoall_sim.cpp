#include "sim/alltoall_sim.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <mutex>

#include "protocols/registry.hpp"
#include "protocols/workload/alltoall.hpp"

namespace xover::sim {
namespace s4u = simgrid::s4u;
namespace {

/// Natural order: "pe2" before "pe10" (digit runs compared as numbers).
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])))
        ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])))
        ++ej;
      const std::string_view da = std::string_view(a).substr(i, ei - i);
      const std::string_view db = std::string_view(b).substr(j, ej - j);
      const std::string_view ta = da.substr(std::min(da.find_first_not_of('0'), da.size()));
      const std::string_view tb = db.substr(std::min(db.find_first_not_of('0'), db.size()));
      if (ta.size() != tb.size())
        return ta.size() < tb.size();
      if (ta != tb)
        return ta < tb;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j])
      return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

/// The most transfers a sender keeps pending (SimGrid 3.32 slows with many
/// pending per actor); it lands finished ones after every start.
constexpr std::size_t kMaxPending = 4096;

/// The most transfers alltoall_batch() aims for in one exchange.
constexpr double kFlowBudget = 1 << 14;

/// One simulated alltoall: the PEs' rings and the landings.
class Exchange {
 public:
  Exchange(const LogGPPlatform& platform, const std::vector<std::string>& nodes, const AlltoallSpec& spec)
      : spec_(spec), pes_(spec.pes), puts_(spec.pes - 1), landed_at_(spec.pes, 0),
        got_(static_cast<std::size_t>(spec.pes) * spec.pes, false) {
    pe_.reserve(pes_);
    for (std::uint32_t pe = 0; pe < pes_; ++pe) {
      Pe& p = pe_.emplace_back();
      p.host = s4u::Host::by_name(platform.node(nodes[pe]).nics.front());
      p.params = alltoall_params(platform, {nodes[pe], nodes[(pe + pes_ / 2) % pes_]}, spec);
      p.mutex = s4u::Mutex::create();
      p.written = s4u::ConditionVariable::create();
    }
  }

  AlltoallOutcome run() {
    start_ = s4u::Engine::get_clock();
    for (std::uint32_t pe = 0; pe < pes_; ++pe) {
      s4u::Actor::create("pe" + std::to_string(pe), pe_[pe].host, [this, pe] { device(pe); });
      if (spec_.flavour == AlltoallFlavour::Proxy)
        s4u::Actor::create("proxy" + std::to_string(pe), pe_[pe].host, [this, pe] { proxy(pe); });
    }
    s4u::Engine::get_instance()->run();
    AlltoallOutcome out;
    out.time = *std::max_element(landed_at_.begin(), landed_at_.end()) - start_;
    out.flows = flows_;
    out.late_flows = late_flows_;
    out.errors = count_errors();
    return out;
  }

 private:
  struct Pe {
    s4u::Host* host = nullptr;
    AlltoallParams params;
    s4u::MutexPtr mutex;
    s4u::ConditionVariablePtr written;
    std::size_t commands = 0;  ///< commands written into the ring so far
  };

  /// Puts in flight from one sender.
  struct Pending {
    std::vector<s4u::CommPtr> comms;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> puts;  ///< per transfer: first put, count
  };

  std::uint32_t target(std::uint32_t pe, std::size_t i) const { return static_cast<std::uint32_t>((pe + i + 1) % pes_); }

  /// The PE's threads. Direct: stage 1 (post) and stage 3 (inject) for
  /// every put. Proxy: stage 1 only, writing a ring a posting round (or a
  /// batch's worth of rounds) at a time, at the date its last round is
  /// posted.
  void device(std::uint32_t pe) {
    Pe& p = pe_[pe];
    PostClock clock(spec_.flavour, p.params);
    if (spec_.flavour == AlltoallFlavour::Direct) {
      Pending pending;
      for (std::size_t i = 0; i < puts_; i += spec_.batch) {
        const std::size_t k = std::min(spec_.batch, puts_ - i);
        Seconds injected = 0;
        for (std::size_t j = i; j < i + k; ++j)
          injected = clock.inject(clock.next().ready);
        send(pe, pending, i, k, injected);
      }
      drain(pe, pending);
      return;
    }
    const std::size_t threads = p.params.device.threads;
    const std::size_t chunk = (spec_.batch + threads - 1) / threads * threads;
    for (std::size_t i = 0; i < puts_; i += chunk) {
      const std::size_t k = std::min(chunk, puts_ - i);
      Seconds written = 0;
      for (std::size_t j = i; j < i + k; ++j)
        written = clock.next().posted;
      s4u::this_actor::sleep_until(start_ + written);
      const std::unique_lock lock(*p.mutex);
      p.commands = i + k;
      p.written->notify_all();
    }
  }

  /// The proxy threads (all R of them, serving commands in turn): wait for
  /// a batch's commands, serve them (stage 2) and have the NIC inject them
  /// (stage 3).
  void proxy(std::uint32_t pe) {
    Pe& p = pe_[pe];
    PostClock clock(spec_.flavour, p.params);
    Pending pending;
    for (std::size_t i = 0; i < puts_;) {
      const std::size_t k = std::min(spec_.batch, puts_ - i);
      {
        std::unique_lock lock(*p.mutex);
        while (p.commands < i + k)
          p.written->wait(lock);
      }
      Seconds injected = 0;
      for (std::size_t j = i; j < i + k; ++j)
        injected = clock.inject(clock.next().ready);
      send(pe, pending, i, k, injected);
      i += k;
    }
    drain(pe, pending);
  }

  /// Starts the transfer of puts [first, first + k) of `pe`, the last one
  /// injected at `injected`: k·n bytes, started so that alone on its links
  /// (at the lane's bandwidth) it ends when the last put would, at
  /// `injected` + n/B (B the pace, the engine's bandwidth where it is the
  /// smaller). A sender whose clock is already past that date (it waited
  /// for commands) starts it now and counts it late.
  void send(std::uint32_t pe, Pending& pending, std::size_t first, std::size_t k, Seconds injected) {
    const Pe& p = pe_[pe];
    const Bytes bytes = k * spec_.size;
    const double n = static_cast<double>(spec_.size);
    const Seconds date = start_ + injected + n / p.params.pace() - static_cast<double>(k) * n / p.params.bandwidth;
    const Seconds now = s4u::Engine::get_clock();
    if (date > now)
      s4u::this_actor::sleep_until(date);
    else if (date < now - 1e-12)
      ++late_flows_;
    const std::uint32_t to = target(pe, first + k - 1);
    const std::pair<std::uint32_t, std::uint32_t> puts{static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(k)};
    ++flows_;
    if (bytes == 0) {
      // SimGrid 3.32 never completes a host-to-host transfer of no bytes:
      // such puts (their signals only) land one route latency later.
      std::vector<s4u::Link*> links;
      double latency = 0;
      p.host->route_to(pe_[to].host, links, &latency);
      const Seconds at = s4u::Engine::get_clock() + latency;
      simgrid::kernel::timer::Timer::set(at, [this, pe, at, puts] { land(pe, at, puts); });
      return;
    }
    pending.comms.push_back(s4u::Comm::sendto_async(p.host, pe_[to].host, bytes));
    pending.puts.push_back(puts);
    reap(pe, pending, pending.comms.size() >= kMaxPending);
  }

  /// Lands the finished transfers of `pe`; with `block`, waits for one.
  void reap(std::uint32_t pe, Pending& pending, bool block) {
    for (;;) {
      const ssize_t done = block ? s4u::Comm::wait_any(pending.comms) : s4u::Comm::test_any(pending.comms);
      if (done < 0)
        return;
      land(pe, pending.comms[done]->get_finish_time(), pending.puts[done]);
      pending.comms[done] = pending.comms.back();
      pending.comms.pop_back();
      pending.puts[done] = pending.puts.back();
      pending.puts.pop_back();
      block = false;
    }
  }

  void drain(std::uint32_t pe, Pending& pending) {
    while (!pending.comms.empty())
      reap(pe, pending, true);
  }

  /// Puts [first, first + count) of `pe` landed at `at`: their signals.
  void land(std::uint32_t pe, Seconds at, std::pair<std::uint32_t, std::uint32_t> puts) {
    for (std::uint32_t i = puts.first; i < puts.first + puts.second; ++i) {
      const std::uint32_t to = target(pe, i);
      landed_at_[to] = std::max(landed_at_[to], at);
      const std::size_t bit = static_cast<std::size_t>(to) * pes_ + pe;
      if (got_[bit])
        ++duplicates_;
      got_[bit] = true;
    }
  }

  std::size_t count_errors() const {
    std::size_t errors = duplicates_;
    for (std::uint32_t to = 0; to < pes_; ++to)
      for (std::uint32_t from = 0; from < pes_; ++from)
        if (from != to && !got_[static_cast<std::size_t>(to) * pes_ + from])
          ++errors;
    return errors;
  }

  const AlltoallSpec& spec_;
  const std::uint32_t pes_;
  const std::size_t puts_;
  std::vector<Pe> pe_;
  Seconds start_ = 0;
  std::vector<Seconds> landed_at_;
  std::vector<bool> got_;
  std::size_t duplicates_ = 0;
  std::uint64_t flows_ = 0;
  std::uint64_t late_flows_ = 0;
};

}  // namespace

std::vector<std::string> alltoall_nodes(const LogGPPlatform& platform, std::uint32_t pes) {
  std::vector<std::string> names;
  for (const PlatformNode& node : platform.nodes())
    names.push_back(node.name);
  if (names.size() < pes)
    throw PlatformError(platform.file() + ": an alltoall of " + std::to_string(pes) + " PEs needs " +
                        std::to_string(pes) + " nodes, the platform has " + std::to_string(names.size()));
  std::sort(names.begin(), names.end(), natural_less);
  names.resize(pes);
  return names;
}

AlltoallParams alltoall_params(const LogGPPlatform& platform, const std::vector<std::string>& nodes,
                               const AlltoallSpec& spec) {
  const Path path = platform.path(nodes.at(0), nodes.at(nodes.size() / 2));
  const LaneAttrs& lane = path.lanes[put_lane(path).value_or(0)];
  AlltoallParams params;
  params.pes = spec.pes;
  params.size = spec.size;
  params.latency = lane.latency;
  params.bandwidth = lane.bandwidth;
  params.gap = lane.gap;
  params.device = platform.node(nodes[0]).device;
  if (spec.threads)
    params.device.threads = *spec.threads;
  return params;
}

bool alltoall_batched(const Scenario& scenario, const LogGPPlatform& platform) {
  const DeviceAttrs plain;
  const DeviceAttrs& device = platform.nodes().empty() ? plain : platform.node(alltoall_nodes(platform, 1)[0]).device;
  const bool gpu_lane = device.launch != plain.launch || device.post_slope != plain.post_slope ||
                        device.doorbell_batch != plain.doorbell_batch || device.engine_gap != plain.engine_gap ||
                        device.engine_bw != plain.engine_bw || device.proxy_threads != plain.proxy_threads ||
                        device.ring_capacity != plain.ring_capacity;
  const Bytes largest = scenario.sizes.empty() ? 0 : *std::max_element(scenario.sizes.begin(), scenario.sizes.end());
  const AlltoallSettings& settings = workload_settings<AlltoallSettings>(scenario);
  const double buffers = 2.0 * settings.pes * settings.pes * static_cast<double>(largest);
  return gpu_lane || scenario.phantom || settings.batch != 0 || settings.pes > kPerPutPes ||
         buffers > static_cast<double>(kPerPutBytes);
}

std::size_t alltoall_batch(AlltoallFlavour flavour, const AlltoallParams& params) {
  const double puts = params.pes - 1.0;
  const Seconds per_put =
      std::max(params.injection(), flavour == AlltoallFlavour::Direct
                                       ? params.post_cost() / params.device.threads
                                       : params.device.proxy_o / params.device.proxy_threads);
  const double wire = params.latency + static_cast<double>(params.size) / params.pace();
  const double in_flight = per_put > 0 ? std::ceil(wire / per_put) : puts;
  const double budget = std::ceil(params.pes * puts / kFlowBudget);
  return static_cast<std::size_t>(std::clamp(std::max(in_flight, budget), 1.0, std::max(puts, 1.0)));
}

AlltoallOutcome simulate_alltoall(const LogGPPlatform& platform, const std::vector<std::string>& nodes,
                                  const AlltoallSpec& spec) {
  return Exchange(platform, nodes, spec).run();
}

Results simulate_alltoall_scenario(const Scenario& scenario, const LogGPPlatform& platform,
                                   const std::function<void(const Point&)>& on_new_point) {
  const AlltoallSettings& settings = workload_settings<AlltoallSettings>(scenario);
  const std::vector<std::string> nodes = alltoall_nodes(platform, settings.pes);
  const Path path = platform.path(nodes[0], nodes[nodes.size() / 2]);
  const std::string lane = path.lanes[put_lane(path).value_or(0)].name;
  Results results;
  results.on_new_point = on_new_point;
  for (const std::string& curve : scenario.curves) {
    for (const Bytes n : scenario.sizes) {
      AlltoallSpec spec;
      spec.pes = settings.pes;
      spec.size = n;
      spec.threads = settings.threads;
      const AlltoallParams params = alltoall_params(platform, nodes, spec);
      const Protocol* protocol = protocol_named(curve, ProtoOp::Alltoall);
      if (!protocol)
        for (const EnvelopeRange& range : alltoall_selection(params, scenario.select.direct_perf_diff))
          if (range.from <= n && n <= range.to)
            protocol = protocols_for(ProtoOp::Alltoall)[range.index];
      spec.flavour = protocol->flavour;
      spec.batch = settings.batch ? settings.batch : alltoall_batch(spec.flavour, params);
      Point& point = results.point(curve, n);
      point.selected = std::string(protocol->name);
      point.lanes = lane;
      point.moved = (settings.pes - 1) * n;
      point.model = alltoall_closed_form(spec.flavour, params);
      point.add_note("verified=no");
      point.add_note(spec.batch == 1 ? "batched path, one transfer per put"
                                     : "batched path, " + std::to_string(spec.batch) + " puts per transfer");
      for (std::size_t i = 0; i < scenario.warmup + scenario.iterations; ++i) {
        const AlltoallOutcome outcome = simulate_alltoall(platform, nodes, spec);
        if (i >= scenario.warmup)
          point.samples.push_back(outcome.time);
        point.errors += outcome.errors;
      }
    }
  }
  return results;
}

}  // namespace xover::sim
