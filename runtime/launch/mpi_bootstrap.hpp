// The bootstrap of ranks that mpirun started: rank, size and the swap of
// transport addresses go through MPI (MPI_Allgather); no message of a
// workload does. Built when CMake finds MPI (Open MPI from Debian).
#pragma once

#include <memory>
#include <string>

#include "runtime/bootstrap.hpp"

namespace xover::runtime {

/// True when this process looks started by mpirun or a PMI launcher
/// (OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK in the environment).
bool launched_by_mpi();

/// Whether this build has the MPI bootstrap.
bool have_mpi_bootstrap();

/// Initialises MPI and returns its bootstrap; MPI is finalised when it is
/// destroyed.
/// @throws RuntimeError when this build has no MPI.
std::unique_ptr<Bootstrap> make_mpi_bootstrap();

}  // namespace xover::runtime
