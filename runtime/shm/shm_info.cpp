// What the shared-memory backend finds on this machine, for `xover info`:
// the cores its ranks can be pinned to, the room in /dev/shm for their
// segments, and whether cross-memory attach (the cma lane, and so
// rndv/get) is allowed, checked the way a rank uses it: process_vm_readv
// of this process, and of a child that lets any process attach to it
// (PR_SET_PTRACER_ANY, as every rank does at wire-up).
#include <sched.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "runtime/shm/shm_transport.hpp"

namespace xover::runtime {
namespace {

/// Yama's ptrace_scope (0 classic, 1 restricted to descendants and declared
/// tracers, 2 admin only, 3 none), or a word on why it is unknown.
InfoValue ptrace_scope() {
  std::ifstream in("/proc/sys/kernel/yama/ptrace_scope");
  std::int64_t scope = 0;
  if (!(in >> scope))
    return std::string("no Yama (/proc/sys/kernel/yama/ptrace_scope absent)");
  return scope;
}

/// Reads `word` at the same address in process `pid`: "" when it reads
/// `expected`, else why not.
std::string read_word(pid_t pid, const std::uint64_t& word, std::uint64_t expected) {
  std::uint64_t value = 0;
  const iovec local{&value, sizeof value};
  const iovec remote{const_cast<std::uint64_t*>(&word), sizeof word};
  const ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
  if (n < 0)
    return std::strerror(errno);
  return n == sizeof value && value == expected ? "" : "read the wrong bytes";
}

/// process_vm_readv of a child that, as a rank does, lets any process
/// attach: "" when allowed, else why not.
std::string read_child() {
  int ready[2];
  int done[2];
  if (pipe(ready) != 0)
    return std::string("pipe: ") + std::strerror(errno);
  if (pipe(done) != 0) {
    close(ready[0]);
    close(ready[1]);
    return std::string("pipe: ") + std::strerror(errno);
  }
  static std::uint64_t word = 0;
  const pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    close(done[1]);
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    word = static_cast<std::uint64_t>(getpid());
    char byte = 1;
    // Ready, then wait for the parent to have read (or the pipe to close).
    _exit(write(ready[1], &byte, 1) == 1 && read(done[0], &byte, 1) >= 0 ? 0 : 1);
  }
  close(ready[1]);
  close(done[0]);
  std::string why;
  if (child < 0) {
    why = std::string("fork: ") + std::strerror(errno);
  } else {
    char byte = 0;
    why = read(ready[0], &byte, 1) == 1 ? read_word(child, word, static_cast<std::uint64_t>(child))
                                        : "the child did not start";
  }
  close(ready[0]);
  close(done[1]);
  if (child > 0)
    while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
  return why;
}

}  // namespace

BackendInfo describe_shm() {
  BackendInfo info;
  info.add("cores_online", static_cast<std::int64_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    info.add("cores_usable", static_cast<std::int64_t>(CPU_COUNT(&set)));
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) == 0)
    info.add("dev_shm_free_mib", static_cast<std::int64_t>(fs.f_bavail * fs.f_frsize >> 20));
  else
    info.add("dev_shm_free_mib", std::string("no /dev/shm: ") + std::strerror(errno));
  info.add("ptrace_scope", ptrace_scope());

  static const std::uint64_t self_word = 0x786f766572ULL;
  const std::string self = read_word(getpid(), self_word, self_word);
  const std::string child = self.empty() ? read_child() : "";
  info.add("cma_self", self.empty() ? std::string("allowed") : "refused: " + self);
  if (self.empty())
    info.add("cma_child", child.empty() ? std::string("allowed") : "refused: " + child);
  info.add("cma", self.empty() && child.empty());
  return info;
}

}  // namespace xover::runtime
