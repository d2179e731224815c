// xover tune's pieces as pure functions: the installed libraries' outputs
// read back (captured samples in tests/data/tune/), UCX's and ob1's cost
// lines on a hand-built path, and the settings worked out by hand from them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tools/tune/policy.hpp"
#include "tools/tune/report.hpp"
#include "tools/tune/settings.hpp"

namespace xover::tools::tune {
namespace {

using ::testing::HasSubstr;

std::string sample(const std::string& name) {
  std::ifstream in(std::string(XOVER_SOURCE_DIR) + "/tests/data/tune/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const Setting* find(const TuneResult& r, const std::string& name) {
  for (const Setting& s : r.settings)
    if (s.name == name)
      return &s;
  return nullptr;
}

TEST(TuneVersion, ReadsUcxInfoV) {
  EXPECT_EQ(parse_ucx_version(sample("ucx_info_v.txt")), (Version{1, 13, 1}));
  EXPECT_EQ(parse_ucx_version("# Version 1.16.0\n# Git branch 'v1.16.x'\n"), (Version{1, 16, 0}));
  EXPECT_EQ(parse_ucx_version("ucx_info: command not found\n"), std::nullopt);
}

TEST(TuneVersion, ReadsOmpiInfo) {
  EXPECT_EQ(parse_ompi_version(sample("ompi_version.txt")), (Version{4, 1, 4}));
  EXPECT_EQ(parse_ompi_version("                Package: Debian OpenMPI\n                Open MPI: 5.0.3\n"),
            (Version{5, 0, 3}));
  EXPECT_EQ(parse_ompi_version("no version here"), std::nullopt);
}

TEST(TuneVersion, DottedNumbers) {
  EXPECT_EQ(parse_version("4.1"), (Version{4, 1, 0}));
  EXPECT_EQ(parse_version("1.13.1"), (Version{1, 13, 1}));
  EXPECT_EQ(parse_version("1"), std::nullopt);
  EXPECT_EQ(parse_version("1.x"), std::nullopt);
  EXPECT_EQ(parse_version("1.2.3.4"), std::nullopt);
  EXPECT_EQ(parse_version(""), std::nullopt);
  EXPECT_TRUE((Version{1, 13, 1}).at_least(1, 13));
  EXPECT_FALSE((Version{1, 13, 1}).at_least(1, 14));
}

TEST(TuneInstalled, ReadsUcxConfig) {
  const auto config = parse_ucx_config(sample("ucx_info_c.txt"));
  EXPECT_EQ(config.at("UCX_RNDV_THRESH"), "auto");
  EXPECT_EQ(config.at("UCX_TCP_RX_SEG_SIZE"), "64K");
  EXPECT_EQ(config.at("UCX_POSIX_SEG_SIZE"), "8256");
  EXPECT_EQ(config.at("UCX_MAX_RNDV_RAILS"), "2");
  EXPECT_EQ(config.at("UCX_PROTO_ENABLE"), "n");
}

TEST(TuneInstalled, ReadsOmpiBtlParameters) {
  const auto params = parse_ompi_params(sample("ompi_btl.txt"));
  EXPECT_EQ(params.at("btl_tcp_eager_limit"), "65536");
  EXPECT_EQ(params.at("btl_tcp_rndv_eager_limit"), "65536");
  EXPECT_EQ(params.at("btl_tcp_max_send_size"), "131072");
  EXPECT_EQ(params.at("btl_vader_eager_limit"), "4096");
  EXPECT_EQ(params.at("btl_vader_flags"), "send,put,get,inplace,atomics,fetching-atomics");
  EXPECT_EQ(params.at("btl_openib_atomic_flags"), "add,compare-and-swap");  // informational
}

TEST(TuneInstalled, MemoryUnits) {
  EXPECT_EQ(parse_memunits("8256"), 8256U);
  EXPECT_EQ(parse_memunits("8K"), 8192U);
  EXPECT_EQ(parse_memunits("512kb"), 512U * 1024);
  EXPECT_EQ(parse_memunits("4M"), 4U << 20);
  EXPECT_EQ(parse_memunits("inf"), kSizeMax);
  EXPECT_EQ(parse_memunits("auto"), std::nullopt);
  EXPECT_EQ(parse_memunits("12parsecs"), std::nullopt);
}

TEST(TuneInstalled, LibraryNames) {
  EXPECT_EQ(library_named("ucx"), Library::Ucx);
  EXPECT_EQ(library_named("ompi"), Library::Ompi);
  EXPECT_EQ(library_named("mpich"), std::nullopt);
}

// A path worked out by hand. Lane `am`: L 1 us, 1 GB/s (1 ns/B), o_s = o_r
// = 1 us, no gap, a bcopy copies; lane `rma`: L 1 us, 4 GB/s (0.25 ns/B),
// o_s = o_r = 1 us; memcpy 10 GB/s (0.1 ns/B) at both ends.
Path hand_path() {
  Path p;
  p.from = "node0";
  p.to = "node1";
  LaneAttrs am;
  am.name = "am";
  am.latency = 1e-6;
  am.bandwidth = 1e9;
  am.o_send = am.o_recv = 1e-6;
  am.caps = {LaneCap::AmShort, LaneCap::AmBcopy, LaneCap::AmZcopy};
  LaneAttrs rma = am;
  rma.name = "rma";
  rma.bandwidth = 4e9;
  rma.caps = {LaneCap::GetZcopy, LaneCap::PutZcopy};
  p.lanes = {am, rma};
  p.memcpy_bw_local = p.memcpy_bw_remote = 10e9;
  return p;
}

Installed absent(Library library) {
  Installed i;
  i.library = library;
  i.absent_reason = "not installed";
  return i;
}

// UCX on rc_verbs (its 1.13 defaults: short 56, bcopy and zcopy 8248):
//   ucx/eager/zcopy     o_s + L + (8+n)/B + o_r + n/M_r = 3008 ns + 1.1 n
//   ucx/eager/bcopy     the same + n/M_s                = 3008 ns + 1.2 n
//   ucx/rndv/get_zcopy  RTS 3048 ns + get (1 + 2 + 1 us + 0.25 n) = 7048 ns + 0.25 n
//   rendezvous wins from (7048 − 3008) / (1.1 − 0.25) = 4752.9: 4753;
//   zcopy beats bcopy from the first size short cannot carry: 57.
TEST(TuneUcx, GoldenSettingsOnAHandBuiltPath) {
  const TuneResult r = tune_ucx(hand_path(), "verbs", absent(Library::Ucx));
  ASSERT_NE(find(r, "UCX_RNDV_THRESH"), nullptr);
  EXPECT_EQ(find(r, "UCX_RNDV_THRESH")->value, "4753");
  EXPECT_THAT(find(r, "UCX_RNDV_THRESH")->why, HasSubstr("ucx/rndv/get_zcopy drops below ucx/eager/zcopy"));
  ASSERT_NE(find(r, "UCX_ZCOPY_THRESH"), nullptr);
  EXPECT_EQ(find(r, "UCX_ZCOPY_THRESH")->value, "57");
  // get_zcopy is the cheapest scheme and the one UCX's auto runs: left alone.
  EXPECT_EQ(find(r, "UCX_RNDV_SCHEME"), nullptr);
  EXPECT_THAT(r.notes, ::testing::Contains(HasSubstr("UCX_RNDV_SCHEME: UCX's auto already runs get_zcopy")));
  EXPECT_EQ(find(r, "UCX_RNDV_THRESH")->library, std::nullopt);
  EXPECT_EQ(find(r, "UCX_PROTO_ENABLE"), nullptr);
  const LibLine* zcopy = cheapest(r.lines, 4000, Phase::Eager);
  ASSERT_NE(zcopy, nullptr);
  EXPECT_EQ(zcopy->name, "ucx/eager/zcopy");
  EXPECT_NEAR(*cost_at(*zcopy, 4000), 3008e-9 + 1.1e-9 * 4000, 1e-15);
  EXPECT_NEAR(*cost_at(*cheapest(r.lines, 4000, Phase::Rndv), 4000), 7048e-9 + 0.25e-9 * 4000, 1e-15);
}

// The installed UCX hands over at 8256: from 4753 to 8255 it runs eager
// where get_zcopy is cheaper; the worst ratio of the sizes sampled is at
// the top, 8255, past one zcopy segment (8248): fragments of S = 8248 with
// a 24-byte header, wire-bound, m* = 8272 ns / 8248; fill = o_s + 8272 ns +
// L + o_r + S/M_r = 12096.8 ns; T(8255) = 12096.8 + 7·8272/8248 ns, over
// get_zcopy's 7048 + 0.25·8255 ns: 1.328.
TEST(TuneUcx, SaysWhatTheLibrarysOwnHandOverCosts) {
  Installed i;
  i.library = Library::Ucx;
  i.present = true;
  i.version = Version{1, 13, 1};
  i.config = parse_ucx_config(sample("ucx_info_c.txt"));
  i.handover = parse_ucx_proto_info("#  tag_send: 0..<egr/short>..57..<egr/bcopy>..8256..<rndv>..(inf)\n", "");
  const TuneResult r = tune_ucx(hand_path(), "verbs", i);
  const Setting* rndv = find(r, "UCX_RNDV_THRESH");
  ASSERT_NE(rndv, nullptr);
  ASSERT_TRUE(rndv->cost);
  EXPECT_EQ(rndv->cost->from, 4753U);
  EXPECT_EQ(rndv->cost->to, 8255U);
  EXPECT_EQ(rndv->cost->worst_at, 8255U);
  EXPECT_NEAR(rndv->cost->worst_ratio, (12096.8 + 7 * 8272.0 / 8248) / (7048 + 0.25 * 8255), 1e-9);
  EXPECT_EQ(rndv->cost->library_protocol, "ucx/eager/zcopy/multi");
  EXPECT_EQ(rndv->cost->recommended_protocol, "ucx/rndv/get_zcopy");
  // 1.13 names its lanes settings RAILS; the path's one RMA lane is within its default.
  bool noted = false;
  for (const std::string& note : r.notes)
    noted = noted || note.starts_with("UCX_MAX_RNDV_RAILS");
  EXPECT_TRUE(noted);
  EXPECT_THAT(format_shell(r), HasSubstr("export UCX_RNDV_THRESH=4753\n"));
  EXPECT_THAT(format_shell(r), HasSubstr("worst 1.33x at 8255"));
}

/// The installed UCX 1.13.1 of the samples, handing over at `rndv` on tag_send.
Installed ucx_handing_over_at(Bytes rndv, const std::string& short_to = "57") {
  Installed i;
  i.library = Library::Ucx;
  i.present = true;
  i.version = Version{1, 13, 1};
  i.config = parse_ucx_config(sample("ucx_info_c.txt"));
  i.handover = parse_ucx_proto_info("#  tag_send: 0..<egr/short>.." + short_to + "..<egr/bcopy>.." +
                                        std::to_string(rndv) + "..<rndv>..(inf)\n",
                                    "");
  return i;
}

// A stream on the same path (rc_verbs), paced by its busiest resource:
//   eager zcopy  max(o_s 1000, o_r + n/M_r 1000 + 0.1 n, wire (8+n)/B) = 8 + n ns past 1103 B
//   get_zcopy    max(sender o_s + serve 2000, receiver o_r + post 2000, wire 48 + 0.25 n) = 2000 ns
//                up to 7808 B
// so a stream hands over from 1992 B (8 + n = 2000 there: a tie, which the
// floating-point sums break towards rendezvous), one message from 4753:
// between them a ping-pong is faster eager and a stream rendezvous.
TEST(TuneUcx, AStreamIsPricedByItsBusiestResource) {
  const TuneResult r = tune_ucx(hand_path(), "verbs", absent(Library::Ucx));
  const LibLine* get = cheapest(r.lines, 4000, Phase::Rndv);
  ASSERT_NE(get, nullptr);
  EXPECT_NEAR(*stream_cost_at(*get, 4000), 2000e-9, 1e-15);
  EXPECT_NEAR(*stream_cost_at(*get, 16000), 48e-9 + 0.25e-9 * 16000, 1e-15);
  const LibLine* zcopy = cheapest_if(r.lines, 4000, [](const LibLine& l) { return l.phase == Phase::Eager; },
                                     stream_cost_at);
  ASSERT_NE(zcopy, nullptr);
  EXPECT_NEAR(*stream_cost_at(*zcopy, 4000), 4008e-9, 1e-15);
  // Not installed: nothing to keep, the latency's crossing, and why says both.
  EXPECT_EQ(find(r, "UCX_RNDV_THRESH")->value, "4753");
  EXPECT_THAT(find(r, "UCX_RNDV_THRESH")->why, HasSubstr("in a stream of messages from 1992 B"));
  EXPECT_THAT(format_json(r), HasSubstr("\"stream\":[{\"from\":"));
}

// Where the library's own hand-over lies decides: below both crossings it
// moves up to the lower (1992: every size moved to eager is faster in both
// tests), above both down to the higher (4753), between them it stays.
TEST(TuneUcx, TheThresholdMakesNeitherTestSlower) {
  const TuneResult low_result = tune_ucx(hand_path(), "verbs", ucx_handing_over_at(1024));
  const Setting* low = find(low_result, "UCX_RNDV_THRESH");
  ASSERT_NE(low, nullptr);
  EXPECT_EQ(low->value, "1992");
  EXPECT_THAT(low->why, HasSubstr("the lowest, above the library's own 1024 B"));
  const TuneResult high_result = tune_ucx(hand_path(), "verbs", ucx_handing_over_at(8256));
  const Setting* high = find(high_result, "UCX_RNDV_THRESH");
  ASSERT_NE(high, nullptr);
  EXPECT_EQ(high->value, "4753");
  EXPECT_THAT(high->why, HasSubstr("the highest, below the library's own 8256 B"));
  const TuneResult between_result = tune_ucx(hand_path(), "verbs", ucx_handing_over_at(3000));
  const Setting* between = find(between_result, "UCX_RNDV_THRESH");
  ASSERT_NE(between, nullptr);
  EXPECT_EQ(between->value, "3000");
  EXPECT_THAT(between->why, HasSubstr("lies between them: any other threshold makes one test slower"));
}

// ob1 over openib (get and put, its 4.1 defaults): the RGET line is the
// rendezvous ob1 runs.
//   ob1/eager      o_s + n/M_s + L + (14+n)/B + o_r + n/M_r = 3014 ns + 1.2 n
//   ob1/rndv/rget  RGET 3040 ns + get 4000 ns + 0.25 n      = 7040 ns + 0.25 n
//   crossing at 4026 / 0.95 = 4237.9: rendezvous from 4238, eager_limit
//   4237 + 56 (ob1 compares with eager_limit less its largest header).
TEST(TuneOmpi, GoldenEagerLimitOnAHandBuiltPath) {
  const TuneResult r = tune_ompi(hand_path(), "verbs", absent(Library::Ompi));
  ASSERT_NE(find(r, "btl_openib_eager_limit"), nullptr);
  EXPECT_EQ(find(r, "btl_openib_eager_limit")->value, "4293");
  EXPECT_THAT(find(r, "btl_openib_eager_limit")->why, HasSubstr("ob1/rndv/rget drops below ob1/eager"));
  // RGET reads the whole message: phase 1 and the send pipeline are not run.
  EXPECT_EQ(find(r, "btl_openib_rndv_eager_limit"), nullptr);
  EXPECT_EQ(find(r, "btl_openib_max_send_size"), nullptr);
  ASSERT_EQ(r.notes.size(), 1U);
  EXPECT_THAT(r.notes[0], HasSubstr("RGET"));
  // Open MPI's own 12288: eager from 4238 to 12232 where RGET is cheaper.
  const Setting& e = *find(r, "btl_openib_eager_limit");
  ASSERT_TRUE(e.cost);
  EXPECT_EQ(e.cost->from, 4238U);
  EXPECT_EQ(e.cost->to, 12232U);
  EXPECT_GT(e.cost->worst_ratio, 1.5);
  EXPECT_THAT(format_shell(r), HasSubstr("export OMPI_MCA_btl_openib_eager_limit=4293\n"));
}

// ob1 over tcp (send and put, no get, no registration): past the eager
// limit every contiguous message takes the put protocol, whatever
// min_rdma_pipeline_size says; the tcp BTL sends eager from the user's
// buffer (no copy in).
//   ob1/eager     o_s + L + (14+n)/B + o_r + n/M_r           = 3014 ns + 1.1 n
//   ob1/rndv/put  RNDV 3040 + PUT request 3056 + write 3000 + 0.25 n
//                 + FIN behind it o_s + o_r + 24/B 2024       = 11120 ns + 0.25 n
//   crossing at 8106 / 0.85 = 9536.5: rendezvous from 9537, eager_limit
//   9536 + 56 = 9592.
TEST(TuneOmpi, GoldenTcpEagerLimitAgainstThePutProtocol) {
  const TuneResult r = tune_ompi(hand_path(), "tcp", absent(Library::Ompi));
  const LibLine* eager = cheapest(r.lines, 9000, Phase::Eager);
  const LibLine* put = cheapest(r.lines, 9000, Phase::Rndv);
  ASSERT_NE(eager, nullptr);
  ASSERT_NE(put, nullptr);
  EXPECT_EQ(put->name, "ob1/rndv/put");
  EXPECT_NEAR(*cost_at(*eager, 9000), 3014e-9 + 1.1e-9 * 9000, 1e-15);
  EXPECT_NEAR(*cost_at(*put, 9000), 11120e-9 + 0.25e-9 * 9000, 1e-15);
  EXPECT_NEAR(*cost_at(*put, 1), 11120e-9 + 0.25e-9, 1e-15);
  for (const LibLine& l : r.lines)
    EXPECT_TRUE(l.name == "ob1/eager" || l.name == "ob1/rndv/put") << l.name;
  ASSERT_NE(find(r, "btl_tcp_eager_limit"), nullptr);
  EXPECT_EQ(find(r, "btl_tcp_eager_limit")->value, "9592");
  EXPECT_THAT(find(r, "btl_tcp_eager_limit")->why, HasSubstr("ob1/rndv/put drops below ob1/eager from 9537"));
  // Phase 1 and the send pipeline are not run: their parameters left alone.
  EXPECT_EQ(find(r, "btl_tcp_rndv_eager_limit"), nullptr);
  EXPECT_EQ(find(r, "btl_tcp_max_send_size"), nullptr);
  ASSERT_EQ(r.notes.size(), 1U);
  EXPECT_THAT(r.notes[0], HasSubstr("put protocol (the BTL registers no memory"));
  // Open MPI's own 65536: eager from 9537 to 65480 where the put is cheaper.
  const Setting& e = *find(r, "btl_tcp_eager_limit");
  ASSERT_TRUE(e.cost);
  EXPECT_EQ(e.cost->from, 9537U);
  EXPECT_EQ(e.cost->to, 65480U);
}

TEST(TuneErrors, APathWithoutActiveMessagesIsRefused) {
  Path p = hand_path();
  p.lanes.erase(p.lanes.begin());
  EXPECT_THROW(tune_ucx(p, "verbs", absent(Library::Ucx)), PathError);
  EXPECT_THROW(tune_ompi(p, "verbs", absent(Library::Ompi)), PathError);
  EXPECT_THROW(ucx_limits("sim", absent(Library::Ucx)), std::invalid_argument);
}

// A read that costs more than a write: put_zcopy is cheapest, auto would
// still read; the scheme is set, with what auto's read costs.
TEST(TuneUcx, SetsTheSchemeWhereAutoRunsAnotherOne) {
  Path p = hand_path();
  p.lanes[1].latency = 20e-6;  // a read waits 2L, a write L
  const TuneResult r = tune_ucx(p, "verbs", absent(Library::Ucx));
  const Setting* scheme = find(r, "UCX_RNDV_SCHEME");
  ASSERT_NE(scheme, nullptr);
  EXPECT_EQ(scheme->value, "put_zcopy");
  ASSERT_TRUE(scheme->cost);
  EXPECT_EQ(scheme->cost->library_protocol, "ucx/rndv/get_zcopy");
  EXPECT_GT(scheme->cost->worst_ratio, 1);
}

// The library's own probes on the hand-built path, UCX over posix,cma (no AM
// zcopy): its bcopy measured 2000 ns + 0.5 ns/B above the platform's line
// (3008 ns + 1.2 n), its get_zcopy 1000 ns above (7048 ns + 0.25 n):
//   eager 5008 ns + 1.7 n, rendezvous 8048 ns + 0.25 n, crossing at
//   3040 / 1.45 = 2096.55: 2097 (the platform's lines alone cross at
//   4040 / 0.95 = 4252.6: 4253). The lines no probe measured are left out.
constexpr const char* kHandProbes =
    "# measured\n"
    "library ucx\n"
    "backend shm\n"
    "ucx/eager/bcopy 1000 6708e-9\n"
    "ucx/eager/bcopy 5000 13508e-9  # two sizes: a line\n"
    "ucx/rndv/get_zcopy 1000 8298e-9\n"
    "ucx/rndv/get_zcopy 5000 9298e-9\n";

TEST(TuneProbes, TheLibrarysOwnTimesMoveTheThreshold) {
  EXPECT_EQ(find(tune_ucx(hand_path(), "shm", absent(Library::Ucx)), "UCX_RNDV_THRESH")->value, "4253");
  const Probes probes = parse_probes(kHandProbes, "probes.txt");
  const TuneResult r = tune_ucx(hand_path(), "shm", absent(Library::Ucx), &probes);
  ASSERT_NE(find(r, "UCX_RNDV_THRESH"), nullptr);
  EXPECT_EQ(find(r, "UCX_RNDV_THRESH")->value, "2097");
  EXPECT_THAT(find(r, "UCX_RNDV_THRESH")->why, HasSubstr("ucx/rndv/get_zcopy drops below ucx/eager/bcopy"));
  const LibLine* bcopy = cheapest(r.lines, 1000, Phase::Eager);
  ASSERT_NE(bcopy, nullptr);
  ASSERT_TRUE(bcopy->measured);
  EXPECT_NEAR(bcopy->measured->c, 2000e-9, 1e-15);
  EXPECT_NEAR(bcopy->measured->m, 0.5e-9, 1e-18);
  EXPECT_NEAR(*cost_at(*bcopy, 3000), 5008e-9 + 1.7e-9 * 3000, 1e-15);
  EXPECT_NEAR(*cost_at(*cheapest(r.lines, 3000, Phase::Rndv), 3000), 8048e-9 + 0.25e-9 * 3000, 1e-15);
  EXPECT_THAT(r.notes, ::testing::Contains(HasSubstr("ucx/rndv/put_zcopy: left out, no probe of probes.txt")));
  EXPECT_THAT(r.notes, ::testing::Contains(HasSubstr("ucx/eager/short: left out")));
  EXPECT_THAT(format_json(r), HasSubstr("\"measured\":{\"c\":"));
}

// One probe per line: a constant. ob1 over openib: eager 3014 ns + 1.2 n
// with 1000 ns more, RGET 7040 ns + 0.25 n with 3000 ns more: crossing at
// 6026 / 0.95 = 6343.2, rendezvous from 6344, eager_limit 6344 - 1 + 56.
TEST(TuneProbes, OneProbeALineAddsAConstant) {
  const Probes probes = parse_probes("library ompi\nbackend verbs\nob1/eager 2000 6414e-9\n"
                                     "ob1/rndv/rget 2000 10540e-9\n",
                                     "ob1.txt");
  const TuneResult r = tune_ompi(hand_path(), "verbs", absent(Library::Ompi), &probes);
  ASSERT_NE(find(r, "btl_openib_eager_limit"), nullptr);
  EXPECT_EQ(find(r, "btl_openib_eager_limit")->value, "6399");
  // The probes measured ob1's rendezvous with its own phase 1 and fragment.
  EXPECT_EQ(find(r, "btl_openib_max_send_size"), nullptr);
  EXPECT_THAT(r.notes, ::testing::Contains(HasSubstr("the probes measured ob1's rendezvous with the installed values")));
}

// The stream probes on the hand-built posix,cma path: bcopy's stream 500 ns
// above the platform's (8 + n ns), get_zcopy's 1000 ns above (2000 ns): a
// stream hands over where 508 + n > 3000, from 2493 B; one message from
// 2097 (above). UCX's own 8256 lies above both: the highest, 2493.
TEST(TuneProbes, StreamProbesMoveTheStreamsCrossing) {
  const std::string text = std::string(kHandProbes) +
                           "stream ucx/eager/bcopy 2000 2508e-9\n"
                           "stream ucx/eager/bcopy 4000 4508e-9\n"
                           "stream ucx/rndv/get_zcopy 2000 3000e-9\n"
                           "stream ucx/rndv/get_zcopy 4000 3000e-9\n";
  const Probes probes = parse_probes(text, "probes.txt");
  ASSERT_EQ(probes.points.size(), 8U);
  EXPECT_TRUE(probes.points.back().stream);
  const TuneResult r = tune_ucx(hand_path(), "shm", ucx_handing_over_at(8256, "93"), &probes);
  const Setting* rndv = find(r, "UCX_RNDV_THRESH");
  ASSERT_NE(rndv, nullptr);
  EXPECT_EQ(rndv->value, "2493");
  EXPECT_THAT(rndv->why, HasSubstr("from 2097 B on in one message's latency, in a stream of messages from 2493 B"));
  const LibLine* get = cheapest(r.lines, 3000, Phase::Rndv);
  ASSERT_NE(get, nullptr);
  ASSERT_TRUE(get->stream_measured);
  EXPECT_NEAR(get->stream_measured->c, 1000e-9, 1e-15);
  EXPECT_NEAR(*stream_cost_at(*get, 3000), 3000e-9, 1e-15);

  // Latency probes alone: streams are not priced, one message decides.
  const Probes latency = parse_probes(kHandProbes, "probes.txt");
  const TuneResult alone = tune_ucx(hand_path(), "shm", ucx_handing_over_at(8256, "93"), &latency);
  EXPECT_EQ(find(alone, "UCX_RNDV_THRESH")->value, "2097");
  EXPECT_THAT(alone.notes, ::testing::Contains(HasSubstr("streams: probes.txt has no stream times")));
  // A stream probe of one line only: the same, saying which line lacks one.
  const Probes partial = parse_probes(std::string(kHandProbes) + "stream ucx/eager/bcopy 2000 2508e-9\n", "p.txt");
  const TuneResult half = tune_ucx(hand_path(), "shm", absent(Library::Ucx), &partial);
  EXPECT_EQ(find(half, "UCX_RNDV_THRESH")->value, "2097");
  EXPECT_THAT(half.notes, ::testing::Contains(HasSubstr("streams: no stream probe of ucx/rndv/get_zcopy in p.txt")));
}

// Two machine states: bcopy's slow probes 2000 ns above its ordinary ones
// (residual 4000 ns + 0.5 ns/B: 7008 ns + 1.7 n), get_zcopy alike in both
// (8048 ns + 0.25 n): the slow state hands over from 1040 / 1.45 = 717.2,
// 718 B; the ordinary one from 2097. UCX's own 1024 lies between: kept;
// 512 lies below both: up to the lowest, 718.
TEST(TuneProbes, SlowProbesPriceTheMachinesSlowState) {
  const std::string text = std::string(kHandProbes) +
                           "slow ucx/eager/bcopy 1000 8708e-9\n"
                           "slow ucx/eager/bcopy 5000 15508e-9\n";
  const Probes probes = parse_probes(text, "probes.txt");
  EXPECT_TRUE(probes.points.back().slow);
  const TuneResult kept = tune_ucx(hand_path(), "shm", ucx_handing_over_at(1024, "93"), &probes);
  const Setting* rndv = find(kept, "UCX_RNDV_THRESH");
  ASSERT_NE(rndv, nullptr);
  EXPECT_EQ(rndv->value, "1024");
  EXPECT_THAT(rndv->why, HasSubstr("from 2097 B on in one message's latency, in the machine's slow state from 718 B"));
  EXPECT_THAT(rndv->why, HasSubstr("the library's own 1024 B lies between them"));
  const LibLine* bcopy = cheapest(kept.lines, 1000, Phase::Eager);
  ASSERT_NE(bcopy, nullptr);
  EXPECT_NEAR(*slow_cost_at(*bcopy, 1000), 8708e-9, 1e-15);
  EXPECT_NEAR(*cost_at(*bcopy, 1000), 6708e-9, 1e-15);
  const LibLine* get = cheapest(kept.lines, 1000, Phase::Rndv);
  EXPECT_NEAR(*slow_cost_at(*get, 1000), *cost_at(*get, 1000), 1e-15);
  EXPECT_THAT(kept.notes, ::testing::Contains(HasSubstr("two machine states: 1 line(s) with slow probes")));
  EXPECT_THAT(format_json(kept), HasSubstr("\"slow\":[{\"from\":"));
  EXPECT_EQ(find(tune_ucx(hand_path(), "shm", ucx_handing_over_at(512, "93"), &probes), "UCX_RNDV_THRESH")->value,
            "718");

  const Probes orphan = parse_probes(std::string(kHandProbes) + "slow ucx/rndv/am 1000 1e-5\n", "o.txt");
  try {
    tune_ucx(hand_path(), "shm", absent(Library::Ucx), &orphan);
    ADD_FAILURE() << "no error";
  } catch (const ProbeError& e) {
    EXPECT_STREQ(e.what(), "o.txt: slow probes of ucx/rndv/am, which no ordinary probe measured");
  }
}

TEST(TuneProbes, BadInputNamesTheFileAndLine) {
  auto error = [](const std::string& text) {
    try {
      parse_probes(text, "p.txt");
    } catch (const ProbeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("library ucx\nbackend shm\nucx/eager/bcopy 1k 1e-6\n"),
            "p.txt:3: size '1k' is not a positive whole number of bytes");
  EXPECT_EQ(error("library ucx\nbackend shm\nucx/eager/bcopy 1000 -1e-6\n"),
            "p.txt:3: time '-1e-6' is not a positive number of seconds");
  EXPECT_EQ(error("library ucx\n\nucx/eager/bcopy 1000\n"),
            "p.txt:3: expected 'library NAME', 'backend NAME', '[stream|slow] PROTOCOL SIZE SECONDS', got "
            "'ucx/eager/bcopy 1000'");
  EXPECT_EQ(error("library ucx\nbackend shm\nstream ucx/eager/bcopy 1000\n"),
            "p.txt:3: expected 'library NAME', 'backend NAME', '[stream|slow] PROTOCOL SIZE SECONDS', got "
            "'stream ucx/eager/bcopy 1000'");
  EXPECT_EQ(error("library ucx\nbackend shm\nslow stream ucx/eager/bcopy 1000 1e-6\n"),
            "p.txt:3: expected 'library NAME', 'backend NAME', '[stream|slow] PROTOCOL SIZE SECONDS', got "
            "'slow stream ucx/eager/bcopy 1000 1e-6'");
  EXPECT_EQ(error("library ucx\nbackend shm\nstream ucx/eager/bcopy 1000 0\n"),
            "p.txt:3: time '0' is not a positive number of seconds");
  EXPECT_EQ(error("library ucx\nucx/eager/bcopy 1000 1e-6\n"),
            "p.txt: no 'backend' line: which library and path the probes measured");
  EXPECT_THROW(load_probes("/nonexistent/probes.txt"), ProbeError);

  auto applied = [](const std::string& text, const std::string& backend) {
    const Probes p = parse_probes(text, "p.txt");
    try {
      tune_ucx(hand_path(), backend, absent(Library::Ucx), &p);
    } catch (const ProbeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(applied(kHandProbes, "tcp"), "p.txt:3: probes of the shm path, not of tcp");
  EXPECT_EQ(applied("backend shm\nlibrary ompi\nob1/eager 10 1e-6\n", "shm"), "p.txt:2: probes of 'ompi', not of ucx");
  EXPECT_THAT(applied("library ucx\nbackend shm\nucx/eager/zcopy 1000 1e-6\n", "shm"),
              HasSubstr("p.txt:3: no protocol 'ucx/eager/zcopy' among ucx's on shm (ucx/eager/short, "));
  EXPECT_EQ(applied("library ucx\nbackend shm\nucx/eager/bcopy 9000 1e-6\n", "shm"),
            "p.txt:3: ucx/eager/bcopy does not carry 9000 B");
  EXPECT_EQ(applied("library ucx\nbackend shm\nucx/eager/bcopy 1000 1e-6\n", "shm"),
            "p.txt: no probe of ucx's rendezvous protocols: the hand-over needs both");
  // ob1's threshold is priced in one state: a slow probe of it is refused.
  const Probes ob1_slow = parse_probes("library ompi\nbackend verbs\nob1/eager 2000 6414e-9\nob1/rndv/rget 2000 1e-5\n"
                                       "slow ob1/eager 2000 1e-5\n",
                                       "s.txt");
  try {
    tune_ompi(hand_path(), "verbs", absent(Library::Ompi), &ob1_slow);
    ADD_FAILURE() << "no error";
  } catch (const ProbeError& e) {
    EXPECT_STREQ(e.what(), "s.txt:5: a slow state is priced for UCX's threshold only, not ompi's");
  }
  // ob1's lines price one message only: a stream probe of one is refused.
  const Probes ob1 = parse_probes("library ompi\nbackend verbs\nob1/eager 2000 6414e-9\nob1/rndv/rget 2000 1e-5\n"
                                  "stream ob1/eager 2000 1e-6\n",
                                  "o.txt");
  try {
    tune_ompi(hand_path(), "verbs", absent(Library::Ompi), &ob1);
    ADD_FAILURE() << "no error";
  } catch (const ProbeError& e) {
    EXPECT_STREQ(e.what(), "o.txt:5: ob1/eager is not priced for streams");
  }
}

}  // namespace
}  // namespace xover::tools::tune
