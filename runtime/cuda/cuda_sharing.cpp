#include "runtime/cuda/cuda_sharing.hpp"

#include <sys/stat.h>

#include <cstdlib>

namespace xover::runtime {

std::optional<std::string> mps_pipe(const char* pipe_directory) {
  const std::string dir = pipe_directory && *pipe_directory ? pipe_directory : "/tmp/nvidia-mps";
  struct stat st{};
  if (stat((dir + "/control").c_str(), &st) != 0 || !S_ISFIFO(st.st_mode))
    return std::nullopt;
  return dir;
}

std::optional<std::string> mps_pipe() {
  return mps_pipe(std::getenv("CUDA_MPS_PIPE_DIRECTORY"));
}

std::vector<std::string> gpu_sharing_notes(Rank pes, Rank gpus, const std::optional<std::string>& mps) {
  const Rank shared = gpus == 0 ? pes : (pes + gpus - 1) / gpus;
  std::vector<std::string> out{"PEs per GPU " + std::to_string(shared) + " (" + std::to_string(pes) + " PEs on " +
                               std::to_string(gpus) + (gpus == 1 ? " GPU)" : " GPUs)")};
  if (shared < 2)
    return out;
  if (mps)
    out.push_back(std::to_string(shared) + " PEs share a GPU through MPS (its control pipe in " + *mps +
                  "): their kernels may run at once");
  else
    out.push_back(std::to_string(shared) + " PEs share a GPU without MPS: the GPU time-slices between their " +
                  "processes, a PE waiting for a peer's signal holds it until its slice ends, and the times " +
                  "include the slices");
  return out;
}

}  // namespace xover::runtime
