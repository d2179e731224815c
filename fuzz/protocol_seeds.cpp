// Seeds of the protocol harness: real exchanges between two Workers over
// LoopTransport, an in-process pair whose messages go straight into the
// other rank's inbox and whose gets and puts copy between the two ranks'
// buffers. What rank 0 does and receives is written in the harness's ops
// (protocol_ops.hpp), so that replaying a seed drives the harness's Worker
// through the same stages, request ids included.
#include <array>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "fuzz/protocol_ops.hpp"
#include "fuzz/seeds.hpp"
#include "protocols/core/worker.hpp"

namespace xover::fuzz {
namespace {

using protocol::OpWriter;

struct Message {
  Rank source = 0;
  std::size_t lane = 0;
  AmId id = 0;
  std::vector<std::byte> header;
  std::vector<std::byte> payload;
};

/// Both ranks' inboxes; rank 0's deliveries are recorded.
struct Loop {
  std::array<std::deque<Message>, 2> inbox;
  OpWriter* record = nullptr;
};

class LoopTransport final : public Transport {
 public:
  LoopTransport(Rank rank, Loop& loop) : rank_(rank), loop_(loop), path_(protocol::scripted_path()) {}

  Rank rank() const override { return rank_; }
  Rank size() const override { return 2; }
  const Path& path(Rank) const override { return path_; }
  void set_am_handler(AmId id, AmHandler handler) override { handlers_[id] = std::move(handler); }
  Status am_send(std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header, ConstBuffer payload,
                 AmMode, Completion) override {
    Message m{rank_, lane, id, {header.begin(), header.end()}, {}};
    if (payload.data)
      m.payload.assign(payload.data, payload.data + payload.size);
    loop_.inbox[peer].push_back(std::move(m));
    return Status::Ok;
  }
  Status get(std::size_t, Rank, MutableBuffer local, RemoteAddr remote, Completion) override {
    copy(local.data, reinterpret_cast<const std::byte*>(remote.addr), local.size);
    return Status::Ok;
  }
  Status put(std::size_t, Rank, ConstBuffer local, RemoteAddr remote, Completion) override {
    copy(reinterpret_cast<std::byte*>(remote.addr), local.data, local.size);
    return Status::Ok;
  }
  MemoryRegion reg(Rank, std::size_t, const std::byte* base, Bytes size) override { return {next_key_++, base, size}; }
  void dereg(const MemoryRegion&) override {}
  RemoteAddr remote_addr(const MemoryRegion& region, const std::byte* base) const override {
    return {region.key, reinterpret_cast<std::uint64_t>(base)};
  }
  void copy(std::byte* dst, const std::byte* src, Bytes n) override {
    if (dst && src && n)
      std::memcpy(dst, src, n);
  }
  void progress(Seconds) override {
    std::deque<Message> arrived;
    arrived.swap(loop_.inbox[rank_]);
    if (rank_ == 0) {
      for (const Message& m : arrived)
        loop_.record->deliver(static_cast<std::uint8_t>(m.source), static_cast<std::uint8_t>(m.lane), m.id,
                              m.header, m.payload);
      loop_.record->progress();
    }
    for (const Message& m : arrived)
      if (handlers_[m.id])
        handlers_[m.id](AmMessage{m.source, m.lane, m.header, ConstBuffer{m.payload.data(), m.payload.size()}});
  }
  Seconds now() const override { return 0; }
  bool flushed() const override { return true; }

 private:
  Rank rank_;
  Loop& loop_;
  Path path_;
  std::array<AmHandler, 256> handlers_;
  std::uint64_t next_key_ = 1;
};

/// One exchange: rank 1 sends `size` bytes to rank 0, whose receive is
/// posted before the message or after it has arrived; when `reply`, rank 0
/// sends as much back (its RTR, ACK and data handling then show too).
std::string exchange(std::uint8_t forced, std::uint8_t flags, std::uint32_t size, bool recv_first, bool reply) {
  OpWriter ops(forced, flags);
  SelectConfig config;
  if (const std::string_view name = protocol::kForced[forced]; !name.empty())
    config.set("proto", name);
  config.reg_cache = (flags & 1) == 0;
  Loop loop;
  loop.record = &ops;
  LoopTransport t0(0, loop);
  LoopTransport t1(1, loop);
  Worker w0(t0, config);
  Worker w1(t1, config);
  std::vector<std::byte> out1(size, std::byte{0xa5});
  std::vector<std::byte> in0(size);
  std::vector<std::byte> out0(size, std::byte{0xa5});
  std::vector<std::byte> in1(size);
  std::vector<Request*> requests;
  const auto post_recv = [&] {
    ops.post_recv(size, 7);
    requests.push_back(w0.tag_recv({in0.data(), in0.size()}, 7));
  };
  if (recv_first)
    post_recv();
  requests.push_back(w1.tag_send(0, {out1.data(), out1.size()}, 7));
  if (reply) {
    requests.push_back(w1.tag_recv({in1.data(), in1.size()}, 9));
    ops.send(1, size, 9);
    requests.push_back(w0.tag_send(1, {out0.data(), out0.size()}, 9));
  }
  if (!recv_first) {
    w1.progress();
    w0.progress();
    post_recv();
  }
  for (int i = 0; i < 64; ++i) {
    w1.progress();
    w0.progress();
    bool done = true;
    for (const Request* r : requests)
      done = done && r->done;
    if (done)
      break;
  }
  return ops.bytes();
}

}  // namespace

void protocol_seeds(const std::filesystem::path& root) {
  SeedWriter seeds(root, "protocol");
  for (std::uint8_t forced = 0; forced < protocol::kForced.size(); ++forced) {
    const std::string name = forced == 0 ? "auto" : std::string(protocol::kForced[forced]);
    std::string stem = name;
    for (char& c : stem)
      if (c == '/')
        c = '-';
    for (const std::uint32_t size : {0U, 100U, 5000U, 20000U, 70000U}) {
      seeds.write(stem + "-" + std::to_string(size) + "-posted", exchange(forced, 0, size, true, false));
      seeds.write(stem + "-" + std::to_string(size) + "-unexpected", exchange(forced, 0, size, false, false));
    }
    seeds.write(stem + "-both-ways-nocache", exchange(forced, 1, 20000, true, true));
  }
}

}  // namespace xover::fuzz
