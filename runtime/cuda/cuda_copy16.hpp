// A copy by 16-byte stores whatever the two ends' alignment, shared by a
// group of lanes (a thread, a warp's 32 or a block's threads), in one
// source for nvcc and the host compiler (as cuda_engine_queue.hpp is): the
// kernels' copies and the tests' CPU loops run the very same steps.
//
// The alltoall's slots lie at a stride of n bytes, so that for n not a
// multiple of 16 neither end of a put is 16-byte aligned, and the two ends'
// misalignments differ. The copy is split where the destination turns
// aligned (copy_plan):
//
//   head  the bytes before the destination's first 16-byte boundary (< 16), stored byte by byte
//   body  16-byte stores, each to an aligned destination; when the source
//         is aligned alike, one 16-byte load, else the two aligned 16-byte
//         words that hold its 16 bytes, merged by a funnel shift (merge16)
//   tail  the bytes after the last whole 16 (< 16), byte by byte
//
// Lane l of L takes head and tail bytes l, l + L, … and body stores l,
// l + L, …, so that a warp's 32 lanes store 512 contiguous bytes at once
// (coalesced). The merged loads read whole aligned 16-byte words that hold
// at least one byte of the source, never a word beyond: on the GPU every
// allocation is 256-byte aligned, so they stay inside it; a host caller
// gives a buffer that holds those words.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define XOVER_COPY_FN __host__ __device__
#else
#define XOVER_COPY_FN
#endif

namespace xover::runtime {

/// How a copy of `n` bytes from `src` to `dst` splits (addresses as integers).
struct CopyPlan {
  std::uint64_t head = 0;   ///< bytes before the destination's first 16-byte boundary
  std::uint64_t body = 0;   ///< 16-byte stores after them
  std::uint64_t tail = 0;   ///< bytes after the body
  std::uint32_t shift = 0;  ///< the body's source address mod 16: 0 for aligned loads, else merged ones
};

XOVER_COPY_FN inline CopyPlan copy_plan(std::uint64_t dst, std::uint64_t src, std::uint64_t n) {
  CopyPlan p;
  const std::uint64_t to_boundary = (16 - dst % 16) % 16;
  p.head = to_boundary < n ? to_boundary : n;
  p.body = (n - p.head) / 16;
  p.tail = n - p.head - 16 * p.body;
  p.shift = static_cast<std::uint32_t>((src + p.head) % 16);
  return p;
}

/// Bits `r` (0–31) and up of the 64 bits hi:lo.
XOVER_COPY_FN inline std::uint32_t funnel_right(std::uint32_t lo, std::uint32_t hi, std::uint32_t r) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, r);
#else
  return r == 0 ? lo : (lo >> r) | (hi << (32 - r));
#endif
}

/// merge16 for a word offset Q known at compile time, so that the eight
/// words stay in registers (an index known only at run time would put them
/// in local memory).
template <std::uint32_t Q>
XOVER_COPY_FN inline void merge16_at(const std::uint32_t (&w)[8], std::uint32_t r, std::uint32_t (&out)[4]) {
  for (std::uint32_t k = 0; k < 4; ++k)
    out[k] = funnel_right(w[Q + k], w[Q + k + 1], r);
}

/// The 16 bytes at `shift` (1–15) of the 32 bytes a then b, as four
/// little-endian 32-bit words: a funnel shift of each pair of neighbours.
XOVER_COPY_FN inline void merge16(const std::uint32_t (&a)[4], const std::uint32_t (&b)[4], std::uint32_t shift,
                                  std::uint32_t (&out)[4]) {
  const std::uint32_t w[8] = {a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]};
  const std::uint32_t r = (shift % 4) * 8;
  switch (shift / 4) {
    case 0:
      merge16_at<0>(w, r, out);
      break;
    case 1:
      merge16_at<1>(w, r, out);
      break;
    case 2:
      merge16_at<2>(w, r, out);
      break;
    default:
      merge16_at<3>(w, r, out);
      break;
  }
}

/// Loads the aligned 16 bytes at `at` as four 32-bit words.
XOVER_COPY_FN inline void load16(const std::byte* at, std::uint32_t (&w)[4]) {
#if defined(__CUDA_ARCH__)
  const uint4 v = *reinterpret_cast<const uint4*>(at);
  w[0] = v.x;
  w[1] = v.y;
  w[2] = v.z;
  w[3] = v.w;
#else
  std::memcpy(w, at, 16);
#endif
}

/// Stores four 32-bit words as the aligned 16 bytes at `at`.
XOVER_COPY_FN inline void store16(std::byte* at, const std::uint32_t (&w)[4]) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint4*>(at) = make_uint4(w[0], w[1], w[2], w[3]);
#else
  std::memcpy(at, w, 16);
#endif
}

/// Lane `lane` of `lanes`' share of the copy of `n` bytes from `src` to
/// `dst` (the ranges do not overlap). Every lane of the group calls it
/// with the same dst, src and n; once all have, the n bytes are copied.
XOVER_COPY_FN inline void copy_lanes(std::byte* dst, const std::byte* src, std::uint64_t n, std::uint32_t lane,
                                     std::uint32_t lanes) {
  const CopyPlan p = copy_plan(reinterpret_cast<std::uintptr_t>(dst), reinterpret_cast<std::uintptr_t>(src), n);
  for (std::uint64_t i = lane; i < p.head; i += lanes)
    dst[i] = src[i];
  std::byte* body_dst = dst + p.head;
  const std::byte* body_src = src + p.head;
  for (std::uint64_t k = lane; k < p.body; k += lanes) {
    std::uint32_t w[4];
    if (p.shift == 0) {
      load16(body_src + 16 * k, w);
    } else {
      const std::byte* word = body_src + 16 * k - p.shift;
      std::uint32_t a[4];
      std::uint32_t b[4];
      load16(word, a);
      load16(word + 16, b);
      merge16(a, b, p.shift, w);
    }
    store16(body_dst + 16 * k, w);
  }
  const std::uint64_t tail_at = p.head + 16 * p.body;
  for (std::uint64_t i = lane; i < p.tail; i += lanes)
    dst[tail_at + i] = src[tail_at + i];
}

}  // namespace xover::runtime
