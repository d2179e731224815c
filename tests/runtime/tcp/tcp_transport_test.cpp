// The TCP transport's data path on the loopback, each rank a forked child
// (launch.hpp): lanes measured at set-up, active messages, gets and puts
// with every byte checked, refused RMA, two connections as two lanes, three
// ranks. The faults are in tcp_faults_test.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "runtime/tcp/tcp_frame.hpp"
#include "runtime/tcp/tcp_options.hpp"
#include "tests/support/tcp_ranks.hpp"

namespace xover::runtime::tcp_test {
namespace {

TEST(TcpTransport, LanesAreMeasuredAtSetUp) {
  const Outcome out = run_tcp(2, [](LocalBootstrap& boot, Transport& t) {
    const Path& p = t.path(1 - boot.rank());
    std::ostringstream s;
    if (p.lanes.size() != 1 || p.lanes[0].name != "tcp:lo")
      return std::string("expected one lane tcp:lo");
    const LaneAttrs& a = p.lanes[0];
    // Measured figures are numbers, times not negative, rates positive; how
    // large depends on the machine and its load, and is not judged.
    const bool measured = std::isfinite(a.bandwidth) && a.bandwidth > 0 && std::isfinite(a.o_send) &&
                          a.o_send > 0 && std::isfinite(a.o_recv) && a.o_recv > 0 && std::isfinite(a.latency) &&
                          a.latency >= 0 && std::isfinite(p.memcpy_bw_local) && p.memcpy_bw_local > 0 &&
                          std::isfinite(p.memcpy_bw_remote) && p.memcpy_bw_remote > 0;
    if (!measured || a.seg_size != 64 * 1024 || a.max_short != 128 || !a.caps.has(LaneCap::GetZcopy) ||
        a.caps.has(LaneCap::Atomics) || p.to.find(":" + std::to_string(1 - boot.rank())) == std::string::npos)
      s << "implausible lane: ";
    s << "L=" << a.latency * 1e6 << "us o_s=" << a.o_send * 1e6 << "us o_r=" << a.o_recv * 1e6
      << "us bw=" << a.bandwidth / 1e9 << "GB/s reg=" << a.reg_cost * 1e9 << "ns memcpy=" << p.memcpy_bw_local / 1e9
      << "GB/s " << p.from << "->" << p.to;
    const std::string text = s.str();
    std::printf("rank %u: %s\n", boot.rank(), text.c_str());
    std::fflush(stdout);
    return text.starts_with("implausible") ? text : std::string();
  });
  EXPECT_TRUE(out.result.ok) << out.all();
  std::printf("two ranks set up, measured and torn down in %.0f ms\n", out.seconds * 1e3);
}

// Both ranks send each other the same list of active messages, short,
// bcopy and zcopy, ending with a 16 MiB burst that fills the socket and the
// queue (partial writes, back-pressure); every byte and the order are checked.
TEST(TcpTransport, ActiveMessagesCarryEveryByte) {
  const Outcome out = run_tcp(2, [](LocalBootstrap& boot, Transport& t) {
    const Rank peer = 1 - boot.rank();
    const Bytes h = 16;
    std::vector<std::pair<AmMode, Bytes>> list;
    for (Bytes n : {0, 1, 8, 100, 128 - 16})
      list.emplace_back(AmMode::Short, n);
    for (Bytes n : {0, 1, 1000, 4096, 32768, 65536 - 16})
      list.emplace_back(AmMode::Bcopy, n);
    for (Bytes n : {1, 1000, 65536 - 16})
      list.emplace_back(AmMode::Zcopy, n);
    for (int i = 0; i < 256; ++i)
      list.emplace_back(i % 2 ? AmMode::Zcopy : AmMode::Bcopy, 65536 - h - static_cast<Bytes>(i % 3));
    std::string problems;
    std::size_t received = 0;
    t.set_am_handler(kData, [&](const AmMessage& m) {
      const std::uint64_t i = u64_at(m.header, 0);
      if (m.source != peer || m.lane != 0 || m.header.size() != h || i != received || i >= list.size() ||
          m.payload.size != list[i].second || u64_at(m.header, 1) != m.payload.size) {
        problems += "message " + std::to_string(received) + " arrived wrong; ";
        ++received;
        return;
      }
      for (Bytes b = 0; b < m.payload.size; ++b)
        if (m.payload.data[b] != pattern(i, b)) {
          problems += "message " + std::to_string(i) + " byte " + std::to_string(b) + " differs; ";
          break;
        }
      ++received;
    });
    std::vector<std::vector<std::byte>> payloads;
    for (std::size_t i = 0; i < list.size(); ++i)
      payloads.push_back(filled(i, list[i].second));
    int outstanding = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto header = u64s({i, list[i].second});
      const Status st = send_am(t, 0, peer, kData, header, {payloads[i].data(), payloads[i].size()}, list[i].first,
                                [&](Status s) {
                                  --outstanding;
                                  if (s != Status::Ok)
                                    problems += "a zcopy completion failed; ";
                                });
      if (st == Status::InProgress && list[i].first == AmMode::Zcopy)
        ++outstanding;
      else if (st != Status::Ok)
        problems += "send " + std::to_string(i) + " failed; ";
    }
    if (!progress_until(t, [&] { return received == list.size() && outstanding == 0; }))
      problems += "timed out with " + std::to_string(received) + " received; ";
    // Past the limits: refused on the spot.
    std::vector<std::byte> big(70000), header(2000);
    auto refused = [&](std::size_t lane, Rank to, std::size_t hlen, Bytes n, AmMode mode, const char* what) {
      if (t.am_send(lane, to, kData, {header.data(), hlen}, {big.data(), n}, mode, {}) != Status::Error)
        problems += std::string(what) + " was not refused; ";
    };
    refused(0, peer, 16, 128 - 15, AmMode::Short, "a short message over max_short");
    refused(0, peer, 16, 65536 - 15, AmMode::Bcopy, "a bcopy message over max_bcopy");
    refused(0, peer, 16, 65536 - 15, AmMode::Zcopy, "a zcopy message over seg_size");
    refused(0, peer, 1025, 0, AmMode::Bcopy, "a 1025-byte header");
    refused(1, peer, 16, 8, AmMode::Bcopy, "lane 1 of 1");
    refused(0, boot.rank(), 16, 8, AmMode::Bcopy, "a message to itself");
    return problems;
  });
  EXPECT_TRUE(out.result.ok) << out.all();
}

// Rank 1 exposes two regions; rank 0 reads from one (sizes up to 8 MiB, at
// odd offsets, all in flight at once) and writes into the other; rank 1
// checks what landed.
constexpr Bytes kRegion = (8 << 20) + 64;
/// The puts rank 0 makes, (offset, bytes).
const std::vector<std::pair<Bytes, Bytes>> kPuts = {{0, 1}, {8, 1000}, {2048, 65536}, {1 << 20, 6 << 20}};

/// Rank 1: registers the two regions, sends their keys, and when asked
/// checks what the puts left and says so.
std::string get_put_target(Transport& t) {
  std::string problems;
  bool checked = false;
  const std::vector<std::byte> source = filled(1, kRegion);
  std::vector<std::byte> target(kRegion);
  const MemoryRegion a = t.reg(0, 0, source.data(), kRegion);
  const MemoryRegion b = t.reg(0, 0, target.data(), kRegion);
  const RemoteAddr ra = t.remote_addr(a, source.data());
  const RemoteAddr rb = t.remote_addr(b, target.data());
  t.set_am_handler(kCheck, [&](const AmMessage&) {
    std::string found;
    std::vector<std::byte> want(kRegion);
    for (auto [off, n] : kPuts)
      for (Bytes i = off; i < off + n; ++i)
        want[i] = pattern(2, i);
    if (want != target)
      found = "the puts did not land as sent; ";
    send_am(t, 0, 0, kVerdict, {}, {reinterpret_cast<const std::byte*>(found.data()), found.size()}, AmMode::Bcopy,
            {});
    checked = true;
  });
  send_am(t, 0, 0, kKeys, u64s({ra.key, ra.addr, rb.key, rb.addr}), {}, AmMode::Short, {});
  if (!progress_until(t, [&] { return checked; }))
    problems += "rank 0 never asked for the check; ";
  t.dereg(a);
  t.dereg(b);
  return problems;
}

/// Rank 0: every get and put in flight at once, the gets' bytes checked,
/// an empty get, then rank 1's verdict on the puts.
std::string get_put_initiator(Transport& t) {
  std::string problems;
  std::vector<std::uint64_t> keys;
  bool checked = false;
  t.set_am_handler(kKeys, [&](const AmMessage& m) {
    for (std::size_t i = 0; i < 4; ++i)
      keys.push_back(u64_at(m.header, i));
  });
  t.set_am_handler(kVerdict, [&](const AmMessage& m) {
    problems.append(reinterpret_cast<const char*>(m.payload.data), m.payload.size);
    checked = true;
  });
  if (!progress_until(t, [&] { return keys.size() == 4; }))
    return std::string("no keys came");
  const std::vector<std::pair<Bytes, Bytes>> gets = {{0, 1}, {7, 100}, {1000, 65536}, {3, 1 << 20}, {64, 8 << 20}};
  std::vector<std::vector<std::byte>> into;
  int outstanding = 0;
  for (auto [off, n] : gets) {
    into.emplace_back(n, std::byte{0xEE});
    ++outstanding;
    if (t.get(0, 1, {into.back().data(), n}, {keys[0], keys[1] + off}, [&](Status s) {
          --outstanding;
          if (s != Status::Ok)
            problems += "a get failed; ";
        }) != Status::InProgress)
      problems += "a get did not start; ";
  }
  const std::vector<std::byte> source = filled(2, kRegion);
  for (auto [off, n] : kPuts) {
    ++outstanding;
    if (t.put(0, 1, {source.data() + off, n}, {keys[2], keys[3] + off}, [&](Status s) {
          --outstanding;
          if (s != Status::Ok)
            problems += "a put failed; ";
        }) != Status::InProgress)
      problems += "a put did not start; ";
  }
  if (!progress_until(t, [&] { return outstanding == 0; }))
    return problems + "gets and puts timed out";
  for (std::size_t g = 0; g < gets.size(); ++g)
    for (Bytes i = 0; i < gets[g].second; ++i)
      if (into[g][i] != pattern(1, gets[g].first + i)) {
        problems += "get " + std::to_string(g) + " byte " + std::to_string(i) + " differs; ";
        break;
      }
  std::byte none{};
  if (t.get(0, 1, {&none, 0}, {keys[0], keys[1]}, {}) != Status::Ok)
    problems += "an empty get did not complete at once; ";
  send_am(t, 0, 1, kCheck, {}, {}, AmMode::Short, {});
  if (!progress_until(t, [&] { return checked; }))
    problems += "no verdict came; ";
  return problems;
}

TEST(TcpTransport, GetAndPutMoveEveryByte) {
  const Outcome out = run_tcp(2, [](LocalBootstrap& boot, Transport& t) {
    return boot.rank() == 1 ? get_put_target(t) : get_put_initiator(t);
  });
  EXPECT_TRUE(out.result.ok) << out.all();
}

// A get or put with a wrong key, outside its region, through a region
// deregistered, or longer than a lane allows fails with Status::Error, and
// neither end's memory changes.
TEST(TcpTransport, RefusedGetAndPutTouchNothing) {
  const Outcome out = run_tcp(2, [](LocalBootstrap& boot, Transport& t) {
    constexpr Bytes kSize = 4096;
    std::string problems;
    std::vector<std::uint64_t> keys;
    bool checked = false;
    t.set_am_handler(kKeys, [&](const AmMessage& m) {
      for (std::size_t i = 0; i < 3; ++i)
        keys.push_back(u64_at(m.header, i));
    });
    t.set_am_handler(kVerdict, [&](const AmMessage& m) {
      problems.append(reinterpret_cast<const char*>(m.payload.data), m.payload.size);
      checked = true;
    });
    if (boot.rank() == 1) {
      std::vector<std::byte> region = filled(3, kSize + 2 * 64);
      std::vector<std::byte> gone(64);
      const MemoryRegion r = t.reg(0, 0, region.data() + 64, kSize);
      const MemoryRegion g = t.reg(0, 0, gone.data(), gone.size());
      const RemoteAddr ra = t.remote_addr(r, region.data() + 64);
      const std::uint64_t gone_key = g.key;
      t.dereg(g);
      t.set_am_handler(kCheck, [&](const AmMessage&) {
        const std::string found = region == filled(3, kSize + 2 * 64) ? "" : "a refused put wrote into memory; ";
        send_am(t, 0, 0, kVerdict, {}, {reinterpret_cast<const std::byte*>(found.data()), found.size()}, AmMode::Bcopy,
                {});
        checked = true;
      });
      send_am(t, 0, 0, kKeys, u64s({ra.key, ra.addr, gone_key}), {}, AmMode::Short, {});
      if (!progress_until(t, [&] { return checked; }))
        problems += "rank 0 never asked for the check; ";
      t.dereg(r);
      return problems;
    }
    if (!progress_until(t, [&] { return keys.size() == 3; }))
      return std::string("no keys came");
    const std::uint64_t key = keys[0], addr = keys[1], gone = keys[2];
    const std::vector<std::pair<const char*, RemoteAddr>> bad = {
        {"a wrong key", {key ^ 1, addr}},
        {"key 0", {0, addr}},
        {"a deregistered key", {gone, addr}},
        {"an address before the region", {key, addr - 1}},
        {"a range past the end", {key, addr + kSize - 9}},
        {"an address far away", {key, addr + (1ULL << 40)}},
    };
    std::vector<std::byte> local(16, std::byte{0xEE});
    const std::vector<std::byte> source(16, std::byte{0x55});
    for (const auto& [what, remote] : bad) {
      Status got = Status::InProgress;
      if (t.get(0, 1, {local.data(), local.size()}, remote, [&](Status s) { got = s; }) != Status::InProgress ||
          !progress_until(t, [&] { return got != Status::InProgress; }) || got != Status::Error)
        problems += std::string("a get with ") + what + " did not fail; ";
      got = Status::InProgress;
      if (t.put(0, 1, {source.data(), source.size()}, remote, [&](Status s) { got = s; }) != Status::InProgress ||
          !progress_until(t, [&] { return got != Status::InProgress; }) || got != Status::Error)
        problems += std::string("a put with ") + what + " did not fail; ";
    }
    if (local != std::vector<std::byte>(16, std::byte{0xEE}))
      problems += "a refused get wrote into the local buffer; ";
    if (t.get(0, 1, {local.data(), tcp::kMaxZcopy + 1}, {key, addr}, {}) != Status::Error)
      problems += "a get over max_zcopy was not refused; ";
    send_am(t, 0, 1, kCheck, {}, {}, AmMode::Short, {});
    if (!progress_until(t, [&] { return checked; }))
      problems += "no verdict came; ";
    return problems;
  });
  EXPECT_TRUE(out.result.ok) << out.all();
}

// Two connections per peer are two lanes; each carries its own messages
// and gets.
TEST(TcpTransport, TwoConnectionsAreTwoLanes) {
  RuntimeOptions options;
  options.backend = TcpOptions{.connections = 2};
  // Outlives the body: the peer may still be reading it after this rank's
  // own gets are done.
  std::vector<std::byte> mine;
  const Outcome out = run_tcp(2, [&mine](LocalBootstrap& boot, Transport& t) {
    const Rank peer = 1 - boot.rank();
    const Path& p = t.path(peer);
    if (p.lanes.size() != 2 || p.lanes[0].name != "tcp:lo.0" || p.lanes[1].name != "tcp:lo.1")
      return std::string("expected lanes tcp:lo.0 and tcp:lo.1");
    std::string problems;
    std::array<int, 2> per_lane{};
    t.set_am_handler(kData, [&](const AmMessage& m) {
      if (m.lane != u64_at(m.header, 0) || m.payload.size != 4096 || m.payload.data[4095] != pattern(m.lane, 4095))
        problems += "a message crossed lanes; ";
      ++per_lane[m.lane % 2];
    });
    const std::array<std::vector<std::byte>, 2> payload = {filled(0, 4096), filled(1, 4096)};
    mine = filled(10 + boot.rank(), 1 << 20);
    const MemoryRegion region = t.reg(peer, 1, mine.data(), mine.size());
    const RemoteAddr ra = t.remote_addr(region, mine.data());
    std::vector<std::uint64_t> theirs;
    t.set_am_handler(kKeys, [&](const AmMessage& m) { theirs = {u64_at(m.header, 0), u64_at(m.header, 1)}; });
    send_am(t, 1, peer, kKeys, u64s({ra.key, ra.addr}), {}, AmMode::Short, {});
    for (int i = 0; i < 100; ++i)
      send_am(t, i % 2, peer, kData, u64s({static_cast<std::uint64_t>(i % 2)}), {payload[i % 2].data(), 4096},
              AmMode::Bcopy, {});
    if (!progress_until(t, [&] { return theirs.size() == 2; }))
      return problems + "no key came";
    std::array<std::vector<std::byte>, 2> into = {std::vector<std::byte>(1 << 19), std::vector<std::byte>(1 << 19)};
    int outstanding = 2;
    for (std::size_t lane = 0; lane < 2; ++lane)
      t.get(lane, peer, {into[lane].data(), into[lane].size()}, {theirs[0], theirs[1] + lane * (1 << 19)},
            [&](Status s) {
              --outstanding;
              if (s != Status::Ok)
                problems += "a get failed; ";
            });
    if (!progress_until(t, [&] { return outstanding == 0 && per_lane[0] == 50 && per_lane[1] == 50; }))
      problems += "timed out; ";
    for (std::size_t lane = 0; lane < 2; ++lane)
      for (std::size_t i = 0; i < into[lane].size(); i += 4099)
        if (into[lane][i] != pattern(10 + peer, lane * (1 << 19) + i)) {
          problems += "a get on lane " + std::to_string(lane) + " read wrong bytes; ";
          break;
        }
    return problems;
  }, options);
  EXPECT_TRUE(out.result.ok) << out.all();
}


// Three ranks: every pair is wired and measured (a round-robin with a bye),
// and every rank reads from every other.
TEST(TcpTransport, ThreeRanksReachEachOther) {
  std::vector<std::byte> mine;  // outlives the body, as above
  const Outcome out = run_tcp(3, [&mine](LocalBootstrap& boot, Transport& t) {
    const Rank me = boot.rank();
    mine = filled(20 + me, 100000);
    const MemoryRegion region[3] = {t.reg(0, 0, mine.data(), mine.size()), t.reg(1, 0, mine.data(), mine.size()),
                                    t.reg(2, 0, mine.data(), mine.size())};
    std::map<Rank, std::vector<std::uint64_t>> keys;
    t.set_am_handler(kKeys, [&](const AmMessage& m) {
      keys[m.source] = {u64_at(m.header, 0), u64_at(m.header, 1), u64_at(m.header, 2)};
    });
    for (Rank peer = 0; peer < 3; ++peer)
      if (peer != me) {
        if (t.path(peer).lanes.size() != 1 || !(t.path(peer).lanes[0].bandwidth > 0))
          return std::string("a lane was not measured");
        const RemoteAddr ra = t.remote_addr(region[peer], mine.data());
        // The key for the third rank too: it must not work for this one.
        send_am(t, 0, peer, kKeys, u64s({ra.key, ra.addr, region[3 - me - peer].key}), {}, AmMode::Short, {});
      }
    if (!progress_until(t, [&] { return keys.size() == 2; }))
      return std::string("keys missing");
    std::string problems;
    std::map<Rank, std::vector<std::byte>> into;
    int outstanding = 0;
    for (auto& [peer, key] : keys) {
      into[peer].resize(100000);
      ++outstanding;
      t.get(0, peer, {into[peer].data(), 100000}, {key[0], key[1]}, [&](Status s) {
        --outstanding;
        if (s != Status::Ok)
          problems += "a get failed; ";
      });
    }
    if (!progress_until(t, [&] { return outstanding == 0; }))
      return problems + "gets timed out";
    for (auto& [peer, bytes] : into)
      if (bytes != filled(20 + peer, 100000))
        problems += "wrong bytes from rank " + std::to_string(peer) + "; ";
    // A key registered for one peer is no key for another.
    if (me == 0) {
      Status got = Status::InProgress;
      t.get(0, 1, {into[1].data(), 8}, {keys[1][2], keys[1][1]}, [&](Status s) { got = s; });
      progress_until(t, [&] { return got != Status::InProgress; });
      if (got != Status::Error)
        problems += "rank 1 honoured for rank 0 a key it registered for rank 2; ";
    }
    return problems;
  });
  EXPECT_TRUE(out.result.ok) << out.all();
}

// --tcp-if and --tcp-conns as the row reads them: lists split at commas,
// defaults where absent, a bad value refused with what is wrong, and
// calibrate, which measures each lane on its own, held to one lane.
TEST(TcpOptions, ReadFromTheirTextOrRefusedWithWhy) {
  const auto read = [](const OptionValues& values, BackendUse use) {
    return std::any_cast<TcpOptions>(read_tcp_options(values, use));
  };
  const TcpOptions defaults = read({}, BackendUse::Run);
  EXPECT_EQ(defaults.interfaces, std::vector<std::string>{"lo"});
  EXPECT_EQ(defaults.connections, 1U);
  const TcpOptions two = read({{"tcp-if", "lo,eth0"}, {"tcp-conns", "2"}}, BackendUse::Run);
  EXPECT_EQ(two.interfaces, (std::vector<std::string>{"lo", "eth0"}));
  EXPECT_EQ(two.connections, 2U);
  EXPECT_EQ(read({{"tcp-if", "eth1"}}, BackendUse::Calibrate).interfaces, std::vector<std::string>{"eth1"});
  const auto refusal = [](const OptionValues& values, BackendUse use) -> std::string {
    try {
      read_tcp_options(values, use);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refusal({{"tcp-if", ","}}, BackendUse::Run), "--tcp-if names no interface");
  for (const char* conns : {"0", "17", "x", "-1", "2x", ""})
    EXPECT_EQ(refusal({{"tcp-conns", conns}}, BackendUse::Run), "--tcp-conns must be from 1 to 16") << conns;
  EXPECT_EQ(refusal({{"tcp-if", "lo,lo"}}, BackendUse::Calibrate), "--tcp-if takes one interface");
  EXPECT_EQ(refusal({{"tcp-conns", "2"}}, BackendUse::Calibrate),
            "--tcp-conns takes 1 with calibrate, which measures each lane on its own");
}

}  // namespace
}  // namespace xover::runtime::tcp_test
