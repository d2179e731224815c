// Harness: the entries of the alltoall's command ring
// (protocols/coll/cmd_ring.hpp), as the proxy reads them: eight 64-bit
// words that a posting thread (or a GPU kernel) wrote, checked by
// decode_command() against the PEs and buffers the proxy knows, then
// written through a ring and read back as the proxy would.
//
// Input: u16 the PEs (mod 4097), u32 the target buffer's bytes, u64 the
// local buffer's base, u32 its bytes, then the eight words.
// Checks: an accepted command is a put_signal to one of the PEs, its bytes
// inside the target's buffer and inside the local one with no overflow,
// and its words are exactly what encode_command() writes for it with its
// flag (no field is ignored); written into a ring at a position of that
// flag's lap, it is ready and reads back to the same words; a refused one
// says why.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/harness.hpp"
#include "protocols/coll/cmd_ring.hpp"

namespace {

using namespace xover;
using xover::fuzz::check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  xover::fuzz::Input in(data, size);
  CommandLimits limits;
  limits.pes = static_cast<Rank>(in.u16() % 4097);
  limits.buffer = in.u32();
  limits.local_base = in.u64();
  limits.local_bytes = in.u32();
  CommandWords words{};
  for (std::uint64_t& w : words)
    w = in.u64();
  const DecodedCommand d = decode_command(words, limits);
  if (!d.error.empty())
    return 0;
  const Command& c = d.command;
  check(c.op == CommandOp::PutSignal, "an accepted command is a put_signal");
  check(c.pe < limits.pes, "an accepted command targets a PE there is");
  check(c.size <= limits.buffer && c.offset <= limits.buffer - c.size, "its bytes fit the target's buffer");
  check(c.local >= limits.local_base && c.local - limits.local_base <= limits.local_bytes &&
            c.size <= limits.local_bytes - (c.local - limits.local_base),
        "its bytes are inside the local buffer");
  const std::uint64_t flag = words[kCommandWords - 1];
  check(flag <= 1, "its flag is a lap's parity");
  check(encode_command(c, flag) == words, "an accepted command is exactly its encoding");
  // Through a ring of 2 entries: position 0 is lap 0 (flag 1), position 2
  // lap 1 (flag 0).
  std::vector<std::byte> memory(CommandRing::bytes_for(2) + CommandRing::kAlign);
  std::byte* base = memory.data();
  while (reinterpret_cast<std::uintptr_t>(base) % CommandRing::kAlign != 0)
    ++base;
  CommandRing ring = CommandRing::create({base, CommandRing::bytes_for(2)}, 2);
  const std::uint64_t pos = flag == 1 ? 0 : 2;
  if (pos == 2) {  // lap 0 first, taken
    for (std::uint64_t p = 0; p < 2; ++p) {
      ring.write(ring.reserve(), c);
      ring.publish(p + 1);
    }
  }
  check(ring.reserve() == pos, "the writer's position");
  ring.write(pos, c);
  check(ring.ready(pos), "a written command is ready");
  check(ring.read(pos) == words, "a command reads back as written");
  return 0;
}
