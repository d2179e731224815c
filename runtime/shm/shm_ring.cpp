// Creating, opening and unlinking the shared-memory segments of the shm
// backend; the ring protocol itself is inline in shm_ring.hpp.
#include "runtime/shm/shm_ring.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <new>

#include "runtime/bootstrap.hpp"
#include "runtime/fault.hpp"

namespace xover::runtime::shm {
namespace {

constexpr std::uint64_t kMagic = 0x78766572'2d6d6d33;  // "xver-mm3": rings of a FIFO and descriptors
constexpr std::size_t kHeaderBytes = 4096;              // one page: the rings start page-aligned
constexpr std::size_t kSignalBytes = kSignalWords * kSignalStride;
constexpr std::size_t kRingsAt = kHeaderBytes + kSignalBytes;
static_assert(kSignalBytes == 4096, "the signal words fill one page");
constexpr std::size_t kSegmentBudget = std::size_t{32} << 20;

/// The first page of a segment: enough for a peer to check that it mapped
/// what it meant to.
struct SegmentHeader {
  std::uint64_t magic;
  std::uint32_t owner;
  std::uint32_t size;
  std::uint32_t cells;
  std::uint32_t cell_size;
  std::uint32_t descriptors;
  std::uint32_t descriptor_size;
};

std::size_t ring_bytes(RingShape shape) {
  return Ring::bytes(shape.cells, shape.descriptors);
}

std::size_t segment_bytes(Rank size, RingShape shape) {
  return kRingsAt + std::size_t{size} * ring_bytes(shape);
}

/// The largest power of two in [16, 256] that is at most `fit`.
std::uint32_t fitting(std::size_t fit) {
  return static_cast<std::uint32_t>(std::bit_floor(std::clamp<std::size_t>(fit, 16, 256)));
}

// Faults pages in now, so that no message pays a page fault (a
// descriptor's second page is first touched by the first message that
// fills it). A hint:
// kernels before 5.14 lack it and fault on first use instead.
void prefault(std::byte* base, std::size_t bytes) {
  madvise(base, bytes, MADV_POPULATE_WRITE);
}

[[noreturn]] void fail(const std::string& what, const std::string& name, int err) {
  throw RuntimeError("shm: " + what + " " + name + ": " + std::strerror(err));
}

/// Maps `bytes` of the segment `fd` shared and read-write, then closes `fd`.
std::byte* map_and_close(int fd, std::size_t bytes, const std::string& name) {
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  close(fd);
  if (base == MAP_FAILED)
    fail("cannot map", name, err);
  return static_cast<std::byte*>(base);
}

}  // namespace

RingShape ring_shape(Rank size) {
  const std::size_t per_ring = kSegmentBudget / std::max<Rank>(size, 1);
  const std::size_t fifo = std::size_t{kFifoCells} * kCellSize;
  const std::uint32_t descriptors = fitting(per_ring > fifo ? (per_ring - fifo) / kDescriptorSize : 0);
  const std::size_t pool = std::size_t{descriptors} * kDescriptorSize;
  return {fitting(per_ring > pool ? (per_ring - pool) / kCellSize : 0), descriptors};
}

Segment Segment::create(const std::string& name, Rank owner, Rank size) {
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, S_IRUSR | S_IWUSR);
  if (fd < 0)
    fail(errno == EEXIST ? "cannot create (a run of the same job name is alive, or one left it; remove it)" : "cannot create",
         "/dev/shm" + name, errno);
  unlink_shm_on_stop(name);
  Segment seg;
  seg.name_ = name;
  seg.linked_ = true;
  seg.shape_ = ring_shape(size);
  seg.bytes_ = segment_bytes(size, seg.shape_);
  // The umask may have taken bits off 0600 (or, with a strange umask, left
  // the owner unable to write): set the mode exactly, then check it.
  struct stat st {};
  if (fchmod(fd, S_IRUSR | S_IWUSR) != 0 || fstat(fd, &st) != 0 || (st.st_mode & 0777) != 0600) {
    const int err = errno;
    close(fd);
    fail("cannot make private (mode 0600)", name, err);
  }
  if (ftruncate(fd, static_cast<off_t>(seg.bytes_)) != 0) {
    const int err = errno;
    close(fd);
    fail("cannot size (is /dev/shm full?)", name, err);
  }
  seg.base_ = map_and_close(fd, seg.bytes_, name);
  prefault(seg.base_, seg.bytes_);
  for (Rank sender = 0; sender < size; ++sender) {
    std::byte* ring = seg.base_ + kRingsAt + std::size_t{sender} * ring_bytes(seg.shape_);
    for (std::uint32_t i = 0; i < seg.shape_.cells; ++i)
      new (ring + std::size_t{i} * kCellSize) Cell{i, {}};
  }
  new (seg.base_)
      SegmentHeader{kMagic, owner, size, seg.shape_.cells, kCellSize, seg.shape_.descriptors, kDescriptorSize};
  return seg;
}

