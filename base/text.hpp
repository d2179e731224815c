// Plain text helpers shared by the readers of xover's own formats.
#pragma once

#include <string>
#include <vector>

namespace xover {

/// The words of `text`, split at whitespace.
std::vector<std::string> split_words(const std::string& text);

}  // namespace xover
