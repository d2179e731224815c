// The cuda backend's logic that needs no GPU, built and run everywhere:
// the probe's report and the reasons it gives, the IPC card, and the
// command ring's writer as the alltoall kernel runs it (cuda_ring_writer.hpp),
// run here by CPU threads against CommandRing's proxy side, and the notes
// on PEs sharing a GPU (with or without MPS's control pipe).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "protocols/coll/cmd_ring.hpp"
#include "runtime/cuda/cuda_card.hpp"
#include "runtime/cuda/cuda_clock.hpp"
#include "runtime/cuda/cuda_probe.hpp"
#include "runtime/cuda/cuda_proxy_thread.hpp"
#include "runtime/cuda/cuda_ring_writer.hpp"
#include "runtime/cuda/cuda_sharing.hpp"
#include "tests/support/ring_memory.hpp"

namespace xover::runtime {
namespace {

CudaProbe one_gpu() {
  CudaProbe p;
  p.ok = true;
  p.count = 1;
  p.driver_version = 13000;
  p.runtime_version = 13000;
  p.gpus.push_back({"NVIDIA H100 80GB HBM3", "9.0", 85045231616, 132, "00000000:18:00.0"});
  return p;
}

TEST(CudaProbe, AReportRoundTrips) {
  const CudaProbe back = decode_probe(encode_probe(one_gpu()));
  ASSERT_TRUE(back.ok) << back.error;
  EXPECT_EQ(back.count, 1);
  EXPECT_EQ(back.driver_version, 13000);
  ASSERT_EQ(back.gpus.size(), 1U);
  EXPECT_EQ(back.gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(back.gpus[0].capability, "9.0");
  EXPECT_EQ(back.gpus[0].memory, 85045231616);
  EXPECT_EQ(back.gpus[0].sms, 132);
  EXPECT_EQ(back.gpus[0].pci_bus, "00000000:18:00.0");
  EXPECT_EQ(probe_unavailable(back), "");
}

TEST(CudaProbe, TheReasonIsTheRuntimesOwnError) {
  CudaProbe none;
  none.error = "no CUDA-capable device is detected";
  const CudaProbe back = decode_probe(encode_probe(none));
  EXPECT_FALSE(back.ok);
  EXPECT_EQ(probe_unavailable(back), "no CUDA device: cudaGetDeviceCount: no CUDA-capable device is detected");

  CudaProbe zero;
  zero.ok = true;
  EXPECT_EQ(probe_unavailable(decode_probe(encode_probe(zero))), "no CUDA device: cudaGetDeviceCount: 0 devices");
}

TEST(CudaProbe, AnErrorWithNewlinesStaysOneLine) {
  CudaProbe none;
  none.error = "first\nsecond|third";
  EXPECT_EQ(decode_probe(encode_probe(none)).error, "first second third");
}

TEST(CudaProbe, ABrokenReportIsNoDeviceAndSaysWhy) {
  for (const char* bad : {"", "hello\n", "count x\nversions 0 0\n", "count 1\nversions 0 0\n",
                          "count 1\nversions 1\ngpu a|9.0|1|1|bus\n", "count 1\nversions 0 0\ngpu a|9.0|-1|1|bus\n",
                          "count 0\nversions 0 0\nextra\n", "error x\n"}) {
    const CudaProbe p = decode_probe(bad);
    EXPECT_FALSE(p.ok) << bad;
    EXPECT_TRUE(p.error.starts_with("the probe's report is unreadable")) << bad << ": " << p.error;
    EXPECT_TRUE(probe_unavailable(p).starts_with("no CUDA device: ")) << bad;
  }
}

TEST(CudaProbe, InfoListsTheVersionsAndEachGpu) {
  const BackendInfo info = probe_info(one_gpu());
  ASSERT_EQ(info.fields.size(), 3U);
  EXPECT_EQ(info.fields[0].key, "runtime");
  EXPECT_EQ(std::get<std::string>(info.fields[0].value), "13.0");
  EXPECT_EQ(std::get<std::string>(info.fields[1].value), "13.0");
  EXPECT_EQ(std::get<std::int64_t>(info.fields[2].value), 1);
  ASSERT_EQ(info.devices.size(), 1U);
  EXPECT_EQ(info.devices[0].kind, "gpu");
  EXPECT_EQ(info.devices[0].name, "0");
  EXPECT_EQ(std::get<std::string>(info.devices[0].fields[1].value), "9.0");

  CudaProbe none;
  none.error = "CUDA driver version is insufficient for CUDA runtime version";
  none.runtime_version = 13000;
  const BackendInfo without = probe_info(none);
  EXPECT_EQ(std::get<std::string>(without.fields[1].value), "none");
  EXPECT_EQ(without.fields[2].key, "error");
  EXPECT_TRUE(without.devices.empty());
  EXPECT_EQ(cuda_version_text(12060), "12.6");
}

CudaCard card() {
  CudaCard c;
  c.rank = 3;
  c.pid = 4242;
  c.device = 1;
  c.recv_bytes = 8 << 20;
  for (std::size_t i = 0; i < kIpcHandleBytes; ++i) {
    c.recv[i] = static_cast<std::byte>(i);
    c.signal[i] = static_cast<std::byte>(255 - i);
  }
  return c;
}

TEST(CudaCard, EveryFieldComesBack) {
  const CudaCardBytes bytes = encode_card(card());
  const DecodedCard d = decode_card(bytes, 3, 8 << 20);
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.card.rank, 3U);
  EXPECT_EQ(d.card.pid, 4242U);
  EXPECT_EQ(d.card.device, 1U);
  EXPECT_EQ(d.card.recv_bytes, 8U << 20);
  EXPECT_EQ(d.card.recv, card().recv);
  EXPECT_EQ(d.card.signal, card().signal);
  // Little-endian at the documented offsets.
  EXPECT_EQ(bytes[12], std::byte{3});
  EXPECT_EQ(bytes[16], std::byte{4242 & 0xff});
  EXPECT_EQ(bytes[32], std::byte{0});
  EXPECT_EQ(bytes[96], std::byte{255});
}

TEST(CudaCard, EveryBadCardIsNamed) {
  const CudaCardBytes good = encode_card(card());
  EXPECT_EQ(decode_card({good.data(), good.size() - 1}, 3, 8 << 20).error, "a card of 159 bytes, not 160");
  CudaCardBytes magic = good;
  magic[0] = std::byte{'X'};
  EXPECT_EQ(decode_card(magic, 3, 8 << 20).error, "not a cuda card (bad magic)");
  CudaCardBytes version = good;
  version[8] = std::byte{2};
  EXPECT_EQ(decode_card(version, 3, 8 << 20).error, "card layout version 2, this build reads 1");
  EXPECT_EQ(decode_card(good, 2, 8 << 20).error, "rank 2 sent a card naming rank 3");
  EXPECT_EQ(decode_card(good, 3, 4 << 20).error,
            "rank 3 has a receive buffer of 8388608 bytes, this rank expects 4194304");
}

TEST(CudaCard, RandomCorruptionsAreRefusedOrHarmless) {
  std::mt19937_64 rng(14);
  const CudaCardBytes good = encode_card(card());
  for (int trial = 0; trial < 20000; ++trial) {
    CudaCardBytes bytes = good;
    bytes[rng() % bytes.size()] ^= static_cast<std::byte>(1 + rng() % 255);
    const std::size_t length = rng() % 8 == 0 ? rng() % (bytes.size() + 1) : bytes.size();
    const DecodedCard d = decode_card({bytes.data(), length}, 3, 8 << 20);
    if (d.error.empty()) {
      EXPECT_EQ(d.card.rank, 3U);
      EXPECT_EQ(d.card.recv_bytes, 8U << 20);
    }
  }
}

TEST(CudaClock, TheTightestSampleGivesTheOffset) {
  // GPU = host + 1000 ns; the tightest sample (span 10) is the second.
  const std::vector<ClockSample> samples{{100, 1150, 200}, {300, 1305, 310}, {400, 1420, 440}};
  const ClockOffset offset = estimate_offset(samples);
  EXPECT_EQ(offset.gpu_minus_host, 1000);
  EXPECT_EQ(offset.uncertainty, 5);
  EXPECT_THROW(estimate_offset({}), std::invalid_argument);
  const std::vector<ClockSample> backwards{{300, 1305, 290}};
  EXPECT_THROW(estimate_offset(backwards), std::invalid_argument);
}

TEST(CudaClock, FiguresFromTheStamps) {
  ExchangeStamps s;
  s.post_begin = {1000, 2000, 3000};  // SM cycles at 2 GHz
  s.post_end = {1200, 2500, 2900};    // the last goes backwards: 0, not negative
  s.sm_cycles_per_second = 2e9;
  s.written = {1100, 2250};         // GPU ns
  s.seen = {150, 1300};             // host ns; GPU = host + 1000
  s.served = {1150, 1800};
  const ExchangeFigures f = exchange_figures(s, {1000, 5});
  ASSERT_EQ(f.post.size(), 3U);
  EXPECT_DOUBLE_EQ(f.post[0], 100e-9);
  EXPECT_DOUBLE_EQ(f.post[1], 250e-9);
  EXPECT_EQ(f.post[2], 0);
  ASSERT_EQ(f.serve.size(), 2U);
  EXPECT_DOUBLE_EQ(f.serve[0], 1000e-9);
  EXPECT_DOUBLE_EQ(f.serve[1], 500e-9);
  ASSERT_EQ(f.wake.size(), 2U);
  EXPECT_DOUBLE_EQ(f.wake[0], 50e-9);  // written at host 100, seen at 150
  EXPECT_DOUBLE_EQ(f.wake[1], 50e-9);  // written at host 1250, seen at 1300
  // The direct flavour has no proxy: post alone.
  ExchangeStamps direct;
  direct.post_begin = {10};
  direct.post_end = {30};
  const ExchangeFigures d = exchange_figures(direct, {});
  EXPECT_EQ(d.post.size(), 1U);
  EXPECT_TRUE(d.serve.empty());
  EXPECT_TRUE(d.wake.empty());
  // A clock rate the runtime did not give: no o_device, not infinite ones.
  direct.sm_cycles_per_second = 0;
  EXPECT_TRUE(exchange_figures(direct, {}).post.empty());
}

// The proxy's thread exists before the first exchange and serves every
// one: no exchange creates a thread in its timed region.
TEST(CudaProxyThread, EveryJobRunsOnTheOneThreadStartedAtSetUp) {
  ProxyThread proxy;
  const std::thread::id started = proxy.id();
  EXPECT_NE(started, std::thread::id{});
  EXPECT_NE(started, std::this_thread::get_id());
  for (int job = 0; job < 3; ++job) {
    std::thread::id ran_on;
    proxy.start([&, job] {
      ran_on = std::this_thread::get_id();
      return "job " + std::to_string(job);
    });
    EXPECT_EQ(proxy.wait(), "job " + std::to_string(job));
    EXPECT_EQ(ran_on, started);
  }
  proxy.start([] { return std::string(); });
  EXPECT_THROW(proxy.start([] { return std::string(); }), std::logic_error) << "the first was not waited for";
  EXPECT_EQ(proxy.wait(), "");
}

using test::RingMemory;

TEST(CudaSharing, NotesSayHowManyPesShareAGpuAndWhetherTheyRunAtOnce) {
  EXPECT_EQ(gpu_sharing_notes(2, 2, std::nullopt), std::vector<std::string>{"PEs per GPU 1 (2 PEs on 2 GPUs)"});
  EXPECT_EQ(gpu_sharing_notes(4, 8, std::nullopt), std::vector<std::string>{"PEs per GPU 1 (4 PEs on 8 GPUs)"});
  const std::vector<std::string> sliced = gpu_sharing_notes(2, 1, std::nullopt);
  ASSERT_EQ(sliced.size(), 2U);
  EXPECT_EQ(sliced[0], "PEs per GPU 2 (2 PEs on 1 GPU)");
  EXPECT_EQ(sliced[1].rfind("2 PEs share a GPU without MPS: the GPU time-slices between their processes", 0), 0U)
      << sliced[1];
  const std::vector<std::string> mps = gpu_sharing_notes(5, 2, "/run/mps");
  ASSERT_EQ(mps.size(), 2U);
  EXPECT_EQ(mps[0], "PEs per GPU 3 (5 PEs on 2 GPUs)");
  EXPECT_EQ(mps[1], "3 PEs share a GPU through MPS (its control pipe in /run/mps): their kernels may run at once");
  for (const auto& notes : {sliced, mps})
    for (const std::string& note : notes)
      EXPECT_EQ(note.find_first_of(";\t\n"), std::string::npos) << "a note is one item of a point's notes: " << note;
}

TEST(CudaSharing, MpsIsFoundByItsControlPipeOnly) {
  const std::string dir = ::testing::TempDir() + "/xover-mps-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(std::filesystem::create_directories(dir));
  EXPECT_EQ(mps_pipe(dir.c_str()), std::nullopt) << "no pipe";
  std::ofstream(dir + "/control") << "not a pipe";
  EXPECT_EQ(mps_pipe(dir.c_str()), std::nullopt) << "a plain file";
  std::filesystem::remove(dir + "/control");
  ASSERT_EQ(mkfifo((dir + "/control").c_str(), 0600), 0);
  EXPECT_EQ(mps_pipe(dir.c_str()), dir);
  std::filesystem::remove_all(dir);
}

TEST(CudaRingWriter, WritesCommandRingsFormat) {
  EXPECT_EQ(ring_layout::kFirstEntryWord * 8, CommandRing::kControlBytes);
  EXPECT_EQ(ring_layout::kEntryWords * 8, CommandRing::kEntryBytes);
  EXPECT_EQ(ring_layout::kPutSignalOp, static_cast<std::uint64_t>(CommandOp::PutSignal));
  RingMemory memory(4);
  const std::span<std::byte> span = memory.span(4);
  const CommandRing ring = CommandRing::create(span, 4);
  std::uint64_t cached = 0;
  const RingView view{reinterpret_cast<std::uint64_t*>(span.data()), 4, &cached};
  const CommandLimits limits{8, 8 * 4096, 0x10000, 7 * 4096};
  // Two laps: the flag flips, and the words are encode_command's.
  for (std::uint64_t pos = 0; pos < 8; ++pos) {
    ASSERT_TRUE(ring_has_room(view, pos));
    EXPECT_FALSE(ring.ready(pos));
    ring_write_put_signal(view, pos, 3, 2 * 4096, 0x10000 + 4096, 4096, 1000 + pos);
    ASSERT_TRUE(ring.ready(pos));
    Command c;
    c.pe = 3;
    c.offset = 2 * 4096;
    c.local = 0x10000 + 4096;
    c.size = 4096;
    c.posted_ns = 1000 + pos;
    EXPECT_EQ(ring.read(pos), encode_command(c, (pos / 4 + 1) % 2)) << pos;
    EXPECT_EQ(decode_command(ring.read(pos), limits).error, "");
    EXPECT_FALSE(ring_has_room(view, pos + 4)) << "a lap ahead of the proxy";
    ring.publish(pos + 1);
    EXPECT_TRUE(ring_has_room(view, pos + 4));
  }
}

// The writers read the proxy's published position (pinned host memory,
// across PCIe for the kernel) only when their cached copy says the ring is
// full, and raise the copy to it; a copy that says there is room is
// believed without a read.
TEST(CudaRingWriter, ReadsTheProxysPositionOnlyWhenTheCachedCopySaysFull) {
  RingMemory memory(4);
  const std::span<std::byte> span = memory.span(4);
  const CommandRing ring = CommandRing::create(span, 4);
  std::uint64_t cached = 0;
  const RingView view{reinterpret_cast<std::uint64_t*>(span.data()), 4, &cached};
  EXPECT_TRUE(ring_has_room(view, 3));
  EXPECT_FALSE(ring_has_room(view, 4)) << "a lap ahead, and the proxy has taken nothing";
  EXPECT_EQ(cached, 0U);
  ring.publish(3);
  EXPECT_TRUE(ring_has_room(view, 6)) << "the copy said full: the proxy's word read";
  EXPECT_EQ(cached, 3U) << "and the copy raised to it";
  // The copy ahead of the ring's word (never so in use): believed, so the word was not read.
  cached = 5;
  EXPECT_TRUE(ring_has_room(view, 8));
  EXPECT_EQ(ring.consumed(), 3U);
  // A stale read never lowers the copy.
  EXPECT_FALSE(ring_has_room(view, 9));
  EXPECT_EQ(cached, 5U);
}

// The kernel's producer role played by CPU threads: each reserves positions
// from a shared counter (the kernel's counter in device memory), waits for
// room and writes; one proxy thread takes every command once, in ring
// order, from a ring much smaller than the commands, and each writer's
// commands come in the order it wrote them.
TEST(CudaRingWriter, ManyWritersOneProxyEveryCommandOnce) {
  constexpr std::uint32_t kEntries = 8;
  constexpr std::uint32_t kWriters = 4;
  constexpr std::uint64_t kEach = 2000;
  RingMemory memory(kEntries);
  const std::span<std::byte> span = memory.span(kEntries);
  const CommandRing ring = CommandRing::create(span, kEntries);
  std::uint64_t cached = 0;
  const RingView view{reinterpret_cast<std::uint64_t*>(span.data()), kEntries, &cached};
  std::atomic<std::uint64_t> reserved{0};
  std::vector<std::thread> writers;
  for (std::uint32_t w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      for (std::uint64_t k = 0; k < kEach; ++k) {
        const std::uint64_t pos = reserved.fetch_add(1);
        while (!ring_has_room(view, pos))
          std::this_thread::yield();
        // PE = the writer, offset = its sequence number.
        ring_write_put_signal(view, pos, w, k, 0x10000, 8, pos);
      }
    });
  const CommandLimits limits{kWriters, kEach + 8, 0x10000, 8};
  std::vector<std::uint64_t> next(kWriters, 0);
  std::uint64_t bad = 0;
  for (std::uint64_t pos = 0; pos < kWriters * kEach; ++pos) {
    while (!ring.ready(pos))
      std::this_thread::yield();
    const DecodedCommand d = decode_command(ring.read(pos), limits);
    if (!d.error.empty() || d.command.posted_ns != pos || d.command.offset != next[d.command.pe]++)
      ++bad;
    ring.publish(pos + 1);
  }
  for (std::thread& t : writers)
    t.join();
  EXPECT_EQ(bad, 0U);
  for (std::uint32_t w = 0; w < kWriters; ++w)
    EXPECT_EQ(next[w], kEach);
  EXPECT_EQ(ring.consumed(), kWriters * kEach);
}

}  // namespace
}  // namespace xover::runtime
