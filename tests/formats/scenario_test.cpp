// The scenario file format: every field read, every default, every size form
// and workload kind, one test per bad input with its file:line, the fixtures
// under tests/data/scenarios/, and the schema (scenarios/scenario.xsd) against
// the same fixtures.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "formats/scenario_xml.hpp"
#include "protocols/workload/alltoall.hpp"
#include "protocols/workload/pingpong.hpp"
#include "protocols/workload/stream.hpp"
#include "protocols/workload/unexpected.hpp"
#include "protocols/workload/workloads.hpp"
#include "tests/support/run.hpp"

namespace xover {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kSourceDir = XOVER_SOURCE_DIR;
const std::string kFixtures = kSourceDir + "/tests/data/scenarios";
const std::string kPlatformElement = R"(<platform file="../../../platforms/hdr-2rail.xml"/>)";
const std::string kPingPong = R"(<workload kind="pingpong"/>)";
const std::string kSizes = R"(<sizes list="8 64"/>)";

/// A scenario text, one item per line: line 1 is the XML declaration, line 2
/// `open`, then `body`, then </scenario>. Line numbers in tests count from here.
std::string scenario(std::initializer_list<std::string> body, const std::string& open = R"(<scenario name="t">)") {
  std::string text = "<?xml version=\"1.0\"?>\n" + open + "\n";
  for (const std::string& line : body)
    text += line + "\n";
  return text + "</scenario>\n";
}

/// The usual platform and size lines around a <workload> (line 4).
std::string with_workload(const std::string& workload) {
  return scenario({kPlatformElement, workload, kSizes});
}

/// The usual first three elements and `extra` (from line 6 on).
std::string with(std::initializer_list<std::string> extra) {
  std::vector<std::string> lines{kPlatformElement, kPingPong, kSizes};
  lines.insert(lines.end(), extra.begin(), extra.end());
  std::string text = "<?xml version=\"1.0\"?>\n<scenario name=\"t\">\n";
  for (const std::string& line : lines)
    text += line + "\n";
  return text + "</scenario>\n";
}

Scenario parse(const std::string& text) {
  return parse_scenario(text, "t.xml", kFixtures);
}

/// The message a bad text gets, or a failure when it is accepted.
std::string error(const std::string& text) {
  try {
    parse(text);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return "";
}

std::string load_error(const std::string& file) {
  try {
    load_scenario(file);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << file;
  return "";
}

/// Runs the rest of a scope in `dir`, then goes back.
class InDirectory {
 public:
  explicit InDirectory(const fs::path& dir) : old_(fs::current_path()) { fs::current_path(dir); }
  ~InDirectory() { fs::current_path(old_); }
  InDirectory(const InDirectory&) = delete;
  InDirectory& operator=(const InDirectory&) = delete;

 private:
  fs::path old_;
};

std::vector<std::string> fixtures(bool valid) {
  std::vector<std::string> out;
  for (const fs::directory_entry& entry : fs::directory_iterator(kFixtures))
    if (entry.path().extension() == ".xml" && entry.path().filename().string().starts_with("bad_") != valid)
      out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ScenarioRead, FullFileIntoEveryField) {
  const std::string file = kFixtures + "/full.xml";
  const Scenario s = load_scenario(file);
  EXPECT_EQ(s.name, "eager-vs-rndv");
  EXPECT_EQ(s.description, "Eager against rendezvous on two HDR rails.");
  EXPECT_EQ(s.file, file);
  EXPECT_EQ(s.platform, fs::path(kSourceDir + "/platforms/hdr-2rail.xml").lexically_normal().string());
  EXPECT_EQ(s.platform_line, 9);
  EXPECT_EQ(s.from, "node0");
  EXPECT_EQ(s.to, "node1");
  EXPECT_EQ(s.workload, &pingpong_workload);
  EXPECT_EQ(s.iterations, 50u);
  EXPECT_EQ(s.warmup, 5u);
  EXPECT_FALSE(s.settings.has_value()) << "a ping-pong takes no settings of its own";
  std::vector<Bytes> sizes;
  for (Bytes n = 8; n <= 4 * 1024 * 1024; n *= 2)
    sizes.push_back(n);
  EXPECT_EQ(s.sizes, sizes);
  EXPECT_EQ(s.curves, (std::vector<std::string>{"auto", "eager/zcopy", "rndv/get"}));
  EXPECT_FALSE(s.select.reg_cache);
  EXPECT_EQ(s.select.lanes.max_rndv_lanes, 1u);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_FALSE(s.phantom);
}

TEST(ScenarioRead, Defaults) {
  const Scenario s = parse(scenario({kPlatformElement, kPingPong, kSizes}));
  const SelectConfig plain;
  EXPECT_EQ(s.description, "");
  EXPECT_EQ(s.file, "t.xml");
  EXPECT_EQ(s.platform_line, 3);
  EXPECT_EQ(s.from, "");
  EXPECT_EQ(s.to, "");
  EXPECT_EQ(s.iterations, 100u);
  EXPECT_EQ(s.warmup, 10u);
  EXPECT_EQ(s.curves, std::vector<std::string>{"auto"});
  EXPECT_EQ(s.seed, 1u);
  EXPECT_FALSE(s.phantom);
  EXPECT_EQ(s.select.reg_cache, plain.reg_cache);
  EXPECT_EQ(s.select.forced, plain.forced);
  EXPECT_EQ(s.select.lanes.max_rndv_lanes, plain.lanes.max_rndv_lanes);
}

TEST(ScenarioRead, SizesByFactor) {
  EXPECT_EQ(parse(scenario({kPlatformElement, kPingPong, R"(<sizes from="1KiB" to="16KiB" factor="4"/>)"})).sizes,
            (std::vector<Bytes>{1024, 4096, 16384}));
  // No factor: 2. `to` is kept only when the sequence reaches it.
  EXPECT_EQ(parse(scenario({kPlatformElement, kPingPong, R"(<sizes from="8" to="100"/>)"})).sizes,
            (std::vector<Bytes>{8, 16, 32, 64}));
  EXPECT_EQ(parse(scenario({kPlatformElement, kPingPong, R"(<sizes from="1MB" to="1MB"/>)"})).sizes,
            (std::vector<Bytes>{1000000}));
}

TEST(ScenarioRead, SizesByFractionalFactorAreRoundedAndDeduplicated) {
  // 8·1.5^k = 8, 12, 18, 27, 40.5, 60.75, 91.1...
  EXPECT_EQ(parse(scenario({kPlatformElement, kPingPong, R"(<sizes from="8" to="64" factor="1.5"/>)"})).sizes,
            (std::vector<Bytes>{8, 12, 18, 27, 41, 61}));
  // 1.1^k rounds to 1 five times, then 2, 3, 4.
  EXPECT_EQ(geometric_sizes(1, 4, 1.1), (std::vector<Bytes>{1, 2, 3, 4}));
  // A factor this close to 1 takes a million steps per size at the start:
  // the sweep skips them and still gives every whole size.
  std::vector<Bytes> all(5000);
  std::iota(all.begin(), all.end(), Bytes{1});
  EXPECT_EQ(geometric_sizes(1, 5000, 1.000001), all);
  EXPECT_EQ(geometric_sizes(1, kSizeMax - 1, 2).size(), 64u);
  EXPECT_THROW(geometric_sizes(1, Bytes{1} << 40, 1.0001), std::invalid_argument);
}

TEST(ScenarioRead, SizesByListWithUnits) {
  EXPECT_EQ(parse(scenario({kPlatformElement, kPingPong, R"(<sizes list="0, 8 64,4KiB   10kB,,1MiB"/>)"})).sizes,
            (std::vector<Bytes>{0, 8, 64, 4096, 10000, 1048576}));
  EXPECT_EQ(parse(scenario({kPlatformElement, kPingPong, R"(<sizes list="1.5KiB"/>)"})).sizes,
            (std::vector<Bytes>{1536}));
}

TEST(ScenarioRead, EachWorkloadKindAndItsAttributes) {
  Scenario s = parse(with_workload(R"(<workload kind="stream"/>)"));
  EXPECT_EQ(s.workload, &stream_workload);
  EXPECT_EQ(workload_settings<StreamSettings>(s).window, 16u);
  s = parse(with_workload(R"(<workload kind="stream" window="4" iterations="1" warmup="0"/>)"));
  EXPECT_EQ(workload_settings<StreamSettings>(s).window, 4u);
  EXPECT_EQ(s.iterations, 1u);
  EXPECT_EQ(s.warmup, 0u);

  s = parse(with_workload(R"(<workload kind="unexpected"/>)"));
  EXPECT_EQ(s.workload, &unexpected_workload);
  const auto delay = [](const Scenario& read) { return workload_settings<UnexpectedSettings>(read).delay; };
  EXPECT_DOUBLE_EQ(delay(s), 10e-6);
  EXPECT_DOUBLE_EQ(delay(parse(with_workload(R"(<workload kind="unexpected" delay="20us"/>)"))), 20e-6);
  EXPECT_DOUBLE_EQ(delay(parse(with_workload(R"(<workload kind="unexpected" delay="0"/>)"))), 0.0);

  s = parse(with_workload(R"(<workload kind="pairs"/>)"));
  EXPECT_EQ(s.workload, &pairs_workload);
  EXPECT_EQ(workload_settings<PairsSettings>(s).pairs, 2u);
  EXPECT_EQ(workload_settings<PairsSettings>(parse(with_workload(R"(<workload kind="pairs" pairs="8"/>)"))).pairs, 8u);

  s = parse(with_workload(R"(<workload kind="alltoall" pes="64"/>)"));
  EXPECT_EQ(s.workload, &alltoall_workload);
  const auto alltoall = [](const Scenario& read) { return workload_settings<AlltoallSettings>(read); };
  EXPECT_EQ(alltoall(s).pes, 64u);
  EXPECT_EQ(alltoall(s).threads, std::nullopt);
  EXPECT_EQ(alltoall(s).batch, 0u);
  s = parse(with_workload(R"(<workload kind="alltoall" pes="8" threads="32" batch="4"/>)"));
  EXPECT_EQ(alltoall(s).threads, 32u);
  EXPECT_EQ(alltoall(s).batch, 4u);
  EXPECT_EQ(alltoall(parse(with_workload(R"(<workload kind="alltoall" pes="8" batch="auto"/>)"))).batch, 0u);
  // Each workload's settings are its own: another's cannot be read as them.
  EXPECT_THROW(workload_settings<StreamSettings>(s), std::bad_any_cast);

  for (const Workload* workload : workload_registry())
    EXPECT_EQ(find_workload(workload->name), workload);
  EXPECT_EQ(find_workload("allreduce"), nullptr);
}

TEST(ScenarioRead, OtherElements) {
  const Scenario s = parse(scenario(
      {"<!-- comments go anywhere -->", R"(<payload mode="phantom"/>)", "<curves>", "  eager/multi", "  auto",
       "</curves>",
       R"(<select proto="eager,rndv/get" perf="streaming" eager_limit="inf"/>)", kSizes, kPingPong,
       R"(<platform file="../../../platforms/hdr-2rail.xml" from="node1" to="node0"/>)",
       "<description>a &amp; b <!-- c --> d</description>"},
      R"(<scenario seed="18446744073709551615" name="A.b_c-9">)"));
  EXPECT_EQ(s.name, "A.b_c-9");
  EXPECT_EQ(s.seed, 18446744073709551615u);
  EXPECT_TRUE(s.phantom);
  EXPECT_EQ(s.curves, (std::vector<std::string>{"eager/multi", "auto"}));
  EXPECT_EQ(s.select.forced, (std::vector<std::string>{"eager", "rndv/get"}));
  EXPECT_EQ(s.select.perf, PerfType::Streaming);
  EXPECT_EQ(s.select.eager_limit, kSizeMax);
  EXPECT_EQ(s.from, "node1");
  EXPECT_EQ(s.platform_line, 12);
  EXPECT_EQ(s.description, "a & b d");
}

// One test per kind of bad input: the exact file:line and the words that say what is wrong.

TEST(ScenarioErrors, MalformedXml) {
  EXPECT_THAT(error(scenario({kPlatformElement, R"(<workload kind="pingpong"></sizes>)", kSizes})),
              AllOf(StartsWith("t.xml:4: malformed XML: "), HasSubstr("mismatch")));
  EXPECT_THAT(error("<?xml version=\"1.0\"?>\n"), StartsWith("t.xml:2: malformed XML: No document element"));
}

TEST(ScenarioErrors, RootIsNotScenario) {
  EXPECT_THAT(error("<?xml version=\"1.0\"?>\n\n<platform name=\"t\"/>\n"),
              AllOf(StartsWith("t.xml:3: "), HasSubstr("root element is <platform>"), HasSubstr("<scenario>")));
}

TEST(ScenarioErrors, UnknownElement) {
  EXPECT_THAT(error(with({R"(<sizez list="8"/>)"})),
              AllOf(StartsWith("t.xml:6: unknown element <sizez> in <scenario>"),
                    HasSubstr("allowed: description, platform, workload, sizes, curves, select, payload")));
  EXPECT_THAT(error(with({"<description>a <b>bold</b></description>"})),
              StartsWith("t.xml:6: unknown element <b> in <description> (it holds only text)"));
  EXPECT_THAT(error(with({R"(<payload mode="verify"><x/></payload>)"})),
              StartsWith("t.xml:6: unknown element <x> in <payload> (it holds nothing)"));
}

TEST(ScenarioErrors, UnknownAttribute) {
  EXPECT_THAT(error(scenario({R"(<platform file="../../../platforms/hdr-2rail.xml" host="a"/>)", kPingPong, kSizes})),
              StartsWith("t.xml:3: unknown attribute 'host' on <platform> (allowed: file, from, to)"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="pingpong" iters="5"/>)")),
              AllOf(StartsWith("t.xml:4: unknown attribute 'iters' on <workload>"), HasSubstr("iterations")));
  EXPECT_THAT(error(with({R"(<curves all="yes">auto</curves>)"})),
              StartsWith("t.xml:6: unknown attribute 'all' on <curves> (it takes none)"));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, kSizes}, R"(<scenario name="t" version="2">)")),
              AllOf(StartsWith("t.xml:2: unknown attribute 'version' on <scenario>"), HasSubstr("name, seed")));
}

