// Memory for a command ring (protocols/coll/cmd_ring.hpp) of `entries`
// entries, aligned as CommandRing wants, for tests that drive a ring's
// writer and reader over plain host memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "protocols/coll/cmd_ring.hpp"

namespace xover::test {

struct RingMemory {
  explicit RingMemory(std::uint32_t entries) : words(CommandRing::bytes_for(entries) / 8 + 8) {}
  std::span<std::byte> span(std::uint32_t entries) {
    auto* at = reinterpret_cast<std::byte*>(words.data());
    while (reinterpret_cast<std::uintptr_t>(at) % CommandRing::kAlign != 0)
      at += 8;
    return {at, CommandRing::bytes_for(entries)};
  }
  std::vector<std::uint64_t> words;
};

}  // namespace xover::test
