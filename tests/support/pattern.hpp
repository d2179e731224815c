// A byte pattern for the shared-memory tests' payloads: byte i of the
// message seeded `seed`, so that a byte at the wrong place or from the
// wrong message is seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace xover::test {

inline std::byte pattern(std::uint64_t seed, std::size_t i) {
  return static_cast<std::byte>((seed * 131 + i * 7 + (i >> 8)) & 0xff);
}

inline std::vector<std::byte> patterned(std::uint64_t seed, std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = pattern(seed, i);
  return v;
}

}  // namespace xover::test
