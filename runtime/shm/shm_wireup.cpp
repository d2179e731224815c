// Wire-up of the shared-memory transport (shm_transport.hpp): segments, the
// exchange of what each rank publishes, the cross-memory-attach check, and
// the measurements that become each lane's attributes.
//
// Where every attribute comes from (per pair of ranks, measured once here;
// the two ends use the same figures, so both see the same lanes):
//   mm.o_send      the sender's time per message of a burst of 8-byte
//                  messages into free cells, inline (median over its peers)
//   mm.o_recv      the receiver's time per message to copy out and free a
//                  burst of 8-byte messages already there (likewise)
//   mm.latency     (median 8-byte round trip − both ends' o_send + o_recv) / 2,
//                  over up to 200 round trips (5 ms at most) per pair
//   mm.bandwidth   1 MiB of full descriptors streamed and copied out by the
//                  receiver: bytes / time, the median of kBandwidthRuns; it holds
//                  both copies, so with the core's own n/memcpy_bw terms a
//                  large bcopy message is predicted somewhat slow
//   mm.gap         0: the sender's CPU (o_send and its copy) spaces its posts
//   cma.latency    half the median time of an 8-byte process_vm_readv (the
//                  one call is both the request and the reply of a get)
//   cma.bandwidth  the median of kBandwidthRuns timed 4 MiB process_vm_readv
//                  between buffers of small pages; from kHugeBufferFrom on
//                  (a bandwidth step), between buffers of huge pages: the
//                  workloads' buffers (HostBuffer) lie on huge pages from
//                  that size, and the call copies those several times
//                  faster
//   cma.o_send, cma.o_recv  0: the call is synchronous, its whole cost is
//                  in latency and bandwidth
//   reg_cost, reg_growth   0: neither rings nor CMA register memory
//   max_short      what lies inline in a cell: 112 bytes
//   max_bcopy, seg_size  what a descriptor holds: 8176 bytes (shm_ring.hpp)
//   memcpy_bw_local/remote  the median of kBandwidthRuns 4 MiB memcpy on each end
// (medians, not the best of a few: a best moves with the machine's fast
// spells, and two runs then chose different protocols at one size)
// Toward itself a rank has the same lanes: mm with latency 0 and its own
// memcpy bandwidth, cma measured on its own process.
#include <sched.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "protocols/core/host_memory.hpp"
#include "protocols/workload/results.hpp"
#include "runtime/common.hpp"
#include "runtime/fault.hpp"
#include "runtime/launch/launch.hpp"
#include "runtime/shm/shm_transport.hpp"
#include "runtime/shm/shm_transport_impl.hpp"

namespace xover::runtime {
namespace {

using shm::Cell;
using shm::ShmTransport;

constexpr Bytes kProbeBytes = kMemcpyProbeBytes;
constexpr int kMaxRoundTrips = 200;
constexpr int kMinRoundTrips = 20;
constexpr Seconds kRoundTripBudget = 5e-3;
constexpr Bytes kStreamBytes = Bytes{1} << 20;
constexpr int kSmallReads = 64;

/// Ping-pong codes, carried in the 8-byte AM header of a probe message.
enum Code : std::uint64_t { kPing = 1, kLastPing, kStream, kLastStream, kPong };

/// What every rank publishes in the first exchange.
struct Hello {
  std::int64_t pid;
  std::uint64_t word_addr;   ///< a word that a peer reads to check CMA
  std::uint64_t word_value;  ///< what it holds
  std::uint64_t probe_addr;  ///< kProbeBytes of small pages that peers read to time CMA
  std::uint64_t huge_probe_addr;  ///< the same on huge pages (HostBuffer's)
  double memcpy_bw;
};

/// What a rank measured toward one peer, published in the second exchange.
struct Toward {
  double rtt = 0;        ///< mm round trip (the pair's lower rank measures it)
  double stream_bw = 0;  ///< mm streaming rate (likewise)
  double cma_small = 0;  ///< one 8-byte process_vm_readv
  double cma_bw = 0;       ///< 4 MiB read between small pages
  double cma_bw_huge = 0;  ///< 4 MiB read between huge pages
  double cma_ok = 0;       ///< 1 when this rank could read the peer
};

/// What a rank measured of itself, then per peer.
struct Figures {
  double o_send = 0;
  double o_recv = 0;
};

template <typename T>
std::span<const std::byte> bytes_of(const std::vector<T>& v) {
  return std::as_bytes(std::span<const T>(v));
}

template <typename T>
std::vector<T> decode(const Blob& blob, std::size_t count, Rank from) {
  if (blob.size() != count * sizeof(T))
    throw RuntimeError("shm: rank " + std::to_string(from) + " sent " + std::to_string(blob.size()) +
                       " wire-up bytes, not " + std::to_string(count * sizeof(T)) + " (another xover build?)");
  std::vector<T> out(count);
  std::memcpy(out.data(), blob.data(), blob.size());
  return out;
}

/// Waits, during wire-up only, for something to be true of `peer`; yields
/// the core after a while so that ranks sharing one still move on. Reads
/// no clock until it has spun for a while: a short wait costs nothing.
class SetupWait {
 public:
  SetupWait(const ShmTransport& t, Rank peer, Seconds timeout)
      : peer_(peer), pid_(t.peer_pid(peer)), self_(peer == t.rank()), timeout_(timeout) {}
  void spin() {
    if (++spins_ < 4096)
      return;
    sched_yield();
    if (spins_ % 1024 != 0)
      return;
    const Seconds t = clock_now();
    if (start_ == 0)
      start_ = t;
    if (!self_ && !process_alive(pid_))
      throw RuntimeError("shm: rank " + std::to_string(peer_) + " (pid " + std::to_string(pid_) +
                         ") went away during wire-up");
    if (t - start_ > timeout_)
      throw RuntimeError("shm: rank " + std::to_string(peer_) + " did not answer the wire-up probe for " +
                         std::to_string(timeout_) + " s");
  }

