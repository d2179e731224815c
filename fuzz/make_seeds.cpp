// Writes the seed inputs of the harnesses whose inputs are not files xover
// ships: settings lines, and binary frames, cells and message sequences
// encoded by the same code the transports and protocols use. One folder per
// harness under the folder given on the command line.
//
//   fuzz_make_seeds OUT     -> OUT/select/..., ...
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/seeds.hpp"

namespace {

namespace fs = std::filesystem;
using xover::fuzz::SeedWriter;

// Settings as `xover proto-info --set` and <select> take them.
void select_seeds(const fs::path& root) {
  SeedWriter seeds(root, "select");
  const std::vector<std::pair<std::string, std::string>> lines = {
      {"perf", "perf=streaming\nperf=latency"},
      {"reg_cache", "reg_cache=off"},
      {"perf_diff", "rndv_perf_diff=2.5\ndirect_perf_diff=10"},
      {"limits", "eager_limit=4KiB\nmulti_eager_limit=1MiB\nrndv_thresh=64KiB"},
      {"rndv_thresh_auto", "rndv_thresh=auto"},
      {"proto", "proto=eager/multi,rndv/get"},
      {"disable", "disable=eager/short,rndv/am"},
      {"lanes", "max_eager_lanes=2\nmax_rndv_lanes=4\nmin_bw_ratio=8"},
      {"units", "eager_limit=1.5kB\nmulti_eager_limit=2Mib\nrndv_thresh=100000"},
  };
  for (const auto& [name, text] : lines)
    seeds.write(name, text);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_seeds OUT_DIR\n");
    return 2;
  }
  try {
    const fs::path root(argv[1]);
    select_seeds(root);
    xover::fuzz::protocol_seeds(root);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_make_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
