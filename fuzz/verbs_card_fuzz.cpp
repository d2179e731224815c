// Harness: the address card a verbs rank publishes through the bootstrap
// (runtime/verbs/verbs_card.*), as each peer reads it before connecting its
// queue pairs to the ports and queue pair numbers it names.
//
// Input: u8 the sender (below the rank count), u8 the rank count less one
// (mod 16), u8 this rank's lane count (mod 5), then the card.
// Checks: a refused card says which rank sent it; an accepted one is what
// this rank expects (its sender, the rank and lane counts, the job), holds
// only codes in range (MTU, 24-bit queue pair numbers, no queue pair toward
// its sender itself, a queue pair toward every peer, a positive memcpy
// bandwidth), and encodes back to exactly the bytes read: nothing in a card
// is ignored.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz/harness.hpp"
#include "runtime/verbs/verbs_card.hpp"

namespace {

using namespace xover::runtime::verbs;
using xover::fuzz::check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  xover::fuzz::Input in(data, size);
  const std::uint32_t ranks = 1 + in.u8() % 16;
  const std::uint32_t from = in.u8() % ranks;
  const std::size_t lanes = in.u8() % 5;
  const std::span<const std::byte> bytes = in.rest();
  Card card;
  try {
    card = decode_card(bytes, from, ranks, lanes, job_hash("fuzz"));
  } catch (const std::invalid_argument& e) {
    check(std::string(e.what()).starts_with("rank " + std::to_string(from) + "'s address card: "),
          "a refused card names its sender");
    return 0;
  }
  check(card.rank == from && card.ranks == ranks && card.job == job_hash("fuzz"), "an accepted card is this job's");
  check(card.lanes.size() == lanes && card.qps.size() == lanes * ranks, "an accepted card has every lane and pair");
  check(card.memcpy_bw > 0 && std::isfinite(card.memcpy_bw), "an accepted card's memcpy bandwidth is positive");
  check(card.host.size() <= kMaxHostName, "an accepted card's host name is bounded");
  for (std::size_t l = 0; l < lanes; ++l) {
    check(card.lanes[l].mtu >= 256 && card.lanes[l].mtu <= 4096, "an accepted lane's MTU is 256 B to 4 KiB");
    for (std::uint32_t r = 0; r < ranks; ++r) {
      const QpAddress& qp = card.qp(l, r);
      check(qp.qpn <= 0xffffff && qp.psn <= 0xffffff, "queue pair numbers and PSNs are 24-bit");
      check((qp.qpn == 0) == (r == from), "a queue pair toward every peer and none toward itself");
    }
  }
  const std::vector<std::byte> again = encode_card(card);
  check(again.size() == bytes.size() && std::equal(again.begin(), again.end(), bytes.begin()),
        "an accepted card encodes back to the bytes read");
  return 0;
}