 private:
  Rank peer_;
  int pid_;
  bool self_;
  Seconds timeout_;
  Seconds start_ = 0;
  long spins_ = 0;
};

/// The pair probe over the rings. One side leads (pings, streams), the
/// other follows; then each sends the other a burst of small messages,
/// which gives its o_send and the other's o_recv.
class Prober {
 public:
  Prober(ShmTransport& t, Seconds timeout)
      : t_(t), timeout_(timeout), sink_(shm::kMaxBcopy) {}

  void lead(Rank peer, Toward& out) {
    std::vector<double> rtts;
    const Seconds begin = clock_now();
    for (int i = 0; i < kMaxRoundTrips; ++i) {
      const bool last = i + 1 == kMaxRoundTrips || (i + 1 >= kMinRoundTrips && clock_now() - begin > kRoundTripBudget);
      const Seconds t0 = clock_now();
      send(peer, last ? kLastPing : kPing, 8);
      receive(peer);
      rtts.push_back(clock_now() - t0);
      if (last)
        break;
    }
    out.rtt = quantile(rtts, 0.5);
    const Bytes payload = shm::kMaxBcopy - 8;
    const int messages = static_cast<int>(kStreamBytes / shm::kMaxBcopy);
    std::vector<double> streams;
    for (int run = 0; run < kBandwidthRuns; ++run) {
      const Seconds t0 = clock_now();
      for (int i = 0; i < messages; ++i)
        send(peer, i + 1 == messages ? kLastStream : kStream, payload);
      receive(peer);
      streams.push_back(static_cast<double>(messages * payload) / (clock_now() - t0));
    }
    out.stream_bw = quantile(streams, 0.5);
    burst_send(peer);
    burst_receive(peer);
  }

  void follow(Rank peer) {
    int streams = 0;
    for (bool pinging = true; pinging || streams < kBandwidthRuns;) {
      const std::uint64_t code = receive(peer);
      if (code == kPing || code == kLastPing)
        send(peer, kPong, 8);
      if (code == kLastPing)
        pinging = false;
      if (code == kLastStream) {
        send(peer, kPong, 8);
        ++streams;
      }
    }
    burst_receive(peer);
    burst_send(peer);
  }

  Figures figures() const { return {quantile(push_, 0.5), quantile(pop_, 0.5)}; }

 private:
  /// Messages in a burst: half a ring, so that it never fills.
  int burst(Rank peer) { return static_cast<int>(std::min<std::uint32_t>(64, t_.peer(peer).out.cells() / 2)); }

  void burst_send(Rank peer) {
    const int n = burst(peer);
    const Seconds t0 = clock_now();
    for (int i = 0; i < n; ++i)
      send(peer, kPing, 8);
    push_.push_back((clock_now() - t0) / n);
  }

