// The shared-memory transport across forked ranks: active messages of every
// size with every byte checked, back-pressure, CMA get and put, the
// segment's privacy and cleanup, corrupt cells, a peer that dies or hangs
// (the transport fails, and the Worker on it fails its requests), and the
// lanes it measured. Each rank reports what went wrong as text; an
// empty report is a pass.
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "protocols/core/host_memory.hpp"
#include "protocols/core/worker.hpp"
#include "runtime/launch/launch.hpp"
#include "runtime/shm/shm_ring.hpp"
#include "runtime/shm/shm_transport.hpp"
#include "tests/support/pattern.hpp"

namespace xover::runtime {
namespace {

constexpr AmId kEcho = 7;

using test::pattern;
using test::patterned;

/// Header of a test message: the payload size and a sequence number that
/// seeds its pattern.
struct TestHeader {
  std::uint64_t size;
  std::uint64_t seq;
};

std::span<const std::byte> as_span(const TestHeader& h) {
  return std::as_bytes(std::span<const TestHeader>(&h, 1));
}

/// Problems found in a message, or "".
std::string check_message(const AmMessage& msg, Rank source) {
  std::ostringstream out;
  TestHeader h{};
  if (msg.header.size() != sizeof h)
    return "header of " + std::to_string(msg.header.size()) + " bytes\n";
  std::memcpy(&h, msg.header.data(), sizeof h);
  if (msg.source != source || msg.lane != 0)
    out << "seq " << h.seq << ": source " << msg.source << " lane " << msg.lane << "\n";
  if (msg.payload.size != h.size)
    out << "seq " << h.seq << ": payload " << msg.payload.size << " bytes, header says " << h.size << "\n";
  for (std::size_t i = 0; i < std::min<Bytes>(msg.payload.size, h.size); ++i)
    if (msg.payload.data[i] != pattern(h.seq, i)) {
      out << "seq " << h.seq << " size " << h.size << ": byte " << i << " wrong\n";
      break;
    }
  return out.str();
}

/// Names in /dev/shm starting with `prefix` (no leading slash).
std::vector<std::string> shm_names(const std::string& prefix) {
  std::vector<std::string> names;
  if (DIR* dir = opendir("/dev/shm")) {
    while (const dirent* e = readdir(dir))
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0)
        names.emplace_back(e->d_name);
    closedir(dir);
  }
  return names;
}

std::string shm_leftovers(const std::string& job) {
  std::string out;
  for (const std::string& name : shm_names(shm_prefix(job).substr(1)))
    out += "left in /dev/shm: " + name + "\n";
  return out;
}

void expect_clean(const LaunchResult& r) {
  ASSERT_TRUE(r.ok) << r.message;
  for (std::size_t k = 0; k < r.reports.size(); ++k)
    EXPECT_EQ(r.reports[k], "") << "rank " << k;
}

void poll_until(Transport& t, const std::function<bool()>& done) {
  while (!done())
    t.progress();
}

TEST(ShmTransport, ActiveMessagesOfManySizesCarryEveryByte) {
  expect_clean(launch_local(2, {}, [](LocalBootstrap& boot) {
    auto t = make_shm_transport(boot, {});
    const Rank me = boot.rank();
    const Rank peer = 1 - me;
    std::string problems;
    const LaneAttrs& mm = t->path(peer).lanes.at(0);
    if (mm.name != "mm" || !mm.caps.has(LaneCap::AmShort) || !mm.caps.has(LaneCap::AmBcopy) ||
        mm.caps.has(LaneCap::AmZcopy) || mm.max_short != 112 || mm.max_bcopy != 8176 || mm.seg_size != 8176)
      problems += "mm lane: " + mm.name + " " + mm.caps.to_string() + "\n";

    std::vector<std::pair<AmMode, Bytes>> cases;
    for (Bytes n = 0; n + sizeof(TestHeader) <= mm.max_short; ++n)
      cases.emplace_back(AmMode::Short, n);
    for (Bytes n : {0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1000, 4095, 4096, 4097, 8000})
      cases.emplace_back(AmMode::Bcopy, n);
    cases.emplace_back(AmMode::Bcopy, mm.max_bcopy - sizeof(TestHeader));

    std::size_t got = 0;
    t->set_am_handler(kEcho, [&](const AmMessage& msg) {
      problems += check_message(msg, peer);
      ++got;
      if (me == 1) {  // echo it back, from the cell, in the same mode
        const AmMode mode = msg.header.size() + msg.payload.size <= mm.max_short ? AmMode::Short : AmMode::Bcopy;
        if (t->am_send(0, peer, kEcho, msg.header, msg.payload, mode, {}) != Status::Ok)
          problems += "echo refused\n";
      }
    });
    if (me == 0) {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto [mode, n] = cases[i];
        const TestHeader h{n, i};
        const std::vector<std::byte> payload = patterned(i, n);
        if (t->am_send(0, peer, kEcho, as_span(h), {payload.data(), n}, mode, {}) != Status::Ok)
          problems += "send " + std::to_string(n) + " refused\n";
        poll_until(*t, [&] { return got == i + 1; });
      }
      // What the lane does not offer is refused, never sent.
      const std::vector<std::byte> big = patterned(0, mm.max_bcopy);
      const TestHeader h{0, 0};
      if (t->am_send(0, peer, kEcho, as_span(h), {big.data(), mm.max_short - 15}, AmMode::Short, {}) != Status::Error ||
          t->am_send(0, peer, kEcho, as_span(h), {big.data(), mm.max_bcopy - 15}, AmMode::Bcopy, {}) != Status::Error ||
          t->am_send(0, peer, kEcho, as_span(h), {big.data(), 8}, AmMode::Zcopy, {}) != Status::Error ||
          t->am_send(1, peer, kEcho, as_span(h), {big.data(), 8}, AmMode::Bcopy, {}) != Status::Error)
        problems += "an oversized, zcopy or non-mm active message was not refused\n";
      // A rank's ring to itself works too.
      const TestHeader self{100, 5};
      const std::vector<std::byte> payload = patterned(5, 100);
      t->set_am_handler(kEcho, [&](const AmMessage& msg) {
        problems += check_message(msg, me);
        ++got;
      });
      t->am_send(0, me, kEcho, as_span(self), {payload.data(), 100}, AmMode::Bcopy, {});
      poll_until(*t, [&] { return got == cases.size() + 1; });
    } else {
      poll_until(*t, [&] { return got == cases.size(); });
    }
    boot.barrier();
    boot.report(problems);
    return 0;
  }));
}

