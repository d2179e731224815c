// Writes the seed inputs of the harnesses whose inputs are not files xover
// ships: settings lines, and binary frames, cells and message sequences
// encoded by the same code the transports and protocols use. One folder per
// harness under the folder given on the command line.
//
//   fuzz_make_seeds OUT     -> OUT/select/..., ...
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/seeds.hpp"
#include "fuzz/tcp_input.hpp"
#include "protocols/coll/cmd_ring.hpp"
#include "runtime/cuda/cuda_card.hpp"
#include "runtime/cuda/cuda_probe.hpp"
#include "runtime/tcp/tcp_frame.hpp"
#include "runtime/tcp/tcp_wireup.hpp"
#include "runtime/verbs/verbs_card.hpp"
#include "runtime/verbs/verbs_wire.hpp"

namespace {

namespace fs = std::filesystem;
using xover::fuzz::SeedWriter;

// Settings as `xover proto-info --set` and <select> take them.
void select_seeds(const fs::path& root) {
  SeedWriter seeds(root, "select");
  const std::vector<std::pair<std::string, std::string>> lines = {
      {"perf", "perf=streaming\nperf=latency"},
      {"reg_cache", "reg_cache=off"},
      {"perf_diff", "rndv_perf_diff=2.5\ndirect_perf_diff=10"},
      {"limits", "eager_limit=4KiB\nmulti_eager_limit=1MiB\nrndv_thresh=64KiB"},
      {"rndv_thresh_auto", "rndv_thresh=auto"},
      {"proto", "proto=eager/multi,rndv/get"},
      {"disable", "disable=eager/short,rndv/am"},
      {"lanes", "max_eager_lanes=2\nmax_rndv_lanes=4\nmin_bw_ratio=8"},
      {"units", "eager_limit=1.5kB\nmulti_eager_limit=2Mib\nrndv_thresh=100000"},
  };
  for (const auto& [name, text] : lines)
    seeds.write(name, text);
}

// Frames as a TCP peer sends them (runtime/tcp/tcp_frame.hpp), each seed
// led by its chunk byte.
class FrameStream {
 public:
  explicit FrameStream(std::uint8_t chunk) { bytes_ += static_cast<char>(chunk); }
  FrameStream& frame(xover::runtime::tcp::FrameType type, std::uint8_t am_id, const std::vector<std::uint64_t>& header,
                     std::size_t payload) {
    using namespace xover::runtime::tcp;
    std::byte head[kFrameHeader];
    FrameHeader{static_cast<std::uint8_t>(type), am_id, static_cast<std::uint16_t>(8 * header.size()), 0, payload}
        .encode(head);
    bytes_.append(reinterpret_cast<const char*>(head), sizeof head);
    for (std::uint64_t v : header) {
      std::byte word[8];
      put_le(word, v);
      bytes_.append(reinterpret_cast<const char*>(word), sizeof word);
    }
    bytes_.append(payload, '\x5a');
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

void tcp_frame_seeds(const fs::path& root) {
  using namespace xover::runtime::tcp;
  using namespace xover::fuzz::tcp;
  SeedWriter seeds(root, "tcp_frame");
  const auto am = [](std::uint8_t chunk) {
    return FrameStream(chunk).frame(FrameType::Am, 1, {7, 0}, 100).frame(FrameType::Am, 3, {7, 1, 5000, 4, 6, 1}, 0);
  };
  seeds.write("am", am(255).bytes());
  seeds.write("am-cut", am(0).bytes());
  seeds.write("am-full-segment", FrameStream(255).frame(FrameType::Am, 2, {7, 0, 70000, 0}, kSegSize - 32).bytes());
  seeds.write("replies", FrameStream(255)
                             .frame(FrameType::GetResponse, 0, {1, 0}, kGetSmall)
                             .frame(FrameType::PutAck, 0, {2, 0}, 0)
                             .frame(FrameType::GetResponse, 0, {3, 1}, 0)
                             .bytes());
  seeds.write("replies-cut", FrameStream(3)
                                 .frame(FrameType::GetResponse, 0, {3, 0}, kGetLarge)
                                 .frame(FrameType::PutAck, 0, {2, 1}, 0)
                                 .frame(FrameType::GetResponse, 0, {1, 0}, kGetSmall)
                                 .bytes());
  seeds.write("requests", FrameStream(255)
                              .frame(FrameType::PutRequest, 0, {9, kKeyMark, kAddrMark}, 128)
                              .frame(FrameType::GetRequest, 0, {10, kKeyMark, kAddrMark, 256}, 0)
                              .frame(FrameType::GetRequest, 0, {11, 12345, kAddrMark, 256}, 0)
                              .bytes());
  seeds.write("bye", FrameStream(255).frame(FrameType::Am, 1, {7, 0}, 8).frame(FrameType::Bye, 0, {}, 0).bytes());
}

// A hello the accepting rank takes, then a card (tcp_hello_fuzz.cpp's layout).
void tcp_hello_seeds(const fs::path& root) {
  using namespace xover::runtime;
  SeedWriter seeds(root, "tcp_hello");
  const auto seed = [](std::uint8_t interfaces, std::uint32_t lane, double memcpy_bw, const std::string& host) {
    // size 4, rank 2, the interfaces, 1 connection each, the hello's interface, no lane up.
    std::string bytes{'\x02', '\x02', static_cast<char>(interfaces - 1), '\x00', static_cast<char>(lane), '\x00'};
    std::byte hello[tcp::Hello::kSize];
    tcp::Hello{tcp::Hello::kMagic, 0x0123456789abcdefULL, 1, lane}.encode(hello);
    bytes.append(reinterpret_cast<const char*>(hello), sizeof hello);
    bytes += static_cast<char>(interfaces - 1);
    const Blob card = tcp::encode_card(memcpy_bw, host, std::vector<TcpListener>(interfaces, {0x7f000001, 40000}));
    bytes.append(reinterpret_cast<const char*>(card.data()), card.size());
    return bytes;
  };
  seeds.write("one-interface", seed(1, 0, 10e9, "node0"));
  seeds.write("three-interfaces", seed(3, 2, 3.5e9, "a-longer-host-name.example.org"));
}

// A probe's report and a peer's card (cuda_card_fuzz.cpp's layout).
void cuda_card_seeds(const fs::path& root) {
  using namespace xover::runtime;
  SeedWriter seeds(root, "cuda_card");
  const auto seed = [](std::uint8_t from, const CudaProbe& probe) {
    std::string report = encode_probe(probe);
    report.resize(std::min<std::size_t>(report.size(), 255));
    std::string bytes{static_cast<char>(from), static_cast<char>(report.size())};
    bytes += report;
    CudaCard card;
    card.rank = from;
    card.pid = 1234;
    card.recv_bytes = 4 << 20;
    card.recv.fill(std::byte{0x11});
    card.signal.fill(std::byte{0x22});
    const CudaCardBytes encoded = encode_card(card);
    bytes.append(reinterpret_cast<const char*>(encoded.data()), encoded.size());
    return bytes;
  };
  CudaProbe gpu;
  gpu.ok = true;
  gpu.count = 1;
  gpu.driver_version = gpu.runtime_version = 13000;
  gpu.gpus.push_back({"NVIDIA H100 80GB HBM3", "9.0", 85045231616, 132, "00000000:18:00.0"});
  seeds.write("one-gpu", seed(3, gpu));
  CudaProbe none;
  none.error = "no CUDA-capable device is detected";
  seeds.write("no-gpu", seed(1, none));
}

// Verbs address cards of rank 1 of 2 (verbs_card_fuzz.cpp's layout): one
// InfiniBand lane, and two RoCE lanes.
void verbs_card_seeds(const fs::path& root) {
  using namespace xover::runtime::verbs;
  SeedWriter seeds(root, "verbs_card");
  const auto seed = [](LinkLayer link, std::size_t lanes) {
    Card card;
    card.ranks = 2;
    card.rank = 1;
    card.pid = 4321;
    card.job = job_hash("fuzz");
    card.memcpy_bw = 1.2e10;
    card.host = "node1";
    for (std::size_t l = 0; l < lanes; ++l) {
      LaneAddress lane;
      lane.link_layer = link;
      lane.gid_type = link == LinkLayer::Ethernet ? GidType::RoceV2 : GidType::Ib;
      lane.gid_index = link == LinkLayer::Ethernet ? 3 : 0;
      lane.mtu = 4096;
      lane.lid = link == LinkLayer::Ethernet ? 0 : static_cast<std::uint16_t>(7 + l);
      lane.rd_atomic = 16;
      lane.gid.fill(0xfe);
      lane.window = 512;
      lane.signal_rkey = static_cast<std::uint32_t>(0x77 + l);
      card.lanes.push_back(lane);
      card.qps.push_back({static_cast<std::uint32_t>(0x1234 + l), 0x42});  // toward rank 0
      card.qps.push_back({0, 0});                                             // toward itself
    }
    const std::vector<std::byte> encoded = encode_card(card);
    std::string bytes{'\x01', '\x01', static_cast<char>(lanes)};
    bytes.append(reinterpret_cast<const char*>(encoded.data()), encoded.size());
    return bytes;
  };
  seeds.write("infiniband-1-lane", seed(LinkLayer::Infiniband, 1));
  seeds.write("roce-2-lanes", seed(LinkLayer::Ethernet, 2));
}

// Messages as a verbs peer sends them (runtime/verbs/verbs_wire.hpp), each
// led by its length, after the send window.
void verbs_wire_seeds(const fs::path& root) {
  using namespace xover::runtime::verbs;
  SeedWriter seeds(root, "verbs_wire");
  const auto le = [](std::string& out, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out += static_cast<char>(v >> (8 * i));
  };
  const auto message = [&](std::string& out, WireKind kind, std::uint16_t grant, std::uint16_t header,
                           std::size_t payload) {
    WireHeader h;
    h.kind = kind;
    h.am_id = kind == WireKind::Grant ? 0 : 5;
    h.grant = grant;
    h.header_length = header;
    std::byte head[kWireHeader];
    h.encode(head);
    le(out, kWireHeader + header + payload, 2);
    out.append(reinterpret_cast<const char*>(head), kWireHeader);
    out.append(header + payload, '\x3c');
  };
  std::string stream;
  le(stream, 64, 2);
  message(stream, WireKind::Am, 0, 24, 100);
  message(stream, WireKind::Am, 32, 16, 8192 - 24);
  message(stream, WireKind::Grant, 48, 0, 0);
  message(stream, WireKind::Probe, 0, 0, 16);
  seeds.write("am-grant-probe", stream);
  std::string full;
  le(full, 512, 2);
  for (int i = 0; i < 4; ++i)
    message(full, WireKind::Am, static_cast<std::uint16_t>(i * 100), 8, 64);
  seeds.write("window-512", full);
}

// Entries as a posting thread writes them into the command ring, led by
// the proxy's limits.
void cmd_ring_seeds(const fs::path& root) {
  SeedWriter seeds(root, "cmd_ring");
  const auto le = [](std::string& out, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out += static_cast<char>(v >> (8 * i));
  };
  const auto entry = [&](std::uint64_t flag, xover::Rank pe, std::uint64_t offset, std::uint64_t size) {
    std::string out;
    le(out, 8, 2);                        // PEs
    le(out, 8 * 65536, 4);                // the target's buffer
    le(out, 0x7f0000000000ULL, 8);        // the local buffer's base
    le(out, 7 * 65536, 4);                // its bytes
    xover::Command c;
    c.pe = pe;
    c.offset = offset;
    c.local = 0x7f0000000000ULL + offset;
    c.size = size;
    c.posted_ns = 123456789;
    for (const std::uint64_t w : xover::encode_command(c, flag))
      le(out, w, 8);
    return out;
  };
  seeds.write("lap-0", entry(1, 3, 2 * 65536, 65536));
  seeds.write("lap-1", entry(0, 7, 0, 8));
  seeds.write("empty-put", entry(1, 0, 0, 0));
}

// Cells as a shared-memory sender writes them (shm_cell_fuzz.cpp's ops).
void shm_cell_seeds(const fs::path& root) {
  SeedWriter seeds(root, "shm_cell");
  const auto le = [](std::string& out, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out += static_cast<char>(v >> (8 * i));
  };
  // Inline when header and payload fit a cell's 112 bytes, else in the
  // descriptor that position `pos` owns (of 4), as push writes them.
  std::uint64_t pos = 0;
  const auto publish = [&](std::string& out, std::uint16_t header, std::uint16_t payload, std::uint8_t id) {
    const bool fits = header + payload <= 112;
    out += '\x00';
    le(out, header, 2);
    le(out, payload, 2);
    le(out, fits ? 0xffff : pos % 4, 2);
    le(out, id, 1);
    const std::size_t contents = std::min<std::size_t>(header + payload, fits ? 112 : 8192);
    le(out, contents, 2);
    out.append(contents, '\x5a');
    ++pos;
  };
  const auto push = [&](std::string& out, std::uint16_t header, std::uint16_t payload, std::uint8_t id) {
    out += '\x03';
    le(out, header, 2);
    le(out, payload, 2);
    le(out, id, 1);
    ++pos;
  };
  std::string eager;
  publish(eager, 16, 8, 1);
  publish(eager, 16, 100, 1);
  publish(eager, 32, 8000, 2);
  eager += '\x01';
  seeds.write("inline-and-descriptor", eager);
  pos = 0;
  std::string full;
  for (int i = 0; i < 20; ++i)
    publish(full, 16, i % 2 ? 64 : 1000, 1);
  full += '\x01';
  full += '\x01';
  seeds.write("ring-wraps", full);
  pos = 0;
  std::string pushed;
  for (int i = 0; i < 20; ++i)
    push(pushed, 16, i % 3 ? 8 : 4000, 2);
  pushed += '\x01';
  for (int i = 0; i < 6; ++i)
    push(pushed, 8, 8168, 3);
  pushed += '\x01';
  seeds.write("pushed-until-no-resource", pushed);
  pos = 0;
  std::string corrupt;
  publish(corrupt, 65535, 0xffff, 1);
  publish(corrupt, 16, 8, 200);
  corrupt += '\x00';  // descriptor 3 at position 2, which owns descriptor 2
  le(corrupt, 16, 2);
  le(corrupt, 500, 2);
  le(corrupt, 3, 2);
  le(corrupt, 1, 1);
  le(corrupt, 0, 2);
  corrupt += '\x00';  // a descriptor past the pool
  le(corrupt, 16, 2);
  le(corrupt, 500, 2);
  le(corrupt, 0xfffe, 2);
  le(corrupt, 1, 1);
  le(corrupt, 0, 2);
  corrupt += '\x02';
  le(corrupt, 2, 1);
  le(corrupt, 3, 8);
  corrupt += '\x01';
  seeds.write("corrupt", corrupt);
}

// Bootstrap frames (bootstrap_fuzz.cpp's layout): a rank's frames, which
// are also read as a launcher's answer.
void bootstrap_seeds(const fs::path& root) {
  SeedWriter seeds(root, "bootstrap");
  const auto frame = [](std::string& out, const char* kind, const std::string& body) {
    out += kind;
    for (int i = 0; i < 4; ++i)
      out += static_cast<char>(body.size() >> (8 * i));
    out += body;
  };
  const auto answer = [](std::string& out, const std::string& body) {
    for (int i = 0; i < 4; ++i)
      out += static_cast<char>(body.size() >> (8 * i));
    out += body;
  };
  std::string rank{'\x01', '\x03'};
  frame(rank, "G", "card of rank 0");
  frame(rank, "R", "a report\n");
  frame(rank, "G", "");
  seeds.write("rank-frames", rank);
  std::string launcher{'\x01', '\xff'};
  answer(launcher, "card of rank 0");
  answer(launcher, "card of rank 1");
  seeds.write("launcher-answer", launcher);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_seeds OUT_DIR\n");
    return 2;
  }
  try {
    const fs::path root(argv[1]);
    select_seeds(root);
    xover::fuzz::protocol_seeds(root);
    tcp_frame_seeds(root);
    tcp_hello_seeds(root);
    cuda_card_seeds(root);
    verbs_card_seeds(root);
    verbs_wire_seeds(root);
    cmd_ring_seeds(root);
    shm_cell_seeds(root);
    bootstrap_seeds(root);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_make_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
