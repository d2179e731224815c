// Bootstrap: how the ranks of a hardware run learn who they are and swap the
// addresses their transports publish. Only set-up and results go through
// it; every message of a workload goes through a Transport.
//
//   LocalBootstrap  ranks started by `xover run --backend shm|tcp` (or a
//                   test) on this node: a socket to the launching process,
//                   which serves each collective (local_bootstrap.hpp)
//   MpiBootstrap    ranks started by mpirun: MPI_Allgather (mpi_bootstrap.hpp)
#pragma once

#include <any>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocols/core/transport.hpp"

namespace xover::runtime {

/// Set-up failed: a peer unreachable, a bootstrap closed, a device missing.
/// The message says what and where.
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Blob = std::vector<std::byte>;

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual Rank rank() const = 0;
  virtual Rank size() const = 0;
  /// A name unique to this run and the same on every rank ([a-z0-9]+), for
  /// naming what the ranks share (shared-memory segments).
  virtual const std::string& job() const = 0;
  /// Collective: every rank's `mine`, indexed by rank.
  /// @throws RuntimeError when a rank is gone.
  virtual std::vector<Blob> allgather(std::span<const std::byte> mine) = 0;
  /// Collective: returns when every rank has called it.
  void barrier() { allgather({}); }
};

/// Settings of a hardware transport, from the command line.
struct RuntimeOptions {
  /// A rank that sees nothing move for this long while it waits gives up on
  /// its peers (the run fails with a message naming them).
  Seconds timeout = 10;
  /// Whether registrations are cached: the scenario's reg_cache (the
  /// protocol core's cache). verbs keeps released registrations in its
  /// cache by address range when on, and deregisters at once when off.
  bool reg_cache = true;
  /// The backend's own settings, as its row read them from its options
  /// (Backend::read_options: the tcp backend's TcpOptions, ...); empty: the
  /// backend's defaults.
  std::any backend;
};

}  // namespace xover::runtime
