// The TCP transport's faults on the loopback, each rank a forked child
// (launch.hpp): strangers at the door during set-up, and peers that send a
// malformed frame, ask without reading the answers, die, fall silent or
// leave in good order. A fault fails
// the transport (Transport::failure()): its pending operations complete
// with Error and it says why.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "runtime/tcp/tcp_frame.hpp"
#include "runtime/tcp/tcp_options.hpp"
#include "tests/support/tcp_ranks.hpp"

namespace xover::runtime::tcp_test {
namespace {

// Strangers knock on rank 1's listener during set-up with bad hellos; each
// is refused with its reason, and the run goes on.
TEST(TcpTransport, StrangersAreRefused) {
  static std::vector<int> knocking;  // held open until set-up is over
  static std::vector<std::string> refused;
  TcpTestHooks hooks;
  hooks.on_listening = [](Rank rank, const std::vector<std::vector<TcpListener>>& all) {
    if (rank != 0)
      return;
    auto knock = [&](std::span<const std::byte> bytes, bool hang_up) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(all[1][0].address);
      a.sin_port = htons(all[1][0].port);
      if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && !bytes.empty())
        send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (hang_up)
        close(fd);
      else
        knocking.push_back(fd);
    };
    auto hello = [](std::uint64_t magic, std::uint64_t job, std::uint32_t rank, std::uint32_t lane) {
      std::vector<std::byte> b(tcp::Hello::kSize);
      tcp::Hello{magic, job, rank, lane}.encode(b.data());
      return b;
    };
    knock(hello(42, 0, 0, 0), false);
    knock(hello(tcp::Hello::kMagic, 0, 7, 0), false);
    knock(hello(tcp::Hello::kMagic, 0, 0, 5), false);
    knock(hello(tcp::Hello::kMagic, 12345, 0, 0), false);
    knock({}, false);
    const std::vector<std::byte> half = hello(tcp::Hello::kMagic, 0, 0, 0);
    knock(std::span(half).first(10), true);
  };
  hooks.on_refused = [](const std::string& line) { refused.push_back(line); };
  const Outcome out = run_tcp(2, [](LocalBootstrap& boot, Transport& t) {
    for (int fd : knocking)
      close(fd);
    std::string problems;
    bool got = false;
    t.set_am_handler(kData, [&](const AmMessage&) { got = true; });
    if (send_am(t, 0, 1 - boot.rank(), kData, {}, {}, AmMode::Short, {}) != Status::Ok ||
        !progress_until(t, [&] { return got; }))
      problems += "the lane does not work after the strangers; ";
    if (boot.rank() == 1) {
      for (const char* why : {"bad magic", "rank 7 out of range", "lane 5 out of range", "another job", "no hello",
                              "bytes of hello"})
        if (std::none_of(refused.begin(), refused.end(), [&](const std::string& l) { return l.find(why) != l.npos; }))
          problems += std::string("no refusal for '") + why + "'; ";
      if (refused.size() != 6)
        problems += std::to_string(refused.size()) + " refusals instead of 6; ";
    }
    return problems;
  }, {}, hooks);
  EXPECT_TRUE(out.result.ok) << out.all();
}

struct Garbage {
  const char* name;
  tcp::FrameHeader frame;
  std::vector<std::byte> rest;
  const char* expect;
};

/// Names the case where GoogleTest prints a test's parameter.
void PrintTo(const Garbage& g, std::ostream* out) {
  *out << g.name;
}

class MalformedFrame : public ::testing::TestWithParam<Garbage> {};

/// Polls until the transport fails or 30 s pass; returns its failure, or
/// "not noticed".
std::string failure_after_polling(Transport& t) {
  progress_until(t, [&] { return !t.failure().empty(); });
  return t.failure().empty() ? "not noticed in 30 s" : t.failure();
}

