// What a Transport does for the calls a backend need not implement.
#include "protocols/core/transport.hpp"

namespace xover {

Status Transport::put_signal(std::size_t, Rank, ConstBuffer, RemoteAddr, RemoteAddr, std::uint64_t, Completion) {
  return Status::Error;
}

bool Transport::reg_may_outlive_use(const std::byte*, Bytes) const {
  return true;
}

SignalWord Transport::signal_word() {
  return {};
}

RankThreads& Transport::threads() {
  static HostThreads host;
  return host;
}

}  // namespace xover
