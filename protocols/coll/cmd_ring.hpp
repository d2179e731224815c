// The proxy's command ring, after NVSHMEM's proxy channel (IBRC): posting
// threads write fixed-size commands into a bounded ring in host memory; one
// proxy thread takes them in order, posts them, and publishes how far it
// got, so that a full ring holds the writers back (NVSHMEM's
// check_channel_availability). A plain data structure over memory the
// caller provides — pinned host memory with a GPU writing, later — with no
// allocation, trivially copyable entries and atomics only.
//
//   memory   [control: `reserved` | `consumed`, a cache line each][entry 0] … [entry N − 1]
//   entry    eight 64-bit words, one cache line:
//            0  op (bits 0–7) | zero (8–31) | target PE (32–63)
//            1  offset in the target's buffer      2  the bytes' local address
//            3  size                               4  when written, ns on the writer's clock
//            5, 6  zero                            7  flag: the lap's parity
//
// Writers (any number of threads): pos = reserve(); wait while
// !has_room(pos) (pos − consumed ≥ N); write(pos, command), which stores
// words 0–6 and then the flag with release ordering. The flag of lap k
// (k = pos / N) is 1 − k mod 2: every slot starts at 0 and the first lap
// writes 1, so the flag flips each wrap, an entry never needs clearing, and
// the previous lap's entry is never taken for this one. A GPU writer does
// the same with a system-scope fence before the flag.
// The proxy (one thread): at position `next`, ready(next) is the flag's
// acquire load against next's parity; read(next) copies the words,
// decode_command() checks them; publish(next + 1) lets the writers on
// (after every command; NVSHMEM publishes every 1 KiB or more).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "protocols/core/transport.hpp"

namespace xover {

enum class CommandOp : std::uint8_t {
  PutSignal = 1,  ///< put `size` bytes to `pe` at `offset`, then add 1 to its signal
};

/// One command, decoded.
struct Command {
  CommandOp op = CommandOp::PutSignal;
  Rank pe = 0;                ///< the target PE
  std::uint64_t offset = 0;   ///< where the bytes go, in the target's registered buffer
  std::uint64_t local = 0;    ///< where they are, in the writer's address space
  Bytes size = 0;
  std::uint64_t posted_ns = 0;  ///< when the writer wrote it (its Transport::now(), in ns)
};

inline constexpr std::size_t kCommandWords = 8;
using CommandWords = std::array<std::uint64_t, kCommandWords>;

/// What the proxy accepts: a target among `pes`, bytes inside a target
/// buffer of `buffer` bytes, read from inside the local `[local_base,
/// local_base + local_bytes)`.
struct CommandLimits {
  Rank pes = 0;
  Bytes buffer = 0;
  std::uint64_t local_base = 0;
  Bytes local_bytes = 0;
};

/// A decoded command, or why the words are not one.
struct DecodedCommand {
  Command command;
  std::string_view error;  ///< empty when the command is good
};

/// The words of `command` with the flag of lap parity `flag` (0 or 1).
CommandWords encode_command(const Command& command, std::uint64_t flag);

/// Checks and decodes one entry's words: a known op, zero reserved bits and
/// words, a flag of 0 or 1, a target PE and a byte range within `limits`
/// (no overflow). Pure, for the proxy and for fuzzing: any words give a
/// result, never undefined behaviour.
DecodedCommand decode_command(const CommandWords& words, const CommandLimits& limits);

class CommandRing {
 public:
  static constexpr std::size_t kEntryBytes = kCommandWords * 8;
  static constexpr std::size_t kControlBytes = 128;
  /// Memory must be aligned this far.
  static constexpr std::size_t kAlign = 64;

  /// Bytes a ring of `entries` takes.
  static constexpr std::size_t bytes_for(std::uint32_t entries) {
    return kControlBytes + std::size_t{entries} * kEntryBytes;
  }
  /// Lays out an empty ring of `entries` (at least 1) over `memory`, which
  /// is kAlign-aligned and bytes_for(entries) long, zeroing it; before any
  /// writer or proxy uses it.
  /// @throws std::invalid_argument for memory too short or misaligned.
  static CommandRing create(std::span<std::byte> memory, std::uint32_t entries);

  CommandRing() = default;

  std::uint32_t entries() const { return entries_; }

  // Writers.

  /// The position of the writer's next command (one atomic add).
  std::uint64_t reserve() const;
  /// Whether the proxy has taken the command a lap before `pos`.
  bool has_room(std::uint64_t pos) const;
  /// Writes `command` at `pos` (reserved, with room) and hands it over.
  void write(std::uint64_t pos, const Command& command) const;

  // The proxy.

  /// Whether the command at `pos` is written.
  bool ready(std::uint64_t pos) const;
  /// The words at `pos` (ready).
  CommandWords read(std::uint64_t pos) const;
  /// Says every command before `next` is taken: their slots are free.
  void publish(std::uint64_t next) const;
  /// How far the proxy has published.
  std::uint64_t consumed() const;

 private:
  CommandRing(std::byte* base, std::uint32_t entries) : base_(base), entries_(entries) {}
  std::uint64_t* slot(std::uint64_t pos) const;
  std::uint64_t* control(std::size_t line) const;

  std::byte* base_ = nullptr;
  std::uint32_t entries_ = 0;
};

}  // namespace xover
