// What only a real verbs device shows, on whatever device is here (the rxe
// stage runs them on a soft-RoCE device; SKIPPED with the backend's reason
// where there is none):
//   - a send buffer unmapped and mapped again at the same address between
//     two rendezvous sends: the second send carries the new pages' bytes,
//     not the old pages that a kept registration would still pin;
//   - a locked-memory limit too low for the set-up is said with both
//     numbers before anything is pinned, not as a bare ENOMEM.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "protocols/core/worker.hpp"
#include "protocols/workload/payload.hpp"
#include "runtime/backends.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/one_rank.hpp"

namespace xover::test {
namespace {

using ::testing::HasSubstr;

constexpr Bytes kSize = Bytes{256} << 10;
constexpr Tag kFirst = 1;
constexpr Tag kSecond = 2;
constexpr Tag kDone = 3;

class VerbsDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = unavailable("verbs"); !why.empty())
      GTEST_SKIP() << why;
  }
};

void wait_ok(Worker& w, Request* r, Problems& p, const std::string& what) {
  w.wait(r);
  if (r->status != Status::Ok)
    p.push_back(what + " failed");
  w.release(r);
}

// Rank 0 sends 256 KiB by rndv/get (the receiver reads them with RDMA from
// the registered send buffer) from memory it mapped itself, unmaps it, maps
// the same address again with other bytes and sends again. A registration
// kept from the first send (by the protocol core's cache or the
// transport's) would still pin the old pages: the receiver would read the
// first message's bytes twice.
TEST_F(VerbsDevice, ABufferMappedAgainSendsItsNewBytes) {
  const Problems problems = run_ranks("verbs", 2, "", [](Rank rank, Transport& t, Problems& p) {
    SelectConfig config;
    config.set("proto", "rndv/get");
    Worker w(t, config);
    if (rank == 1) {
      std::vector<std::byte> in(kSize);
      for (const Tag tag : {kFirst, kSecond}) {
        wait_ok(w, w.tag_recv({in.data(), kSize}, tag), p, "receive " + std::to_string(tag));
        if (const Bytes wrong = first_wrong_byte(in.data(), kSize, 5, 0, tag); wrong < kSize)
          p.push_back("message " + std::to_string(tag) + ": wrong from byte " + std::to_string(wrong) +
                      (tag == kSecond && first_wrong_byte(in.data(), kSize, 5, 0, kFirst) == kSize
                           ? " (it holds the first message: the old pages)"
                           : ""));
      }
      wait_ok(w, w.tag_send(0, {}, kDone), p, "the done message");
      return;
    }
    void* at = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) {
      p.push_back("mmap failed");
      return;
    }
    auto* bytes = static_cast<std::byte*>(at);
    fill_payload(bytes, kSize, 5, 0, kFirst);
    wait_ok(w, w.tag_send(1, {bytes, kSize}, kFirst), p, "the first send");
    munmap(at, kSize);
    void* again = mmap(at, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (again != at) {
      p.push_back("the address could not be mapped again");
      return;
    }
    fill_payload(bytes, kSize, 5, 0, kSecond);
    wait_ok(w, w.tag_send(1, {bytes, kSize}, kSecond), p, "the second send");
    wait_ok(w, w.tag_recv({}, kDone), p, "the done message");
    munmap(at, kSize);
  });
  EXPECT_TRUE(problems.empty()) << join(problems);
}

/// Drops CAP_IPC_LOCK (root has it, and with it no limit applies).
bool drop_ipc_lock() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &header, data) != 0)
    return false;
  data[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
  data[CAP_IPC_LOCK / 32].permitted &= ~(1U << (CAP_IPC_LOCK % 32));
  return syscall(SYS_capset, &header, data) == 0;
}

// In a child process: RLIMIT_MEMLOCK at 1 MiB, no CAP_IPC_LOCK, then the
// transport: its set-up must refuse at once, naming the limit and what it
// pins.
TEST_F(VerbsDevice, ALowLockedMemoryLimitIsSaidWithNumbers) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[0]);
    std::string said = "made the transport";
    const rlimit low{Bytes{1} << 20, Bytes{1} << 20};
    if (!drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &low) != 0) {
      said = "could not lower the limit";
    } else {
      try {
        OneRank boot("verbs-memlock");
        runtime::find_backend("verbs")->make(boot, {});
      } catch (const std::exception& e) {
        said = e.what();
      }
    }
    const ssize_t n = write(pipe_fds[1], said.data(), said.size());
    _exit(n == static_cast<ssize_t>(said.size()) ? 0 : 1);
  }
  close(pipe_fds[1]);
  std::string said;
  char buffer[512];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    said.append(buffer, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_THAT(said, HasSubstr("RLIMIT_MEMLOCK (ulimit -l) is 1.0 MiB"));
  EXPECT_THAT(said, HasSubstr("the verbs transport pins about "));
}

}  // namespace
}  // namespace xover::test
