#include "runtime/cuda/cuda_ipc_cache.hpp"

namespace xover::runtime {

void IpcMappings::drop_freed(Rank peer, const IpcBuffer& buffer) {
  const std::uint64_t end = buffer.base + buffer.size;
  for (auto at = mappings_.lower_bound({peer, 0}); at != mappings_.end() && at->first.first == peer;) {
    const std::uint64_t base = at->first.second;
    const bool overlaps = base < end && buffer.base < base + at->second.size;
    const bool same = base == buffer.base && at->second.id == buffer.id;
    if (overlaps && !same) {
      close_(at->second.mapped);
      at = mappings_.erase(at);
    } else {
      ++at;
    }
  }
}

const std::byte* IpcMappings::map(Rank peer, const IpcBuffer& buffer) {
  const Key key{peer, buffer.base};
  if (const auto at = mappings_.find(key); at != mappings_.end() && at->second.id == buffer.id)
    return at->second.mapped;
  drop_freed(peer, buffer);
  const std::byte* mapped = open_(buffer);
  if (!mapped) {
    release_peer(peer);
    mapped = open_(buffer);
  }
  if (!mapped)
    return nullptr;
  mappings_[key] = Mapping{buffer.id, buffer.size, mapped};
  return mapped;
}

void IpcMappings::release_peer(Rank peer) {
  for (auto at = mappings_.lower_bound({peer, 0}); at != mappings_.end() && at->first.first == peer;) {
    close_(at->second.mapped);
    at = mappings_.erase(at);
  }
}

void IpcMappings::clear() {
  for (const auto& [key, mapping] : mappings_)
    close_(mapping.mapped);
  mappings_.clear();
}

}  // namespace xover::runtime