TEST(ShmTransport, ThreeRanksWireUpPairwiseAndReachEachOther) {
  // An odd number of ranks: the wire-up's round-robin sits one out per round.
  expect_clean(launch_local(3, {}, [](LocalBootstrap& boot) {
    auto t = make_shm_transport(boot, {});
    std::string problems;
    std::vector<int> got(3);
    t->set_am_handler(kEcho, [&](const AmMessage& msg) {
      problems += check_message(msg, msg.source);
      ++got[msg.source];
    });
    for (Rank peer = 0; peer < 3; ++peer) {
      if (t->path(peer).lanes.empty() || t->path(peer).lanes[0].name != "mm")
        problems += "no mm lane to rank " + std::to_string(peer) + "\n";
      const std::vector<std::byte> payload = patterned(boot.rank(), 3000);
      const TestHeader h{3000, boot.rank()};
      if (t->am_send(0, peer, kEcho, as_span(h), {payload.data(), 3000}, AmMode::Bcopy, {}) != Status::Ok)
        problems += "send to rank " + std::to_string(peer) + " refused\n";
    }
    poll_until(*t, [&] { return got == std::vector<int>{1, 1, 1}; });
    boot.barrier();
    boot.report(problems);
    return 0;
  }));
}

TEST(ShmTransport, FullRingSaysNoResourceThenDrainsInOrder) {
  expect_clean(launch_local(2, {}, [](LocalBootstrap& boot) {
    auto t = make_shm_transport(boot, {});
    std::string problems;
    constexpr Bytes kSize = 1000;
    // 1000 bytes go in descriptors, which run out first.
    const std::uint64_t room = shm::ring_shape(2).descriptors;
    const std::uint64_t total = 3 * room + 17;
    if (boot.rank() == 0) {
      std::uint64_t sent = 0;
      auto send = [&] {
        const std::vector<std::byte> payload = patterned(sent, kSize);
        const TestHeader h{kSize, sent};
        const Status st = t->am_send(0, 1, kEcho, as_span(h), {payload.data(), kSize}, AmMode::Bcopy, {});
        if (st == Status::Ok)
          ++sent;
        return st;
      };
      // Rank 1 sits in the barrier, not polling: the ring fills up.
      while (send() == Status::Ok) {
      }
      if (sent != room)
        problems += "the ring took " + std::to_string(sent) + " messages, not " + std::to_string(room) + "\n";
      if (send() != Status::NoResource)
        problems += "a full ring did not say NoResource\n";
      boot.barrier();
      while (sent < total)
        if (send() == Status::NoResource)
          t->progress();
    } else {
      std::uint64_t next = 0;
      t->set_am_handler(kEcho, [&](const AmMessage& msg) {
        TestHeader h{};
        std::memcpy(&h, msg.header.data(), std::min(sizeof h, msg.header.size()));
        if (h.seq != next)
          problems += "got seq " + std::to_string(h.seq) + ", expected " + std::to_string(next) + "\n";
        problems += check_message(msg, 0);
        ++next;
      });
      boot.barrier();
      poll_until(*t, [&] { return next == total; });
    }
    boot.barrier();
    boot.report(problems);
    return 0;
  }));
}