TEST(ScenarioErrors, DuplicateOrEmptyAttribute) {
  EXPECT_THAT(error(with_workload(R"(<workload kind="pingpong" warmup="1" warmup="2"/>)")),
              StartsWith("t.xml:4: duplicate attribute 'warmup' on <workload>"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="pingpong" warmup=""/>)")),
              StartsWith("t.xml:4: empty attribute 'warmup' on <workload>"));
}

TEST(ScenarioErrors, MissingElement) {
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong})),
              StartsWith("t.xml:2: <scenario> has no <sizes> (required: platform, workload, sizes)"));
  EXPECT_THAT(error(scenario({kPingPong, kSizes})), StartsWith("t.xml:2: <scenario> has no <platform>"));
  EXPECT_THAT(error(scenario({kPlatformElement, kSizes})), StartsWith("t.xml:2: <scenario> has no <workload>"));
}

TEST(ScenarioErrors, MissingAttribute) {
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, kSizes}, "<scenario seed=\"3\">")),
              StartsWith("t.xml:2: <scenario> needs a 'name' attribute"));
  EXPECT_THAT(error(scenario({"<platform/>", kPingPong, kSizes})),
              StartsWith("t.xml:3: <platform> needs a 'file' attribute"));
  EXPECT_THAT(error(with_workload("<workload iterations=\"3\"/>")),
              StartsWith("t.xml:4: <workload> needs a 'kind' attribute"));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, "<sizes/>"})),
              StartsWith("t.xml:5: <sizes> needs either 'list' or 'from' and 'to'"));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes from="8" factor="2"/>)"})),
              StartsWith("t.xml:5: <sizes> needs a 'to' attribute"));
  EXPECT_THAT(error(scenario({R"(<platform file="../../../platforms/hdr-2rail.xml" from="node0"/>)", kPingPong,
                              kSizes})),
              StartsWith("t.xml:3: <platform> needs both 'from' and 'to', or neither"));
}

