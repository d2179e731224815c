#include "tools/data_dir.hpp"

#include <filesystem>

namespace xover::tools {

const std::string& data_dir() {
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    std::error_code error;
    // XOVER_DATA_FROM_BIN is the install's data folder relative to its
    // bin folder ("../share/xover"); a build tree has no such folder.
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    if (!error) {
      const fs::path installed = (exe.parent_path() / XOVER_DATA_FROM_BIN).lexically_normal();
      if (fs::is_directory(installed / "platforms", error))
        return installed.string();
    }
    return std::string(XOVER_SOURCE_DIR);
  }();
  return dir;
}

std::string default_platform() {
  return data_dir() + "/platforms/hdr-2rail.xml";
}

std::string plot_script() {
  return data_dir() + "/tools/plot_results.py";
}

}  // namespace xover::tools
