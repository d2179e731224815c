// The eager protocols, listed in protocols/registry.cpp.
#pragma once

#include "protocols/proto.hpp"

namespace xover {

extern const Protocol eager_short_proto;
extern const Protocol eager_bcopy_proto;
extern const Protocol eager_zcopy_proto;
extern const Protocol eager_multi_bcopy_proto;
extern const Protocol eager_multi_zcopy_proto;

/// Receive handlers: a whole eager message, one multi-eager fragment.
void eager_handle(Worker& worker, const AmMessage& msg);
void multi_handle(Worker& worker, const AmMessage& msg);

}  // namespace xover
