// The error of a platform file that does not load, shared by the loader
// (platform_loader.cpp) and its XML reader (platform_xml.cpp), which both
// depend on it and not on each other's headers for it.
#pragma once

#include <stdexcept>
#include <string>

namespace xover::sim {

/// A load or validation failure of a platform file. what() reads
/// "FILE: what is wrong" or, when the place is known, "FILE:LINE: what is wrong".
class PlatformError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

/// Throws PlatformError "FILE:LINE: what", or "FILE: what" when `line` is 0.
[[noreturn]] inline void fail(const std::string& file, int line, const std::string& what) {
  throw PlatformError((line > 0 ? file + ":" + std::to_string(line) : file) + ": " + what);
}

}  // namespace detail
}  // namespace xover::sim
