// make_rank_device_memory (cuda_memory.hpp), the memory the cuda backend's
// row offers for payloads: which GPU a rank takes and which peers share its
// node, from the ranks' host names.
#include "runtime/common.hpp"
#include "runtime/cuda/cuda_memory.hpp"

namespace xover::runtime {

std::unique_ptr<DeviceMemory> make_rank_device_memory(Bootstrap& boot) {
  const std::string host = host_name();
  const std::vector<Blob> hosts = boot.allgather(std::as_bytes(std::span(host.data(), host.size())));
  std::vector<bool> same_node(boot.size());
  Rank local_rank = 0;
  for (Rank r = 0; r < boot.size(); ++r) {
    same_node[r] = std::string_view(reinterpret_cast<const char*>(hosts[r].data()), hosts[r].size()) == host;
    if (same_node[r] && r < boot.rank())
      ++local_rank;
  }
  // One rank at a time: each measures its copies (CudaMemory::figures),
  // and ranks sharing a GPU would measure each other's.
  std::unique_ptr<DeviceMemory> memory;
  for (Rank r = 0; r < boot.size(); ++r) {
    if (r == boot.rank())
      memory = make_cuda_memory(local_rank, same_node);
    boot.barrier();
  }
  return memory;
}

}  // namespace xover::runtime