TEST(ScenarioErrors, DuplicateElement) {
  EXPECT_THAT(error(with({R"(<workload kind="stream"/>)"})),
              StartsWith("t.xml:6: duplicate <workload> (the first is at line 4)"));
}

TEST(ScenarioErrors, BadUnitOrNumber) {
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes from="8" to="4XiB"/>)"})),
              AllOf(StartsWith("t.xml:5: bad to=\"4XiB\" on <sizes>: "), HasSubstr("unknown size unit 'XiB'")));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes list="8 1.5B"/>)"})),
              AllOf(StartsWith("t.xml:5: bad list=\"1.5B\" on <sizes>: "), HasSubstr("whole number of bytes")));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes from="8" to="inf"/>)"})),
              StartsWith("t.xml:5: bad to=\"inf\" on <sizes>: 'inf' is not a message size"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="unexpected" delay="10 parsecs"/>)")),
              AllOf(StartsWith("t.xml:4: bad delay=\"10 parsecs\" on <workload>: "), HasSubstr("unknown time unit")));
  EXPECT_THAT(error(with_workload(R"(<workload kind="unexpected" delay="-1us"/>)")),
              StartsWith("t.xml:4: bad delay=\"-1us\" on <workload>: a delay cannot be negative"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="pingpong" iterations="ten"/>)")),
              StartsWith("t.xml:4: bad iterations=\"ten\" on <workload>: expected a whole number"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="pingpong" warmup="-1"/>)")),
              StartsWith("t.xml:4: bad warmup=\"-1\" on <workload>: expected a whole number"));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, kSizes}, R"(<scenario name="t" seed="1e3">)")),
              StartsWith("t.xml:2: bad seed=\"1e3\" on <scenario>: expected a whole number"));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, kSizes}, R"(<scenario name="a b">)")),
              StartsWith("t.xml:2: bad name=\"a b\" on <scenario>: use letters, digits"));
}