  void burst_receive(Rank peer) {
    const int n = burst(peer);
    shm::Peer& p = t_.peer(peer);
    SetupWait wait(t_, peer, timeout_);
    while (!p.in.ready(p.in_pos + n - 1))
      wait.spin();
    const Seconds t0 = clock_now();
    for (int i = 0; i < n; ++i)
      take(p, *p.in.ready(p.in_pos));
    pop_.push_back((clock_now() - t0) / n);
  }

  void send(Rank peer, std::uint64_t code, Bytes payload) {
    std::byte header[8];
    std::memcpy(header, &code, 8);
    SetupWait wait(t_, peer, timeout_);
    while (t_.push(peer, 0, header, {sink_.data(), payload}) != Status::Ok)
      wait.spin();
  }

  std::uint64_t receive(Rank peer) {
    shm::Peer& p = t_.peer(peer);
    SetupWait wait(t_, peer, timeout_);
    for (;;) {
      if (Cell* cell = p.in.ready(p.in_pos))
        return take(p, *cell);
      wait.spin();
    }
  }

  /// Copies the message out, as a handler would, and frees its cell;
  /// returns its code (0 for a corrupt cell).
  std::uint64_t take(shm::Peer& p, Cell& cell) {
    const shm::CellHead h = shm::Ring::head(cell);
    const std::byte* at = p.in.locate(cell, h, p.in_pos);
    std::uint64_t code = 0;
    if (at && h.header_len == 8) {
      std::memcpy(&code, at, 8);
      std::memcpy(sink_.data(), at + 8, h.payload_len);
    }
    p.in.release(&cell, p.in_pos++);
    return code;
  }

