// Harness: what a TCP rank reads from its peers while it wires up
// (runtime/tcp/tcp_wireup.*): the hello on a newly accepted connection,
// checked by refuse_hello(), and the address card each rank publishes
// through the bootstrap, read by decode_card(), whose figures then shape
// the thresholds table toward that peer.
//
// Input: u8 rank, u8 size (2 + s % 7), u8 interfaces (1 + i % 3), u8
// connections (1 + c % 3), u8 the listener's interface, u8 lanes already
// up (one bit each), a 24-byte hello, then the card. The job hash is kJob.
// Checks: a refusal is a reason, never a crash; an accepted hello comes
// from a lower rank of this job on a lane of the listener's interface that
// is not up yet; an accepted card has one listener per interface and a
// memcpy bandwidth the cost model can divide by, and gives a sound table.
#include <cmath>
#include <string>
#include <vector>

#include "fuzz/harness.hpp"
#include "fuzz/table_check.hpp"
#include "runtime/tcp/tcp_wireup.hpp"

namespace {

using namespace xover;
using namespace xover::runtime;
using xover::fuzz::check;

constexpr std::uint64_t kJob = 0x0123456789abcdefULL;

void check_hello(fuzz::Input& in) {
  const Rank size = 2 + in.u8() % 7;
  const Rank rank = in.u8() % size;
  const std::size_t interfaces = 1 + in.u8() % 3;
  const std::size_t connections = 1 + in.u8() % 3;
  const std::size_t iface = in.u8() % interfaces;
  std::uint8_t up = in.u8();
  std::vector<std::string> names;
  for (std::size_t lane = 0; lane < interfaces * connections; ++lane)
    names.push_back("tcp:if" + std::to_string(lane / connections) + "." + std::to_string(lane % connections));
  std::vector<std::vector<int>> fds(size);
  for (Rank r = 0; r < size; ++r)
    if (r != rank)
      for (std::size_t lane = 0; lane < names.size(); ++lane, up = static_cast<std::uint8_t>(up >> 1 | up << 7))
        fds[r].push_back(up & 1 ? 3 : -1);

  std::byte bytes[tcp::Hello::kSize] = {};
  const std::span<const std::byte> given = in.bytes(sizeof bytes);
  std::copy(given.begin(), given.end(), bytes);
  const tcp::Hello hello = tcp::Hello::decode(bytes);
  const std::string why = tcp::refuse_hello(hello, {kJob, rank, size, names, connections}, iface, fds);
  if (!why.empty())
    return;
  check(hello.magic == tcp::Hello::kMagic && hello.job == kJob, "an accepted hello is of this job");
  check(hello.rank < rank && hello.lane < names.size(), "an accepted hello is from a lower rank, on a lane");
  check(hello.lane / connections == iface, "an accepted hello is on its interface's listener");
  check(fds[hello.rank][hello.lane] < 0, "an accepted hello opens a lane that is down");
}

void check_card(fuzz::Input& in) {
  const std::size_t interfaces = 1 + in.u8() % 3;
  const std::span<const std::byte> rest = in.rest();
  tcp::Card card;
  try {
    card = tcp::decode_card(Blob(rest.begin(), rest.end()), 1, interfaces);
  } catch (const RuntimeError&) {
    return;
  }
  check(card.listeners.size() == interfaces, "an accepted card has a listener per interface");
  check(std::isfinite(card.memcpy_bw) && card.memcpy_bw > 0, "an accepted card's memcpy bandwidth is positive");
  Path path;
  path.from = "me";
  path.to = card.host;
  path.memcpy_bw_remote = card.memcpy_bw;
  path.lanes.push_back(LaneAttrs{});
  path.lanes.back().bandwidth = 1e9;
  fuzz::check_table(path, SelectConfig{});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  check_hello(in);
  check_card(in);
  return 0;
}
