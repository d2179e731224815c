// The cuda backend as a user meets it, on whatever machine runs the test:
// the row is in the table in every build; where it says the backend cannot
// run (a build without the CUDA Toolkit, or no GPU), its reason is the
// runtime's own, `xover run --backend cuda` exits 2 with it and making
// the transport throws it; a scenario with <payload memory="cuda"/> is
// refused with it; `xover --version` and `xover info` say whether CUDA is
// compiled in and what the runtime found.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "runtime/backends.hpp"
#include "runtime/cuda/cuda_transport.hpp"
#include "tests/support/one_rank.hpp"
#include "tests/support/run.hpp"

namespace xover {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kXover = XOVER_BINARY;
const std::string kSource = XOVER_SOURCE_DIR;

std::string why_not() {
  const runtime::Backend* cuda = runtime::find_backend("cuda");
  return cuda ? cuda->unavailable() : "no cuda row in the backend table";
}

TEST(CudaBackend, TheRowIsThereAndSaysWhyItCannotRun) {
  const runtime::Backend* cuda = runtime::find_backend("cuda");
  ASSERT_NE(cuda, nullptr);
  EXPECT_FALSE(cuda->simulated());
  const std::string why = why_not();
#ifdef XOVER_WITH_CUDA
  EXPECT_TRUE(cuda->compiled_in());
  if (why.empty())
    return;  // a GPU is here
  EXPECT_THAT(why, StartsWith("no CUDA device: cudaGetDeviceCount: "));
  EXPECT_GT(why.size(), std::string("no CUDA device: cudaGetDeviceCount: ").size()) << "the runtime's reason is missing";
  EXPECT_EQ(runtime::cuda_unavailable(), why) << "asked twice, the same answer";
#else
  EXPECT_FALSE(cuda->compiled_in());
  EXPECT_THAT(why, StartsWith("not compiled in: "));
  EXPECT_THAT(why, HasSubstr("CUDA Toolkit"));
#endif
}

TEST(CudaBackend, MakingTheTransportThrowsTheReasonOrWorks) {
  test::OneRank boot("cudarun");
  const runtime::Backend& cuda = *runtime::find_backend("cuda");
  const std::string why = why_not();
  if (why.empty()) {
    const std::unique_ptr<Transport> t = cuda.make(boot, {});
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->size(), 1U);
    return;
  }
  try {
    cuda.make(boot, {});
    ADD_FAILURE() << "made a cuda transport where the row says: " << why;
  } catch (const runtime::RuntimeError& e) {
    EXPECT_THAT(e.what(), StartsWith("cuda: "));
    if (!why.starts_with("not compiled in")) {
      EXPECT_EQ(e.what(), "cuda: " + why);
    }
  }
}

TEST(CudaBackend, RunExitsTwoWithoutAGpuAndSucceedsWithOne) {
  const std::string out = ::testing::TempDir() + "/cuda-run.csv";
  std::remove(out.c_str());
  const auto r = test::run_command(kXover + " run " + kSource + "/tests/data/scenarios/hw_small.xml --backend cuda" +
                                   " --out " + out);
  const std::string why = why_not();
  if (why.empty()) {
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const auto rows = test::read_csv(out);
    ASSERT_GT(rows.size(), 1U);
    for (std::size_t i = 1; i < rows.size(); ++i)
      EXPECT_EQ(rows[i][14], "0") << "corrupt or missing messages in row " << i;
    return;
  }
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("xover run: backend cuda: " + why));
  EXPECT_FALSE(std::ifstream(out).good()) << "a CSV was written by a run that could not start";
}

