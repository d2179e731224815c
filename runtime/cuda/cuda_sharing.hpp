// Whether the PEs that share a GPU run at once, for the notes of the
// alltoall's results: several processes on one GPU run their kernels
// together only under MPS (NVIDIA's Multi-Process Service); without it the
// GPU time-slices between their contexts, and a kernel waiting for a peer's
// signal holds the GPU until its slice ends, which the times then include.
// The CUDA runtime does not say whether MPS serves a process; its control
// daemon leaves a pipe named `control` in its pipe directory
// (CUDA_MPS_PIPE_DIRECTORY, by default /tmp/nvidia-mps), which clients
// connect through. Pure but for mps_pipe(): built and tested without CUDA.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocols/core/transport.hpp"

namespace xover::runtime {

/// The MPS control daemon's pipe directory where its `control` pipe is
/// there, from `pipe_directory` (CUDA_MPS_PIPE_DIRECTORY's value; null or
/// empty for the default); nothing where it is not.
std::optional<std::string> mps_pipe(const char* pipe_directory);
/// The same, for this process's environment.
std::optional<std::string> mps_pipe();

/// The notes for `pes` PEs on `gpus` GPUs (PE r on GPU r mod gpus): how
/// many PEs share a GPU, and where several do, whether MPS (found at `mps`)
/// lets them run at once or the GPU time-slices between them.
std::vector<std::string> gpu_sharing_notes(Rank pes, Rank gpus, const std::optional<std::string>& mps);

}  // namespace xover::runtime