// Rank 0 writes a malformed frame straight onto its socket; rank 1's
// transport must fail and say what was wrong (not time out), without
// reading past a buffer or allocating what the frame asks (the ASan build
// checks).
TEST_P(MalformedFrame, FailsTheReceiver) {
  const Garbage g = GetParam();
  const LaunchResult r = launch_local(2, {}, [g](LocalBootstrap& boot) {
    std::unique_ptr<Transport> t = make_tcp_transport(boot, {});
    std::string said;
    if (boot.rank() == 0) {
      std::vector<std::byte> bytes(tcp::kFrameHeader);
      g.frame.encode(bytes.data());
      bytes.insert(bytes.end(), g.rest.begin(), g.rest.end());
      send(tcp_lane_socket(*t, 1, 0), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    } else {
      said = failure_after_polling(*t);
    }
    boot.report(said);
    boot.barrier();  // rank 0 keeps its socket open until rank 1 has read the frame
    return 0;
  });
  ASSERT_EQ(r.reports.size(), 2U) << r.message;
  EXPECT_EQ(r.reports[1].find(std::string("rank 0 sent a malformed frame on lane tcp:lo: ") + g.expect), 0U)
      << r.reports[1];
}

using tcp::FrameType;
constexpr std::uint8_t type(FrameType t) {
  return static_cast<std::uint8_t>(t);
}

INSTANTIATE_TEST_SUITE_P(
    TcpTransport, MalformedFrame,
    ::testing::Values(
        Garbage{"unknown_type", {99, 0, 0, 0, 0}, {}, "unknown frame type 99"},
        Garbage{"reserved", {type(FrameType::Am), 1, 0, 7, 0}, {}, "reserved field is 7"},
        Garbage{"long_header", {type(FrameType::Am), 1, 2000, 0, 0}, {}, "active message with a 2000-byte header"},
        Garbage{"huge_payload", {type(FrameType::Am), 1, 16, 0, 1ULL << 60}, {},
                "active message with a 16-byte header and a 1152921504606846976-byte payload"},
        Garbage{"huge_put", {type(FrameType::PutRequest), 0, 24, 0, 1ULL << 31}, {}, "put request with a 24-byte header"},
        Garbage{"stray_response", {type(FrameType::GetResponse), 0, 16, 0, 8}, u64s({12345, 0}),
                "a get response for request 12345"},
        Garbage{"bad_status", {type(FrameType::PutAck), 0, 16, 0, 0}, u64s({1, 9}), "RMA status 9"}),
    [](const ::testing::TestParamInfo<Garbage>& info) { return std::string(info.param.name); });

/// Writes all of `bytes` onto a non-blocking socket, waiting for room;
/// stops early once the socket has taken nothing for 10 s (its reader has
/// stopped).
void write_raw(int fd, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return;
    pollfd p{fd, POLLOUT, 0};
    if (errno != EINTR && poll(&p, 1, 10000) == 0)
      return;
  }
}

// Rank 0 asks for gets of 1 MiB, far more than the 65536 replies a lane
// holds, and reads none of the answers: rank 1 must fail it, saying so,
// instead of queueing replies without end.
TEST(TcpTransport, APeerThatNeverReadsItsRepliesIsFailed) {
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    std::unique_ptr<Transport> t = make_tcp_transport(boot, {});
    constexpr Bytes kGet = Bytes{1} << 20;
    std::string said;
    if (boot.rank() == 1) {
      const std::vector<std::byte> region = filled(6, kGet);
      const MemoryRegion reg = t->reg(0, 0, region.data(), region.size());
      const RemoteAddr ra = t->remote_addr(reg, region.data());
      send_am(*t, 0, 0, kKeys, u64s({ra.key, ra.addr}), {}, AmMode::Short, {});
      said = failure_after_polling(*t);
    } else {
      std::vector<std::uint64_t> key;
      t->set_am_handler(kKeys, [&](const AmMessage& m) { key = {u64_at(m.header, 0), u64_at(m.header, 1)}; });
      progress_until(*t, [&] { return key.size() == 2; });
      // From here on rank 0 never progresses: it reads nothing.
      constexpr std::size_t kRequests = 65536 + 1024;
      constexpr std::size_t kFrame = tcp::kFrameHeader + tcp::kGetRequestHeader;
      std::vector<std::byte> requests(kRequests * kFrame);
      for (std::size_t i = 0; i < kRequests; ++i) {
        std::byte* at = requests.data() + i * kFrame;
        tcp::FrameHeader{static_cast<std::uint8_t>(tcp::FrameType::GetRequest), 0, tcp::kGetRequestHeader, 0, 0}
            .encode(at);
        const std::vector<std::byte> header = u64s({i + 1, key[0], key[1], kGet});
        std::copy(header.begin(), header.end(), at + tcp::kFrameHeader);
      }
      write_raw(tcp_lane_socket(*t, 1, 0), requests);
    }
    boot.report(said);
    boot.barrier();  // rank 0 keeps its socket open until rank 1 has given up on it
    return 0;
  });
  ASSERT_EQ(r.reports.size(), 2U) << r.message;
  EXPECT_EQ(r.reports[1].find("rank 0 does not read the answers it asks for: 65537 replies to its gets and puts "
                              "wait on lane tcp:lo, more than the 65536 a lane holds"),
            0U)
      << r.reports[1];
}

// Rank 1 dies (without a goodbye) while rank 0 waits for the answer to a
// get: rank 0's transport fails, naming it as closed (not timed out: the
// timeout says another thing), and the get completes with Error.
TEST(TcpTransport, DeadPeerFailsTheOtherAndItsPendingGet) {
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    std::unique_ptr<Transport> t = make_tcp_transport(boot, {});
    if (boot.rank() == 1) {
      boot.barrier();  // rank 0's get is on its way
      _exit(0);
    }
    std::byte into[8];
    Status got = Status::InProgress;
    const Status st = t->get(0, 1, {into, sizeof into}, {1, 1}, [&](Status s) { got = s; });
    boot.barrier();
    std::string said = failure_after_polling(*t);
    if (st != Status::InProgress || got != Status::Error)
      said += "; the pending get did not complete with Error";
    boot.report(said);
    return 0;
  });
  ASSERT_GE(r.reports.size(), 1U) << r.message;
  EXPECT_EQ(r.reports[0].find("rank 1 closed lane tcp:lo ("), 0U) << r.reports[0];
  EXPECT_NE(r.reports[0].find("did it die?)"), std::string::npos) << r.reports[0];
  EXPECT_EQ(r.reports[0].find("pending"), std::string::npos) << r.reports[0];
}

