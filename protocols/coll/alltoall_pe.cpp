#include "protocols/coll/alltoall_pe.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "protocols/core/payload_pattern.hpp"

namespace xover {
namespace {

/// What a PE tells each peer at set-up: its receive buffer and signal word.
struct Card {
  std::uint64_t recv_key, recv_addr, signal_key, signal_addr;
};

std::string text_size(Bytes n) {
  return std::to_string(n) + " B";
}

}  // namespace

AlltoallPe::AlltoallPe(Transport& transport, Worker& worker, Bytes max_size, std::uint64_t seed)
    : t_(transport), threads_(transport.threads()), device_(threads_.device()), me_(transport.rank()),
      pes_(transport.size()), max_size_(max_size), seed_(seed), peers_(pes_),
      send_((pes_ - 1) * max_size), recv_(pes_ * max_size),
      ring_memory_(CommandRing::bytes_for(kRingEntries) + CommandRing::kAlign) {
  for (Rank p = 0; p < pes_; ++p) {
    if (p == me_)
      continue;
    const std::optional<std::size_t> lane = put_lane(t_.path(p));
    if (!lane)
      throw std::invalid_argument("alltoall: rank " + std::to_string(me_) + ": no lane to rank " + std::to_string(p) +
                                  " carries put_zcopy, which put_signal needs");
    peers_[p].lane = *lane;
  }
  signal_ = t_.signal_word();
  if (!signal_.local)
    throw std::invalid_argument("alltoall: rank " + std::to_string(me_) +
                                ": the transport gives no signal word (it has no put_signal)");
  void* raw = ring_memory_.data();
  std::size_t room = ring_memory_.size();
  std::align(CommandRing::kAlign, CommandRing::bytes_for(kRingEntries), raw, room);
  ring_span_ = {static_cast<std::byte*>(raw), CommandRing::bytes_for(kRingEntries)};
  ring_ = CommandRing::create(ring_span_, kRingEntries);

  // Every peer learns where to put and whom to signal.
  std::vector<Card> theirs(pes_);
  std::vector<Card> mine(pes_);
  std::vector<Request*> requests;
  for (Rank p = 0; p < pes_; ++p) {
    if (p == me_)
      continue;
    requests.push_back(worker.tag_recv({reinterpret_cast<std::byte*>(&theirs[p]), sizeof(Card)},
                                       kCardTag | (Tag{p} << 8)));
    // The send buffer too: an RDMA transport reads the puts from it.
    t_.reg(p, peers_[p].lane, send_.data(), send_.size());
    const MemoryRegion region = t_.reg(p, peers_[p].lane, recv_.data(), recv_.size());
    const RemoteAddr recv = t_.remote_addr(region, recv_.data());
    mine[p] = {recv.key, recv.addr, signal_.remote.key, signal_.remote.addr};
    requests.push_back(
        worker.tag_send(p, {reinterpret_cast<const std::byte*>(&mine[p]), sizeof(Card)}, kCardTag | (Tag{me_} << 8)));
  }
  for (Request* r : requests) {
    worker.wait(r);
    const bool ok = r->status == Status::Ok;
    worker.release(r);
    if (!ok)
      throw std::invalid_argument("alltoall: rank " + std::to_string(me_) + ": the address exchange failed" +
                                  (t_.failure().empty() ? std::string() : ": " + t_.failure()));
  }
  for (Rank p = 0; p < pes_; ++p) {
    peers_[p].recv = {theirs[p].recv_key, theirs[p].recv_addr};
    peers_[p].signal = {theirs[p].signal_key, theirs[p].signal_addr};
  }
}

void AlltoallPe::prepare(Bytes n) {
  ++exchanges_;
  for (std::size_t i = 0; i + 1 < pes_; ++i)
    fill_payload(send_.data() + i * n, n, seed_, me_, alltoall_put_seq(exchanges_, target(i)));
}

ExchangeResult AlltoallPe::exchange(AlltoallFlavour flavour, Bytes n, std::uint32_t threads, Seconds start,
                                    Seconds deadline) {
  const std::size_t puts = pes_ - 1;
  const std::size_t posters = std::clamp<std::size_t>(threads, 1, puts);
  const bool proxied = flavour == AlltoallFlavour::Proxy;
  ExchangeResult out;
  out.post.assign(puts, 0);
  if (proxied) {
    out.serve.assign(puts, 0);
    out.wake.assign(puts, 0);
  }
  expected_ += puts;
  deadline_ = deadline;
  outstanding_ = puts;
  stop_ = false;
  found_ = {};
  threads_.run(posters + (proxied ? 1 : 0), [&](std::size_t i) {
    threads_.wait_until(start);
    if (i < posters)
      poster(flavour, i, posters, n, out);
    else
      proxy(n, out);
    if (i == 0)
      waiter(out);
  });
  if (!out.complete && proxied) {
    // Threads that gave up may have left commands half written or untaken.
    ring_ = CommandRing::create(ring_span_, kRingEntries);
    next_command_ = 0;
  }
  return out;
}

bool AlltoallPe::stopping() {
  if (stop_.load(std::memory_order_relaxed))
    return true;
  if (t_.failure().empty() && threads_.now() < deadline_)
    return false;
  stop_ = true;
  return true;
}

void AlltoallPe::problem(std::string what) {
  const std::lock_guard lock(problems_mutex_);
  ++found_.errors;
  found_.problems.push_back(std::move(what));
}

Status AlltoallPe::post(ConstBuffer local, Rank to, Bytes offset, bool may_progress) {
  const Peer& peer = peers_[to];
  const RemoteAddr remote{peer.recv.key, peer.recv.addr + offset};
  Status status = Status::NoResource;
  for (std::uint64_t round = 0; status == Status::NoResource; ++round) {
    status = t_.put_signal(peer.lane, to, local, remote, peer.signal, 1, [this](Status s) {
      if (s != Status::Ok)
        problem("a put_signal failed at its target");
      outstanding_.fetch_sub(1, std::memory_order_relaxed);
    });
    if (status != Status::NoResource)
      break;
    // The transport's queue is full: thread 0, which alone progresses the
    // transport here, makes room; another waits for it to.
    if (stopping()) {
      status = Status::Error;
      break;
    }
    if (may_progress)
      t_.progress();
    threads_.after_progress(round);
  }
  if (status == Status::Ok)
    outstanding_.fetch_sub(1, std::memory_order_relaxed);
  if (status == Status::Error) {
    outstanding_.fetch_sub(1, std::memory_order_relaxed);
    problem("put_signal to PE " + std::to_string(to) + " failed" +
            (t_.failure().empty() ? std::string() : ": " + t_.failure()));
  }
  return status;
}

void AlltoallPe::poster(AlltoallFlavour flavour, std::size_t first, std::size_t stride, Bytes n, ExchangeResult& out) {
  const Seconds device_o = device_ ? device_->device_o : 0;
  for (std::size_t i = first; i + 1 < pes_; i += stride) {
    const Seconds t0 = threads_.now();
    threads_.spend(device_o);
    const ConstBuffer local{send_.data() + i * n, n};
    if (flavour == AlltoallFlavour::Direct) {
      if (post(local, target(i), std::size_t{me_} * n, first == 0) == Status::Error)
        return;
    } else {
      const std::uint64_t pos = ring_.reserve();
      for (std::uint64_t round = 0; !ring_.has_room(pos); ++round) {
        if (stopping())
          return;
        threads_.pause(round);
      }
      Command command;
      command.pe = target(i);
      command.offset = std::size_t{me_} * n;
      command.local = reinterpret_cast<std::uint64_t>(local.data);
      command.size = n;
      command.posted_ns = std::bit_cast<std::uint64_t>(threads_.now());
      ring_.write(pos, command);
      threads_.notify();
    }
    out.post[i] = threads_.now() - t0;
  }
}

void AlltoallPe::proxy(Bytes n, ExchangeResult& out) {
  const Seconds wake = device_ ? device_->proxy_wake : 0;
  const Seconds proxy_o = device_ ? device_->proxy_o : 0;
  const CommandLimits limits{pes_, std::size_t{pes_} * max_size_, reinterpret_cast<std::uint64_t>(send_.data()),
                             send_.size()};
  for (std::size_t k = 0; k + 1 < pes_; ++k) {
    const std::uint64_t pos = next_command_;
    for (std::uint64_t round = 0; !ring_.ready(pos); ++round) {
      if (stopping())
        return;
      threads_.pause(round);
    }
    const DecodedCommand decoded = decode_command(ring_.read(pos), limits);
    const Seconds written = std::bit_cast<Seconds>(decoded.command.posted_ns);
    threads_.wait_until(written + wake);
    const Seconds seen = threads_.now();
    threads_.spend(proxy_o);
    const Command& c = decoded.command;
    if (!decoded.error.empty() || c.pe == me_ || c.size != n) {
      problem("a malformed command in the ring: " +
              (decoded.error.empty() ? "PE " + std::to_string(c.pe) + ", " + text_size(c.size) : std::string(decoded.error)));
      outstanding_.fetch_sub(1, std::memory_order_relaxed);
    } else if (post({reinterpret_cast<const std::byte*>(c.local), c.size}, c.pe, c.offset, false) == Status::Error) {
      return;
    }
    ++next_command_;
    ring_.publish(next_command_);
    threads_.notify();
    out.serve[k] = threads_.now() - seen;
    out.wake[k] = seen - written;
  }
}

void AlltoallPe::waiter(ExchangeResult& out) {
  for (std::uint64_t round = 0;; ++round) {
    if (signal_load(signal_) >= expected_) {
      out.done = threads_.now();
      out.complete = true;
      break;
    }
    if (stopping())
      break;
    t_.progress(deadline_);
    threads_.after_progress(round);
  }
  for (std::uint64_t round = 0; outstanding_.load(std::memory_order_relaxed) > 0 && !stopping(); ++round) {
    t_.progress(deadline_);
    threads_.after_progress(round);
  }
}

Findings AlltoallPe::verify(Bytes n) {
  Findings out = std::move(found_);
  found_ = {};
  for (Rank from = 0; from < pes_; ++from) {
    if (from == me_)
      continue;
    const Bytes wrong = first_wrong_byte(recv_.data() + std::size_t{from} * n, n, seed_, from,
                                         alltoall_put_seq(exchanges_, me_));
    if (wrong < n) {
      ++out.errors;
      out.problems.push_back("PE " + std::to_string(me_) + ": the bytes from PE " + std::to_string(from) +
                             " are wrong from offset " + std::to_string(wrong) + " of " + text_size(n));
    }
  }
  return out;
}

Findings AlltoallPe::check_signal() {
  Findings out;
  const std::uint64_t shows = signal_load(signal_);
  if (shows == expected_)
    return out;
  const bool missing = shows < expected_;
  const std::uint64_t off = missing ? expected_ - shows : shows - expected_;
  out.errors = off;
  out.problems.push_back("PE " + std::to_string(me_) + ": its signal shows " + std::to_string(shows) + ", not " +
                         std::to_string(expected_) + ": " + std::to_string(off) +
                         (missing ? " puts missing" : " adds too many"));
  expected_ = shows;
  return out;
}

}  // namespace xover
