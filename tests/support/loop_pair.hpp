// Two Workers in one process, rank 1 sending to rank 0, over a loop of
// inboxes (one message delivered a poll, so that fragments land while
// copies are in flight), each rank with the device memory it is given:
// rndv/pipe's pipeline run end to end without a network, over host bytes
// whose copies complete later (lagged_memory.hpp) or over a GPU's
// (cuda_memory_test). Every byte is checked by the caller (first_wrong).
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "protocols/core/device_memory.hpp"
#include "protocols/core/worker.hpp"
#include "protocols/mtype/mtype.hpp"
#include "tests/support/paths.hpp"

namespace xover::test {

/// A fragment carries 1024 payload bytes (a 1040-byte segment, 16 of header).
inline constexpr Bytes kLoopFragment = 1024;

struct LoopMessage {
  Rank source = 0;
  AmId id = 0;
  std::vector<std::byte> header;
  std::vector<std::byte> payload;
};

/// Both ranks' inboxes, and the offsets of rndv/pipe's data fragments in
/// the order they were sent.
struct Loop {
  std::array<std::deque<LoopMessage>, 2> inbox;
  std::vector<Bytes> fragments_sent;
};

/// One lane with a copied (bcopy) active message, and a GPU at each end.
inline Path loop_path() {
  LaneAttrs lane = test::lane("r0", 1, 10, 0.5);
  lane.caps = {LaneCap::AmShort, LaneCap::AmBcopy};
  lane.max_short = 64;
  lane.max_bcopy = lane.seg_size = kLoopFragment + 16;
  Path path = test::path({lane}, 5);
  path.device_local = path.device_remote = DeviceCopy{1e-6, 10e9, 0};
  return path;
}

class LoopTransport final : public Transport {
 public:
  LoopTransport(Rank rank, Loop& loop) : rank_(rank), loop_(loop), path_(loop_path()) {}

  Rank rank() const override { return rank_; }
  Rank size() const override { return 2; }
  const Path& path(Rank) const override { return path_; }
  void set_am_handler(AmId id, AmHandler handler) override { handlers_[id] = std::move(handler); }
  Status am_send(std::size_t, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload, AmMode,
                 Completion) override {
    if (!failure().empty())
      return Status::Error;
    LoopMessage m{rank_, id, {header.begin(), header.end()}, {}};
    if (payload.data)
      m.payload.assign(payload.data, payload.data + payload.size);
    if (id == kAmPipeData) {
      Bytes offset = 0;
      std::memcpy(&offset, header.data() + 8, sizeof offset);
      loop_.fragments_sent.push_back(offset);
    }
    loop_.inbox[peer].push_back(std::move(m));
    return Status::Ok;
  }
  Status get(std::size_t, Rank, MutableBuffer, RemoteAddr, Completion) override { return Status::Error; }
  Status put(std::size_t, Rank, ConstBuffer, RemoteAddr, Completion) override { return Status::Error; }
  MemoryRegion reg(Rank, std::size_t, const std::byte* base, Bytes size) override { return {1, base, size}; }
  void dereg(const MemoryRegion&) override {}
  RemoteAddr remote_addr(const MemoryRegion& region, const std::byte* base) const override {
    return {region.key, reinterpret_cast<std::uint64_t>(base)};
  }
  void copy(std::byte* dst, const std::byte* src, Bytes n) override {
    if (dst && src && n)
      std::memcpy(dst, src, n);
  }
  void progress(Seconds) override {
    std::deque<LoopMessage>& mine = loop_.inbox[rank_];
    if (mine.empty())
      return;
    const LoopMessage m = std::move(mine.front());
    mine.pop_front();
    if (handlers_[m.id])
      handlers_[m.id](AmMessage{m.source, 0, m.header, ConstBuffer{m.payload.data(), m.payload.size()}});
  }
  Seconds now() const override { return 0; }
  bool flushed() const override { return true; }
  /// From now on every send fails, as when the peer is gone.
  void break_down(std::string why) { fail(std::move(why)); }

 private:
  Rank rank_;
  Loop& loop_;
  Path path_;
  std::array<AmHandler, 256> handlers_;
};

inline std::byte loop_pattern(Bytes i) {
  return static_cast<std::byte>((i * 7 + 3) & 0xff);
}

/// Rank 1 sends `size` bytes from its device memory to rank 0's with
/// `protocol` (rndv/pipe unless named). The buffers are host-visible only
/// through the device memories' synchronous copies.
class LoopPair {
 public:
  LoopPair(DeviceMemory& receiver, DeviceMemory& sender, std::string_view protocol = "rndv/pipe")
      : receiver_(receiver), sender_(sender), t0_(0, loop), t1_(1, loop) {
    t0_.attach_device_memory(&receiver_);
    t1_.attach_device_memory(&sender_);
    SelectConfig config;
    config.set("proto", protocol);
    w0_ = std::make_unique<Worker>(t0_, config);
    w1_ = std::make_unique<Worker>(t1_, config);
  }
  ~LoopPair() {
    w0_.reset();
    w1_.reset();
    receiver_.free(in_);
    sender_.free(out_);
  }
  LoopPair(const LoopPair&) = delete;
  LoopPair& operator=(const LoopPair&) = delete;

  /// Allocates both buffers, fills the sender's with the pattern and the
  /// receiver's with zeros, posts the receive, then the send. False (the
  /// memory's why()) when a buffer or a copy fails.
  bool start(Bytes bytes) {
    size = bytes;
    out_ = sender_.alloc(size);
    in_ = receiver_.alloc(size);
    if (!out_ || !in_)
      return false;
    std::vector<std::byte> host(size);
    for (Bytes i = 0; i < size; ++i)
      host[i] = loop_pattern(i);
    if (!sender_.to_device(out_, host.data(), size))
      return false;
    std::fill(host.begin(), host.end(), std::byte{0});
    if (!receiver_.to_device(in_, host.data(), size))
      return false;
    recv = w0_->tag_recv({in_, size}, 7);
    send = w1_->tag_send(0, {out_, size}, 7);
    return true;
  }
  /// Progresses both ranks until both requests are done, or `polls` each.
  bool run(int polls = 100000) {
    for (int i = 0; i < polls && !(recv->done && send->done); ++i) {
      w1_->progress();
      w0_->progress();
    }
    return recv->done && send->done;
  }
  /// The first byte of the receive buffer that is wrong, or size (or 0
  /// when the buffer cannot be read back).
  Bytes first_wrong() {
    std::vector<std::byte> host(size);
    if (!receiver_.to_host(host.data(), in_, size))
      return 0;
    for (Bytes i = 0; i < size; ++i)
      if (host[i] != loop_pattern(i))
        return i;
    return size;
  }

  /// Both transports fail (Transport::failure()).
  void break_down() {
    t0_.break_down("the loop is broken");
    t1_.break_down("the loop is broken");
  }
  Worker& receiver() { return *w0_; }
  Worker& sender() { return *w1_; }

  Loop loop;
  Bytes size = 0;
  Request* recv = nullptr;
  Request* send = nullptr;

 private:
  DeviceMemory& receiver_;
  DeviceMemory& sender_;
  LoopTransport t0_;
  LoopTransport t1_;
  std::unique_ptr<Worker> w0_;
  std::unique_ptr<Worker> w1_;
  std::byte* out_ = nullptr;
  std::byte* in_ = nullptr;
};

}  // namespace xover::test
