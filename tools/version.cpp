#include "tools/version.hpp"

#include "runtime/backends.hpp"

namespace xover::tools {

std::string_view version() {
  return XOVER_VERSION;
}

std::string version_text() {
  std::string text = "xover " + std::string(version()) + " (commit " + std::string(git_commit()) + ")\n" +
                     "backends compiled in: " + runtime::compiled_backend_names() + "\n";
  std::string left_out;
  for (const runtime::Backend* b : runtime::backends())
    if (!b->compiled_in())
      left_out += (left_out.empty() ? "" : "; ") + std::string(b->name) + " (" + b->unavailable() + ")";
  if (!left_out.empty())
    text += "left out: " + left_out + "\n";
  return text;
}

}  // namespace xover::tools