TEST(ShmTransport, GetAndPutThroughCmaMoveEveryByte) {
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    auto t = make_shm_transport(boot, {});
    const Rank me = boot.rank();
    const Rank peer = 1 - me;
    if (t->path(peer).lanes.size() < 2) {
      boot.report("skip: the cma lane is left out on this machine (process_vm_readv refused; see stderr)");
      return 0;
    }
    std::string problems;
    const LaneAttrs& cma = t->path(peer).lanes[1];
    if (cma.name != "cma" || !cma.caps.has(LaneCap::GetZcopy) || !cma.caps.has(LaneCap::PutZcopy) ||
        cma.caps.has_any({LaneCap::AmShort, LaneCap::AmBcopy}))
      problems += "cma lane: " + cma.name + " " + cma.caps.to_string() + "\n";
    constexpr Bytes kSize = (Bytes{1} << 20) + 3;
    std::vector<std::byte> exposed = patterned(11, kSize);
    const MemoryRegion region = t->reg(peer, 1, exposed.data(), kSize);
    const RemoteAddr mine = t->remote_addr(region, exposed.data());
    const RemoteAddr theirs = [&] {
      RemoteAddr a{};
      std::memcpy(&a, boot.allgather(std::as_bytes(std::span<const RemoteAddr>(&mine, 1)))[peer].data(), sizeof a);
      return a;
    }();
    if (me == 0) {
      for (auto [offset, n] : std::vector<std::pair<Bytes, Bytes>>{{0, kSize}, {0, 1}, {5, 8}, {4093, 4099}, {17, 65536}}) {
        std::vector<std::byte> local(n);
        if (t->get(1, peer, {local.data(), n}, {theirs.key, theirs.addr + offset}, {}) != Status::Ok)
          problems += "get of " + std::to_string(n) + " failed\n";
        for (Bytes i = 0; i < n; ++i)
          if (local[i] != pattern(11, offset + i)) {
            problems += "get of " + std::to_string(n) + " at " + std::to_string(offset) + ": byte " + std::to_string(i) +
                        " wrong\n";
            break;
          }
      }
      const std::vector<std::byte> whole = patterned(12, kSize);
      const std::vector<std::byte> small = patterned(13, 5);
      if (t->put(1, peer, {whole.data(), kSize}, theirs, {}) != Status::Ok ||
          t->put(1, peer, {small.data(), 5}, {theirs.key, theirs.addr + 17}, {}) != Status::Ok)
        problems += "put failed\n";
      std::byte dummy[8];
      if (t->get(1, peer, {dummy, 8}, {0, 8}, {}) != Status::Error || t->get(0, peer, {dummy, 8}, theirs, {}) != Status::Error)
        problems += "a get from a bad address or on the mm lane did not fail\n";
    }
    boot.barrier();  // rank 0's puts are in
    if (me == 1)
      for (Bytes i = 0; i < kSize; ++i)
        if (exposed[i] != (i >= 17 && i < 22 ? pattern(13, i - 17) : pattern(12, i))) {
          problems += "put: byte " + std::to_string(i) + " wrong\n";
          break;
        }
    t->dereg(region);
    boot.report(problems);
    return 0;
  });
  ASSERT_TRUE(r.ok) << r.message;
  if (r.reports[0].starts_with("skip:"))
    GTEST_SKIP() << r.reports[0];
  EXPECT_EQ(r.reports[0], "");
  EXPECT_EQ(r.reports[1], "");
}