Segment Segment::open(const std::string& name, Rank owner, Rank size, Rank writer) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0)
    fail("cannot open the segment of rank " + std::to_string(owner) + ",", name, errno);
  Segment seg;
  seg.name_ = name;
  seg.shape_ = ring_shape(size);
  seg.bytes_ = segment_bytes(size, seg.shape_);
  struct stat st {};
  if (fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) != seg.bytes_) {
    close(fd);
    throw RuntimeError("shm: the segment " + name + " of rank " + std::to_string(owner) + " has " +
                       std::to_string(st.st_size) + " bytes, not the " + std::to_string(seg.bytes_) +
                       " a run of " + std::to_string(size) + " ranks makes");
  }
  seg.base_ = map_and_close(fd, seg.bytes_, name);
  const auto* header = reinterpret_cast<const SegmentHeader*>(seg.base_);
  if (header->magic != kMagic || header->owner != owner || header->size != size || header->cells != seg.shape_.cells ||
      header->cell_size != kCellSize || header->descriptors != seg.shape_.descriptors ||
      header->descriptor_size != kDescriptorSize)
    throw RuntimeError("shm: the segment " + name + " is not the one rank " + std::to_string(owner) +
                       " of this run created (another xover version, or a stale name)");
  prefault(seg.base_ + kHeaderBytes, kSignalBytes);
  prefault(seg.base_ + kRingsAt + std::size_t{writer} * ring_bytes(seg.shape_), ring_bytes(seg.shape_));
  return seg;
}

Segment::Segment(Segment&& other) noexcept
    : name_(std::move(other.name_)), base_(other.base_), bytes_(other.bytes_), shape_(other.shape_),
      linked_(other.linked_) {
  other.base_ = nullptr;
  other.linked_ = false;
}

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    reset();
    name_ = std::move(other.name_);
    base_ = other.base_;
    bytes_ = other.bytes_;
    shape_ = other.shape_;
    linked_ = other.linked_;
    other.base_ = nullptr;
    other.linked_ = false;
  }
  return *this;
}

Segment::~Segment() {
  reset();
}

void Segment::reset() noexcept {
  if (linked_)
    unlink();
  if (base_)
    munmap(base_, bytes_);
  base_ = nullptr;
}

void Segment::unlink() {
  if (!linked_)
    return;
  shm_unlink(name_.c_str());
  forget_shm(name_);
  linked_ = false;
}

Ring Segment::ring(Rank sender) const {
  return Ring(base_ + kRingsAt + std::size_t{sender} * ring_bytes(shape_), shape_.cells, shape_.descriptors);
}

std::uint64_t* Segment::signal(std::size_t index) const {
  return reinterpret_cast<std::uint64_t*>(base_ + kHeaderBytes + index * kSignalStride);
}

}  // namespace xover::runtime::shm
