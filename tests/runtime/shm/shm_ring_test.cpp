// The shared-memory ring's layout, in one process: a ShmTransport whose ring
// to itself is memory the test owns (a FIFO of 16 cells, then 4
// descriptors, then a page no one may touch), so that a test sees where
// each message lies. A message of up to 112 bytes lies inline in its cell,
// a larger one in the descriptor its position owns; a descriptor is not
// reused before its cell is released; running out of cells or descriptors
// says NoResource and loses nothing; a cell naming a descriptor it does not
// own, or lengths past where they lie, is dropped without a read outside
// the ring.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/shm/shm_transport.hpp"
#include "runtime/shm/shm_transport_impl.hpp"
#include "tests/support/pattern.hpp"

namespace xover::runtime::shm {
namespace {

constexpr std::uint32_t kCells = 16;
constexpr std::uint32_t kDescriptors = 4;
constexpr AmId kId = 3;

using test::pattern;
using test::patterned;

/// A ring mapped so that the page right after its last descriptor faults.
class GuardedRing {
 public:
  GuardedRing() {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    mapped_ = Ring::bytes(kCells, kDescriptors) + page;
    void* at = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED)
      throw std::runtime_error("cannot map the test ring");
    base_ = static_cast<std::byte*>(at);
    mprotect(base_ + mapped_ - page, page, PROT_NONE);
    for (std::uint32_t i = 0; i < kCells; ++i)
      new (cell(i)) Cell{i, {}};
  }
  ~GuardedRing() { munmap(base_, mapped_); }
  GuardedRing(const GuardedRing&) = delete;
  GuardedRing& operator=(const GuardedRing&) = delete;

  Ring ring() const { return Ring(base_, kCells, kDescriptors); }
  Cell* cell(std::uint64_t pos) const { return reinterpret_cast<Cell*>(base_ + (pos % kCells) * kCellSize); }
  const std::byte* descriptor(std::uint32_t index) const {
    return base_ + std::size_t{kCells} * kCellSize + std::size_t{index} * kDescriptorSize;
  }

 private:
  std::byte* base_ = nullptr;
  std::size_t mapped_ = 0;
};

/// Rank 0 of a run of one, whose ring to itself is a GuardedRing.
class ShmRingTest : public ::testing::Test {
 protected:
  ShmRingTest() {
    t_.peer(0).pid = getpid();
    t_.peer(0).in = mem_.ring();
    t_.peer(0).out = mem_.ring();
  }

  Status send(std::span<const std::byte> header, std::span<const std::byte> payload) {
    return t_.push(0, kId, header, {payload.data(), payload.size()});
  }
  std::uint64_t position() { return t_.peer(0).out_pos; }

