#include "runtime/backends.hpp"

#include "runtime/shm/shm_transport.hpp"
#include "runtime/tcp/tcp_transport.hpp"

namespace xover::runtime {

std::string_view backend_name(Backend backend) {
  switch (backend) {
    case Backend::Shm:
      return "shm";
    case Backend::Tcp:
      return "tcp";
  }
  return "unknown";
}

std::optional<Backend> backend_from_name(std::string_view name) {
  for (Backend b : {Backend::Shm, Backend::Tcp})
    if (backend_name(b) == name)
      return b;
  return std::nullopt;
}

std::unique_ptr<Transport> make_transport(Backend backend, Bootstrap& boot, const RuntimeOptions& options) {
  switch (backend) {
    case Backend::Shm:
      return make_shm_transport(boot, options);
    case Backend::Tcp:
      return make_tcp_transport(boot, options);
  }
  throw RuntimeError("unknown backend");
}

}  // namespace xover::runtime
