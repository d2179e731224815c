#include "runtime/launch/mpi_bootstrap.hpp"

#include <cstdlib>

#ifdef XOVER_HAVE_MPI
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <random>
#endif

namespace xover::runtime {

bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK");
}

#ifdef XOVER_HAVE_MPI

namespace {

class MpiBootstrap final : public Bootstrap {
 public:
  MpiBootstrap() {
    // SimGrid's library exports an MPI of its own (SMPI): the program must
    // be linked so that Open MPI's comes first.
    Dl_info where{};
    if (dladdr(reinterpret_cast<void*>(&MPI_Init), &where) != 0 && where.dli_fname &&
        std::strstr(where.dli_fname, "simgrid"))
      throw RuntimeError(std::string("MPI_Init resolves to ") + where.dli_fname +
                         ", not to Open MPI: link libmpi before libsimgrid");
    int ready = 0;
    MPI_Initialized(&ready);
    if (!ready && MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
      throw RuntimeError("MPI_Init failed");
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<Rank>(rank);
    size_ = static_cast<Rank>(size);
    unsigned long long id = 0;
    if (rank == 0) {
      std::random_device rd;
      id = (static_cast<unsigned long long>(rd()) << 32) ^ rd();
    }
    MPI_Bcast(&id, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016llx", id);
    job_ = buf;
  }
  ~MpiBootstrap() override { MPI_Finalize(); }
  MpiBootstrap(const MpiBootstrap&) = delete;
  MpiBootstrap& operator=(const MpiBootstrap&) = delete;

  Rank rank() const override { return rank_; }
  Rank size() const override { return size_; }
  const std::string& job() const override { return job_; }

  std::vector<Blob> allgather(std::span<const std::byte> mine) override {
    if (mine.size() > (1U << 30))
      throw RuntimeError("bootstrap: a contribution of " + std::to_string(mine.size()) + " bytes is over the limit");
    const int n = static_cast<int>(mine.size());
    std::vector<int> sizes(size_);
    if (MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
      throw RuntimeError("bootstrap: MPI_Allgather failed");
    std::vector<int> offsets(size_);
    long long total = 0;
    for (Rank r = 0; r < size_; ++r) {
      offsets[r] = static_cast<int>(total);
      total += sizes[r];
    }
    if (total > (1LL << 30))
      throw RuntimeError("bootstrap: " + std::to_string(total) + " bytes to gather is over the limit");
    Blob all(static_cast<std::size_t>(total));
    if (MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE,
                       MPI_COMM_WORLD) != MPI_SUCCESS)
      throw RuntimeError("bootstrap: MPI_Allgatherv failed");
    std::vector<Blob> out(size_);
    for (Rank r = 0; r < size_; ++r)
      out[r].assign(all.begin() + offsets[r], all.begin() + offsets[r] + sizes[r]);
    return out;
  }

 private:
  Rank rank_ = 0;
  Rank size_ = 1;
  std::string job_;
};

}  // namespace

bool have_mpi_bootstrap() {
  return true;
}

std::unique_ptr<Bootstrap> make_mpi_bootstrap() {
  return std::make_unique<MpiBootstrap>();
}

#else

bool have_mpi_bootstrap() {
  return false;
}

std::unique_ptr<Bootstrap> make_mpi_bootstrap() {
  throw RuntimeError(
      "this process was started by mpirun, but this xover was built without MPI "
      "(install libopenmpi-dev and build again)");
}

#endif

}  // namespace xover::runtime