TEST(ShmTransport, SegmentIsPrivateWhateverTheUmask) {
  expect_clean(launch_local(1, {}, [](LocalBootstrap& boot) {
    std::string problems;
    for (mode_t mask : {mode_t{0}, mode_t{0777}, mode_t{022}}) {
      umask(mask);
      const std::string name = shm_prefix(boot.job()) + "private";
      shm::Segment seg = shm::Segment::create(name, 0, 4);
      struct stat st {};
      if (stat(("/dev/shm" + name).c_str(), &st) != 0 || (st.st_mode & 0777) != 0600)
        problems += "umask " + std::to_string(mask) + ": mode " + std::to_string(st.st_mode & 0777) + "\n";
      seg.unlink();
      problems += shm_leftovers(boot.job());
    }
    boot.report(problems);
    return 0;
  }));
}

TEST(ShmTransport, NothingIsLeftInDevShmAfterSetUpAndEverySegmentSeenIs0600) {
  // A watcher process records the mode of every xover segment it catches
  // while the ranks set up, one line a change, on a pipe. (A process, not a
  // thread: the ranks are forked from this one, and a fork while another
  // thread holds the allocator's lock can deadlock the child.)
  int lines[2];
  ASSERT_EQ(pipe(lines), 0);
  const pid_t watcher = fork();
  ASSERT_GE(watcher, 0);
  if (watcher == 0) {
    close(lines[0]);
    std::map<std::string, unsigned> modes;
    for (;;)
      for (const std::string& name : shm_names("xover-")) {
        struct stat st {};
        if (stat(("/dev/shm/" + name).c_str(), &st) != 0)
          continue;
        const auto known = modes.find(name);
        if (known != modes.end() && known->second == (st.st_mode & 0777))
          continue;
        modes[name] = st.st_mode & 0777;
        const std::string line = name + " " + std::to_string(modes[name]) + "\n";
        if (write(lines[1], line.data(), line.size()) < 0)
          _exit(1);
      }
  }
  close(lines[1]);
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    umask(0);
    auto t = make_shm_transport(boot, {});
    std::string problems = shm_leftovers(boot.job());
    boot.barrier();
    boot.report(boot.rank() == 0 ? boot.job() + "\n" + problems : problems);
    return 0;
  });
  kill(watcher, SIGKILL);
  waitpid(watcher, nullptr, 0);
  std::map<std::string, unsigned> seen;
  {
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = read(lines[0], buf, sizeof buf)) > 0;)
      text.append(buf, static_cast<std::size_t>(n));
    close(lines[0]);
    std::istringstream in(text);
    std::string name;
    for (unsigned mode; in >> name >> mode;)
      seen[name] = mode;
  }
  ASSERT_TRUE(r.ok) << r.message;
  const std::string job = r.reports[0].substr(0, r.reports[0].find('\n'));
  EXPECT_EQ(r.reports[0].substr(job.size() + 1), "");
  EXPECT_EQ(r.reports[1], "");
  EXPECT_EQ(shm_leftovers(job), "");
  for (const auto& [name, mode] : seen)
    EXPECT_EQ(mode, 0600U) << name;
}

