// The memory of the shared-memory backend (shm_transport.hpp): one POSIX
// segment per rank, holding one single-producer/single-consumer receive ring
// per sender, after the FIFO of UCX's posix `mm` transport.
//
//   segment  [SegmentHeader, one page][signal words, one page][ring of sender 0][ring of sender 1]...
//   ring     `cells` cells of `cell_size` bytes, each page-aligned as a whole
//   cell     [Cell: seq, lengths, AM id (16 B)][AM header][payload]
//
// A cell's `seq` is its whole protocol (Vyukov's bounded queue): the cell at
// position p (index p % cells) is free for the producer when seq == p, and
// holds a message for the consumer when seq == p + 1; the consumer frees it
// by storing p + cells. Stores of seq are releases and loads acquires, so
// the bytes before a store are visible after the matching load. Positions
// live in each process's own memory, never in the segment: nothing but the
// cells is shared, and a corrupt cell can only stall its ring or be dropped.
#pragma once

#include <atomic>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string>

#include "protocols/core/transport.hpp"

namespace xover::runtime::shm {

/// The head of a cell; the AM header and payload follow it.
struct Cell {
  std::uint64_t seq;          ///< the ring protocol; accessed through std::atomic_ref only
  std::uint32_t payload_len;  ///< payload bytes after the header
  std::uint16_t header_len;   ///< AM header bytes right after this struct
  AmId am_id;
  std::uint8_t reserved;

  std::byte* data() { return reinterpret_cast<std::byte*>(this + 1); }
};
static_assert(sizeof(Cell) == 16);
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free, "cells need lock-free 64-bit atomics");

/// A view of one ring, in this process's mapping of its segment.
class Ring {
 public:
  Ring() = default;
  /// `cells` is a power of two, so that a position finds its cell with a
  /// mask: a division would sit in the polling loop a message waits on.
  Ring(std::byte* base, std::uint32_t cells, std::uint32_t cell_size)
      : base_(base), cells_(cells), cell_size_(cell_size) {
    assert(std::has_single_bit(cells) && "a ring's cells are a power of two");
  }

  /// Bytes of AM header and payload that one cell holds.
  Bytes room() const { return cell_size_ - sizeof(Cell); }
  std::uint32_t cells() const { return cells_; }

  /// Producer: the cell for position `pos` when the consumer has freed it,
  /// else null (the ring is full).
  Cell* claim(std::uint64_t pos) const {
    Cell* c = cell(pos);
    return seq(c).load(std::memory_order_acquire) == pos ? c : nullptr;
  }
  /// Producer: hands the claimed cell at `pos` to the consumer.
  static void publish(Cell* c, std::uint64_t pos) { seq(c).store(pos + 1, std::memory_order_release); }

  /// Consumer: the cell at position `pos` when it holds a message, else null.
  Cell* ready(std::uint64_t pos) const {
    Cell* c = cell(pos);
    return seq(c).load(std::memory_order_acquire) == pos + 1 ? c : nullptr;
  }
  /// Consumer: gives the cell at `pos` back to the producer.
  void release(Cell* c, std::uint64_t pos) const { seq(c).store(pos + cells_, std::memory_order_release); }

 private:
  Cell* cell(std::uint64_t pos) const { return reinterpret_cast<Cell*>(base_ + (pos & (cells_ - 1)) * cell_size_); }
  static std::atomic_ref<std::uint64_t> seq(Cell* c) { return std::atomic_ref<std::uint64_t>(c->seq); }

  std::byte* base_ = nullptr;
  std::uint32_t cells_ = 1;
  std::uint32_t cell_size_ = sizeof(Cell);
};

/// Bytes of one cell, its header included.
inline constexpr std::uint32_t kCellSize = 8192;

/// Signal words in a segment's signal page (put_signal), each on a cache
/// line of its own.
inline constexpr std::size_t kSignalWords = 64;
inline constexpr std::size_t kSignalStride = 64;

/// Cells per ring: 256 when the ranks are few, fewer when they are many,
/// so that a segment (one ring per sender) stays near 32 MiB; never under
/// 16, and always a power of two.
std::uint32_t cells_per_ring(Rank size);

/// One rank's segment mapped into this process: created by its owner,
/// opened by every peer. Unmapped on destruction; the owner's copy also
/// unlinks the name if that has not been done yet.
class Segment {
 public:
  /// Creates `name` (O_CREAT | O_EXCL, mode 0600 whatever the umask),
  /// registers it with unlink_shm_on_abort(), sizes, maps and faults it in,
  /// and frees every cell of its `size` rings for `owner`.
  /// @throws RuntimeError saying what failed.
  static Segment create(const std::string& name, Rank owner, Rank size);
  /// Maps the segment `name` that rank `owner` created, checking its layout,
  /// and faults in the ring that `writer` (this rank) fills.
  /// @throws RuntimeError when it is missing or not what a run of `size` expects.
  static Segment open(const std::string& name, Rank owner, Rank size, Rank writer);

  Segment() = default;
  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&& other) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment();

  /// Removes the name (the mapping stays) and forgets it in fault.hpp.
  void unlink();
  /// The ring that `sender` writes into.
  Ring ring(Rank sender) const;
  /// Signal word `index` (< kSignalWords), zero until someone adds to it.
  std::uint64_t* signal(std::size_t index) const;

 private:
  void reset() noexcept;

  std::string name_;
  std::byte* base_ = nullptr;
  std::size_t bytes_ = 0;
  std::uint32_t cells_ = 0;
  bool linked_ = false;  ///< this process created the name and has not unlinked it
};

}  // namespace xover::runtime::shm