TEST(ScenarioErrors, UnknownWorkloadKind) {
  EXPECT_THAT(error(with_workload(R"(<workload kind="allreduce"/>)")),
              StartsWith("t.xml:4: unknown workload kind 'allreduce' (known: pingpong, stream, unexpected, pairs, "
                         "alltoall)"));
}

TEST(ScenarioErrors, AlltoallAttributesAndCurves) {
  EXPECT_THAT(error(with_workload(R"(<workload kind="alltoall"/>)")),
              StartsWith("t.xml:4: <workload> needs a 'pes' attribute"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="alltoall" pes="1"/>)")), StartsWith("t.xml:4: bad "));
  EXPECT_THAT(error(with_workload(R"(<workload kind="alltoall" pes="4194304"/>)")),
              HasSubstr("at most 1048576"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="alltoall" pes="8" threads="0"/>)")), StartsWith("t.xml:4: bad "));
  EXPECT_THAT(error(with_workload(R"(<workload kind="alltoall" pes="8" batch="0"/>)")), StartsWith("t.xml:4: bad "));
  EXPECT_THAT(error(with_workload(R"(<workload kind="pingpong" pes="8"/>)")),
              StartsWith("t.xml:4: attribute 'pes' does not apply to kind=\"pingpong\" (only to kind=\"alltoall\")"));
  EXPECT_THAT(error(scenario({R"(<platform file="../../../platforms/hdr-2rail.xml" from="a" to="b"/>)",
                              R"(<workload kind="alltoall" pes="8"/>)",
                              kSizes})),
              StartsWith("t.xml:4: an alltoall runs on the platform's first 'pes' nodes"));
  EXPECT_THAT(error(scenario({kPlatformElement, R"(<workload kind="alltoall" pes="8"/>)", kSizes,
                              "<curves>auto rndv/get</curves>"})),
              StartsWith("t.xml:6: unknown protocol 'rndv/get' in <curves> for an alltoall (known: auto, "
                         "coll/alltoall/proxy, coll/alltoall/direct)"));
  EXPECT_THAT(error(with({"<curves>auto coll/alltoall/direct</curves>"})),
              StartsWith("t.xml:6: 'coll/alltoall/direct' in <curves> is an alltoall protocol; the workload is pingpong"));
}

TEST(ScenarioErrors, UnknownProtocol) {
  EXPECT_THAT(error(with({"<curves>auto rndv/put</curves>"})),
              AllOf(StartsWith("t.xml:6: unknown protocol 'rndv/put' in <curves> (known: auto, eager/short, "),
                    HasSubstr("rndv/get")));
  EXPECT_THAT(error(with({"<curves>eager/mul</curves>"})), StartsWith("t.xml:6: unknown protocol 'eager/mul'"));
  EXPECT_THAT(error(with({R"(<select disable="rndv/put"/>)"})),
              AllOf(StartsWith("t.xml:6: bad <select>: disable: unknown protocol 'rndv/put'"), HasSubstr("rndv/get")));
}

TEST(ScenarioErrors, BadCurves) {
  EXPECT_THAT(error(with({"<curves>auto rndv auto</curves>"})),
              StartsWith("t.xml:6: duplicate curve 'auto' in <curves>"));
  EXPECT_THAT(error(with({"<curves>  </curves>"})), StartsWith("t.xml:6: <curves> lists no curves"));
}

TEST(ScenarioErrors, SizesFromAboveTo) {
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes from="4KiB" to="1KiB"/>)"})),
              StartsWith("t.xml:5: bad <sizes>: from (4096) is larger than to (1024)"));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes from="0" to="1KiB"/>)"})),
              StartsWith("t.xml:5: bad <sizes>: a geometric sweep starts at 1 byte or more"));
}

