#include "base/child.hpp"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <span>
#include <stdexcept>

#include "base/fd_io.hpp"

namespace xover {

std::string in_child(const std::function<std::string()>& fn) {
  int fds[2];
  if (::pipe(fds) != 0)
    throw std::runtime_error(std::string("in_child: pipe: ") + std::strerror(errno));
  // What the parent has buffered would otherwise be written twice.
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error(std::string("in_child: fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    std::string result;
    try {
      result = fn();
    } catch (const std::exception& error) {
      result = std::string(kChildError) + error.what();
    }
    write_all(fds[1], std::as_bytes(std::span(result)));
    ::close(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  const std::string result = read_to_end(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    throw std::runtime_error("in_child: the child died of signal " + std::to_string(WTERMSIG(status)) +
                             " (output so far: '" + result + "')");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("in_child: the child exited with status " + std::to_string(WEXITSTATUS(status)) +
                             " (output so far: '" + result + "')");
  return result;
}

std::optional<std::string> child_error(std::string_view report) {
  if (!report.starts_with(kChildError))
    return std::nullopt;
  return std::string(report.substr(kChildError.size()));
}

}  // namespace xover
