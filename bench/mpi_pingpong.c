/* An osu_latency-style MPI ping-pong for bench/tune_check.py: ranks 0 and
 * 1 bounce one message of each size given (MPI_Send / MPI_Recv, tag 1),
 * after a warm-up; rank 0 prints, per size, the median and the mean of
 * the half round trips, in microseconds:
 *
 *   mpirun -np 2 mpi_pingpong ITERATIONS WARMUP SIZE...
 *   size 65536 median_us 21.503 mean_us 22.917
 *
 * Every byte the receiver gets is checked against the pattern the sender
 * wrote (a wrong byte exits 1), as osu_latency's validation does.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a;
  const double y = *(const double*)b;
  return (x > y) - (x < y);
}

static void fill(unsigned char* buf, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    buf[i] = (unsigned char)(i * 31u + seed);
}

static int check(const unsigned char* buf, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    if (buf[i] != (unsigned char)(i * 31u + seed))
      return 0;
  return 1;
}

/* One size: `warmup` untimed round trips, then `iterations` timed ones;
 * rank 0 prints its line. Returns 0, or 1 after a corrupt message. */
static int run_size(int rank, size_t size, int iterations, int warmup, unsigned char* send, unsigned char* recv,
                    double* times) {
  const int peer = 1 - rank;
  fill(send, size, (unsigned)rank + 1);
  for (int i = -warmup; i < iterations; ++i) {
    memset(recv, 0, size);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(send, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(recv, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(recv, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(send, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
    const double half = (MPI_Wtime() - start) / 2;
    if (!check(recv, size, (unsigned)peer + 1)) {
      fprintf(stderr, "mpi_pingpong: rank %d: corrupt message of %zu bytes\n", rank, size);
      return 1;
    }
    if (i >= 0)
      times[i] = half;
  }
  if (rank == 0) {
    double sum = 0;
    for (int i = 0; i < iterations; ++i)
      sum += times[i];
    qsort(times, (size_t)iterations, sizeof *times, compare_doubles);
    const double median = iterations % 2 ? times[iterations / 2]
                                          : (times[iterations / 2 - 1] + times[iterations / 2]) / 2;
    printf("size %zu median_us %.3f mean_us %.3f\n", size, median * 1e6, sum / iterations * 1e6);
    fflush(stdout);
  }
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int iterations = argc > 2 ? atoi(argv[1]) : 0;
  const int warmup = argc > 2 ? atoi(argv[2]) : -1;
  if (ranks != 2 || argc < 4 || iterations < 1 || warmup < 0) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -np 2 mpi_pingpong ITERATIONS WARMUP SIZE...\n");
    MPI_Finalize();
    return 2;
  }
  int status = 0;
  for (int a = 3; a < argc && status == 0; ++a) {
    const long long size = atoll(argv[a]);
    if (size < 0 || size > INT32_MAX) {
      if (rank == 0)
        fprintf(stderr, "mpi_pingpong: bad size '%s'\n", argv[a]);
      status = 2;
      break;
    }
    unsigned char* send = malloc((size_t)size + 1);
    unsigned char* recv = malloc((size_t)size + 1);
    double* times = malloc(sizeof(double) * (size_t)iterations);
    status = run_size(rank, (size_t)size, iterations, warmup, send, recv, times);
    free(send);
    free(recv);
    free(times);
  }
  if (status == 1)
    MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
  return status;
}
