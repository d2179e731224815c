// The GPU's global timer (%globaltimer, nanoseconds, updated about every
// microsecond): the kernels' deadlines and their spans above a microsecond.
// Sub-microsecond spans are taken in SM cycles (clock64) instead. Device
// code: included by the kernels' .cu files only.
#pragma once

#include <cstdint>

namespace xover::runtime {

__device__ inline std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace xover::runtime
