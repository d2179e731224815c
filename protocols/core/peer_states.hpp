// What a Worker keeps per peer: the next sequence number to send and to
// match, the peer's thresholds table, and the window of its messages that
// came early. A run of P ranks keeps P² of them, most with a short history,
// so each is one 32-bit word while it is small (numbers under 4096, a table
// index under 128, no window) and becomes a full record, kept apart, the
// first time it is not: memory grows with the peers that talk long or out
// of order, four bytes with the others.
#pragma once

#include <cstdint>
#include <vector>

#include "protocols/core/transport.hpp"

namespace xover {

class PeerStates {
 public:
  static constexpr std::uint32_t kNoWindow = ~std::uint32_t{0};

  /// Grows to `n` peers, each new one with no history.
  void grow(std::size_t n) {
    if (n > words_.size())
      words_.resize(n, 0);
  }
  std::size_t size() const { return words_.size(); }

  /// The next sequence number to match from `r`.
  std::uint64_t expected(Rank r) const {
    const Word w = words_[r];
    return full(w) ? full_[w & kIndex].expected : (w >> kExpectedShift) & kNumber;
  }
  /// 1 + the index of `r`'s thresholds table, or 0 before it is built.
  std::uint32_t table(Rank r) const {
    const Word w = words_[r];
    return full(w) ? full_[w & kIndex].table : (w >> kTableShift) & kTable;
  }
  /// The window of `r`'s live messages, or kNoWindow.
  std::uint32_t window(Rank r) const {
    const Word w = words_[r];
    return full(w) ? full_[w & kIndex].window : kNoWindow;
  }

  /// The next sequence number to send to `r`, counted as sent.
  std::uint64_t take_send_seq(Rank r) {
    Word& w = words_[r];
    if (full(w))
      return full_[w & kIndex].send_seq++;
    if ((w & kNumber) != kNumber)
      return w++ & kNumber;
    return promote(r).send_seq++;
  }
  /// One more message from `r` matched.
  void advance_expected(Rank r) {
    Word& w = words_[r];
    if (full(w))
      ++full_[w & kIndex].expected;
    else if (((w >> kExpectedShift) & kNumber) != kNumber)
      w += Word{1} << kExpectedShift;
    else
      ++promote(r).expected;
  }
  void set_table(Rank r, std::uint32_t table) {
    Word& w = words_[r];
    if (!full(w) && table <= kTable)
      w = (w & ~(kTable << kTableShift)) | (table << kTableShift);
    else
      promote(r).table = table;
  }
  void set_window(Rank r, std::uint32_t window) {
    if (window != kNoWindow || full(words_[r]))
      promote(r).window = window;
  }
  /// Every table forgotten (set_table(r, 0) for every peer).
  void clear_tables() {
    for (Word& w : words_)
      if (!full(w))
        w &= ~(kTable << kTableShift);
    for (Full& f : full_)
      f.table = 0;
  }

 private:
  struct Full {
    std::uint64_t send_seq = 0;
    std::uint64_t expected = 0;
    std::uint32_t table = 0;
    std::uint32_t window = kNoWindow;
  };
  // Small: bits 0-11 the next number to send, 12-23 the next to match,
  // 24-30 the table, bit 31 clear. Full: bit 31 set, bits 0-30 the index
  // of the record in full_.
  using Word = std::uint32_t;
  static constexpr Word kFull = Word{1} << 31;
  static constexpr Word kIndex = kFull - 1;
  static constexpr Word kNumber = 0xFFF;
  static constexpr unsigned kExpectedShift = 12;
  static constexpr unsigned kTableShift = 24;
  static constexpr Word kTable = 0x7F;
  static bool full(Word w) { return (w & kFull) != 0; }

  /// `r`'s full record, made from its word the first time.
  [[gnu::noinline]] Full& promote(Rank r) {
    Word& w = words_[r];
    if (!full(w)) {
      full_.push_back({w & kNumber, (w >> kExpectedShift) & kNumber, (w >> kTableShift) & kTable, kNoWindow});
      w = kFull | static_cast<Word>(full_.size() - 1);
    }
    return full_[w & kIndex];
  }

  std::vector<Word> words_;
  std::vector<Full> full_;
};

}  // namespace xover
