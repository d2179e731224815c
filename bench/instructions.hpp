// Instructions per simulated message, counted by callgrind: the figure of
// sim_speed that does not move with the machine's load. Only
// Engine::run() is counted (the platform's load and the set-up are left
// out), in a run of this program under valgrind that runs one case on one
// side in its own process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xover::bench {

/// Why callgrind cannot count here (no valgrind on the PATH), or empty.
std::string callgrind_unavailable();

/// What one count gave: instructions per message, or why there is none.
struct InstructionCount {
  double per_message = 0;
  std::string error;  ///< empty when the count worked
};

/// Runs this program (`/proc/self/exe`, resolved) with `args` under
/// callgrind, collecting Engine::run() only, and divides the instructions
/// by `messages`.
InstructionCount count_instructions(const std::vector<std::string>& args, std::uint64_t messages);

}  // namespace xover::bench
