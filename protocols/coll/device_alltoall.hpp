// An alltoall engine for device memory: the PEs of the alltoall when a
// backend keeps their buffers on an accelerator (the cuda backend's GPU PEs,
// runtime/cuda/cuda_alltoall.hpp) rather than in host memory (AlltoallPe).
// The backend offers one through its row of the backend table
// (runtime/backends.hpp), `xover run` hands it to the workload in the run's
// context (RunContext::device_alltoall), and the alltoall workload runs its
// exchanges instead of AlltoallPe's: the same start dates, samples, checks
// and notes.
// Nothing here knows which device it is, so the protocol core stays free of
// the device's runtime.
//
//   std::unique_ptr<DeviceAlltoall> pe = context.device_alltoall.make(transport, worker, max_size, seed);
//   pe->prepare(n);                                   // bytes written, clocks read: untimed
//   DeviceExchange x = pe->exchange(AlltoallFlavour::Direct, n, 2.0);
//   Findings f = pe->verify(n);                        // every byte, the signal word
//   pe->finish(worker);                                // collective
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/coll/alltoall.hpp"
#include "protocols/coll/alltoall_pe.hpp"

namespace xover {

/// What one exchange on the device gave one PE.
struct DeviceExchange {
  bool complete = false;  ///< its signal showed every put before the deadline
  Seconds time = 0;       ///< from the launch to its signal showing every put, on the host's clock
  std::string problem;    ///< why it did not complete (a device error, a malformed command); empty when none
  /// Per put, a posting thread's time (o_device); proxy only, per command,
  /// the proxy's (o_proxy) and from written to seen (W).
  std::vector<Seconds> post, serve, wake;
  Seconds clock_uncertainty = 0;  ///< how far each W may be off, the device's clock against the host's
};

class DeviceAlltoall {
 public:
  virtual ~DeviceAlltoall() = default;
  /// Writes the next exchange's bytes for size `n` and reads what the
  /// exchange's figures need (the device's clock), before its time starts.
  virtual void prepare(Bytes n) = 0;
  /// Runs the exchange prepare() set up, giving up after `timeout` seconds.
  virtual DeviceExchange exchange(AlltoallFlavour flavour, Bytes n, Seconds timeout) = 0;
  /// Copies back and checks every byte of the last exchange from every peer,
  /// and the signal word (outside the timed region).
  virtual Findings verify(Bytes n) = 0;
  /// What a reader of the figures should know of the device (how many PEs
  /// share one, whether they run at once), one note each.
  virtual std::vector<std::string> notes() const = 0;
  /// Collective: every PE lets go of its peers' memory before any frees its own.
  virtual void finish(Worker& worker) = 0;
};

/// How a backend makes a rank's engine: collective over the transport's ranks.
/// @throws std::exception saying what the device refused.
using DeviceAlltoallMaker = std::unique_ptr<DeviceAlltoall> (*)(Transport& transport, Worker& worker, Bytes max_size,
                                                                std::uint64_t seed);

/// The engine a backend offers, and the most PEs it runs.
struct DeviceAlltoallEngine {
  DeviceAlltoallMaker make = nullptr;  ///< null: the backend offers none
  std::uint32_t max_pes = 0;           ///< 0: any number

  /// Why the engine of the backend `backend` cannot run `pes` PEs ("the cuda
  /// backend's device alltoall runs 2 to 1024 PEs, not 1025"); empty when
  /// it can, or when there is no engine.
  std::string refusal(std::string_view backend, std::uint32_t pes) const {
    if (!make || max_pes == 0 || pes <= max_pes)
      return "";
    return "the " + std::string(backend) + " backend's device alltoall runs 2 to " + std::to_string(max_pes) +
           " PEs, not " + std::to_string(pes);
  }
};

}  // namespace xover
