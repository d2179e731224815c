// The eager protocols, listed in protocols/registry.cpp.
#pragma once

#include "protocols/proto.hpp"

namespace xover {

extern const Protocol eager_short_proto;
extern const Protocol eager_bcopy_proto;
extern const Protocol eager_zcopy_proto;
extern const Protocol eager_multi_bcopy_proto;
extern const Protocol eager_multi_zcopy_proto;

}  // namespace xover
