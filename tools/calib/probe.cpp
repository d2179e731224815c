// Timing lanes for calibration (probe.hpp). Both ranks busy-poll the
// transport, as the protocol core does; nothing here sleeps.
#include "tools/calib/probe.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

#include "protocols/workload/results.hpp"
#include "protocols/workload/scenario.hpp"

namespace xover::calib {
namespace {

/// The probe's own active message id, above the protocol core's.
constexpr AmId kProbeAm = 200;

/// What a probe message is, in the first 8 bytes of its header.
enum Code : std::uint64_t {
  kData = 1,   ///< one of a burst; no answer
  kLast = 2,   ///< the last of a burst: the server answers with one message of its size
  kReply = 3,  ///< the server's answer
  kAddr = 4,   ///< the server's registered buffer: key and address follow
  kDone = 5,   ///< the client is done: the server returns
  kTouch = 6,  ///< the server writes the first `offset` bytes of its get buffer, then answers
};

/// One end of a probe: sends coded messages, and takes them in with a
/// handler that copies each payload out, as the protocol core does.
class ProbeEnd {
 public:
  /// `room`: the bytes a stream runs through at each end (at least the largest message).
  ProbeEnd(Transport& t, std::size_t lane, Bytes room)
      : t_(t), lane_(lane), peer_(t.rank() == 0 ? 1 : 0), out_(room, std::byte{0x5a}), landing_(room) {
    t_.set_am_handler(kProbeAm, [this](const AmMessage& msg) { take(msg); });
  }
  ~ProbeEnd() { t_.set_am_handler(kProbeAm, [](const AmMessage&) {}); }
  ProbeEnd(const ProbeEnd&) = delete;
  ProbeEnd& operator=(const ProbeEnd&) = delete;

  /// Sends `size` bytes from `offset` of this end's buffer; the receiver
  /// copies them to the same offset of its own (a stream walks through
  /// both, as the fragments of a large message do). kAddr carries a key
  /// and an address instead.
  void send(Code code, Bytes size, Bytes offset = 0, std::uint64_t key = 0, std::uint64_t addr = 0) {
    const std::array<std::uint64_t, 3> words{code, code == kAddr ? key : offset, addr};
    const auto header = std::as_bytes(std::span(words)).first(code == kAddr ? 24 : kProbeHeader);
    const std::byte* payload = size > 0 ? out_.data() + offset : out_.data();
    for (;;) {
      const Status st = t_.am_send(lane_, peer_, kProbeAm, header, {payload, size}, AmMode::Bcopy, {});
      if (st == Status::Ok)
        return;
      if (st != Status::NoResource)
        throw std::runtime_error("calibrate: lane " + t_.path(peer_).lanes[lane_].name + " refused a probe of " +
                                 std::to_string(size) + " bytes");
      poll();
    }
  }
  /// Polls until `count` replies have come in since the start.
  void wait_replies(std::uint64_t count) {
    while (replies_ < count)
      poll();
  }
  /// The server's loop: answer every burst and every touch, until the client is done.
  void serve() {
    while (!done_) {
      poll();
      for (; answered_ < lasts_; ++answered_)
        send(kReply, last_size_);
      for (; touched_ < touches_; ++touched_) {
        if (touch_)
          touch_(touch_size_);
        send(kReply, 0);
      }
    }
    flush();
  }
  /// What the server does on a kTouch of n bytes.
  void on_touch(std::function<void(Bytes)> touch) { touch_ = std::move(touch); }
  void wait_addr() {
    while (!addr_)
      poll();
  }
  void flush() {
    while (!t_.flushed())
      poll();
  }
  std::uint64_t replies() const { return replies_; }
  RemoteAddr addr() const { return *addr_; }
  Transport& transport() { return t_; }

 private:
  /// One progress call; a failed transport ends the probe (the peer is gone).
  void poll() {
    t_.progress();
    if (!t_.failure().empty())
      throw std::runtime_error(t_.failure());
  }

