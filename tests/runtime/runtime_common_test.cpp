// What every hardware backend shares (runtime/common.hpp) and the backend
// table (runtime/backends.hpp): the idle watch on a clock the test drives,
// the round-robin schedule of the wire-up measurements, the table's rows.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "runtime/backends.hpp"
#include "runtime/common.hpp"

namespace xover::runtime {
namespace {

TEST(IdleWatch, CountsOnlyWaitingWithNothingMoving) {
  IdleWatch watch(1.0);
  watch.restart(100.0);
  EXPECT_NEAR(watch.look(100.2, false), 0.2, 1e-9);
  EXPECT_NEAR(watch.look(100.6, false), 0.6, 1e-9);
  EXPECT_FALSE(watch.expired(0.6));
  // Something moved: idleness starts again.
  EXPECT_NEAR(watch.look(100.9, true), 0.0, 1e-9);
  EXPECT_NEAR(watch.look(101.3, false), 0.4, 1e-9);
  EXPECT_NEAR(watch.look(101.7, false), 0.8, 1e-9);
  EXPECT_NEAR(watch.look(102.0, false), 1.1, 1e-9);
  EXPECT_TRUE(watch.expired(1.1));
  EXPECT_DOUBLE_EQ(watch.timeout(), 1.0);
}

TEST(IdleWatch, ComputingBetweenLooksIsNotSilence) {
  // The rank computes for 1.5 s without polling, then waits 0.5 s more: 2 s
  // since anything moved, but only 0.5 s of waiting.
  IdleWatch watch(1.0);
  watch.restart(0.0);
  watch.look(0.1, false);
  EXPECT_NEAR(watch.look(1.6, false), 0.0, 1e-9);
  EXPECT_NEAR(watch.look(2.1 - 0.2, false), 0.3, 1e-9);
  EXPECT_FALSE(watch.expired(watch.look(2.1, false)));
  // A gap of exactly kBusyGap is still waiting.
  IdleWatch edge(1.0);
  edge.restart(0.0);
  EXPECT_NEAR(edge.look(IdleWatch::kBusyGap, false), IdleWatch::kBusyGap, 1e-9);
}

TEST(RoundRobin, EveryPairMeetsOnceAndEachRoundIsAMatching) {
  for (Rank size = 1; size <= 12; ++size) {
    std::set<std::pair<Rank, Rank>> met;
    for (Rank round = 0; round < round_robin_rounds(size); ++round) {
      std::set<Rank> busy;
      for (Rank r = 0; r < size; ++r) {
        const Rank p = round_robin_partner(r, size, round);
        if (p >= size)
          continue;
        ASSERT_NE(p, r) << "size " << size << " round " << round;
        ASSERT_EQ(round_robin_partner(p, size, round), r) << "size " << size << " round " << round << " rank " << r;
        EXPECT_TRUE(busy.insert(r).second);
        if (r < p) {
          EXPECT_TRUE(met.emplace(r, p).second) << "size " << size << ": " << r << " and " << p << " met twice";
        }
      }
    }
    EXPECT_EQ(met.size(), std::size_t{size} * (size - 1) / 2) << "size " << size;
  }
}

TEST(Common, HostNameAndMemcpyAreSane) {
  EXPECT_FALSE(host_name().empty());
  const BytesPerSecond bw = measure_memcpy();
  EXPECT_GT(bw, 0);  // how fast: the machine's and its load's, not judged
  EXPECT_LT(bw, 1e13);
}

TEST(BackendTable, NamesAreUniqueAndTheSimulatorComesFirst) {
  std::set<std::string_view> names;
  for (const Backend* b : backends()) {
    EXPECT_TRUE(names.insert(b->name).second) << b->name;
    EXPECT_FALSE(b->summary.empty()) << b->name;
    EXPECT_EQ(find_backend(b->name), b);
  }
  ASSERT_FALSE(backends().empty());
  EXPECT_TRUE(backends().front()->simulated());
  EXPECT_EQ(find_backend("nosuch"), nullptr);
  EXPECT_EQ(backend_names().substr(0, 5), "sim, ");
  // The two backends every Linux machine has run here.
  for (const char* name : {"shm", "tcp"}) {
    ASSERT_NE(find_backend(name), nullptr) << name;
    EXPECT_FALSE(find_backend(name)->simulated());
    EXPECT_EQ(find_backend(name)->unavailable(), "") << name;
  }
}

// Each row declares its own options: every name belongs to one backend,
// has a line of help, and its defaults read into settings.
TEST(BackendTable, EveryOptionIsOneBackendsAndItsDefaultsRead) {
  std::set<std::string_view> names;
  for (const Backend* b : backends()) {
    EXPECT_EQ(b->options.empty(), b->read_options == nullptr) << b->name;
    for (const BackendOption& option : b->options) {
      EXPECT_TRUE(names.insert(option.name).second) << option.name << " is declared twice";
      EXPECT_FALSE(option.help.empty()) << option.name;
    }
    if (b->read_options) {
      EXPECT_TRUE(b->read_options({}, BackendUse::Run).has_value()) << b->name;
    }
  }
  EXPECT_TRUE(names.contains("tcp-if"));
  EXPECT_TRUE(names.contains("ib-dev"));
}

// The UCX transports validate compares with are the rows': shm's posix and
// cma, tcp's tcp on the interface its option names; none for the simulator.
TEST(BackendTable, UcxTransportsComeFromTheRows) {
  const Backend& shm = *find_backend("shm");
  ASSERT_NE(shm.ucx, nullptr);
  EXPECT_EQ(shm.ucx({}).name, "posix,cma");
  EXPECT_EQ(shm.ucx({}).env, "UCX_TLS=posix,cma");
  const Backend& tcp = *find_backend("tcp");
  ASSERT_NE(tcp.ucx, nullptr);
  EXPECT_EQ(tcp.ucx({}).name, "tcp on lo");
  EXPECT_EQ(tcp.ucx({{"tcp-if", "eth1"}}).name, "tcp on eth1");
  EXPECT_EQ(tcp.ucx({{"tcp-if", "eth1"}}).env, "UCX_TLS=tcp UCX_NET_DEVICES=eth1");
  EXPECT_EQ(find_backend("sim")->ucx, nullptr);
}

// Payload memory other than the host's is the row's that offers it, found
// by its type rather than by a backend's name.
TEST(BackendTable, PayloadMemoryIsFoundByItsType) {
  EXPECT_EQ(memory_backend(MemType::Host), nullptr);
  const Backend* gpu = memory_backend(MemType::Cuda);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->name, "cuda");
  EXPECT_EQ(gpu->memory.type, MemType::Cuda);
  EXPECT_EQ(gpu->memory.on, "a GPU");
  EXPECT_NE(gpu->memory.make, nullptr);
  for (const Backend* b : backends())
    if (b != gpu) {
      EXPECT_EQ(b->memory.make, nullptr) << b->name;
    }
}

// An alltoall of more PEs than the cuda backend's GPU engine runs is the
// scenario's error (xover run says where, exit 2), asked of the row, so
// that it is said before any GPU is touched; a backend without such an
// engine refuses none.
TEST(BackendTable, TheDeviceAlltoallSaysHowManyPesItRuns) {
  const Backend* cuda = find_backend("cuda");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(device_alltoall_refusal(*cuda, 2), "");
  EXPECT_EQ(device_alltoall_refusal(*cuda, 1024), "");
  EXPECT_EQ(device_alltoall_refusal(*cuda, 1025), "the cuda backend's device alltoall runs 2 to 1024 PEs, not 1025");
  for (const char* name : {"sim", "shm", "tcp"})
    EXPECT_EQ(device_alltoall_refusal(*find_backend(name), 4096), "") << name;
}

}  // namespace
}  // namespace xover::runtime
