// Harness: the active messages a verbs peer SENDs into this rank's receive
// segments (runtime/verbs/verbs_wire.hpp), as the transport's deliver()
// takes them: each message's bytes and the byte count its receive
// completion reports, checked by decode_wire() against the grants the
// credit window allows, the grants then handed to the endpoint's credits
// (runtime/verbs/verbs_credits.hpp).
//
// Input: u16 the send window (mod 513), then messages, each u16 its
// length (mod 8193, a receive segment at most) and that many bytes (fewer
// at the end).
// Checks: decode_wire reads nothing past the message (each one is copied
// into a buffer of exactly its length, which ASan bounds); an accepted
// message is a known kind whose grant is within the window, whose AM
// header and payload are views inside it covering every byte after the
// 8-byte header, a grant message being the header alone; its header
// encodes back to the bytes read; a refused one says why; the credits
// never exceed the send window, and a grant they refuse changes nothing.
#include <algorithm>
#include <string>
#include <vector>

#include "fuzz/harness.hpp"
#include "runtime/verbs/verbs_credits.hpp"
#include "runtime/verbs/verbs_wire.hpp"

namespace {

using namespace xover::runtime::verbs;
using xover::fuzz::check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  xover::fuzz::Input in(data, size);
  const auto window = static_cast<std::uint16_t>(in.u16() % (kMaxWindow + 1));
  Credits credits(window, window);
  while (!in.empty()) {
    const std::size_t length = in.u16() % 8193;
    const std::span<const std::byte> bytes = in.bytes(length);
    const std::vector<std::byte> segment(bytes.begin(), bytes.end());
    WireMessage m;
    const std::string bad = decode_wire(segment.data(), segment.size(), credits.send_window(), m);
    if (!bad.empty())
      continue;
    check(segment.size() >= kWireHeader, "an accepted message holds its header");
    check(m.header.kind == WireKind::Am || m.header.kind == WireKind::Grant || m.header.kind == WireKind::Probe,
          "an accepted message is of a known kind");
    check(m.header.grant <= credits.send_window(), "an accepted grant is within the window");
    check(m.am_header.data() == segment.data() + kWireHeader && m.am_header.size() == m.header.header_length,
          "the AM header follows the wire header");
    check(m.payload.data() == m.am_header.data() + m.am_header.size() &&
              kWireHeader + m.am_header.size() + m.payload.size() == segment.size(),
          "the payload is the rest of the message, to its last byte");
    check(m.header.kind != WireKind::Grant || (segment.size() == kWireHeader && m.header.am_id == 0),
          "a grant message is the header alone");
    std::byte again[kWireHeader];
    m.header.encode(again);
    check(std::equal(again, again + kWireHeader, segment.begin()), "an accepted header encodes back to its bytes");
    const std::uint16_t before = credits.credits();
    if (!credits.grant_in(m.header.grant))
      check(credits.credits() == before, "a refused grant changes nothing");
    check(credits.credits() <= credits.send_window(), "credits never exceed the send window");
    if (m.header.kind == WireKind::Am && credits.can_send())
      credits.consume();
  }
  return 0;
}
