// libibverbs as the verbs transport uses it: owning handles that release
// every verbs object on every path out (exceptions included), and the
// discovery of devices and ports. The only headers of this backend, with
// verbs_lane.hpp and verbs_transport_impl.hpp, that include
// <infiniband/verbs.h>.
#pragma once

#include <infiniband/verbs.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/verbs/verbs_port.hpp"

namespace xover::runtime::verbs {

struct DeviceListFree {
  void operator()(ibv_device** list) const { ibv_free_device_list(list); }
};
struct ContextClose {
  void operator()(ibv_context* c) const { ibv_close_device(c); }
};
struct PdFree {
  void operator()(ibv_pd* pd) const { ibv_dealloc_pd(pd); }
};
struct CqFree {
  void operator()(ibv_cq* cq) const { ibv_destroy_cq(cq); }
};
struct SrqFree {
  void operator()(ibv_srq* srq) const { ibv_destroy_srq(srq); }
};
struct QpFree {
  void operator()(ibv_qp* qp) const { ibv_destroy_qp(qp); }
};
struct MrFree {
  void operator()(ibv_mr* mr) const { ibv_dereg_mr(mr); }
};
struct AlignedFree {
  void operator()(std::byte* p) const { std::free(p); }
};

using ContextPtr = std::unique_ptr<ibv_context, ContextClose>;
using PdPtr = std::unique_ptr<ibv_pd, PdFree>;
using CqPtr = std::unique_ptr<ibv_cq, CqFree>;
using SrqPtr = std::unique_ptr<ibv_srq, SrqFree>;
using QpPtr = std::unique_ptr<ibv_qp, QpFree>;
using MrPtr = std::unique_ptr<ibv_mr, MrFree>;
using Slab = std::unique_ptr<std::byte, AlignedFree>;

/// Page-aligned memory of `bytes` (rounded up to pages), zeroed.
Slab make_slab(std::size_t bytes);

/// One opened device. Members are released in reverse order: the
/// protection domain before the context.
struct Device {
  std::string name;
  ContextPtr context;
  PdPtr pd;
  ibv_device_attr attr{};
};

/// Every device and port libibverbs sees, opened.
struct Discovery {
  int list_errno = 0;                      ///< errno of ibv_get_device_list when it returned NULL
  std::size_t listed = 0;                  ///< devices listed
  std::vector<std::unique_ptr<Device>> devices;  ///< opened, sorted by name
  std::vector<PortInfo> ports;             ///< every port of every opened device
  std::vector<std::size_t> port_device;    ///< per port, its index in `devices`
  std::vector<std::string> problems;       ///< "mlx5_1: cannot open: ..." and the like

  bool any_active() const;
  /// Why no port can be used here (no_device_reason); empty when one can.
  std::string reason() const;
};

/// Lists and opens every device, queries every port and GID table, and
/// allocates each device's protection domain. Never throws for a missing
/// device or a port that cannot be queried: it says so in the result.
Discovery discover();

/// The verbs status text of a work completion ("remote access error") with
/// its number and the vendor's error code.
std::string wc_status_text(const ibv_wc& wc);

/// strerror of an errno that libibverbs returned or set.
std::string errno_text(int error);

}  // namespace xover::runtime::verbs
