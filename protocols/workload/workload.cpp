#include "protocols/workload/workload.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "protocols/core/worker.hpp"

namespace xover {
namespace {

std::uint64_t mix(std::uint64_t x) {
  // splitmix64's finaliser: a good hash of a 64-bit word.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The eight bytes of message `seq` from `sender` around `offset`.
std::uint64_t payload_word(std::uint64_t seed, Rank sender, std::uint64_t seq, Bytes offset) {
  return mix(seed ^ (static_cast<std::uint64_t>(sender) << 56) ^ mix(seq) ^ (offset >> 3));
}

/// Buffers for one message size, filled and checked with payload_byte.
class Payload {
 public:
  Payload(Bytes size, bool phantom) : size_(size), phantom_(phantom) {
    if (!phantom)
      bytes_.resize(size);
  }
  ConstBuffer send_buffer() const { return {phantom_ ? nullptr : bytes_.data(), size_}; }
  MutableBuffer recv_buffer() { return {phantom_ ? nullptr : bytes_.data(), size_}; }

  void fill(std::uint64_t seed, Rank sender, std::uint64_t seq) {
    for (Bytes i = 0; !phantom_ && i < size_; i += 8) {
      const std::uint64_t word = payload_word(seed, sender, seq, i);
      for (Bytes j = i; j < std::min(i + 8, size_); ++j)
        bytes_[j] = static_cast<std::byte>(word >> (8 * (j & 7)));
    }
  }
  /// True when every byte is what `sender` wrote into message `seq`.
  bool check(std::uint64_t seed, Rank sender, std::uint64_t seq) const {
    for (Bytes i = 0; !phantom_ && i < size_; i += 8) {
      const std::uint64_t word = payload_word(seed, sender, seq, i);
      for (Bytes j = i; j < std::min(i + 8, size_); ++j)
        if (bytes_[j] != static_cast<std::byte>(word >> (8 * (j & 7))))
          return false;
    }
    return true;
  }

 private:
  Bytes size_;
  bool phantom_;
  std::vector<std::byte> bytes_;
};

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

/// One rank's view of the run: its worker, its role, its peer.
class Driver {
 public:
  Driver(const Scenario& scenario, Rank rank, Transport& transport, Results& results)
      : s_(scenario), rank_(rank), t_(transport), results_(results), worker_(transport, scenario.select) {
    leader_ = rank % 2 == 0;
    peer_ = leader_ ? rank + 1 : rank - 1;
  }

  void run() {
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
          if (s_.workload != WorkloadKind::Unexpected)
            point.model = model_cost(*choice, s_.workload == WorkloadKind::Stream ? PerfType::Streaming
                                                                                    : PerfType::Latency, n);
        }
        size_index_ = k;
        worker_.reset_buffered_peak();
        const std::size_t bad_before = worker_.stats().bad_headers;
        switch (s_.workload) {
          case WorkloadKind::PingPong:
          case WorkloadKind::Pairs:
            pingpong(point, n);
            break;
          case WorkloadKind::Stream:
            stream(point, n);
            break;
          case WorkloadKind::Unexpected:
            unexpected(point, n);
            break;
          case WorkloadKind::Alltoall:
            break;  // refused by run_workload()
        }
        // A dropped malformed header is a corrupt message too.
        point.errors += worker_.stats().bad_headers - bad_before;
      }
    }
  }

 private:
  Tag tag(std::size_t iteration, std::uint64_t kind) const {
    return (static_cast<Tag>(size_index_) << 40) | (static_cast<Tag>(iteration) << 8) | kind;
  }
  std::uint64_t seq(std::size_t iteration, std::size_t index = 0) const {
    return (static_cast<std::uint64_t>(size_index_) << 40) | (static_cast<std::uint64_t>(iteration) << 16) | index;
  }

  // Payloads are filled before the clock starts and checked after it
  // stops; on hardware, a check of megabytes would otherwise be timed.
  void send(Payload& p, Tag tag) {
    Request* r = worker_.tag_send(peer_, p.send_buffer(), tag);
    worker_.wait(r);
    worker_.release(r);
  }
  Request* post(Payload& p, Tag tag) { return worker_.tag_recv(p.recv_buffer(), tag); }
  /// Waits for a posted receive, then checks what it got and releases it.
  void finish(Point& point, Request* r, const Payload& p, std::uint64_t seq_no) {
    worker_.wait(r);
    if (r->status != Status::Ok || !p.check(s_.seed, peer_, seq_no))
      ++point.errors;
    worker_.release(r);
  }

  // When payloads are checked, the follower says it is ready (its receives
  // posted, its last check done) before the leader starts the clock, so
  // that no timed message waits behind a check. Phantom runs check
  // nothing and skip it.
  void signal_ready(std::size_t iteration) {
    if (!s_.phantom)
      send(ready_, tag(iteration, 7));
  }
  void wait_ready(Point& point, std::size_t iteration) {
    if (!s_.phantom)
      finish(point, post(ready_, tag(iteration, 7)), ready_, 0);
  }

