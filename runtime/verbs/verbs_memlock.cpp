#include "runtime/verbs/verbs_memlock.hpp"

#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace xover::runtime::verbs {
namespace {

constexpr int kCapIpcLock = 14;  // linux/capability.h

std::string raise_it() {
  return "raise it (ulimit -l unlimited, or a memlock line in /etc/security/limits.conf; in a container, "
         "--ulimit memlock=-1)";
}

}  // namespace

MemlockLimit memlock_limit() {
  MemlockLimit out;
  rlimit r{};
  if (getrlimit(RLIMIT_MEMLOCK, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
    out.limit = static_cast<Bytes>(r.rlim_cur);
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("CapEff:", 0) == 0) {
      const unsigned long long caps = std::stoull(line.substr(7), nullptr, 16);
      out.exempt = (caps >> kCapIpcLock) & 1;
    }
  return out;
}

std::string memlock_bytes(Bytes n) {
  char text[32];
  if (n >= (Bytes{1} << 20))
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(n) / (1 << 20));
  else
    std::snprintf(text, sizeof text, "%llu KiB", static_cast<unsigned long long>(n >> 10));
  return text;
}

std::string memlock_problem(Bytes need, const MemlockLimit& limit) {
  if (limit.exempt || !limit.limit || *limit.limit >= need)
    return {};
  return "the verbs transport pins about " + memlock_bytes(need) +
         " at set-up (receive segments and bounce buffers per lane, measurement buffers per device) and "
         "RLIMIT_MEMLOCK (ulimit -l) is " + memlock_bytes(*limit.limit) + ": " + raise_it();
}

std::string memlock_hint(Bytes size, const MemlockLimit& limit) {
  if (limit.exempt || !limit.limit)
    return "";
  return "; RLIMIT_MEMLOCK (ulimit -l) is " + memlock_bytes(*limit.limit) + " and this registration pins " +
         memlock_bytes(size) + " more: " + raise_it();
}

}  // namespace xover::runtime::verbs
