// The peers' allocations this rank has mapped through CUDA IPC, as UCX's
// cuda_ipc keeps them: by peer and the peer's address of the allocation,
// checked by the allocation's number (IpcBuffer::id). A mapping goes when
// the peer is known to have freed the allocation:
//   - another number at that address: the old one was freed, a new one is
//     there;
//   - an allocation of the peer's overlapping a cached one at another
//     address: two live allocations of one process never overlap, so the
//     cached one was freed.
// A freed allocation that no later one overlaps stays mapped until the
// peer's mappings go (a refusal, below) or the cache does: no message
// tells a rank that its peer freed an allocation.
// Where the driver refuses to map an allocation (it holds it mapped under
// an older handle already), every mapping of that peer goes and the map is
// tried once more. The runtime's calls are the two functions given, so that
// the logic runs without a GPU (cuda_logic_test).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>

#include "protocols/core/device_memory.hpp"

namespace xover::runtime {

class IpcMappings {
 public:
  /// Maps an allocation (cudaIpcOpenMemHandle): its base here, or null.
  using Open = std::function<const std::byte*(const IpcBuffer&)>;
  /// Unmaps one (cudaIpcCloseMemHandle).
  using Close = std::function<void(const std::byte*)>;

  IpcMappings(Open open, Close close) : open_(std::move(open)), close_(std::move(close)) {}
  /// Closes every mapping.
  ~IpcMappings() { clear(); }
  IpcMappings(const IpcMappings&) = delete;
  IpcMappings& operator=(const IpcMappings&) = delete;

  /// The allocation of `peer` that `buffer` names, mapped here: the cached
  /// mapping, or a new one (mappings of allocations the peer has freed
  /// closed first); null when it cannot be mapped.
  const std::byte* map(Rank peer, const IpcBuffer& buffer);
  /// Closes every mapping of `peer`.
  void release_peer(Rank peer);
  void clear();
  /// The mappings kept.
  std::size_t size() const { return mappings_.size(); }

 private:
  struct Mapping {
    std::uint64_t id = 0;
    Bytes size = 0;
    const std::byte* mapped = nullptr;
  };
  using Key = std::pair<Rank, std::uint64_t>;  ///< peer, its address of the allocation
  /// Closes the mappings of `peer` that overlap [base, base + size) and are
  /// not allocation `id` at `base`.
  void drop_freed(Rank peer, const IpcBuffer& buffer);

  Open open_;
  Close close_;
  std::map<Key, Mapping> mappings_;
};

}  // namespace xover::runtime
