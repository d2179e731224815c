#include "runtime/launch/launch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>

#include "base/clock.hpp"
#include "base/fd_io.hpp"
#include "runtime/launch/frame_io.hpp"

namespace xover::runtime {
namespace {

std::string new_job() {
  std::random_device rd;
  const std::uint64_t v = (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(getpid());
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The launcher's view of one rank.
struct RankState {
  pid_t pid = -1;
  int fd = -1;                    ///< the launcher's end of the socket pair
  frame_io::FrameReader input;    ///< what it sent, cut into frames
  std::optional<Blob> contribution;  ///< this round's allgather frame
  std::string report;
  bool exited = false;
  int status = 0;
};

std::string describe(int status) {
  if (status >= 128)
    return std::string("was killed by signal ") + strsignal(status - 128);
  return "exited with status " + std::to_string(status);
}

// In the child, before it runs the rank: its core, its environment, its end
// of the bootstrap socket.
[[noreturn]] void start_rank(Rank rank, Rank size, int fd, const std::string& job, const LaunchOptions& options,
                             const std::vector<int>& cpus, const std::function<int(LocalBootstrap&)>& rank_main) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  std::signal(SIGPIPE, SIG_IGN);
  const std::size_t k = std::max<std::uint32_t>(options.threads_per_rank, 1);
  if (options.pin && cpus.size() >= size * k) {
    // Rank r takes the k cores from r·k on: each thread a core of its own.
    cpu_set_t set;
    CPU_ZERO(&set);
    for (std::size_t j = 0; j < k; ++j)
      CPU_SET(cpus[std::size_t{rank} * k + j], &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  if (!options.command.empty()) {
    fcntl(fd, F_SETFD, 0);
    setenv("XOVER_RANK", std::to_string(rank).c_str(), 1);
    setenv("XOVER_SIZE", std::to_string(size).c_str(), 1);
    setenv("XOVER_BOOT_FD", std::to_string(fd).c_str(), 1);
    setenv("XOVER_JOB", job.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& arg : options.command)
      argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "xover: rank %u: cannot run %s: %s\n", rank, argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 127;
  try {
    LocalBootstrap boot(rank, size, fd, job);
    status = rank_main(boot);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xover: rank %u: %s\n", rank, e.what());
  }
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(status);
}

class Launcher {
 public:
  Launcher(Rank size, const LaunchOptions& options) : options_(options), ranks_(size), job_(new_job()) {}

  LaunchResult run(const std::function<int(LocalBootstrap&)>& rank_main) {
    start(rank_main);
    const Seconds begin = clock_now();
    while (!all_exited()) {
      if (failed_ && clock_now() > kill_at_)
        signal_all(SIGKILL);
      if (!failed_ && options_.deadline > 0 && clock_now() - begin > options_.deadline)
        fail("the run took longer than " + std::to_string(options_.deadline) + " s; stopping it");
      serve(100);
      reap();
    }
    remove_segments();
    return result();
  }

 private:
  void start(const std::function<int(LocalBootstrap&)>& rank_main) {
    std::vector<int> cpus;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set))
          cpus.push_back(c);
    std::fflush(stdout);
    std::fflush(stderr);
    for (Rank r = 0; r < ranks_.size(); ++r) {
      int pair[2];
      if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        throw RuntimeError(std::string("cannot make a bootstrap socket: ") + std::strerror(errno));
      const pid_t pid = fork();
      if (pid < 0) {
        close(pair[0]);
        close(pair[1]);
        fail(std::string("cannot start rank ") + std::to_string(r) + ": " + std::strerror(errno));
        return;
      }
      if (pid == 0) {
        close(pair[0]);
        for (Rank k = 0; k < r; ++k)
          close(ranks_[k].fd);
        start_rank(r, static_cast<Rank>(ranks_.size()), pair[1], job_, options_, cpus, rank_main);
      }
      close(pair[1]);
      ranks_[r].pid = pid;
      ranks_[r].fd = pair[0];
    }
  }

  // Reads what the ranks sent for up to `ms`, and answers a collective once
  // every rank has joined it.
  void serve(int ms) {
    std::vector<pollfd> fds;
    std::vector<Rank> who;
    for (Rank r = 0; r < ranks_.size(); ++r)
      if (ranks_[r].fd >= 0) {
        fds.push_back({ranks_[r].fd, POLLIN, 0});
        who.push_back(r);
      }
    if (fds.empty()) {
      usleep(static_cast<useconds_t>(ms) * 1000);
      return;
    }
    if (poll(fds.data(), fds.size(), ms) <= 0)
      return;
    for (std::size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents != 0)
        take_input(who[i]);
    bool round = !failed_;
    for (const RankState& rank : ranks_)
      round = round && rank.contribution.has_value();
    if (round)
      answer();
  }

  void take_input(Rank r) {
    RankState& rank = ranks_[r];
    std::byte buf[65536];
    const ssize_t n = read(rank.fd, buf, sizeof buf);
    if (n <= 0) {
      close(rank.fd);
      rank.fd = -1;
      return;
    }
    rank.input.add({buf, static_cast<std::size_t>(n)});
    frame_io::FrameReader::Frame frame;
    for (;;) {
      const frame_io::FrameReader::Next next = rank.input.next(frame);
      if (next == frame_io::FrameReader::Next::None)
        return;
      if (next == frame_io::FrameReader::Next::Malformed || (frame.kind == 'G' && rank.contribution.has_value())) {
        fail("rank " + std::to_string(r) + " sent a malformed bootstrap frame");
        close(rank.fd);
        rank.fd = -1;
        return;
      }
      if (frame.kind == 'G')
        rank.contribution.emplace(std::move(frame.bytes));
      else
        rank.report.append(reinterpret_cast<const char*>(frame.bytes.data()), frame.bytes.size());
    }
  }

  void answer() {
    std::vector<std::byte> reply;
    for (RankState& rank : ranks_) {
      const std::size_t at = reply.size();
      reply.resize(at + 4);
      frame_io::put_u32(reply.data() + at, static_cast<std::uint32_t>(rank.contribution->size()));
      reply.insert(reply.end(), rank.contribution->begin(), rank.contribution->end());
    }
    for (RankState& rank : ranks_) {
      rank.contribution.reset();
      if (rank.fd >= 0)
        write_all(rank.fd, reply);
    }
  }

  void reap() {
    for (Rank r = 0; r < ranks_.size(); ++r) {
      RankState& rank = ranks_[r];
      if (rank.exited || rank.pid < 0)
        continue;
      int wstatus = 0;
      if (waitpid(rank.pid, &wstatus, WNOHANG) != rank.pid)
        continue;
      while (rank.fd >= 0)
        take_input(r);  // what it wrote before it went
      rank.exited = true;
      rank.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
      if (rank.status != 0 && !failed_)
        fail("rank " + std::to_string(r) + " (pid " + std::to_string(rank.pid) + ") " + describe(rank.status));
      else if (rank.status == 0 && !failed_ && waiting_in_collective())
        fail("rank " + std::to_string(r) + " exited while the others wait in a collective");
    }
  }

  bool waiting_in_collective() const {
    for (const RankState& rank : ranks_)
      if (rank.contribution.has_value())
        return true;
    return false;
  }

  void fail(const std::string& what) {
    if (!failed_) {
      failed_ = true;
      first_failure_ = what;
      kill_at_ = clock_now() + 2;
      signal_all(SIGTERM);
    }
  }

  void signal_all(int sig) {
    for (const RankState& rank : ranks_)
      if (!rank.exited && rank.pid > 0)
        kill(rank.pid, sig);
  }

  bool all_exited() const {
    for (const RankState& rank : ranks_)
      if (!rank.exited && rank.pid > 0)
        return false;
    return true;
  }

  // Segments a killed rank could not unlink.
  void remove_segments() {
    const std::string prefix = shm_prefix(job_).substr(1);
    DIR* dir = opendir("/dev/shm");
    if (!dir)
      return;
    std::vector<std::string> names;
    while (const dirent* entry = readdir(dir))
      if (std::strncmp(entry->d_name, prefix.c_str(), prefix.size()) == 0)
        names.push_back("/" + std::string(entry->d_name));
    closedir(dir);
    for (const std::string& name : names)
      shm_unlink(name.c_str());
  }

  LaunchResult result() const {
    LaunchResult out;
    out.ok = !failed_;
    out.message = first_failure_;
    for (Rank r = 0; r < ranks_.size(); ++r) {
      out.exit_status.push_back(ranks_[r].status);
      out.reports.push_back(ranks_[r].report);
      if (failed_ && ranks_[r].status != 0 && first_failure_.find("rank " + std::to_string(r) + " ") != 0)
        out.message += "\nrank " + std::to_string(r) + " " + describe(ranks_[r].status);
    }
    return out;
  }

  LaunchOptions options_;
  std::vector<RankState> ranks_;
  std::string job_;
  bool failed_ = false;
  std::string first_failure_;
  Seconds kill_at_ = 0;
};

}  // namespace

LaunchResult launch_local(Rank size, const LaunchOptions& options,
                          const std::function<int(LocalBootstrap&)>& rank_main) {
  if (size == 0)
    throw RuntimeError("a run needs at least one rank");
  if (options.command.empty() && !rank_main)
    throw RuntimeError("launch_local: neither a command nor a function to run");
  return Launcher(size, options).run(rank_main);
}

std::string shm_prefix(const std::string& job) {
  return "/xover-" + job + "-";
}

}  // namespace xover::runtime
