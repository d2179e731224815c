// The eager protocols, listed in protocols/registry.cpp.
#pragma once

#include "protocols/proto.hpp"

namespace xover {

extern const Protocol eager_short_proto;
extern const Protocol eager_bcopy_proto;
extern const Protocol eager_zcopy_proto;
extern const Protocol eager_multi_bcopy_proto;
extern const Protocol eager_multi_zcopy_proto;

/// The whole message of eager/short, bcopy and zcopy (and eager/staged):
/// {tag, seq} and the payload.
inline constexpr AmId kAmEager = 1;
/// One multi-eager fragment: {tag, seq, total size, offset} and its bytes.
inline constexpr AmId kAmMulti = 2;

void eager_handle(Worker& worker, const AmMessage& msg);
/// The eager message's receiving stage, which every protocol sending it lists.
inline constexpr AmKind kEagerMessage{kAmEager, "eager", eager_handle};

}  // namespace xover
