// The locked-memory limit against what the verbs transport pins, checked
// before the first registration, as UCX does: registering memory pins its
// pages, and past RLIMIT_MEMLOCK (64 KiB to 8 MiB on stock systems) the
// kernel refuses ibv_reg_mr with ENOMEM, which on its own says nothing of
// the limit or of what was needed. Device-free, unit-tested.
#pragma once

#include <optional>
#include <string>

#include "protocols/units.hpp"

namespace xover::runtime::verbs {

/// What this process may pin.
struct MemlockLimit {
  std::optional<Bytes> limit;  ///< RLIMIT_MEMLOCK's soft limit; none when unlimited
  bool exempt = false;         ///< CAP_IPC_LOCK in the effective set: the kernel applies no limit
};

/// This process's, from getrlimit and /proc/self/status.
MemlockLimit memlock_limit();

/// Why pinning `need` bytes at set-up cannot work under `limit` ("the
/// verbs transport pins about 52 MiB ... RLIMIT_MEMLOCK is 8 MiB ...: raise
/// it ..."), or empty when it can (unlimited, exempt, or enough).
std::string memlock_problem(Bytes need, const MemlockLimit& limit);

/// What a failed registration of `size` bytes adds to its message: the
/// limit, with numbers, when it may be the cause.
std::string memlock_hint(Bytes size, const MemlockLimit& limit = memlock_limit());

/// "52.0 MiB", "64 KiB".
std::string memlock_bytes(Bytes n);

}  // namespace xover::runtime::verbs
