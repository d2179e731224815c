// Measuring the lanes of the TCP transport at set-up (tcp_measure.hpp).
// Both ends busy-poll their non-blocking sockets, as the data path does, so
// that a wake-up from sleep is not counted as latency.
#include "runtime/tcp/tcp_measure.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "protocols/workload/results.hpp"
#include "runtime/common.hpp"
#include "runtime/tcp/tcp_frame.hpp"

namespace xover::runtime::tcp {
namespace {

constexpr int kPings = 40;
constexpr std::size_t kPingBytes = 8;
constexpr std::size_t kChunk = 256 * 1024;
constexpr Bytes kBulkBytes = 4 << 20;
constexpr Seconds kBulkTime = 20e-3;

// Busy-polled whole sends and receives on one lane, bounded by a deadline.
class Spin {
 public:
  Spin(int fd, Rank peer, const std::string& lane, Seconds deadline)
      : fd_(fd), peer_(peer), lane_(lane), deadline_(deadline) {}

  /// Sends all of [p, p+n); returns how long the call that finished it took.
  Seconds send_all(const std::byte* p, std::size_t n) {
    Seconds last = 0;
    while (n > 0) {
      const auto t0 = clock_now();
      const ssize_t w = ::send(fd_, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w > 0) {
        last = (clock_now() - t0);
        p += w;
        n -= static_cast<std::size_t>(w);
      } else {
        fail_unless_again(w);
      }
    }
    return last;
  }
  /// Reads some bytes (at most n), waiting for them; returns the count and
  /// how long the call that read them took.
  std::size_t recv_some(std::byte* p, std::size_t n, Seconds* took = nullptr) {
    for (;;) {
      const auto t0 = clock_now();
      const ssize_t r = ::recv(fd_, p, n, MSG_DONTWAIT);
      if (r > 0) {
        if (took)
          *took = (clock_now() - t0);
        return static_cast<std::size_t>(r);
      }
      if (r == 0)
        throw RuntimeError("tcp: rank " + std::to_string(peer_) + " closed lane " + lane_ +
                           " while the lanes were measured");
      fail_unless_again(r);
    }
  }
  void recv_all(std::byte* p, std::size_t n) {
    while (n > 0) {
      const std::size_t r = recv_some(p, n);
      p += r;
      n -= r;
    }
  }
  void send_double(double v) {
    std::byte b[8];
    put_le(b, std::bit_cast<std::uint64_t>(v));
    send_all(b, sizeof b);
  }
  double recv_double() {
    std::byte b[8];
    recv_all(b, sizeof b);
    return std::bit_cast<double>(get_le(b));
  }

 private:
  void fail_unless_again(ssize_t r) {
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      throw RuntimeError("tcp: lane " + lane_ + " to rank " + std::to_string(peer_) +
                         " failed while the lanes were measured: " + std::strerror(errno));
    if (++spins_ % 1024 == 0 && clock_now() > deadline_)
      throw RuntimeError("tcp: rank " + std::to_string(peer_) + " did not answer on lane " + lane_ +
                         " while the lanes were measured");
  }