TEST(ScenarioErrors, FactorNotAboveOne) {
  for (const char* factor : {"1", "0.5", "-2"})
    EXPECT_THAT(error(scenario({kPlatformElement, kPingPong,
                                std::string(R"(<sizes from="8" to="64" factor=")") + factor + "\"/>"})),
                StartsWith("t.xml:5: bad factor=\"" + std::string(factor) + "\" on <sizes>: must be greater than 1"));
  for (const char* factor : {"two", "2x", "nan", "inf"})
    EXPECT_THAT(error(scenario({kPlatformElement, kPingPong,
                                std::string(R"(<sizes from="8" to="64" factor=")") + factor + "\"/>"})),
                StartsWith("t.xml:5: bad factor=\"" + std::string(factor) + "\" on <sizes>: expected a number"));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes from="1" to="1TiB" factor="1.0001"/>)"})),
              StartsWith("t.xml:5: bad <sizes>: the sweep gives more than 10000 sizes"));
}

TEST(ScenarioErrors, ListNotStrictlyIncreasingOrEmpty) {
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes list="8 64 64"/>)"})),
              StartsWith("t.xml:5: bad list=\"8 64 64\" on <sizes>: sizes must be strictly increasing (64 after 64)"));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes list="1KiB 8"/>)"})),
              HasSubstr("strictly increasing (8 after 1024)"));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes list=" , "/>)"})),
              StartsWith("t.xml:5: bad list=\" , \" on <sizes>: no sizes in the list"));
  EXPECT_THAT(error(scenario({kPlatformElement, kPingPong, R"(<sizes list="8" from="8"/>)"})),
              StartsWith("t.xml:5: <sizes> takes either 'list' or 'from', 'to' and 'factor', not both"));
}

