// The input of the TCP frame harness (tcp_frame_fuzz.cpp), shared with its
// seed generator (make_seeds.cpp):
//
//   [chunk: 1 byte][the byte stream a peer sends on one lane]
//
// The stream is written to the transport's socket (chunk + 1) · 7 bytes at
// a time, a progress() call after each write, so that frames are cut
// anywhere. Before it runs, rank 0 has put three operations on the lane —
// request 1 a get of kGetSmall bytes, request 2 a put, request 3 a get of
// kGetLarge bytes — and registered kRegion bytes for the peer: in the
// stream, the eight bytes kKeyMark stand for that region's key and
// kAddrMark for its address, which a peer learns at run time.
#pragma once

#include <cstdint>

namespace xover::fuzz::tcp {

inline constexpr std::uint64_t kKeyMark = 0x4b4b4b4b4b4b4b4bULL;   // "KKKKKKKK"
inline constexpr std::uint64_t kAddrMark = 0x4141414141414141ULL;  // "AAAAAAAA"
inline constexpr std::uint64_t kRegion = 4096;
inline constexpr std::uint64_t kGetSmall = 64;
inline constexpr std::uint64_t kPutSize = 32;
inline constexpr std::uint64_t kGetLarge = 5000;

}  // namespace xover::fuzz::tcp
