// What a GPU PE tells each peer at set-up, so that the peer can map its
// memory (CUDA IPC): its receive buffer and its signal word, each an
// allocation of its own named by an opaque 64-byte cudaIpcMemHandle_t,
// with the facts the peer checks before it opens them. A fixed layout of
// little-endian fields, free of CUDA headers, so that it is built and
// tested everywhere; decode refuses anything else with a reason.
//
//   offset  size  field
//        0     8  magic "xovrcuda"
//        8     4  layout version (1)
//       12     4  rank
//       16     4  process id
//       20     4  device ordinal
//       24     8  receive buffer bytes
//       32    64  receive buffer's IPC handle
//       96    64  signal word's IPC handle
//      160        end
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace xover::runtime {

inline constexpr std::size_t kIpcHandleBytes = 64;  ///< sizeof(cudaIpcMemHandle_t), CUDA_IPC_HANDLE_SIZE
using IpcHandle = std::array<std::byte, kIpcHandleBytes>;

struct CudaCard {
  std::uint32_t rank = 0;
  std::uint32_t pid = 0;
  std::uint32_t device = 0;
  std::uint64_t recv_bytes = 0;
  IpcHandle recv{};
  IpcHandle signal{};
};

inline constexpr std::size_t kCudaCardBytes = 160;
using CudaCardBytes = std::array<std::byte, kCudaCardBytes>;

CudaCardBytes encode_card(const CudaCard& card);

/// A card read back, or why the bytes are not one.
struct DecodedCard {
  CudaCard card;
  std::string error;  ///< empty when the card is good
};

/// Decodes a card that rank `from` sent: the length, the magic, the
/// version, that it names `from`, and that its receive buffer holds
/// `recv_bytes` (every PE allocates the same). Pure: any bytes give a
/// result.
DecodedCard decode_card(std::span<const std::byte> bytes, std::uint32_t from, std::uint64_t recv_bytes);

}  // namespace xover::runtime
