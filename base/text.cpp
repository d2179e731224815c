#include "base/text.hpp"

#include <sstream>

namespace xover {

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;)
    out.push_back(word);
  return out;
}

}  // namespace xover
