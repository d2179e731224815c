// The seed generator's pieces (make_seeds.cpp): a folder of seeds per
// harness, and the generators kept in files of their own.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace xover::fuzz {

/// Writes the seeds of one harness into ROOT/HARNESS.
class SeedWriter {
 public:
  SeedWriter(const std::filesystem::path& root, const std::string& harness) : dir_(root / harness) {
    std::filesystem::create_directories(dir_);
  }
  void write(const std::string& name, const std::string& bytes) {
    std::ofstream out(dir_ / name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
      throw std::runtime_error("cannot write " + (dir_ / name).string());
  }

 private:
  std::filesystem::path dir_;
};

/// protocol_seeds.cpp: exchanges between two Workers, recorded as rank 0 sees them.
void protocol_seeds(const std::filesystem::path& root);

}  // namespace xover::fuzz
