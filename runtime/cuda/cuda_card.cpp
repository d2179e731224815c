#include "runtime/cuda/cuda_card.hpp"

#include <algorithm>
#include <cstring>

namespace xover::runtime {
namespace {

constexpr char kMagic[8] = {'x', 'o', 'v', 'r', 'c', 'u', 'd', 'a'};
constexpr std::uint32_t kVersion = 1;

template <class T>
void put(CudaCardBytes& out, std::size_t at, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out[at + i] = static_cast<std::byte>((value >> (8 * i)) & 0xff);
}

template <class T>
T get(std::span<const std::byte> in, std::size_t at) {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    value |= static_cast<T>(std::to_integer<T>(in[at + i]) << (8 * i));
  return value;
}

}  // namespace

CudaCardBytes encode_card(const CudaCard& card) {
  CudaCardBytes out{};
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  put(out, 8, kVersion);
  put(out, 12, card.rank);
  put(out, 16, card.pid);
  put(out, 20, card.device);
  put(out, 24, card.recv_bytes);
  std::copy(card.recv.begin(), card.recv.end(), out.begin() + 32);
  std::copy(card.signal.begin(), card.signal.end(), out.begin() + 96);
  return out;
}

DecodedCard decode_card(std::span<const std::byte> bytes, std::uint32_t from, std::uint64_t recv_bytes) {
  DecodedCard out;
  if (bytes.size() != kCudaCardBytes) {
    out.error = "a card of " + std::to_string(bytes.size()) + " bytes, not " + std::to_string(kCudaCardBytes);
    return out;
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    out.error = "not a cuda card (bad magic)";
    return out;
  }
  if (const auto version = get<std::uint32_t>(bytes, 8); version != kVersion) {
    out.error = "card layout version " + std::to_string(version) + ", this build reads " + std::to_string(kVersion);
    return out;
  }
  CudaCard& c = out.card;
  c.rank = get<std::uint32_t>(bytes, 12);
  c.pid = get<std::uint32_t>(bytes, 16);
  c.device = get<std::uint32_t>(bytes, 20);
  c.recv_bytes = get<std::uint64_t>(bytes, 24);
  std::copy(bytes.begin() + 32, bytes.begin() + 96, c.recv.begin());
  std::copy(bytes.begin() + 96, bytes.begin() + 160, c.signal.begin());
  if (c.rank != from)
    out.error = "rank " + std::to_string(from) + " sent a card naming rank " + std::to_string(c.rank);
  else if (c.recv_bytes != recv_bytes)
    out.error = "rank " + std::to_string(from) + " has a receive buffer of " + std::to_string(c.recv_bytes) +
                " bytes, this rank expects " + std::to_string(recv_bytes);
  return out;
}

}  // namespace xover::runtime