  int fd_;
  Rank peer_;
  const std::string& lane_;
  Seconds deadline_;
  unsigned spins_ = 0;
};

// What one end learns about one lane.
struct LaneMeasure {
  Seconds half_round_trip = 0;
  Seconds o_send = 0;
  Seconds o_recv = 0;
  BytesPerSecond bandwidth_out = 0;  ///< from this end to the other
};

// The lower rank pings, the higher one echoes; the pinger shares what it
// found.
void ping_pong(Spin& spin, bool pinger, LaneMeasure& m) {
  std::byte ping[kPingBytes]{};
  if (!pinger) {
    for (int i = 0; i < kPings; ++i) {
      spin.recv_all(ping, sizeof ping);
      spin.send_all(ping, sizeof ping);
    }
    m.half_round_trip = spin.recv_double();
    m.o_send = spin.recv_double();
    m.o_recv = spin.recv_double();
    return;
  }
  std::vector<Seconds> rtt, o_send, o_recv;
  for (int i = 0; i < kPings; ++i) {
    const auto t0 = clock_now();
    o_send.push_back(spin.send_all(ping, sizeof ping));
    Seconds took = 0;
    for (std::size_t got = 0; got < sizeof ping;)
      got += spin.recv_some(ping + got, sizeof ping - got, &took);
    rtt.push_back((clock_now() - t0));
    o_recv.push_back(took);
  }
  m.half_round_trip = quantile(rtt, 0.5) / 2;
  m.o_send = quantile(o_send, 0.5);
  m.o_recv = quantile(o_recv, 0.5);
  spin.send_double(m.half_round_trip);
  spin.send_double(m.o_send);
  spin.send_double(m.o_recv);
}

// A bulk transfer of chunks whose first byte says whether more follow; the
// receiver times it from its first byte to its last and says the rate.
void bulk(Spin& spin, bool sender, std::vector<std::byte>& chunk, LaneMeasure& m) {
  if (sender) {
    const auto start = clock_now();
    for (Bytes sent = 0;;) {
      sent += kChunk;
      const bool last = sent >= kBulkBytes && (clock_now() - start) >= kBulkTime;
      chunk[0] = std::byte{last ? std::uint8_t{0} : std::uint8_t{1}};
      spin.send_all(chunk.data(), chunk.size());
      if (last)
        break;
    }
    m.bandwidth_out = spin.recv_double();
    return;
  }
  Bytes total = 0;
  Bytes first_bytes = 0;
  Seconds first = 0;
  for (bool more = true; more;) {
    for (std::size_t got = 0; got < chunk.size();) {
      const std::size_t n = spin.recv_some(chunk.data() + got, chunk.size() - got);
      if (total == 0) {
        first = clock_now();
        first_bytes = n;
      }
      got += n;
      total += n;
    }
    more = chunk[0] != std::byte{0};
  }
  const Seconds span = clock_now() - first;
  spin.send_double(static_cast<double>(total - first_bytes) / std::max(span, 1e-9));
}

LaneAttrs lane_attrs(const std::string& name, const LaneMeasure& m) {
  LaneAttrs a;
  a.name = name;
  // One message takes o_send − o_send_after + L + o_recv: the half round
  // trip. On the loopback the sender's system call carries the segment
  // through the receiver's stack, so the two calls overlap and their sum
  // exceeds the half round trip; then L = 0, and the overlap is the part of
  // o_send after the segment has left (o_send_after, at most o_send; o_recv
  // takes off what o_send cannot hold).
  const Seconds excess = std::max(0.0, m.o_send + m.o_recv - m.half_round_trip);
  a.o_send = m.o_send;
  a.o_send_after = std::min(excess, m.o_send);
  a.o_recv = m.o_recv - (excess - a.o_send_after);
  a.latency = std::max(0.0, m.half_round_trip - a.o_send + a.o_send_after - a.o_recv);
  a.bandwidth = m.bandwidth_out;
  a.gap = 0;
  a.reg_cost = 0;
  a.reg_growth = 0;
  a.max_short = kMaxShort;
  a.max_bcopy = kMaxBcopy;
  a.max_zcopy = kMaxZcopy;
  a.seg_size = kSegSize;
  a.caps = {LaneCap::AmShort, LaneCap::AmBcopy,  LaneCap::AmZcopy,
            LaneCap::PutZcopy, LaneCap::GetZcopy, LaneCap::ConnectToIface};
  // A bcopy message is written from the user's buffer into the socket
  // (TcpConn::send); the kernel's copy is in the stream's 1/G.
  a.bcopy_copies = false;
  return a;
}

}  // namespace

std::vector<Path> measure_lanes(Bootstrap& boot, const RuntimeOptions& options,
                                const std::vector<std::string>& lane_names, const std::vector<std::vector<int>>& fds) {
  const Rank me = boot.rank();
  std::vector<Path> paths(boot.size());
  std::vector<std::byte> chunk(kChunk);
  for (Rank round = 0; round < round_robin_rounds(boot.size()); ++round) {
    const Rank peer = round_robin_partner(me, boot.size(), round);
    if (peer >= boot.size())
      continue;  // a bye round
    const bool lower = me < peer;
    for (std::size_t lane = 0; lane < lane_names.size(); ++lane) {
      // The partner may still be busy with its previous round: a lane's
      // measurement waits up to the set-up timeout.
      Spin spin(fds[peer][lane], peer, lane_names[lane],
                clock_now() + options.timeout);
      LaneMeasure m;
      ping_pong(spin, lower, m);
      bulk(spin, lower, chunk, m);
      bulk(spin, !lower, chunk, m);
      paths[peer].lanes.push_back(lane_attrs(lane_names[lane], m));
    }
  }
  return paths;
}

}  // namespace xover::runtime::tcp