TEST(ShmTransport, CorruptCellsAreDroppedAndTheRingGoesOn) {
  expect_clean(launch_local(2, {}, [](LocalBootstrap& boot) {
    auto t = make_shm_transport(boot, {});
    std::string problems;
    if (boot.rank() == 0) {
      // Lengths past the cell, a descriptor past the pool, lengths past
      // what even a descriptor holds, an AM id nobody handles; then a good
      // message.
      if (testing::shm_publish_raw_cell(*t, 1, kEcho, 60000, 100, shm::kInline) != Status::Ok ||
          testing::shm_publish_raw_cell(*t, 1, kEcho, 16, 100, 0xfffe) != Status::Ok ||
          testing::shm_publish_raw_cell(*t, 1, kEcho, 8, 0xffff, shm::kInline) != Status::Ok ||
          testing::shm_publish_raw_cell(*t, 1, 99, 16, 0, shm::kInline) != Status::Ok)
        problems += "could not publish the raw cells\n";
      const std::vector<std::byte> payload = patterned(3, 40);
      const TestHeader h{40, 3};
      t->am_send(0, 1, kEcho, as_span(h), {payload.data(), 40}, AmMode::Bcopy, {});
    } else {
      // Catch what the transport says on stderr.
      std::FILE* log = std::tmpfile();
      const int saved = dup(2);
      dup2(fileno(log), 2);
      int got = 0;
      t->set_am_handler(kEcho, [&](const AmMessage& msg) {
        problems += check_message(msg, 0);
        ++got;
      });
      poll_until(*t, [&] { return got >= 1; });
      t->progress();
      dup2(saved, 2);
      std::rewind(log);
      std::string text;
      for (int c; (c = std::fgetc(log)) != EOF;)
        text += static_cast<char>(c);
      std::fclose(log);
      std::size_t drops = 0;
      for (std::size_t at = 0; (at = text.find("dropped a corrupt cell", at)) != std::string::npos; ++at)
        ++drops;
      if (got != 1 || drops != 4)
        problems += "handled " + std::to_string(got) + ", dropped " + std::to_string(drops) + ":\n" + text;
    }
    boot.barrier();
    boot.report(problems);
    return 0;
  }));
}

/// Polls until the transport fails or 20 s pass; returns its failure, or
/// "not noticed" with how long it waited.
std::string failure_after_polling(Transport& t) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (t.failure().empty() && std::chrono::steady_clock::now() < until)
    t.progress();
  return t.failure().empty() ? "not noticed in 20 s" : t.failure();
}

// Rank 1 vanishes mid-run without a word: rank 0's transport fails, naming
// it — found gone, not timed out (the timeout's message is another) — and
// then refuses new operations instead of waiting on it.
TEST(ShmTransport, PeerThatDiesFailsTheTransport) {
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    auto t = make_shm_transport(boot, {});
    boot.barrier();
    if (boot.rank() == 1)
      _exit(0);
    std::string said = failure_after_polling(*t);
    const TestHeader h{0, 0};
    if (t->am_send(0, 1, kEcho, as_span(h), {}, AmMode::Short, {}) != Status::Error)
      said += "; a send after the failure was not refused";
    boot.report(said);
    return 0;
  });
  ASSERT_EQ(r.reports.size(), 2U) << r.message;
  EXPECT_EQ(r.reports[0].find("rank 1 (pid "), 0U) << r.reports[0];
  EXPECT_NE(r.reports[0].find(") has gone"), std::string::npos) << r.reports[0];
  EXPECT_EQ(r.reports[0].find("refused"), std::string::npos) << r.reports[0];
  EXPECT_EQ(r.exit_status[1], 0);
}

