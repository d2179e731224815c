// Private to tools/tune: which line a library runs at each size, where two
// such policies hand over, and what running one in place of the other
// costs. Shared by the UCX and the ob1 settings.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "tools/tune/settings.hpp"

namespace xover::tools::tune {

/// Which line a policy runs at n: null where none covers n.
using Policy = std::function<const LibLine*(Bytes n)>;

/// What a line costs at n under one test: none where it is not priced there.
using Price = std::optional<Seconds> (*)(const LibLine& line, Bytes n);

/// A stream's seconds per message at n (LibLine::stream); none where the
/// line is not priced for streams or does not cover n.
std::optional<Seconds> stream_cost_at(const LibLine& line, Bytes n);

/// One message's latency at n in the machine's slow state (LibLine::slow);
/// none where the probes found one state or the line does not cover n.
std::optional<Seconds> slow_cost_at(const LibLine& line, Bytes n);

/// The cheapest line at n under `price` among those `keep` accepts; null
/// when none is priced at n.
const LibLine* cheapest_if(const std::vector<LibLine>& lines, Bytes n,
                           const std::function<bool(const LibLine&)>& keep, Price price = cost_at);

/// The first size in [from, to] where `later` runs a line cheaper under
/// `price` than `earlier`'s (walked by 1/64 of an octave, then bisected to
/// the byte); none when it never does.
std::optional<Bytes> handover(const Policy& earlier, const Policy& later, Bytes from, Bytes to, Price price = cost_at);

/// Where `library` and `recommended` run different lines on [from, to]:
/// the worst ratio of their costs at both ends and the powers of two
/// between; none for an empty range.
std::optional<Difference> difference(const Policy& library, const Policy& recommended, Bytes from, Bytes to);

}  // namespace xover::tools::tune