// <payload memory="cuda"/> on hardware, whatever the backend: without a
// GPU, exit 2 with the runtime's reason and no CSV; with one, every byte of
// every message checked after it came back from the GPU, and each curve run
// by its protocol: eager/staged and rndv/pipe through host memory, rndv/ipc
// through a mapping of the peer's buffer (the ranks share this node).
TEST(CudaBackend, ACudaPayloadRunsOnTheGpuOrExitsTwoWithWhy) {
  const std::string scenario = kSource + "/tests/data/scenarios/hw_small_cuda.xml";
  const std::string out = ::testing::TempDir() + "/cuda-payload.csv";
  const std::string why = why_not();
  for (const char* backend : {"shm", "tcp", "cuda"}) {
    SCOPED_TRACE(backend);
    std::remove(out.c_str());
    const auto r = test::run_command(kXover + " run " + scenario + " --backend " + backend + " --out " + out);
    if (!why.empty()) {
      EXPECT_EQ(r.status, 2) << r.out << r.err;
      EXPECT_THAT(r.err, HasSubstr(std::string(backend) == "cuda" ? "xover run: backend cuda: " + why
                                                                 : "hw_small_cuda.xml: a cuda payload needs a GPU: " + why));
      if (!why.starts_with("not compiled in")) {
        EXPECT_THAT(r.err, HasSubstr("no CUDA device"));
      }
      EXPECT_FALSE(std::ifstream(out).good()) << "a CSV was written by a run that could not start";
      continue;
    }
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const auto rows = test::read_csv(out);
    // eager/staged as far as the lane's bcopy segment goes: 4 KiB on shm,
    // 20000 B on tcp, whose segments are larger.
    std::map<std::string, std::size_t> per_curve;
    for (std::size_t i = 1; i < rows.size(); ++i)
      ++per_curve[rows[i][4]];
    EXPECT_EQ(per_curve["auto"], 7U);
    EXPECT_EQ(per_curve["rndv/pipe"], 7U);
    EXPECT_EQ(per_curve["rndv/ipc"], 7U) << "the ranks share this node: every size through IPC";
    EXPECT_GE(per_curve["eager/staged"], 4U);
    for (std::size_t i = 1; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i][14], "0") << "corrupt or missing messages in row " << i;
      if (rows[i][4] != "auto") {
        EXPECT_EQ(rows[i][5], rows[i][4]) << "row " << i;
      } else {
        EXPECT_THAT(rows[i][5], testing::AnyOf("eager/staged", "rndv/pipe", "rndv/ipc")) << "row " << i;
      }
    }
  }
}

// In simulation a cuda payload needs device figures on its nodes: the
// platform's error names the node and the properties to give it.
TEST(CudaBackend, ACudaPayloadInSimulationNeedsDeviceFigures) {
  if (!runtime::find_backend("sim")->compiled_in())
    GTEST_SKIP() << runtime::find_backend("sim")->unavailable();
  const std::string scenario = kSource + "/tests/data/scenarios/hw_small_cuda.xml";
  const std::string out = ::testing::TempDir() + "/cuda-payload-sim.csv";
  std::remove(out.c_str());
  const auto bare =
      test::run_command(kXover + " run " + scenario + " --platform " + kSource + "/platforms/shm-intra.xml --out " + out);
  EXPECT_EQ(bare.status, 2) << bare.out << bare.err;
  EXPECT_THAT(bare.err, HasSubstr("hw_small_cuda.xml:5: a cuda payload: node 'node0' of"));
  EXPECT_THAT(bare.err, HasSubstr("has no device memory (give it the host properties xover:stage_o and xover:stage_bw"));
  EXPECT_FALSE(std::ifstream(out).good()) << "a CSV was written by a run that could not start";
  const auto gpu = test::run_command(kXover + " run " + scenario + " --out " + out);
  ASSERT_EQ(gpu.status, 0) << gpu.out << gpu.err;
  const auto rows = test::read_csv(out);
  ASSERT_EQ(rows.size(), 1U + 7 + 4 + 7 + 7);
  for (std::size_t i = 1; i < rows.size(); ++i)
    EXPECT_EQ(rows[i][14], "0") << "corrupt or missing messages in row " << i;
}

TEST(CudaBackend, VersionAndInfoSayWhetherCudaIsCompiledIn) {
  const auto version = test::run_command(kXover + " --version");
  ASSERT_EQ(version.status, 0) << version.err;
#ifdef XOVER_WITH_CUDA
  EXPECT_THAT(version.out, testing::ContainsRegex("backends compiled in: [^\n]*cuda"));
#else
  EXPECT_THAT(version.out, HasSubstr("cuda (not compiled in: "));
#endif
  const auto info = test::run_command(kXover + " info --backend cuda");
  ASSERT_EQ(info.status, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("\ncuda: "));
#ifdef XOVER_WITH_CUDA
  EXPECT_THAT(info.out, testing::ContainsRegex("\n  runtime: +[0-9]+\\.[0-9]+\n"));
  if (!why_not().empty()) {
    EXPECT_THAT(info.out, HasSubstr("  error: "));
  }
#endif
}

}  // namespace
}  // namespace xover