// Rank 1 answers a first get, then falls silent with its sockets open (it
// waits in the bootstrap): rank 0 gives up on its second get after the
// timeout and names it.
TEST(TcpTransport, SilentPeerTimesOut) {
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    RuntimeOptions options;
    options.timeout = 1.5;
    std::unique_ptr<Transport> t = make_tcp_transport(boot, options);
    std::vector<std::uint64_t> key;
    t->set_am_handler(kKeys, [&](const AmMessage& m) { key = {u64_at(m.header, 0), u64_at(m.header, 1)}; });
    std::string said;
    if (boot.rank() == 1) {
      const std::vector<std::byte> region = filled(4, 4096);
      const MemoryRegion reg = t->reg(0, 0, region.data(), region.size());
      const RemoteAddr ra = t->remote_addr(reg, region.data());
      send_am(*t, 0, 0, kKeys, u64s({ra.key, ra.addr}), {}, AmMode::Short, {});
      bool phase2 = false;
      t->set_am_handler(kCheck, [&](const AmMessage&) { phase2 = true; });
      progress_until(*t, [&] { return phase2; });
      send_am(*t, 0, 0, kVerdict, {}, {}, AmMode::Short, {});  // no more progress from here
      boot.report("");
      boot.barrier();  // silent until rank 0 is done
      return 0;
    }
    progress_until(*t, [&] { return key.size() == 2; });
    std::vector<std::byte> into(4096);
    Status got = Status::InProgress;
    t->get(0, 1, {into.data(), into.size()}, {key[0], key[1]}, [&](Status s) { got = s; });
    progress_until(*t, [&] { return got != Status::InProgress; });
    if (got != Status::Ok || into != filled(4, 4096))
      said = "phase 1 failed; ";
    bool silent = false;
    t->set_am_handler(kVerdict, [&](const AmMessage&) { silent = true; });
    send_am(*t, 0, 1, kCheck, {}, {}, AmMode::Short, {});
    progress_until(*t, [&] { return silent; });
    got = Status::InProgress;
    t->get(0, 1, {into.data(), into.size()}, {key[0], key[1]}, [&](Status s) { got = s; });
    said += failure_after_polling(*t);
    if (got != Status::Error)
      said += "; the pending get did not complete with Error";
    boot.report(said);
    boot.barrier();
    return 0;
  });
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.reports[0].find("nothing moved for 1.5 s while waiting on rank(s) 1 (sends, gets or puts under way)"), 0U)
      << r.reports[0];
  EXPECT_EQ(r.reports[0].find("pending"), std::string::npos) << r.reports[0];
}

// A rank that is done says goodbye and leaves; the other may go on polling
// (no fault), and a send to the one that left fails cleanly.
TEST(TcpTransport, APeerThatFinishedIsNoFault) {
  const LaunchResult r = launch_local(2, {}, [](LocalBootstrap& boot) {
    std::unique_ptr<Transport> t = make_tcp_transport(boot, {});
    std::string problems;
    if (boot.rank() == 0) {
      const std::vector<std::byte> payload = filled(5, 65000);
      if (t->am_send(0, 1, kData, {}, {payload.data(), payload.size()}, AmMode::Bcopy, {}) != Status::Ok)
        problems = "send failed";
      t.reset();
    } else {
      bool got = false;
      t->set_am_handler(kData, [&](const AmMessage& m) {
        got = m.payload.size == 65000 && std::equal(m.payload.data, m.payload.data + 65000, filled(5, 65000).begin());
      });
      if (!progress_until(*t, [&] { return got; }))
        problems = "no message; ";
      const auto until = Clock::now() + std::chrono::milliseconds(300);
      progress_until(*t, [&] { return Clock::now() > until; });
      if (t->am_send(0, 0, kData, {}, {}, AmMode::Short, {}) != Status::Error)
        problems += "a send to a rank that left did not fail; ";
    }
    boot.report(problems);
    return problems.empty() ? 0 : 1;
  });
  EXPECT_TRUE(r.ok) << r.message << (r.reports.size() == 2 ? r.reports[0] + r.reports[1] : "");
}

TEST(TcpTransport, AnInterfaceWithoutAddressIsASetUpError) {
  const LaunchResult r = launch_local(1, {}, [](LocalBootstrap& boot) {
    RuntimeOptions options;
    options.backend = TcpOptions{.interfaces = {"nosuch0"}};
    try {
      make_tcp_transport(boot, options);
      boot.report("no error");
    } catch (const RuntimeError& e) {
      boot.report(e.what());
    }
    return 0;
  });
  ASSERT_EQ(r.reports.size(), 1U);
  EXPECT_NE(r.reports[0].find("tcp: interface 'nosuch0' has no IPv4 address (interfaces with one: "), std::string::npos)
      << r.reports[0];
}


}  // namespace
}  // namespace xover::runtime::tcp_test
