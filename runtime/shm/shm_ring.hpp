// The memory of the shared-memory backend (shm_transport.hpp): one POSIX
// segment per rank, holding one single-producer/single-consumer receive ring
// per sender, in the shape of UCX's posix `mm` transport: a FIFO of small
// cells that the receiver polls, and a pool of large descriptors beside it.
//
//   segment     [SegmentHeader, one page][signal words, one page][ring of sender 0][ring of sender 1]...
//   ring        [FIFO: `cells` cells of 128 B][pool: `descriptors` descriptors of 8 KiB]
//   cell        [Cell: seq, lengths, descriptor, AM id (16 B)][AM header][payload]   (inline: 112 B at most)
//               [Cell ... descriptor d]                                         (a larger message)
//   descriptor  [AM header][payload]
//
// A message of up to 112 bytes, AM header included, lies inline in its
// cell: its arrival touches one or two cache lines of a FIFO of at most
// 32 KiB, whose lines stay hot. A larger one (bcopy) lies in a
// descriptor, and its cell names it.
//
// A cell's `seq` is its whole protocol (Vyukov's bounded queue): the cell at
// position p (index p % cells) is free for the producer when seq == p, and
// holds a message for the consumer when seq == p + 1; the consumer frees it
// by storing p + cells. Stores of seq are releases and loads acquires, so
// the bytes before a store are visible after the matching load.
//
// Descriptors follow the cells' protocol, with no word of their own: the
// message at position p may use descriptor p % descriptors only, and that
// descriptor is free again once the consumer has released the cell at
// position p − descriptors (it releases in order, so every earlier user is
// done too). The producer reads that cell's seq (== p − descriptors + cells
// once released); `descriptors` divides `cells`. The consumer takes a
// descriptor only if it is the one its cell's position owns.
//
// Positions live in each process's own memory, never in the segment:
// nothing but the cells and descriptors is shared, and a corrupt cell can
// only stall its ring or be dropped.
#pragma once

#include <atomic>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string>

#include "protocols/core/transport.hpp"

namespace xover::runtime::shm {

/// Bytes of one FIFO cell, its header included: two cache lines.
inline constexpr std::uint32_t kCellSize = 128;
/// Cells in a FIFO when the ranks are not many (RingShape).
inline constexpr std::uint32_t kFifoCells = 256;
/// Bytes of one descriptor.
inline constexpr std::uint32_t kDescriptorSize = 8192;
/// A cell's `descriptor` when its message lies inline.
inline constexpr std::uint16_t kInline = 0xffff;

/// What a cell says of its message. The consumer reads it through
/// Ring::head only, which loads each field once, so that it checks and
/// uses the same values whatever a sender does meanwhile.
struct CellHead {
  std::uint16_t header_len;   ///< AM header bytes
  std::uint16_t payload_len;  ///< payload bytes, after the header
  std::uint16_t descriptor;   ///< where the message lies: kInline, or a descriptor's index
  AmId am_id;
  std::uint8_t reserved;
};
static_assert(sizeof(CellHead) == 8);

/// The head of a cell; an inline message's AM header and payload follow it.
struct Cell {
  std::uint64_t seq;  ///< the ring protocol; accessed through std::atomic_ref only
  CellHead head;

  std::byte* data() { return reinterpret_cast<std::byte*>(this + 1); }
};
static_assert(sizeof(Cell) == 16);
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free, "cells need lock-free 64-bit atomics");

/// Bytes of AM header and payload that lie inline in a cell.
inline constexpr std::uint32_t kInlineBytes = kCellSize - sizeof(Cell);
/// Bytes of AM header and payload in a descriptor at most: 8 KiB less a
/// cell header, the figure this lane has always reported as max_bcopy.
inline constexpr std::uint32_t kDescriptorBytes = kDescriptorSize - sizeof(Cell);

/// A view of one ring, in this process's mapping of its segment.
class Ring {
 public:
  Ring() = default;
  /// `base` holds `cells` cells then `descriptors` descriptors. Both are
  /// powers of two, so that a position finds its cell with a mask (a
  /// division would sit in the polling loop a message waits on), and
  /// `descriptors` <= `cells`.
  Ring(std::byte* base, std::uint32_t cells, std::uint32_t descriptors)
      : base_(base), cells_(cells), descriptors_(descriptors) {
    assert(std::has_single_bit(cells) && std::has_single_bit(descriptors) && descriptors <= cells &&
           "a ring's cells and descriptors are powers of two, no more descriptors than cells");
  }
  /// Bytes of a ring of `cells` cells and `descriptors` descriptors.
  static constexpr std::size_t bytes(std::uint32_t cells, std::uint32_t descriptors) {
    return std::size_t{cells} * kCellSize + std::size_t{descriptors} * kDescriptorSize;
  }