TEST(ScenarioErrors, ZeroIterationsZeroWindowTooFewPairs) {
  EXPECT_THAT(error(with_workload(R"(<workload kind="pingpong" iterations="0"/>)")),
              StartsWith("t.xml:4: bad iterations=\"0\" on <workload>: must be at least 1"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="stream" window="0"/>)")),
              StartsWith("t.xml:4: bad window=\"0\" on <workload>: must be at least 1"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="pairs" pairs="1"/>)")),
              StartsWith("t.xml:4: bad pairs=\"1\" on <workload>: must be at least 2"));
}

TEST(ScenarioErrors, AttributeOfAnotherWorkloadKind) {
  EXPECT_THAT(error(with_workload(R"(<workload kind="pingpong" window="16"/>)")),
              StartsWith("t.xml:4: attribute 'window' does not apply to kind=\"pingpong\" (only to kind=\"stream\")"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="stream" delay="1us"/>)")),
              StartsWith("t.xml:4: attribute 'delay' does not apply to kind=\"stream\" (only to kind=\"unexpected\")"));
  EXPECT_THAT(error(with_workload(R"(<workload kind="unexpected" pairs="2"/>)")),
              StartsWith("t.xml:4: attribute 'pairs' does not apply to kind=\"unexpected\" (only to kind=\"pairs\")"));
}

