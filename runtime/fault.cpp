#include "runtime/fault.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>

namespace xover::runtime {
namespace {

// Names to unlink, kept in fixed storage so that a signal handler can walk
// them without allocating.
constexpr std::size_t kMaxNames = 64;
constexpr std::size_t kNameLen = 96;
std::array<std::array<char, kNameLen>, kMaxNames> g_names{};
std::once_flag g_handlers;

void unlink_all() {
  for (auto& name : g_names)
    if (name[0] != '\0') {
      shm_unlink(name.data());
      name[0] = '\0';
    }
}

extern "C" void on_stop_signal(int sig) {
  unlink_all();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_handlers() {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, nullptr);
  }
}

}  // namespace

void unlink_shm_on_stop(const std::string& name) {
  std::call_once(g_handlers, install_handlers);
  for (auto& slot : g_names)
    if (slot[0] == '\0') {
      std::snprintf(slot.data(), slot.size(), "%s", name.c_str());
      return;
    }
}

void forget_shm(const std::string& name) {
  for (auto& slot : g_names)
    if (name == slot.data())
      slot[0] = '\0';
}

bool process_alive(int pid) {
  // kill(pid, 0) also succeeds on a zombie: read its state instead.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line))
    return false;
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z' && line[close + 2] != 'X';
}

}  // namespace xover::runtime