  void pingpong(Point& point, Bytes n) {
    Payload out(n, s_.phantom);
    Payload in(n, s_.phantom);
    for (std::size_t i = 0; i < s_.warmup + s_.iterations; ++i) {
      out.fill(s_.seed, rank_, seq(i));
      if (leader_) {
        wait_ready(point, i);
        const Seconds t0 = t_.now();
        send(out, tag(i, 1));
        Request* r = post(in, tag(i, 2));
        worker_.wait(r);
        if (i >= s_.warmup)
          point.samples.push_back((t_.now() - t0) / 2);
        finish(point, r, in, seq(i));
      } else {
        Request* r = post(in, tag(i, 1));
        signal_ready(i);
        worker_.wait(r);
        send(out, tag(i, 2));
        finish(point, r, in, seq(i));
      }
    }
  }

  void stream(Point& point, Bytes n) {
    std::vector<Payload> window;
    for (std::size_t w = 0; w < s_.window; ++w)
      window.emplace_back(n, s_.phantom);
    Payload ack(8, s_.phantom);
    std::vector<Request*> reqs(s_.window);
    for (std::size_t i = 0; i < s_.warmup + s_.iterations; ++i) {
      if (leader_) {
        for (std::size_t w = 0; w < s_.window; ++w)
          window[w].fill(s_.seed, rank_, seq(i, w));
        wait_ready(point, i);
        const Seconds t0 = t_.now();
        for (std::size_t w = 0; w < s_.window; ++w)
          reqs[w] = worker_.tag_send(peer_, window[w].send_buffer(), tag(i, 3));
        for (Request* r : reqs) {
          worker_.wait(r);
          worker_.release(r);
        }
        Request* r = post(ack, tag(i, 4));
        worker_.wait(r);
        if (i >= s_.warmup)
          point.samples.push_back((t_.now() - t0) / static_cast<double>(s_.window));
        finish(point, r, ack, seq(i));
      } else {
        ack.fill(s_.seed, rank_, seq(i));
        for (std::size_t w = 0; w < s_.window; ++w)
          reqs[w] = post(window[w], tag(i, 3));
        signal_ready(i);
        for (Request* r : reqs)
          worker_.wait(r);
        send(ack, tag(i, 4));
        for (std::size_t w = 0; w < s_.window; ++w)
          finish(point, reqs[w], window[w], seq(i, w));
      }
    }
  }

  void unexpected(Point& point, Bytes n) {
    Payload data(n, s_.phantom);
    Payload ack(8, s_.phantom);
    for (std::size_t i = 0; i < s_.warmup + s_.iterations; ++i) {
      if (leader_) {
        data.fill(s_.seed, rank_, seq(i));
        wait_ready(point, i);
        send(data, tag(i, 5));
        finish(point, post(ack, tag(i, 6)), ack, seq(i));
        continue;
      }
      ack.fill(s_.seed, rank_, seq(i));
      signal_ready(i);
      const Seconds late = t_.now() + s_.delay;
      while (t_.now() < late)
        worker_.progress(late);
      const Seconds posted = t_.now();
      Request* r = post(data, tag(i, 5));
      worker_.wait(r);
      if (i >= s_.warmup)
        point.samples.push_back(t_.now() - posted);
      point.buffered_peak = std::max(point.buffered_peak, worker_.stats().buffered_peak);
      send(ack, tag(i, 6));
      finish(point, r, data, seq(i));
    }
  }

  const Scenario& s_;
  Rank rank_;
  Transport& t_;
  Results& results_;
  /// Flushes on destruction, before run_workload() returns: a peer may
  /// still need the last bytes this rank sent.
  Worker worker_;
  bool leader_ = true;
  Rank peer_ = 1;
  std::size_t size_index_ = 0;
  Payload ready_{0, false};
};

}  // namespace

std::byte payload_byte(std::uint64_t seed, Rank sender, std::uint64_t seq, Bytes offset) {
  return static_cast<std::byte>(payload_word(seed, sender, seq, offset) >> (8 * (offset & 7)));
}

Rank workload_ranks(const Scenario& scenario) {
  return scenario.workload == WorkloadKind::Pairs ? static_cast<Rank>(2 * scenario.pairs) : 2;
}

void run_workload(const Scenario& scenario, Rank rank, Transport& transport, Results& results) {
  if (scenario.workload == WorkloadKind::Alltoall)
    throw std::invalid_argument("scenario '" + scenario.name +
                                "': the alltoall runs in simulation only (sim::simulate), not over a Transport");
  Driver(scenario, rank, transport, results).run();
}

}  // namespace xover
