// Harness: the whole platform loader, SimGrid included
// (sim/platform_loader.*), on the inputs its own checks let through.
//
// SimGrid allows one platform per process and ends the process (xbt_die)
// on some inputs instead of throwing, so each input that passes the
// loader's pugixml checks (read_platform_xml, run here in the fuzzer's
// process, whose coverage guides the search) is written to a file and
// loaded, routes and all, in a child process. A child killed by a signal
// is SimGrid aborting on a platform the checks should have refused: the
// harness aborts too, with the child's last words.
// Checks: load() and path() end in a platform or a PlatformError.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "fuzz/harness.hpp"
#include "sim/platform_loader.hpp"
#include "sim/platform_xml.hpp"

namespace {

using namespace xover::sim;
using xover::fuzz::check;

/// Exit statuses of the child.
constexpr int kLoaded = 0;
constexpr int kRefused = 2;
constexpr int kOtherException = 3;
/// Node pairs whose paths the child asks for.
constexpr std::size_t kMaxNodes = 6;

/// A file of this process's own in $TMPDIR, rewritten for each input and
/// removed at exit (not after a crash: tools/fuzz.sh points TMPDIR into
/// its build folder).
class InputFile {
 public:
  InputFile() {
    std::string name = (std::filesystem::temp_directory_path() / "xover-fuzz-platform-XXXXXX").string();
    const int fd = mkstemp(name.data());
    check(fd >= 0, "a temporary file for the platform");
    close(fd);
    name_ = name;
  }
  ~InputFile() { unlink(name_.c_str()); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

[[noreturn]] void load_in_child(const std::string& file) {
  try {
    const LogGPPlatform platform = LogGPPlatform::load(file);
    const auto& nodes = platform.nodes();
    for (std::size_t a = 0; a < nodes.size() && a < kMaxNodes; ++a)
      for (std::size_t b = 0; b < nodes.size() && b < kMaxNodes; ++b) {
        if (a == b)
          continue;
        try {
          platform.path_and_nics(nodes[a].name, nodes[b].name);
        } catch (const PlatformError&) {
        }
      }
    _exit(kLoaded);
  } catch (const PlatformError&) {
    _exit(kRefused);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exception: %s\n", e.what());
    _exit(kOtherException);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    detail::read_platform_xml("fuzz.xml", text);
  } catch (const PlatformError&) {
    return 0;  // refused before SimGrid sees it
  }
  static const InputFile input;
  const std::string& file = input.name();
  FILE* out = std::fopen(file.c_str(), "wb");
  check(out && std::fwrite(text.data(), 1, text.size(), out) == text.size() && std::fclose(out) == 0,
        "the platform written to its file");
  int words[2];
  check(pipe(words) == 0, "a pipe for the child's stderr");
  std::fflush(stderr);
  const pid_t pid = fork();
  check(pid >= 0, "fork");
  if (pid == 0) {
    dup2(words[1], STDERR_FILENO);
    close(words[0]);
    close(words[1]);
    load_in_child(file);
  }
  close(words[1]);
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = read(words[0], buf, sizeof buf)) > 0;)
    if (said.size() < 65536)
      said.append(buf, static_cast<std::size_t>(n));
  close(words[0]);
  int status = 0;
  check(waitpid(pid, &status, 0) == pid, "waitpid");
  const bool clean = WIFEXITED(status) && (WEXITSTATUS(status) == kLoaded || WEXITSTATUS(status) == kRefused);
  if (!clean) {
    std::fprintf(stderr, "the loader's child %s %d; it said:\n%s\n",
                 WIFSIGNALED(status) ? "was killed by signal" : "exited with status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), said.substr(0, 2000).c_str());
    check(false, "SimGrid or the loader ended the process on a platform the pugixml checks let through");
  }
  return 0;
}
