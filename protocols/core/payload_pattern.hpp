// The payload pattern every workload and every alltoall engine writes and
// every receiver checks: the byte at each offset of each message is a hash
// of the seed, the sender, the message's number and the offset, so that a
// byte that lands in the wrong message or at the wrong place is found.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocols/core/transport.hpp"
#include "protocols/units.hpp"

namespace xover {

/// The byte at `offset` of message `seq` from `sender`: what receivers check.
std::byte payload_byte(std::uint64_t seed, Rank sender, std::uint64_t seq, Bytes offset);

/// Writes message `seq` from `sender` into `n` bytes at `to`, word by word.
void fill_payload(std::byte* to, Bytes n, std::uint64_t seed, Rank sender, std::uint64_t seq);
/// The first offset of the `n` bytes at `at` that is not message `seq` from
/// `sender`, or `n` when they all are.
Bytes first_wrong_byte(const std::byte* at, Bytes n, std::uint64_t seed, Rank sender, std::uint64_t seq);

}  // namespace xover
