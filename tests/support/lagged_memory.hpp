// Device memory made of host bytes whose started copies complete later:
// the host's implementation of DeviceMemory's asynchronous copies, so that
// a staging protocol's pipeline runs, and is checked, without a GPU. A copy
// started with copy_async moves its bytes only when it completes, at a
// later progress(): one copy a poll, the oldest first or the newest first
// (completion out of order), or none while held. Staging slots come filled
// with 0xEE, so that a fragment sent before its copy completed carries
// wrong bytes. It counts the copies in flight of each kind and the most
// there ever were.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>

#include "protocols/core/device_memory.hpp"

namespace xover::test {

class LaggedMemory final : public DeviceMemory {
 public:
  /// Which started copy a poll completes.
  enum class Order { OldestFirst, NewestFirst };
  explicit LaggedMemory(Order order = Order::NewestFirst) : order_(order) {}
  ~LaggedMemory() override { drop_staging(); }

  MemType type() const override { return MemType::Cuda; }
  bool to_host(std::byte* host, const std::byte* device, Bytes n) override { return move(host, device, n); }
  bool to_device(std::byte* device, const std::byte* host, Bytes n) override { return move(device, host, n); }
  bool copy_device(std::byte* to, const std::byte* from, Bytes n) override { return move(to, from, n); }
  bool ipc_reachable(Rank) const override { return false; }
  bool ipc_export(const std::byte*, IpcBuffer&) override { return failed("no IPC between host-backed ranks"); }
  const std::byte* ipc_open(Rank, const IpcBuffer&) override { return nullptr; }
  DeviceCopy figures() const override { return {}; }

  Status copy_async(CopyKind kind, std::byte* to, const std::byte* from, Bytes n, Completion done) override {
    if (n == 0 || !to || !from)
      return Status::Ok;
    started_[index(kind)]++;
    copies_.push_back(Copy{kind, to, from, n, std::move(done)});
    const auto now = static_cast<std::size_t>(
        std::count_if(copies_.begin(), copies_.end(), [kind](const Copy& c) { return c.kind == kind; }));
    most_[index(kind)] = std::max(most_[index(kind)], now);
    return Status::InProgress;
  }
  std::size_t progress() override {
    if (held_ || copies_.empty())
      return 0;
    Copy c;
    if (order_ == Order::OldestFirst) {
      c = std::move(copies_.front());
      copies_.pop_front();
    } else {
      c = std::move(copies_.back());
      copies_.pop_back();
    }
    if (!failing_)
      std::memcpy(c.to, c.from, c.n);
    c.done(failing_ ? Status::Error : Status::Ok);
    return 1;
  }
  std::size_t copies_in_flight() const override { return copies_.size(); }

  /// While held, no copy completes.
  void hold(bool held) { held_ = held; }
  /// From now on every copy that completes fails, its bytes not moved.
  void fail_copies() { failing_ = true; }
  /// The copies of `kind` started so far, and the most ever in flight at once.
  std::size_t started(CopyKind kind) const { return started_[index(kind)]; }
  std::size_t most_in_flight(CopyKind kind) const { return most_[index(kind)]; }

 protected:
  std::byte* allocate(Bytes n) override { return new std::byte[n == 0 ? 1 : n]; }
  void release(std::byte* p) override { delete[] p; }
  std::byte* allocate_staging(Bytes n) override {
    auto* p = new std::byte[n];
    std::fill_n(p, n, std::byte{0xee});
    return p;
  }
  void release_staging(std::byte* slot, Bytes) override { delete[] slot; }

 private:
  struct Copy {
    CopyKind kind = CopyKind::ToHost;
    std::byte* to = nullptr;
    const std::byte* from = nullptr;
    Bytes n = 0;
    Completion done;
  };
  static std::size_t index(CopyKind kind) { return kind == CopyKind::ToHost ? 0 : 1; }
  static bool move(std::byte* to, const std::byte* from, Bytes n) {
    if (to && from && n)
      std::memcpy(to, from, n);
    return true;
  }

  Order order_;
  std::deque<Copy> copies_;
  bool held_ = false;
  bool failing_ = false;
  std::array<std::size_t, 2> started_{};
  std::array<std::size_t, 2> most_{};
};

}  // namespace xover::test