TEST(ScenarioErrors, PlatformFileMissing) {
  EXPECT_THAT(error(scenario({kPingPong, kSizes, R"(<platform file="nowhere.xml"/>)"})),
              StartsWith("t.xml:5: platform file 'nowhere.xml' not found (looked for '" + kFixtures +
                         "/nowhere.xml')"));
  EXPECT_THAT(error(scenario({R"(<platform file="../../../platforms"/>)", kPingPong, kSizes})),
              StartsWith("t.xml:3: platform file '../../../platforms' not found"));
}

TEST(ScenarioErrors, PlatformEndsTheSame) {
  EXPECT_THAT(error(scenario({R"(<platform file="../../../platforms/hdr-2rail.xml" from="n" to="n"/>)", kPingPong,
                              kSizes})),
              StartsWith("t.xml:3: <platform> from and to are both 'n'"));
}

TEST(ScenarioErrors, BadSelectKeyOrValue) {
  EXPECT_THAT(error(with({R"(<select eagr_limit="4KiB"/>)"})),
              AllOf(StartsWith("t.xml:6: bad <select>: unknown setting 'eagr_limit' (known: "),
                    HasSubstr("eager_limit")));
  EXPECT_THAT(error(with({R"(<select reg_cache="maybe"/>)"})),
              StartsWith("t.xml:6: bad <select>: reg_cache: expected on or off, got 'maybe'"));
  EXPECT_THAT(error(with({R"(<select max_rndv_lanes="0"/>)"})),
              StartsWith("t.xml:6: bad <select>: max_rndv_lanes: expected a count from 1 to 16"));
}

TEST(ScenarioErrors, BadPayloadMode) {
  EXPECT_THAT(error(with({R"(<payload mode="random"/>)"})),
              StartsWith("t.xml:6: unknown payload mode 'random' (known: verify, phantom)"));
  EXPECT_THAT(error(with({R"(<payload memory="rocm"/>)"})),
              StartsWith("t.xml:6: unknown payload memory 'rocm' (known: host, cuda)"));
  EXPECT_THAT(error(with({R"(<payload memory="cuda" where="gpu0"/>)"})),
              StartsWith("t.xml:6: unknown attribute 'where'"));
}

// <payload>'s attributes each default: verify, in host memory.
TEST(Scenario, PayloadMemory) {
  const Scenario plain = parse(with({"<payload/>"}));
  EXPECT_FALSE(plain.phantom);
  EXPECT_EQ(plain.memory, MemType::Host);
  const Scenario cuda = parse(with({R"(<payload memory="cuda"/>)"}));
  EXPECT_FALSE(cuda.phantom);
  EXPECT_EQ(cuda.memory, MemType::Cuda);
  const Scenario both = parse(with({R"(<payload mode="phantom" memory="host"/>)"}));
  EXPECT_TRUE(both.phantom);
  EXPECT_EQ(both.memory, MemType::Host);
}

TEST(ScenarioErrors, TextWhereNoneIsAllowed) {
  EXPECT_THAT(error(with_workload(R"(<workload kind="pingpong">fast</workload>)")),
              StartsWith("t.xml:4: text 'fast' in <workload>, which holds none"));
  EXPECT_THAT(error(with({"stray words"})), StartsWith("t.xml:6: text 'stray words' in <scenario>, which holds none"));
  EXPECT_THAT(error(with({"<select><![CDATA[x=1]]></select>"})), StartsWith("t.xml:6: text 'x=1' in <select>"));
}

TEST(ScenarioErrors, MissingScenarioFile) {
  EXPECT_EQ(load_error("no/such/scenario.xml"), "no/such/scenario.xml: no such file");
  EXPECT_EQ(load_error(kFixtures), kFixtures + ": is a directory, not a scenario file");
}

// The fixtures, read as a user's files are: by load_scenario.

