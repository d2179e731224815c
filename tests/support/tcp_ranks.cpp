// Helpers of the TCP transport tests (tcp_ranks.hpp).
#include "tests/support/tcp_ranks.hpp"

#include "runtime/tcp/tcp_frame.hpp"

namespace xover::runtime::tcp_test {

std::string Outcome::all() const {
  std::string text = result.message;
  for (std::size_t r = 0; r < result.reports.size(); ++r)
    text += "\nrank " + std::to_string(r) + ": " + result.reports[r];
  return text;
}

Outcome run_tcp(Rank n, const Body& body, const RuntimeOptions& options, const TcpTestHooks& hooks) {
  const auto t0 = Clock::now();
  Outcome out;
  out.result = launch_local(n, {}, [&](LocalBootstrap& boot) {
    std::unique_ptr<Transport> transport = make_tcp_transport(boot, options, hooks);
    Rank done = 0;
    transport->set_am_handler(kDone, [&](const AmMessage&) { ++done; });
    std::string problems = body(boot, *transport);
    for (Rank peer = 0; peer < boot.size(); ++peer)
      if (peer != boot.rank() && send_am(*transport, 0, peer, kDone, {}, {}, AmMode::Short, {}) != Status::Ok)
        problems += "could not say done; ";
    if (!progress_until(*transport, [&] { return done + 1 == boot.size(); }))
      problems += "the peers did not finish; ";
    boot.report(problems);
    boot.barrier();
    return problems.empty() ? 0 : 1;
  });
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

std::byte pattern(std::uint64_t seed, std::uint64_t i) {
  return static_cast<std::byte>((seed * 0x9E3779B97F4A7C15ULL + i * 131 + (i >> 9)) >> 3);
}

std::vector<std::byte> filled(std::uint64_t seed, std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = pattern(seed, i);
  return v;
}

std::vector<std::byte> u64s(std::initializer_list<std::uint64_t> values) {
  std::vector<std::byte> b(8 * values.size());
  std::size_t i = 0;
  for (std::uint64_t v : values)
    tcp::put_le(b.data() + 8 * i++, v);
  return b;
}

std::uint64_t u64_at(std::span<const std::byte> b, std::size_t i) {
  return b.size() >= 8 * (i + 1) ? tcp::get_le(b.data() + 8 * i) : 0;
}

Status send_am(Transport& t, std::size_t lane, Rank peer, AmId id, std::span<const std::byte> header,
               ConstBuffer payload, AmMode mode, Completion done) {
  Status st;
  while ((st = t.am_send(lane, peer, id, header, payload, mode, done)) == Status::NoResource)
    t.progress();
  return st;
}

}  // namespace xover::runtime::tcp_test