// Rank 1 is alive but hung (it waits in the bootstrap, not on its
// transport): rank 0's transport fails once nothing has come for the
// timeout, and the Worker above it completes its open receive with Error.
TEST(ShmTransport, SilentPeerTimesOutAndFailsOpenRequests) {
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    RuntimeOptions options;
    options.timeout = 1;
    auto t = make_shm_transport(boot, options);
    boot.barrier();
    std::string said;
    if (boot.rank() == 0) {
      Worker worker(*t, {});
      std::vector<std::byte> into(64);
      Request* r = worker.tag_recv({into.data(), into.size()}, 5);
      worker.wait(r);
      said = r->status == Status::Error ? t->failure() : "the receive completed without error";
      worker.release(r);
    }
    boot.report(said);
    boot.barrier();  // rank 1 is silent until rank 0 is done
    return 0;
  });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.reports[0], "nothing from any peer for 1 s: a peer may have hung");
}

TEST(ShmTransport, LanesAreMeasuredAndTheSameFromBothEnds) {
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    const auto start = std::chrono::steady_clock::now();
    auto t = make_shm_transport(boot, {});
    const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const Path& path = t->path(1 - boot.rank());
    std::ostringstream out;
    out << "set-up " << setup * 1e3 << " ms; memcpy " << path.memcpy_bw_local / 1e9 << " / "
        << path.memcpy_bw_remote / 1e9 << " GB/s";
    for (const LaneAttrs& lane : path.lanes)
      out << "; " << lane.name << " L " << lane.latency * 1e9 << " ns, B " << lane.bandwidth / 1e9 << " GB/s, o "
          << lane.o_send * 1e9 << "/" << lane.o_recv * 1e9 << " ns";
    // Measured: every figure a number, times not negative, rates positive.
    // How large each is depends on the machine and its load: not judged.
    std::string problems;
    for (const LaneAttrs& lane : path.lanes)
      if (!(std::isfinite(lane.latency) && lane.latency >= 0 && std::isfinite(lane.bandwidth) &&
            lane.bandwidth > 0 && std::isfinite(lane.o_send) && lane.o_send >= 0))
        problems += "not measured: " + lane.name + "\n";
    if (!(std::isfinite(path.memcpy_bw_local) && path.memcpy_bw_local > 0 && std::isfinite(path.memcpy_bw_remote) &&
          path.memcpy_bw_remote > 0))
      problems += "no memcpy bandwidth\n";
    // The cma lane's rate has two steps: between small pages, then from
    // kHugeBufferFrom on between huge pages, as the workloads' buffers lie.
    for (const LaneAttrs& lane : path.lanes) {
      if (lane.name != "cma")
        continue;
      const std::vector<SizeStep>& steps = lane.bandwidth_steps.steps();
      if (steps.size() != 2 || steps[0].from != 0 || steps[0].value != lane.bandwidth ||
          steps[1].from != kHugeBufferFrom || !std::isfinite(steps[1].value) || steps[1].value <= 0)
        problems += "cma bandwidth steps: " + std::to_string(steps.size()) + " steps, not 0 and 1 MiB\n";
      if (!steps.empty())
        out << " (" << steps.back().value / 1e9 << " GB/s between huge pages)";
    }
    // Both ends see the same latencies and bandwidths.
    std::vector<double> mine;
    for (const LaneAttrs& lane : path.lanes) {
      mine.insert(mine.end(), {lane.latency, lane.bandwidth});
      for (const SizeStep& step : lane.bandwidth_steps.steps())
        mine.push_back(step.value);
    }
    const auto all = boot.allgather(std::as_bytes(std::span<const double>(mine)));
    if (all[0] != all[1])
      problems += "the two ends measured different lanes\n";
    boot.report(problems + "|" + out.str());
    return 0;
  });
  ASSERT_TRUE(r.ok) << r.message;
  for (std::size_t k = 0; k < 2; ++k) {
    const std::string& report = r.reports[k];
    EXPECT_EQ(report.substr(0, report.find('|')), "") << "rank " << k;
    std::printf("rank %zu: %s\n", k, report.substr(report.find('|') + 1).c_str());
  }
}

}  // namespace
}  // namespace xover::runtime
