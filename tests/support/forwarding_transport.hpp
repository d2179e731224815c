// Transport wrappers for tests: ForwardingTransport passes every call
// through to the transport it wraps, so that a wrapper overrides only what
// it changes; SteadyFigures is one that reports fixed LogGP figures instead
// of the ones a hardware backend measured at wire-up.
#pragma once

#include <map>

#include "protocols/core/transport.hpp"

namespace xover::test {

/// A Transport that passes every call through to `inner`.
class ForwardingTransport : public Transport {
 public:
  explicit ForwardingTransport(Transport& inner) : inner_(inner) {}

  Rank rank() const override { return inner_.rank(); }
  Rank size() const override { return inner_.size(); }
  const Path& path(Rank peer) const override { return inner_.path(peer); }
  void set_am_handler(AmId id, AmHandler handler) override { inner_.set_am_handler(id, std::move(handler)); }
  Status am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload,
                 AmMode mode, Completion done) override {
    return inner_.am_send(lane, peer, id, header, payload, mode, std::move(done));
  }
  Status get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion done) override {
    return inner_.get(lane, peer, local, remote, std::move(done));
  }
  Status put(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, Completion done) override {
    return inner_.put(lane, peer, local, remote, std::move(done));
  }
  Status put_signal(std::size_t lane, Rank peer, ConstBuffer local, RemoteAddr remote, RemoteAddr signal,
                    std::uint64_t value, Completion done) override {
    return inner_.put_signal(lane, peer, local, remote, signal, value, std::move(done));
  }
  SignalWord signal_word() override { return inner_.signal_word(); }
  RankThreads& threads() override { return inner_.threads(); }
  MemoryRegion reg(Rank peer, std::size_t lane, const std::byte* base, Bytes size) override {
    return inner_.reg(peer, lane, base, size);
  }
  void dereg(const MemoryRegion& region) override { inner_.dereg(region); }
  bool reg_may_outlive_use(const std::byte* base, Bytes size) const override {
    return inner_.reg_may_outlive_use(base, size);
  }
  RemoteAddr remote_addr(const MemoryRegion& region, const std::byte* base) const override {
    return inner_.remote_addr(region, base);
  }
  void copy(std::byte* dst, const std::byte* src, Bytes n) override { inner_.copy(dst, src, n); }
  /// Progresses the wrapped transport; a failure there becomes this one's.
  void progress(Seconds deadline) override {
    inner_.progress(deadline);
    if (!inner_.failure().empty())
      fail(inner_.failure());
  }
  Seconds now() const override { return inner_.now(); }
  bool flushed() const override { return inner_.flushed(); }

 protected:
  Transport& inner_;
};

/// A Transport whose lanes report the same fixed figures on every run (1 us,
/// 10 GB/s, 0.2 us each side, no gap, free registration, 10 GB/s copies)
/// with the wrapped lanes' names, size limits and capabilities. On hardware
/// the measured figures vary from run to run, and with them the protocol a
/// size takes; behind this wrapper the choice depends only on what the lanes
/// can do, while every byte still moves over them.
class SteadyFigures final : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;

  const Path& path(Rank peer) const override {
    auto [it, added] = paths_.try_emplace(peer, inner_.path(peer));
    if (added) {
      Path& path = it->second;
      path.memcpy_bw_local = path.memcpy_bw_remote = 10e9;
      for (LaneAttrs& lane : path.lanes) {
        lane.latency = 1e-6;
        lane.bandwidth = 10e9;
        lane.o_send = lane.o_recv = 0.2e-6;
        lane.gap = 0;
        lane.reg_cost = 0;
        lane.reg_growth = 0;
      }
    }
    return it->second;
  }

 private:
  mutable std::map<Rank, Path> paths_;
};

}  // namespace xover::test
