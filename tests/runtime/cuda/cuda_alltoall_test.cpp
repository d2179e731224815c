// The alltoall on a GPU (runtime/cuda/cuda_alltoall.hpp), where CUDA is
// compiled in: PEs are processes of the cuda backend, their buffers and
// signal words in device memory mapped to each other by CUDA IPC. Both
// flavours, several sizes and exchanges one after another; every byte
// from every peer is copied back and checked, and every signal word must
// show exactly the puts sent to it. Without a GPU: SKIPPED with the
// runtime's reason. Rank 0's time for each exchange (from the launch to
// its signal, on the host's clock) and the medians of its o_device,
// o_proxy and W are printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "protocols/core/worker.hpp"
#include "runtime/backends.hpp"
#include "runtime/cuda/cuda_alltoall.hpp"
#include "runtime/cuda/cuda_transport.hpp"
#include "runtime/launch/launch.hpp"

namespace xover::runtime {
namespace {

/// How a report line with a figure (rank 0's time per exchange) begins:
/// printed, not a problem.
const std::string kFigure = "figure: ";

/// The median of `values` in microseconds, "-" for none.
std::string median_us(std::vector<Seconds> values) {
  if (values.empty())
    return "-";
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return std::to_string(values[values.size() / 2] * 1e6);
}

/// One exchange's time and the medians of its figures, in microseconds.
std::string figures(const DeviceExchange& x) {
  return "time " + std::to_string(x.time * 1e6) + " us, o_device " + median_us(x.post) + ", o_proxy " +
         median_us(x.serve) + ", W " + median_us(x.wake) + " (clock within " +
         std::to_string(x.clock_uncertainty * 1e6) + ")";
}

/// The parameter: how many PEs.
class CudaAlltoallTest : public ::testing::TestWithParam<Rank> {};

TEST_P(CudaAlltoallTest, EveryByteAndEverySignalInBothFlavours) {
  if (const std::string why = find_backend("cuda")->unavailable(); !why.empty())
    GTEST_SKIP() << "backend cuda: " << why;
  const Rank pes = GetParam();
  LaunchOptions launch;
  launch.deadline = 120;
  const LaunchResult result = launch_local(pes, launch, [&](LocalBootstrap& boot) {
    RuntimeOptions options;
    options.timeout = 20;
    std::string report;
    try {
      std::unique_ptr<Transport> transport = make_cuda_transport(boot, options);
      Worker worker(*transport, SelectConfig{});
      CudaAlltoall pe(*transport, worker, 1 << 20, 14);
      if (boot.rank() == 0)
        report += kFigure + std::to_string(pe.pes_per_gpu()) + " PEs per GPU\n";
      for (AlltoallFlavour flavour : {AlltoallFlavour::Direct, AlltoallFlavour::Proxy})
        for (Bytes n : {Bytes{8}, Bytes{4096}, Bytes{1} << 20})
          for (int round = 0; round < 3; ++round) {
            const std::string what = std::string(flavour == AlltoallFlavour::Direct ? "direct" : "proxy") + " " +
                                     std::to_string(n) + " B round " + std::to_string(round) + ": ";
            pe.prepare(n);
            const DeviceExchange x = pe.exchange(flavour, n, 10.0);
            if (!x.complete)
              report += what + "incomplete " + x.problem + "\n";
            else if (boot.rank() == 0)
              report += kFigure + what + figures(x) + "\n";
            for (const std::string& p : pe.verify(n).problems)
              report += what + p + "\n";
            // No PE starts the next exchange into a buffer another still checks.
            boot.barrier();
          }
      pe.finish(worker);
    } catch (const std::exception& e) {
      report += std::string("threw: ") + e.what() + "\n";
    }
    boot.report(report);
    boot.barrier();
    return 0;
  });
  EXPECT_TRUE(result.ok) << result.message;
  for (const std::string& r : result.reports) {
    std::istringstream lines(r);
    for (std::string line; std::getline(lines, line);)
      if (line.starts_with(kFigure))
        std::cout << line << "\n";
      else
        ADD_FAILURE() << line;
  }
}

INSTANTIATE_TEST_SUITE_P(Pes, CudaAlltoallTest, ::testing::Values(Rank{2}, Rank{4}),
                         [](const ::testing::TestParamInfo<Rank>& info) { return "pes" + std::to_string(info.param); });

}  // namespace
}  // namespace xover::runtime