  ShmTransport& t_;
  Seconds timeout_;
  std::vector<std::byte> sink_;
  std::vector<double> push_;
  std::vector<double> pop_;
};

/// Times CMA reads from `peer`: its probe word, then its probe buffer.
/// The median rate of kBandwidthRuns reads of kProbeBytes at `remote` of
/// `peer` into `buf`, or 0 when one fails.
double cma_rate(ShmTransport& t, Rank peer, std::uint64_t remote, std::byte* buf) {
  std::vector<double> times;
  for (int i = 0; i <= kBandwidthRuns; ++i) {  // the first one only faults the pages in
    const Seconds t0 = clock_now();
    if (t.cma(peer, buf, remote, kProbeBytes, false) != Status::Ok)
      return 0;
    if (i > 0)
      times.push_back(clock_now() - t0);
  }
  return static_cast<double>(kProbeBytes) / quantile(times, 0.5);
}

/// The local ends of the CMA reads: small pages, then huge pages.
struct CmaBuffers {
  std::vector<std::byte> small = std::vector<std::byte>(kProbeBytes);
  HostBuffer huge = HostBuffer(kProbeBytes);
};

void measure_cma(ShmTransport& t, Rank peer, const Hello& hello, Seconds clock_cost, CmaBuffers& buf, Toward& out) {
  std::vector<double> small;
  std::uint64_t word = 0;
  for (int i = 0; i < kSmallReads; ++i) {
    const Seconds t0 = clock_now();
    t.cma(peer, reinterpret_cast<std::byte*>(&word), hello.word_addr, 8, false);
    small.push_back(std::max(0.0, clock_now() - t0 - clock_cost));
  }
  out.cma_small = quantile(small, 0.5);
  out.cma_bw = cma_rate(t, peer, hello.probe_addr, buf.small.data());
  out.cma_bw_huge = out.cma_bw > 0 ? cma_rate(t, peer, hello.huge_probe_addr, buf.huge.data()) : 0;
}

/// The first exchange: every rank's Hello; then every peer's segment
/// mapped and its rings set up, and this rank's segment name removed once
/// every rank has mapped it.
std::vector<Hello> exchange_hellos(Bootstrap& boot, ShmTransport& t, const Hello& mine) {
  const Rank me = boot.rank();
  const Rank size = boot.size();
  const std::vector<Blob> hello_blobs = boot.allgather(std::as_bytes(std::span<const Hello>(&mine, 1)));
  std::vector<Hello> hello(size);
  for (Rank r = 0; r < size; ++r)
    hello[r] = decode<Hello>(hello_blobs[r], 1, r).front();
  for (Rank r = 0; r < size; ++r) {
    if (r != me)
      t.mapped_segments()[r] = shm::Segment::open(shm_prefix(boot.job()) + std::to_string(r), r, size, me);
    shm::Peer& p = t.peer(r);
    p.pid = static_cast<int>(hello[r].pid);
    p.in = t.own_segment().ring(r);
    p.out = r == me ? t.own_segment().ring(me) : t.mapped_segments()[r].ring(me);
  }
  boot.barrier();  // every rank has mapped every segment: the names can go
  t.own_segment().unlink();
  return hello;
}

/// Cross-memory attach, checked toward every rank by reading its word: a
/// Toward per rank with cma_ok set where it may. Says on stderr when it may
/// not, and why.
std::vector<Toward> check_cma(Rank me, const std::vector<Hello>& hello) {
  std::vector<Toward> toward(hello.size());
  std::string refused;
  Rank refusals = 0;
  for (Rank r = 0; r < hello.size(); ++r) {
    std::uint64_t value = 0;
    const iovec local{&value, sizeof value};
    const iovec remote{reinterpret_cast<void*>(hello[r].word_addr), sizeof value};
    const ssize_t n = process_vm_readv(static_cast<pid_t>(hello[r].pid), &local, 1, &remote, 1, 0);
    if (n == sizeof value && value == hello[r].word_value) {
      toward[r].cma_ok = 1;
    } else if (refusals++ == 0) {
      refused = "rank " + std::to_string(r) + " (pid " + std::to_string(hello[r].pid) + "): " +
                (n < 0 ? std::string(std::strerror(errno)) : std::string("read the wrong bytes"));
    }
  }
  if (refusals > 0)
    std::fprintf(stderr,
                 "xover: shm: rank %u: cross-memory attach (process_vm_readv) refused toward %s%s; the cma lane is "
                 "left out, so there is no rndv/get (ptrace is restricted: a container without CAP_SYS_PTRACE, or "
                 "Yama)\n",
                 me, refused.c_str(), refusals > 1 ? (" and " + std::to_string(refusals - 1) + " more").c_str() : "");
  return toward;
}

/// What reading the clock twice costs (the median of 64 tries), taken off
/// the short timings.
Seconds clock_cost() {
  std::vector<double> clock_pairs;
  for (int i = 0; i < 64; ++i) {
    const Seconds t0 = clock_now();
    clock_pairs.push_back(clock_now() - t0);
  }
  return quantile(clock_pairs, 0.5);
}

/// The pair probes, toward this rank itself and then toward every peer in
/// the rounds of a round-robin, into `toward`; returns this rank's own
/// o_send and o_recv.
Figures measure_peers(ShmTransport& t, const std::vector<Hello>& hello, Seconds timeout,
                      std::vector<Toward>& toward) {
  const Rank me = t.rank();
  const Rank size = t.size();
  const Seconds cost = clock_cost();
  CmaBuffers cma_buf;
  if (toward[me].cma_ok != 0)
    measure_cma(t, me, hello[me], cost, cma_buf, toward[me]);
  Prober prober(t, timeout);
  for (Rank round = 0; round < round_robin_rounds(size); ++round) {
    const Rank peer = round_robin_partner(me, size, round);
    if (peer >= size)
      continue;
    if (me < peer)
      prober.lead(peer, toward[peer]);
    else
      prober.follow(peer);
    if (toward[peer].cma_ok != 0)
      measure_cma(t, peer, hello[peer], cost, cma_buf, toward[peer]);
  }
  return prober.figures();
}

/// The mm lane toward rank `r` (`me` itself when r == me): `own` this
/// rank's o_send and o_recv, `theirs` r's report, `lead` the pair's
/// measurements as its lower rank took them.
LaneAttrs mm_lane(Rank me, Rank r, const Figures& own, const std::vector<double>& theirs, const Toward& lead,
                  BytesPerSecond memcpy_bw) {
  LaneAttrs mm;
  mm.name = "mm";
  mm.o_send = own.o_send;
  mm.o_recv = theirs[1];
  if (r == me) {
    mm.latency = 0;
    mm.bandwidth = memcpy_bw;
  } else {
    mm.latency = std::max(0.0, (lead.rtt - own.o_send - own.o_recv - theirs[0] - theirs[1]) / 2);
    mm.bandwidth = lead.stream_bw;
  }
  mm.gap = 0;
  mm.reg_cost = 0;
  mm.reg_growth = 0;
  mm.max_short = shm::kMaxShort;
  mm.max_bcopy = shm::kMaxBcopy;
  mm.max_zcopy = 0;
  mm.seg_size = shm::kMaxBcopy;
  mm.caps = {LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::ConnectToIface};
  return mm;
}

/// The cma lane from both ends' reads of each other.
LaneAttrs cma_lane(const Toward& mine_to, const Toward& theirs_to) {
  LaneAttrs cma;
  cma.name = "cma";
  cma.latency = (mine_to.cma_small + theirs_to.cma_small) / 4;
  cma.bandwidth = (mine_to.cma_bw + theirs_to.cma_bw) / 2;
  cma.bandwidth_steps =
      SizeSteps({{0, cma.bandwidth}, {kHugeBufferFrom, (mine_to.cma_bw_huge + theirs_to.cma_bw_huge) / 2}});
  cma.o_send = 0;
  cma.o_recv = 0;
  cma.gap = 0;
  cma.reg_cost = 0;
  cma.reg_growth = 0;
  cma.max_short = 0;
  cma.max_bcopy = 0;
  cma.seg_size = 0;
  cma.caps = {LaneCap::GetZcopy, LaneCap::PutZcopy, LaneCap::ConnectToIface};
  // A get is process_vm_readv: the initiator's own copy, done when it returns.
  cma.cpu_moves = true;
  return cma;
}

/// The second exchange: [o_send, o_recv] then a Toward per rank, from every
/// rank; then the path toward every rank. The peers are done reading this
/// rank's probe word and buffer once every report is in.
void exchange_figures(Bootstrap& boot, ShmTransport& t, const std::vector<Hello>& hello, const Figures& own,
                      const std::vector<Toward>& toward) {
  const Rank me = boot.rank();
  std::vector<double> report{own.o_send, own.o_recv};
  for (const Toward& w : toward)
    report.insert(report.end(), {w.rtt, w.stream_bw, w.cma_small, w.cma_bw, w.cma_bw_huge, w.cma_ok});
  const std::vector<Blob> reports = boot.allgather(bytes_of(report));
  const std::string host = host_name();
  for (Rank r = 0; r < boot.size(); ++r) {
    const std::vector<double> theirs = decode<double>(reports[r], 2 + 6 * std::size_t{boot.size()}, r);
    auto at = [&](const std::vector<double>& v, Rank peer) {
      const double* f = v.data() + 2 + 6 * std::size_t{peer};
      return Toward{f[0], f[1], f[2], f[3], f[4], f[5]};
    };
    const Toward mine_to = at(report, r);
    const Toward theirs_to = at(theirs, me);
    const Toward& lead = me < r ? mine_to : theirs_to;
    shm::Peer& p = t.peer(r);
    p.path = Path{host + ":" + std::to_string(me), host + ":" + std::to_string(r),
                  {mm_lane(me, r, own, theirs, lead, hello[me].memcpy_bw)}, hello[me].memcpy_bw, hello[r].memcpy_bw};
    p.cma = mine_to.cma_ok != 0 && theirs_to.cma_ok != 0 && mine_to.cma_bw > 0 && theirs_to.cma_bw > 0 &&
            mine_to.cma_bw_huge > 0 && theirs_to.cma_bw_huge > 0;
    if (p.cma)
      p.path.lanes.push_back(cma_lane(mine_to, theirs_to));
  }
}

}  // namespace

std::unique_ptr<Transport> make_shm_transport(Bootstrap& boot, const RuntimeOptions& options) {
  const Rank me = boot.rank();
  // Let peers attach to this process whatever Yama's ptrace_scope says, as
  // UCX does; EINVAL where Yama is absent is harmless.
  prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);

  auto t = std::make_unique<ShmTransport>(me, boot.size(), options.timeout);
  t->own_segment() = shm::Segment::create(shm_prefix(boot.job()) + std::to_string(me), me, boot.size());
  // Read by the peers until the second exchange is over.
  std::vector<std::byte> probe(kProbeBytes, std::byte{0x5a});
  HostBuffer huge_probe(kProbeBytes);
  std::memset(huge_probe.data(), 0x5a, huge_probe.size());
  const std::uint64_t word = 0x786f766572000000ULL ^ (std::uint64_t{static_cast<std::uint32_t>(getpid())} << 8) ^ me;
  const Hello mine{getpid(),
                   reinterpret_cast<std::uint64_t>(&word),
                   word,
                   reinterpret_cast<std::uint64_t>(probe.data()),
                   reinterpret_cast<std::uint64_t>(huge_probe.data()),
                   measure_memcpy()};
  const std::vector<Hello> hello = exchange_hellos(boot, *t, mine);
  std::vector<Toward> toward = check_cma(me, hello);
  const Figures own = measure_peers(*t, hello, options.timeout, toward);
  exchange_figures(boot, *t, hello, own, toward);
  t->start_watch();
  return t;
}

}  // namespace xover::runtime
