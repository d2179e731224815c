// Harness: the shared-memory transport's reader of its rings
// (runtime/shm/shm_ring.hpp, ShmTransport::progress and deliver in
// runtime/shm/shm_transport.cpp) on cells a corrupt or hostile sender
// writes: any lengths, any AM id, any `seq`, at any time.
//
// Rank 0's ShmTransport reads rank 1's ring from memory the harness owns
// (a ring that ends where its allocation ends, so that ASan sees a read
// past it); the harness is the sender. Input: ops, one byte each then
// their fields, little-endian:
//
//   0 Publish   u16 header length, u32 payload length, u8 AM id, u16 bytes
//               of contents, the contents; written into the cell at the
//               sender's position, whose seq then says it holds a message
//   1 Progress  -
//   2 Seq       u8 cell index, u64 seq: a seq stored anywhere, as a sender
//               that ignores the protocol would (it may make a cell ready)
//
// Checks: a handler sees its header and payload inside the cell they came
// in; a cell whose lengths pass the cell is dropped, not delivered; the
// reader takes no more cells than the sender made ready; nothing hangs.
#include <unistd.h>

#include <cstring>
#include <memory>
#include <vector>

#include "fuzz/harness.hpp"
#include "runtime/shm/shm_transport_impl.hpp"

namespace {

using namespace xover;
using namespace xover::runtime;
using xover::fuzz::check;

constexpr std::uint32_t kCells = 16;
constexpr std::size_t kRingBytes = std::size_t{kCells} * shm::kCellSize;
constexpr std::size_t kMaxOps = 1024;

/// A ring in memory of its own, every cell free for the producer.
class RingMemory {
 public:
  RingMemory() : bytes_(std::make_unique<std::byte[]>(kRingBytes)) {
    std::memset(bytes_.get(), 0, kRingBytes);
    for (std::uint32_t i = 0; i < kCells; ++i)
      cell(i)->seq = i;
  }
  std::byte* base() const { return bytes_.get(); }
  shm::Cell* cell(std::uint64_t index) const {
    return reinterpret_cast<shm::Cell*>(bytes_.get() + (index % kCells) * shm::kCellSize);
  }
  bool inside_one_cell(const std::byte* from, Bytes n) const {
    if (n == 0)
      return true;
    const std::byte* start = bytes_.get();
    if (from < start || from >= start + kRingBytes)
      return false;
    const std::size_t offset = static_cast<std::size_t>(from - start);
    const std::size_t cell_end = (offset / shm::kCellSize + 1) * shm::kCellSize;
    return offset >= (offset / shm::kCellSize) * shm::kCellSize + sizeof(shm::Cell) && n <= cell_end - offset;
  }

 private:
  std::unique_ptr<std::byte[]> bytes_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Input in(data, size);
  RingMemory from_peer;
  RingMemory from_self;
  shm::ShmTransport t(0, 2, 10);
  t.peer(0).pid = getpid();
  t.peer(0).in = shm::Ring(from_self.base(), kCells, shm::kCellSize);
  t.peer(1).pid = getpid();
  t.peer(1).in = shm::Ring(from_peer.base(), kCells, shm::kCellSize);

  std::size_t readied = 0;  ///< publications and seq stores: each may make one cell ready
  std::size_t delivered = 0;
  // Ids 0 to 7 have handlers; a cell for another id is dropped.
  for (AmId id = 0; id < 8; ++id)
    t.set_am_handler(id, [&](const AmMessage& m) {
      check(m.source == 1 && m.lane == shm::kMmLane, "a message comes from the peer's ring");
      check(from_peer.inside_one_cell(m.header.data(), m.header.size()), "the header lies inside its cell");
      check(from_peer.inside_one_cell(m.payload.data, m.payload.size), "the payload lies inside its cell");
      check(m.header.empty() || m.payload.size == 0 || m.payload.data == m.header.data() + m.header.size(),
            "the payload follows the header");
      ++delivered;
    });

  std::uint64_t pos = 0;
  for (std::size_t ops = 0; !in.empty() && ops < kMaxOps; ++ops) {
    switch (in.u8() % 3) {
      case 0: {
        shm::Cell* c = from_peer.cell(pos);
        c->header_len = in.u16();
        c->payload_len = in.u32();
        c->am_id = in.u8();
        const std::size_t room = shm::kCellSize - sizeof(shm::Cell);
        const std::span<const std::byte> contents = in.bytes(std::min<std::size_t>(in.u16(), room));
        std::memcpy(c->data(), contents.data(), contents.size());
        shm::Ring::publish(c, pos++);
        ++readied;
        break;
      }
      case 1:
        t.progress(Transport::kForever);
        break;
      case 2: {
        shm::Cell* c = from_peer.cell(in.u8());
        c->seq = in.u64();
        ++readied;
        break;
      }
    }
    check(delivered <= readied, "the reader takes no more cells than were made ready");
  }
  for (int i = 0; i < 4; ++i)
    t.progress(Transport::kForever);
  check(delivered <= readied, "the reader takes no more cells than were made ready");
  return 0;
}