  std::uint32_t cells() const { return cells_; }
  std::uint32_t descriptors() const { return descriptors_; }

  /// Producer: the cell for position `pos` when the consumer has freed it,
  /// else null (the ring is full).
  Cell* claim(std::uint64_t pos) const {
    Cell* c = cell(pos);
    return seq(c).load(std::memory_order_acquire) == pos ? c : nullptr;
  }
  /// Producer: the descriptor that position `pos` owns, when the consumer is
  /// done with its last message (see the top of this file), else null; its
  /// index goes in the cell.
  std::byte* claim_descriptor(std::uint64_t pos) const {
    if (pos >= descriptors_) {
      const std::uint64_t last = pos - descriptors_;
      if (seq(cell(last)).load(std::memory_order_acquire) != last + cells_)
        return nullptr;
    }
    return descriptor(descriptor_index(pos));
  }
  std::uint16_t descriptor_index(std::uint64_t pos) const {
    return static_cast<std::uint16_t>(pos & (descriptors_ - 1));
  }
  /// Producer: hands the claimed cell at `pos` to the consumer.
  static void publish(Cell* c, std::uint64_t pos) { seq(c).store(pos + 1, std::memory_order_release); }

  /// Consumer: what the ready cell `c` says of its message, each field
  /// loaded once (a relaxed load is a plain one, never repeated).
  static CellHead head(Cell& c) {
    return {once(c.head.header_len), once(c.head.payload_len), once(c.head.descriptor), once(c.head.am_id), 0};
  }
  /// Consumer: the cell at position `pos` when it holds a message, else null.
  Cell* ready(std::uint64_t pos) const {
    Cell* c = cell(pos);
    return seq(c).load(std::memory_order_acquire) == pos + 1 ? c : nullptr;
  }
  /// Consumer: where the message in the ready cell `c` at `pos`, whose
  /// head is `h` (read once), lies; null when the cell is corrupt. The
  /// sender may be corrupt or hostile: the message is accepted only if it
  /// fits where it lies, and a descriptor it names is the one `pos` owns.
  std::byte* locate(Cell& c, const CellHead& h, std::uint64_t pos) const {
    const Bytes n = Bytes{h.header_len} + h.payload_len;
    if (h.descriptor == kInline)
      return n <= kInlineBytes ? c.data() : nullptr;
    return h.descriptor == descriptor_index(pos) && n <= kDescriptorBytes ? descriptor(h.descriptor) : nullptr;
  }
  /// Consumer: gives the cell at `pos`, and a descriptor it named, back to
  /// the producer.
  void release(Cell* c, std::uint64_t pos) const { seq(c).store(pos + cells_, std::memory_order_release); }

 private:
  Cell* cell(std::uint64_t pos) const { return reinterpret_cast<Cell*>(base_ + (pos & (cells_ - 1)) * kCellSize); }
  std::byte* descriptor(std::uint32_t index) const {
    return base_ + std::size_t{cells_} * kCellSize + std::size_t{index} * kDescriptorSize;
  }
  static std::atomic_ref<std::uint64_t> seq(Cell* c) { return std::atomic_ref<std::uint64_t>(c->seq); }
  template <typename T>
  static T once(T& field) {
    return std::atomic_ref<T>(field).load(std::memory_order_relaxed);
  }

  std::byte* base_ = nullptr;
  std::uint32_t cells_ = 1;
  std::uint32_t descriptors_ = 1;
};

/// Signal words in a segment's signal page (put_signal), each on a cache
/// line of its own.
inline constexpr std::size_t kSignalWords = 64;
inline constexpr std::size_t kSignalStride = 64;

/// The cells and descriptors of every ring of a run of `size` ranks, so
/// that a segment (one ring per sender) stays near 32 MiB: 256 and 256
/// when the ranks are few; first fewer descriptors, down to 16, then fewer
/// cells, down to 16. Both are powers of two, never more descriptors than
/// cells.
struct RingShape {
  std::uint32_t cells;
  std::uint32_t descriptors;
};
RingShape ring_shape(Rank size);

/// One rank's segment mapped into this process: created by its owner,
/// opened by every peer. Unmapped on destruction; the owner's copy also
/// unlinks the name if that has not been done yet.
class Segment {
 public:
  /// Creates `name` (O_CREAT | O_EXCL, mode 0600 whatever the umask),
  /// registers it with unlink_shm_on_abort(), sizes, maps and faults it in,
  /// and frees every cell of its `size` rings for the producers.
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
  RingShape shape_{};
  bool linked_ = false;  ///< this process created the name and has not unlinked it
};

}  // namespace xover::runtime::shm
