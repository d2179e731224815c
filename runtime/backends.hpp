// The backends, one table: what `xover run --backend`, `xover calibrate`,
// `--help`, `xover info` and the tests' backend parameter read. A backend
// is one row: its name, one line about it, how to make its transport, and
// why it cannot run here when it cannot (not compiled in, no device), and
// what it finds on this machine (for `xover info`), its own command-line
// options (backend_options.hpp), and the alltoall engine it offers for
// device memory, if any.
//
//   const Backend* b = find_backend("tcp");
//   if (const std::string why = b->unavailable(); !why.empty()) ... exit 2
//   std::unique_ptr<Transport> t = b->make(boot, options);   // hardware only
//
// Adding a backend: its folder under runtime/ with a make function (and,
// optionally, a describe function), and one row below (backends.cpp).
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "protocols/coll/device_alltoall.hpp"
#include "protocols/core/device_memory.hpp"
#include "runtime/backend_info.hpp"
#include "runtime/backend_options.hpp"
#include "runtime/bootstrap.hpp"

namespace xover::runtime {

/// How why_unavailable() begins when the backend is not in this build.
inline constexpr std::string_view kNotCompiledIn = "not compiled in";

/// Memory a backend offers for payloads, on any hardware backend.
struct PayloadMemory {
  MemType type = MemType::Host;  ///< Host: it offers none
  std::string_view on;           ///< what holds it, for messages: "a GPU"
  /// Collective over `boot`: this rank's memory of that type.
  /// @throws RuntimeError naming what failed.
  std::unique_ptr<DeviceMemory> (*make)(Bootstrap& boot) = nullptr;
};

/// UCX's transports that do what a backend does, whose own protocol
/// hand-over `xover validate` sets beside the one it measured.
struct UcxTransports {
  std::string name;  ///< for the report: "posix,cma", "tcp on eth0"
  std::string env;   ///< the environment ucx_info runs with: "UCX_TLS=posix,cma"
};

struct Backend {
  std::string_view name;     ///< what --backend takes: "sim", "shm", "tcp"
  std::string_view summary;  ///< one line for --help and xover info
  /// Collective over `boot`: this rank's transport, wired up to every rank.
  /// Null for the simulator, which runs a whole scenario in one process
  /// (sim/simulate.hpp) rather than a transport per launched rank.
  /// @throws RuntimeError when it cannot be set up.
  std::unique_ptr<Transport> (*make)(Bootstrap& boot, const RuntimeOptions& options);
  /// Why this build or this machine cannot run the backend ("not compiled
  /// in: ...", starting with kNotCompiledIn, or "no RDMA device: ..."); empty
  /// when it can.
  std::string (*why_unavailable)();
  /// What the backend finds on this machine (devices, ports, interfaces,
  /// permissions), for `xover info`; it may fork or open devices, and is
  /// called even when the backend is unavailable, to say what it did find.
  /// Null when it has nothing to report.
  BackendInfo (*describe)() = nullptr;
  /// Its own command-line options (--tcp-if, ...), which `xover run`,
  /// `calibrate` and `validate` declare; names unique in the table.
  std::span<const BackendOption> options = {};
  /// Reads the options' text (absent ones take their defaults) into the
  /// settings its transport takes (RuntimeOptions::backend), for `use`;
  /// null when it has no options.
  /// @throws std::invalid_argument saying what is wrong ("--tcp-conns must be from 1 to 16").
  std::any (*read_options)(const OptionValues& values, BackendUse use) = nullptr;
  /// UCX's transports on the hardware its options name; null where UCX has
  /// none to compare with.
  UcxTransports (*ucx)(const OptionValues& values) = nullptr;
  /// The memory it offers for payloads (<payload memory=>) on whichever
  /// hardware backend runs them (cuda: GPU memory); none by default.
  PayloadMemory memory = {};
  /// The alltoall engine for PEs in device memory (a GPU's) and the most
  /// PEs it runs, which `xover run` hands the alltoall workload in place of
  /// its PEs in host memory (RunContext::device_alltoall); none where the
  /// backend keeps them on the host.
  DeviceAlltoallEngine device_alltoall = {};

  bool simulated() const { return make == nullptr; }
  std::string unavailable() const { return why_unavailable ? why_unavailable() : std::string(); }
  /// False when this build left the backend out (unavailable() says so).
  bool compiled_in() const { return !unavailable().starts_with(kNotCompiledIn); }
};

/// Every backend, in the order --help lists them: the simulator first.
std::span<const Backend* const> backends();

/// The backend called `name`, or null.
const Backend* find_backend(std::string_view name);

/// Why `backend`'s device alltoall engine cannot run `pes` PEs
/// (DeviceAlltoallEngine::refusal); empty when it can or the backend has no
/// such engine.
std::string device_alltoall_refusal(const Backend& backend, std::uint32_t pes);

/// The backend that offers payload memory of type `type` (its row's
/// `memory`), or null: none for host memory, or none in the table.
const Backend* memory_backend(MemType type);

/// The names, comma-separated ("sim, shm, tcp"), for messages.
std::string backend_names();

/// The names of the backends this build has (compiled_in()), comma-separated.
std::string compiled_backend_names();

}  // namespace xover::runtime