TEST(ScenarioFixtures, EveryValidFixtureLoads) {
  const std::vector<std::string> files = fixtures(true);
  ASSERT_GE(files.size(), 5u);
  for (const std::string& file : files)
    EXPECT_NO_THROW(load_scenario(file)) << file;
  const Scenario stream = load_scenario(kFixtures + "/stream.xml");
  EXPECT_EQ(stream.sizes, geometric_sizes(1024, 65536, 1.5));
  EXPECT_EQ(workload_settings<StreamSettings>(stream).window, 32u);
  EXPECT_EQ(stream.select.perf, PerfType::Streaming);
  const Scenario unexpected = load_scenario(kFixtures + "/unexpected.xml");
  EXPECT_EQ(unexpected.sizes, (std::vector<Bytes>{64, 8192, 1048576}));
  EXPECT_EQ(unexpected.curves, (std::vector<std::string>{"eager", "rndv"}));
  EXPECT_TRUE(unexpected.phantom);
  EXPECT_EQ(load_scenario(kFixtures + "/pairs.xml").description, "Four pairs & one rail each.");
}

TEST(ScenarioFixtures, BadFixturesSayFileAndLine) {
  EXPECT_THAT(load_error(kFixtures + "/bad_unknown_element.xml"),
              StartsWith(kFixtures + "/bad_unknown_element.xml:6: unknown element <sizez>"));
  EXPECT_THAT(load_error(kFixtures + "/bad_workload_kind.xml"),
              StartsWith(kFixtures + "/bad_workload_kind.xml:5: unknown workload kind 'allreduce'"));
}

TEST(ScenarioFixtures, RelativePathsResolveAgainstTheScenarioFile) {
  const InDirectory in_source(kSourceDir);
  EXPECT_EQ(load_scenario("tests/data/scenarios/minimal.xml").platform, "platforms/hdr-2rail.xml");
  EXPECT_EQ(load_error("tests/data/scenarios/bad_missing_platform.xml"),
            "tests/data/scenarios/bad_missing_platform.xml:4: platform file "
            "'../../../platforms/no-such-platform.xml' not found (looked for 'platforms/no-such-platform.xml')");
}

// The schema says the same as the reader on the fixtures.

bool have_xmllint() {
  return test::run_command("command -v xmllint").status == 0;
}

test::CommandResult xmllint(const std::string& file) {
  return test::run_command("xmllint --noout --schema '" + kSourceDir + "/scenarios/scenario.xsd' '" + file + "'");
}

TEST(ScenarioSchema, AcceptsEveryValidFixture) {
  if (!have_xmllint())
    GTEST_SKIP() << "xmllint is not installed (Debian: apt-get install libxml2-utils)";
  const std::vector<std::string> files = fixtures(true);
  ASSERT_GE(files.size(), 5u) << "no valid fixtures in " << kFixtures;
  for (const std::string& file : files) {
    const test::CommandResult r = xmllint(file);
    EXPECT_EQ(r.status, 0) << file << "\n" << r.err;
  }
}

TEST(ScenarioSchema, RejectsInvalidFixtures) {
  if (!have_xmllint())
    GTEST_SKIP() << "xmllint is not installed (Debian: apt-get install libxml2-utils)";
  for (const char* name : {"bad_unknown_element.xml", "bad_workload_kind.xml"}) {
    const test::CommandResult r = xmllint(kFixtures + "/" + name);
    EXPECT_NE(r.status, 0) << name;
    EXPECT_THAT(r.err, HasSubstr("fails to validate")) << name;
  }
}

TEST(ScenarioSchema, SelectAttributesFollowSelectConfig) {
  std::ifstream in(kSourceDir + "/scenarios/scenario.xsd");
  std::stringstream schema;
  schema << in.rdbuf();
  std::istringstream help(SelectConfig::help());
  std::size_t keys = 0;
  for (std::string line; std::getline(help, line); ++keys) {
    const std::string key = line.substr(line.find_first_not_of(' '), line.find('=') - line.find_first_not_of(' '));
    EXPECT_THAT(schema.str(), HasSubstr("<xs:attribute name=\"" + key + "\"")) << key;
  }
  EXPECT_GE(keys, 10u);
}

}  // namespace
}  // namespace xover