  void take(const AmMessage& msg) {
    std::array<std::uint64_t, 3> words{};
    std::memcpy(words.data(), msg.header.data(), std::min(msg.header.size(), sizeof words));
    const Bytes offset = words[0] == kAddr || words[0] == kTouch ? 0 : std::min<Bytes>(words[1], landing_.size());
    t_.copy(landing_.data() + offset, msg.payload.data, std::min<Bytes>(msg.payload.size, landing_.size() - offset));
    switch (words[0]) {
      case kLast:
        ++lasts_;
        last_size_ = msg.payload.size;
        break;
      case kReply:
        ++replies_;
        break;
      case kAddr:
        addr_ = RemoteAddr{words[1], words[2]};
        break;
      case kDone:
        done_ = true;
        break;
      case kTouch:
        ++touches_;
        touch_size_ = words[1];
        break;
      default:
        break;
    }
  }

  Transport& t_;
  std::size_t lane_;
  Rank peer_;
  std::vector<std::byte> out_;
  std::vector<std::byte> landing_;
  std::uint64_t lasts_ = 0;
  std::uint64_t answered_ = 0;
  Bytes last_size_ = 0;
  std::uint64_t replies_ = 0;
  std::optional<RemoteAddr> addr_;
  bool done_ = false;
  std::uint64_t touches_ = 0;
  std::uint64_t touched_ = 0;
  Bytes touch_size_ = 0;
  std::function<void(Bytes)> touch_;
};

/// Busy-waits until `until`, touching nothing.
void spin_until(const Transport& t, Seconds until) {
  while (t.now() < until) {
  }
}

/// Untimed round trips of `s` bytes, as many as warm_round_trips says.
void warm(ProbeEnd& end, Bytes s, std::uint64_t& expect, const ProbeOptions& options) {
  for (int i = warm_round_trips(s, options); i > 0; --i) {
    end.send(kLast, s);
    end.wait_replies(++expect);
  }
}

PrttPoint time_size(ProbeEnd& end, Bytes s, const ProbeOptions& options) {
  Transport& t = end.transport();
  std::uint64_t expect = end.replies();
  const int n = options.messages;
  std::vector<Seconds> rtt1, rttn, rttd, post, posts_delayed, stream;
  warm(end, s, expect, options);
  for (int i = 0; i < options.repeats; ++i) {
    const Seconds t0 = t.now();
    end.send(kLast, s);
    end.wait_replies(++expect);
    rtt1.push_back(t.now() - t0);
  }
  PrttPoint p;
  p.size = s;
  p.rtt1 = quantile(rtt1, 0.5);
  p.spread = (quantile(rtt1, 0.9) - quantile(rtt1, 0.1)) / p.rtt1;
  // Long enough for the reply to the last message to be in before the
  // client looks: then taking it in costs o_r alone.
  p.delay = 2 * p.rtt1 + 1e-6;
  warm(end, s, expect, options);
  for (int i = 0; i < options.warmup + options.repeats; ++i) {
    const Seconds t0 = t.now();
    for (int k = 0; k < n; ++k)
      end.send(k + 1 == n ? kLast : kData, s);
    const Seconds posted = t.now();
    end.wait_replies(++expect);
    const Seconds t1 = t.now();
    if (i >= options.warmup) {
      post.push_back((posted - t0) / n);
      rttn.push_back(t1 - t0);
    }
  }
  warm(end, s, expect, options);
  for (int i = 0; i < options.warmup + options.repeats; ++i) {
    const Seconds t0 = t.now();
    for (int k = 0; k < n; ++k) {
      end.send(k + 1 == n ? kLast : kData, s);
      spin_until(t, t.now() + p.delay);
    }
    const Seconds waited = t.now();
    end.wait_replies(++expect);
    if (i >= options.warmup) {
      rttd.push_back(t.now() - t0);
      posts_delayed.push_back(waited - t0);
    }
  }
  // A stream of N messages through buffers of options.stream_bytes.
  const Bytes room = options.stream_bytes / s * s;
  p.stream_messages = std::max<int>(n, static_cast<int>(room / s));
  for (int i = 0; i < options.warmup + options.stream_repeats; ++i) {
    const Seconds t0 = t.now();
    for (int k = 0; k < p.stream_messages; ++k)
      end.send(k + 1 == p.stream_messages ? kLast : kData, s, (k * s) % room);
    end.wait_replies(++expect);
    if (i >= options.warmup)
      stream.push_back(t.now() - t0);
  }
  // The fastest stream run: a run long enough to be interrupted is only
  // ever slowed down by it, never sped up.
  p.stream = *std::min_element(stream.begin(), stream.end());
  p.rttn = quantile(rttn, 0.5);
  p.rttd = quantile(rttd, 0.5);
  p.o_send = quantile(post, 0.5);
  // The reply's take-in, median over runs, as PRTT(n,d,s) less the posts.
  std::vector<Seconds> take_in;
  for (std::size_t i = 0; i < rttd.size(); ++i)
    take_in.push_back(rttd[i] - posts_delayed[i]);
  p.posts_delayed = p.rttd - quantile(take_in, 0.5);
  return p;
}

Bytes largest(const std::vector<Bytes>& sizes) {
  return sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
}

}  // namespace

int warm_round_trips(Bytes size, const ProbeOptions& options) {
  if (options.warm_bytes == 0)
    return options.warmup;
  const Bytes each = std::max(size, kWarmCell);
  return std::max<int>(options.warmup, static_cast<int>((options.warm_bytes + each - 1) / each));
}

std::vector<PrttPoint> probe_am(Transport& t, std::size_t lane, const std::vector<Bytes>& sizes,
                                const ProbeOptions& options) {
  ProbeEnd end(t, lane, std::max(largest(sizes), options.stream_bytes));
  std::vector<PrttPoint> points;
  if (t.rank() != 0) {
    end.serve();
    return points;
  }
  for (Bytes s : sizes)
    points.push_back(time_size(end, s, options));
  end.send(kDone, 0);
  end.flush();
  return points;
}

std::vector<GetPoint> probe_get(Transport& t, std::size_t am_lane, std::size_t lane, const std::vector<Bytes>& sizes,
                                const ProbeOptions& options) {
  ProbeEnd end(t, am_lane, 0);
  std::vector<std::byte> buffer(std::max<Bytes>(largest(sizes), 1), std::byte{0x3c});
  std::vector<GetPoint> points;
  if (t.rank() != 0) {
    const MemoryRegion region = t.reg(0, lane, buffer.data(), buffer.size());
    const RemoteAddr addr = t.remote_addr(region, buffer.data());
    // A rendezvous gets what its sender has just written: so does the probe.
    unsigned char stamp = 0;
    end.on_touch([&](Bytes n) { std::memset(buffer.data(), ++stamp, std::min<Bytes>(n, buffer.size())); });
    end.send(kAddr, 0, 0, addr.key, addr.addr);
    end.serve();
    t.dereg(region);
    return points;
  }
  end.wait_addr();
  // The gets land in registered memory, as a rendezvous receiver's do (an
  // RDMA READ needs the local key).
  const MemoryRegion landing = t.reg(1, lane, buffer.data(), buffer.size());
  std::uint64_t expect = end.replies();
  for (Bytes s : sizes) {
    std::vector<Seconds> times;
    const int warm_gets = warm_round_trips(s, options);
    for (int i = 0; i < warm_gets + options.repeats; ++i) {
      end.send(kTouch, 0, s);
      end.wait_replies(++expect);
      bool done = false;
      Status result = Status::Ok;
      const Seconds t0 = t.now();
      const Status st = t.get(lane, 1, {buffer.data(), s}, end.addr(), [&](Status s2) {
        done = true;
        result = s2;
      });
      if (st == Status::InProgress)
        while (!done)
          t.progress();
      else
        result = st;
      const Seconds took = t.now() - t0;
      if (result != Status::Ok)
        throw std::runtime_error("calibrate: a get of " + std::to_string(s) + " bytes on lane " +
                                 t.path(1).lanes[lane].name + " failed");
      if (i >= warm_gets)
        times.push_back(took);
    }
    points.push_back({s, quantile(times, 0.5)});
  }
  t.dereg(landing);
  end.send(kDone, 0);
  end.flush();
  return points;
}

}  // namespace xover::calib