  GuardedRing mem_;
  ShmTransport t_{0, 1, 10};
};

TEST_F(ShmRingTest, AShortMessageLiesInlineInItsCell) {
  const std::vector<std::byte> header = patterned(1, 8);
  const std::vector<std::byte> payload = patterned(2, 8);
  ASSERT_EQ(send(header, payload), Status::Ok);
  EXPECT_EQ(mem_.cell(0)->head.descriptor, kInline);
  int got = 0;
  t_.set_am_handler(kId, [&](const AmMessage& m) {
    ++got;
    EXPECT_EQ(m.header.data(), mem_.cell(0)->data());
    EXPECT_EQ(m.payload.data, mem_.cell(0)->data() + 8);
    ASSERT_EQ(m.header.size(), 8U);
    ASSERT_EQ(m.payload.size, 8U);
    EXPECT_EQ(std::memcmp(m.header.data(), header.data(), 8), 0);
    EXPECT_EQ(std::memcmp(m.payload.data, payload.data(), 8), 0);
  });
  t_.progress(Transport::kForever);
  EXPECT_EQ(got, 1);
}

TEST_F(ShmRingTest, A112ByteMessageIsInlineAnd113BytesTakeADescriptor) {
  const std::vector<std::byte> header = patterned(1, 16);
  ASSERT_EQ(send(header, patterned(2, kInlineBytes - 16)), Status::Ok);
  ASSERT_EQ(send(header, patterned(3, kInlineBytes - 15)), Status::Ok);
  EXPECT_EQ(mem_.cell(0)->head.descriptor, kInline);
  EXPECT_EQ(mem_.cell(1)->head.descriptor, 1);
  std::vector<const std::byte*> at;
  t_.set_am_handler(kId, [&](const AmMessage& m) { at.push_back(m.header.data()); });
  t_.progress(Transport::kForever);
  EXPECT_EQ(at, (std::vector<const std::byte*>{mem_.cell(0)->data(), mem_.descriptor(1)}));
}

TEST_F(ShmRingTest, AnEightKiBBcopyGoesThroughItsDescriptorWithEveryByte) {
  ASSERT_EQ(send(patterned(0, 8), patterned(0, 8)), Status::Ok);  // position 1 is next: descriptor 1
  const std::vector<std::byte> header = patterned(5, 16);
  const std::vector<std::byte> payload = patterned(6, kMaxBcopy - 16);
  ASSERT_EQ(send(header, payload), Status::Ok);
  EXPECT_EQ(mem_.cell(1)->head.descriptor, 1);
  int got = 0;
  t_.set_am_handler(kId, [&](const AmMessage& m) {
    if (m.payload.size != payload.size())
      return;
    ++got;
    EXPECT_EQ(m.header.data(), mem_.descriptor(1));
    ASSERT_EQ(m.header.size(), header.size());
    for (std::size_t i = 0; i < header.size(); ++i)
      ASSERT_EQ(m.header[i], header[i]) << "header byte " << i;
    for (std::size_t i = 0; i < payload.size(); ++i)
      ASSERT_EQ(m.payload.data[i], payload[i]) << "payload byte " << i;
  });
  t_.progress(Transport::kForever);
  EXPECT_EQ(got, 1);
  EXPECT_EQ(kMaxBcopy, 8176U);
}

TEST_F(ShmRingTest, RunningOutOfDescriptorsOrCellsSaysNoResourceAndLosesNothing) {
  std::vector<std::uint64_t> sent;  // the first payload byte's seed of each accepted message
  auto bcopy = [&](std::uint64_t seed) {
    const std::vector<std::byte> payload = patterned(seed, 1000);
    const Status st = send(std::as_bytes(std::span(&seed, 1)), payload);
    if (st == Status::Ok)
      sent.push_back(seed);
    return st;
  };
  auto inline_ = [&](std::uint64_t seed) {
    const std::vector<std::byte> payload = patterned(seed, 8);
    const Status st = send(std::as_bytes(std::span(&seed, 1)), payload);
    if (st == Status::Ok)
      sent.push_back(seed);
    return st;
  };
  for (std::uint64_t i = 0; i < kDescriptors; ++i)
    ASSERT_EQ(bcopy(i), Status::Ok);
  EXPECT_EQ(bcopy(100), Status::NoResource) << "every descriptor is taken";
  EXPECT_EQ(position(), kDescriptors) << "a refused message takes no position";
  std::uint64_t seed = 200;
  while (inline_(seed) == Status::Ok)
    ++seed;
  EXPECT_EQ(sent.size(), kCells) << "short messages still fill the cells";
  EXPECT_EQ(bcopy(101), Status::NoResource);

  std::vector<std::uint64_t> got;
  t_.set_am_handler(kId, [&](const AmMessage& m) {
    std::uint64_t s = 0;
    ASSERT_EQ(m.header.size(), sizeof s);
    std::memcpy(&s, m.header.data(), sizeof s);
    got.push_back(s);
    for (std::size_t i = 0; i < m.payload.size; ++i)
      ASSERT_EQ(m.payload.data[i], pattern(s, i)) << "message " << s << " byte " << i;
  });
  t_.progress(Transport::kForever);
  EXPECT_EQ(got, sent);
  EXPECT_EQ(bcopy(102), Status::Ok) << "released cells free their descriptors";
}

TEST_F(ShmRingTest, ADescriptorIsNotReusedWhileItsMessageIsHandled) {
  const std::vector<std::byte> payload = patterned(9, 1000);
  ASSERT_EQ(send({}, payload), Status::Ok);  // position 0, descriptor 0
  for (int i = 1; i < static_cast<int>(kDescriptors); ++i)
    ASSERT_EQ(send({}, patterned(0, 8)), Status::Ok);
  Status inside = Status::Ok;
  bool intact = false;
  t_.set_am_handler(kId, [&](const AmMessage& m) {
    if (m.payload.size != payload.size())
      return;
    // Position kDescriptors owns descriptor 0 too: not free before this
    // cell is released.
    inside = send({}, patterned(10, 1000));
    intact = std::memcmp(m.payload.data, payload.data(), payload.size()) == 0;
  });
  t_.progress(Transport::kForever);
  EXPECT_EQ(inside, Status::NoResource);
  EXPECT_TRUE(intact);
  EXPECT_EQ(send({}, patterned(10, 1000)), Status::Ok);
  EXPECT_EQ(mem_.cell(kDescriptors)->head.descriptor, 0);
}

TEST_F(ShmRingTest, CorruptCellsAreDroppedWithoutAReadOutsideTheRing) {
  // The handler reads every byte it is given: one past the pool would
  // fault on the guard page.
  int got = 0;
  unsigned sum = 0;
  t_.set_am_handler(kId, [&](const AmMessage& m) {
    ++got;
    for (std::byte b : m.header)
      sum += static_cast<unsigned>(b);
    for (std::size_t i = 0; i < m.payload.size; ++i)
      sum += static_cast<unsigned>(m.payload.data[i]);
  });
  // Position 0 owns descriptor 0, 1 owns 1, and so on. A descriptor past
  // the pool (4 would be the guard page), the largest index, one that
  // another position owns, lengths past a descriptor, lengths past a cell.
  ASSERT_EQ(testing::shm_publish_raw_cell(t_, 0, kId, 16, 100, kDescriptors), Status::Ok);
  ASSERT_EQ(testing::shm_publish_raw_cell(t_, 0, kId, 16, 100, 0xfffe), Status::Ok);
  ASSERT_EQ(testing::shm_publish_raw_cell(t_, 0, kId, 16, 100, 3), Status::Ok);
  ASSERT_EQ(testing::shm_publish_raw_cell(t_, 0, kId, 16, kDescriptorBytes - 15, 3), Status::Ok);
  ASSERT_EQ(testing::shm_publish_raw_cell(t_, 0, kId, 16, kInlineBytes - 15, kInline), Status::Ok);
  ASSERT_EQ(testing::shm_publish_raw_cell(t_, 0, kId, 0xffff, 0xffff, kInline), Status::Ok);
  t_.progress(Transport::kForever);
  EXPECT_EQ(got, 0);
  ASSERT_EQ(send({}, patterned(1, 8)), Status::Ok);
  ASSERT_EQ(send({}, patterned(1, 3000)), Status::Ok);
  t_.progress(Transport::kForever);
  EXPECT_EQ(got, 2) << "the ring goes on after the corrupt cells";
  EXPECT_GT(sum, 0U);
}

TEST(ShmRingShape, SegmentsStayNear32MiBUpTo256RanksAndRingsStayValid) {
  EXPECT_EQ(ring_shape(2).cells, 256U);
  EXPECT_EQ(ring_shape(2).descriptors, 256U);
  EXPECT_EQ(ring_shape(200).cells, 256U) << "descriptors go first";
  EXPECT_EQ(ring_shape(200).descriptors, 16U);
  EXPECT_EQ(ring_shape(256).cells, 16U);
  for (Rank size : {1U, 2U, 3U, 8U, 15U, 16U, 17U, 64U, 127U, 128U, 200U, 205U, 256U, 1024U, 4096U}) {
    const RingShape shape = ring_shape(size);
    EXPECT_TRUE(std::has_single_bit(shape.cells) && std::has_single_bit(shape.descriptors)) << size;
    EXPECT_TRUE(shape.descriptors >= 16 && shape.descriptors <= shape.cells && shape.cells <= 256) << size;
    if (size <= 256) {
      EXPECT_LE(std::size_t{size} * Ring::bytes(shape.cells, shape.descriptors), std::size_t{34} << 20) << size;
    }
  }
}

TEST(ShmRingShape, ASegmentOf256RanksCarriesMessagesInItsSmallerRings) {
  // 256 ranks: rings of 16 cells and 16 descriptors. The owner's mapping
  // reads what the last rank writes through its own.
  const std::string name = "/xover-shm-ring-test-" + std::to_string(getpid());
  Segment owner = Segment::create(name, 0, 256);
  Segment writer = Segment::open(name, 0, 256, 255);
  owner.unlink();
  const Ring out = writer.ring(255);
  const Ring in = owner.ring(255);
  ASSERT_EQ(in.cells(), 16U);
  ASSERT_EQ(in.descriptors(), 16U);
  ShmTransport t(255, 256, 10);
  t.peer(0).out = out;
  const std::vector<std::byte> header = patterned(3, 16);
  std::uint64_t sent = 0;
  while (t.push(0, kId, header, {patterned(sent, 4000).data(), 4000}) == Status::Ok)
    ++sent;
  EXPECT_EQ(sent, 16U);
  for (std::uint64_t pos = 0; pos < sent; ++pos) {
    Cell* c = in.ready(pos);
    ASSERT_NE(c, nullptr) << pos;
    const CellHead h = Ring::head(*c);
    const std::byte* at = in.locate(*c, h, pos);
    ASSERT_NE(at, nullptr) << pos;
    ASSERT_EQ(h.payload_len, 4000U);
    EXPECT_EQ(std::memcmp(at + 16, patterned(pos, 4000).data(), 4000), 0) << pos;
    in.release(c, pos);
  }
  EXPECT_EQ(t.push(0, kId, header, {patterned(0, 4000).data(), 4000}), Status::Ok) << "released, so free again";
}

}  // namespace
}  // namespace xover::runtime::shm
