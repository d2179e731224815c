// Harness: the shared-memory transport's reader of its rings
// (runtime/shm/shm_ring.hpp, ShmTransport::progress and deliver in
// runtime/shm/shm_transport.cpp) on cells a corrupt or hostile sender
// writes: any lengths, any descriptor index, any AM id, any `seq`, at any
// time; and its writer (ShmTransport::push) on a ring in any such state.
//
// Rank 0's ShmTransport reads rank 1's ring from memory the harness owns
// (a FIFO of 16 cells then 4 descriptors, ending where its allocation ends,
// so that ASan sees a read past it); the harness is the sender, writing
// cells itself or through rank 1's ShmTransport, at the position that
// transport keeps. Input: ops, one byte each then their fields,
// little-endian:
//
//   0 Publish   u16 header length, u16 payload length, u16 descriptor, u8 AM
//               id, u16 bytes of contents, the contents; written inline, or
//               into descriptor (descriptor % 4), and the cell at the
//               sender's position, whose seq then says it holds a message
//   1 Progress  -
//   2 Seq       u8 cell index, u64 seq: a seq stored anywhere, as a sender
//               that ignores the protocol would (it may make a cell ready)
//   3 Push      u16 header length, u16 payload length, u8 AM id: a message
//               through ShmTransport::push, refused when its cell or its
//               descriptor is not free
//
// Checks: a handler sees its header and payload together inside the one
// cell or the one descriptor they came in; a cell whose lengths pass where
// they lie, or that names a descriptor its position does not own, is
// dropped, not delivered; the reader takes no more cells than the sender
// made ready; nothing hangs.
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
constexpr std::uint32_t kDescriptors = 4;
constexpr std::size_t kFifoBytes = std::size_t{kCells} * shm::kCellSize;
constexpr std::size_t kRingBytes = shm::Ring::bytes(kCells, kDescriptors);
constexpr std::size_t kMaxOps = 1024;

/// A ring in memory of its own, every cell free for the producer.
class RingMemory {
 public:
  RingMemory() : bytes_(std::make_unique<std::byte[]>(kRingBytes)) {
    std::memset(bytes_.get(), 0, kRingBytes);
    for (std::uint32_t i = 0; i < kCells; ++i)
      cell(i)->seq = i;
  }
  shm::Ring ring() const { return shm::Ring(bytes_.get(), kCells, kDescriptors); }
  shm::Cell* cell(std::uint64_t index) const {
    return reinterpret_cast<shm::Cell*>(bytes_.get() + (index % kCells) * shm::kCellSize);
  }
  std::byte* descriptor(std::uint64_t index) const {
    return bytes_.get() + kFifoBytes + (index % kDescriptors) * shm::kDescriptorSize;
  }
  /// Whether [from, from + n) lies in one cell's inline bytes or in one
  /// descriptor's message bytes.
  bool inside_one_place(const std::byte* from, Bytes n) const {
    const std::byte* start = bytes_.get();
    if (from < start || from > start + kRingBytes)
      return false;
    const std::size_t offset = static_cast<std::size_t>(from - start);
    if (offset < kFifoBytes) {
      const std::size_t cell_start = offset / shm::kCellSize * shm::kCellSize;
      return offset >= cell_start + sizeof(shm::Cell) && offset + n <= cell_start + shm::kCellSize;
    }
    const std::size_t in_pool = offset - kFifoBytes;
    const std::size_t descriptor_start = in_pool / shm::kDescriptorSize * shm::kDescriptorSize;
    return in_pool + n <= descriptor_start + shm::kDescriptorBytes;
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
  t.peer(0).in = from_self.ring();
  t.peer(1).pid = getpid();
  t.peer(1).in = from_peer.ring();
  shm::ShmTransport sender(1, 2, 10);
  sender.peer(0).out = from_peer.ring();
  std::uint64_t& pos = sender.peer(0).out_pos;

  std::size_t readied = 0;  ///< publications and seq stores: each may make one cell ready
  std::size_t delivered = 0;
  // Ids 0 to 7 have handlers; a cell for another id is dropped.
  for (AmId id = 0; id < 8; ++id)
    t.set_am_handler(id, [&](const AmMessage& m) {
      check(m.source == 1 && m.lane == shm::kMmLane, "a message comes from the peer's ring");
      const std::byte* start = m.header.empty() ? m.payload.data : m.header.data();
      check(start != nullptr && from_peer.inside_one_place(start, m.header.size() + m.payload.size),
            "the header and payload lie inside one cell or one descriptor");
      check(m.header.empty() || m.payload.size == 0 || m.payload.data == m.header.data() + m.header.size(),
            "the payload follows the header");
      ++delivered;
    });

  std::vector<std::byte> message(shm::kMaxBcopy);
  for (std::size_t ops = 0; !in.empty() && ops < kMaxOps; ++ops) {
    switch (in.u8() % 4) {
      case 0: {
        shm::Cell* c = from_peer.cell(pos);
        c->head.header_len = in.u16();
        c->head.payload_len = in.u16();
        c->head.descriptor = in.u16();
        c->head.am_id = in.u8();
        const bool inline_ = c->head.descriptor == shm::kInline;
        std::byte* at = inline_ ? c->data() : from_peer.descriptor(c->head.descriptor);
        const std::size_t room = inline_ ? shm::kInlineBytes : shm::kDescriptorSize;
        const std::span<const std::byte> contents = in.bytes(std::min<std::size_t>(in.u16(), room));
        std::memcpy(at, contents.data(), contents.size());
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
      case 3: {
        const std::size_t header = std::min<std::size_t>(in.u16(), shm::kMaxBcopy);
        const std::size_t payload = std::min<std::size_t>(in.u16(), shm::kMaxBcopy - header);
        const AmId id = in.u8();
        if (sender.push(0, id, {message.data(), header}, {message.data() + header, payload}) == Status::Ok)
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
