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

// <payload memory="cuda"/>: on hardware without a GPU, exit 2 with the
// runtime's reason, whatever the backend; with one, and in simulation,
// exit 2 because no protocol serves cuda memory yet.
TEST(CudaBackend, ACudaPayloadNeedsAGpuAndAProtocol) {
  const std::string scenario = kSource + "/tests/data/scenarios/hw_small_cuda.xml";
  const std::string out = ::testing::TempDir() + "/cuda-payload.csv";
  std::remove(out.c_str());
  const std::string why = why_not();
  for (const char* backend : {"shm", "cuda"}) {
    const auto r = test::run_command(kXover + " run " + scenario + " --backend " + backend + " --out " + out);
    EXPECT_EQ(r.status, 2) << backend << ": " << r.out << r.err;
    if (std::string(backend) == "cuda" && !why.empty()) {
      EXPECT_THAT(r.err, HasSubstr("xover run: backend cuda: " + why));
    } else if (!why.empty()) {
      EXPECT_THAT(r.err, HasSubstr("hw_small_cuda.xml: a cuda payload needs a GPU: " + why));
      if (!why.starts_with("not compiled in")) {
        EXPECT_THAT(r.err, HasSubstr("no CUDA device"));
      }
    } else {
      EXPECT_THAT(r.err, HasSubstr("hw_small_cuda.xml: no protocol serves cuda memory yet"));
    }
  }
  if (runtime::find_backend("sim")->compiled_in()) {
    const auto sim = test::run_command(kXover + " run " + scenario + " --out " + out);
    EXPECT_EQ(sim.status, 2) << sim.out << sim.err;
    EXPECT_THAT(sim.err, HasSubstr("hw_small_cuda.xml: no protocol serves cuda memory yet"));
  }
  EXPECT_FALSE(std::ifstream(out).good()) << "a CSV was written by a run that could not start";
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
