// What every harness shares: the libFuzzer entry point each one defines, a
// reader that turns the fuzzer's bytes into the values a harness needs, and
// the check that ends a run when an invariant fails.
//
// A harness is one source file defining LLVMFuzzerTestOneInput. Built with
// -DXOVER_FUZZ=ON (clang), libFuzzer drives it; in every other build it is
// linked with replay_main.cpp, which feeds it the committed seeds and crash
// inputs, so that each crash found stays a regression test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace xover::fuzz {

/// Ends the run (abort: libFuzzer keeps the input as a crash) when `ok` is
/// false: an invariant of the code under test does not hold.
inline void check(bool ok, const char* what) {
  if (ok)
    return;
  std::fprintf(stderr, "xover fuzz: invariant failed: %s\n", what);
  std::abort();
}

/// Values read off the front of the fuzzer's bytes. Past the end every read
/// gives zero or nothing, so a harness never has to ask first.
class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(reinterpret_cast<const std::byte*>(data)), left_(size) {}

  bool empty() const { return left_ == 0; }
  std::size_t left() const { return left_; }

  /// A little-endian unsigned integer of `n` bytes (at most 8).
  std::uint64_t le(std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n && left_ > 0; ++i, ++data_, --left_)
      v |= static_cast<std::uint64_t>(*data_) << (8 * i);
    return v;
  }
  std::uint8_t u8() { return static_cast<std::uint8_t>(le(1)); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(le(2)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(le(4)); }
  std::uint64_t u64() { return le(8); }
  bool flag() { return (u8() & 1) != 0; }
  /// A number below `n` (n > 0), from one byte when n <= 256.
  std::uint64_t below(std::uint64_t n) { return (n <= 256 ? u8() : u64()) % n; }

  /// The next `n` bytes, or fewer at the end.
  std::span<const std::byte> bytes(std::size_t n) {
    const std::size_t take = n < left_ ? n : left_;
    const std::span<const std::byte> out(data_, take);
    data_ += take;
    left_ -= take;
    return out;
  }
  std::span<const std::byte> rest() { return bytes(left_); }
  std::string_view text(std::size_t n) {
    const std::span<const std::byte> b = bytes(n);
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }

 private:
  const std::byte* data_;
  std::size_t left_;
};

}  // namespace xover::fuzz
