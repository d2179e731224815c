#include "protocols/lanes/size_steps.hpp"

#include <algorithm>
#include <stdexcept>

namespace xover {

SizeSteps::SizeSteps(std::vector<SizeStep> steps) : steps_(std::move(steps)) {
  if (!steps_.empty() && steps_.front().from != 0)
    throw std::invalid_argument("the first size step must start at 0 (got " + format_size(steps_.front().from) + ")");
  for (std::size_t i = 1; i < steps_.size(); ++i)
    if (steps_[i].from <= steps_[i - 1].from)
      throw std::invalid_argument("size steps must be in increasing size order (" + format_size(steps_[i].from) +
                                  " after " + format_size(steps_[i - 1].from) + ")");
}

double SizeSteps::at(Bytes n, double plain) const {
  if (steps_.empty())
    return plain;
  auto after = std::upper_bound(steps_.begin(), steps_.end(), n,
                                [](Bytes size, const SizeStep& step) { return size < step.from; });
  return std::prev(after)->value;
}

std::vector<Bytes> SizeSteps::breakpoints() const {
  std::vector<Bytes> out;
  for (std::size_t i = 1; i < steps_.size(); ++i)
    out.push_back(steps_[i].from);
  return out;
}

SizeSteps SizeSteps::parse(std::string_view text, double (*parse_value)(std::string_view)) {
  if (text.find(':') == std::string_view::npos)
    return SizeSteps({{0, parse_value(text)}});
  std::vector<SizeStep> steps;
  while (true) {
    const std::size_t end = text.find(';');
    const std::string_view section = text.substr(0, end);
    const std::size_t colon = section.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == section.size())
      throw std::invalid_argument("'" + std::string(section) +
                                  "' is not a size:value section (sections read as in 0:12GBps;32KiB:6GBps)");
    steps.push_back({parse_size(section.substr(0, colon)), parse_value(section.substr(colon + 1))});
    if (end == std::string_view::npos)
      break;
    text.remove_prefix(end + 1);
  }
  return SizeSteps(std::move(steps));
}

std::string SizeSteps::to_string(std::string (*format_value)(double)) const {
  std::string out;
  for (const SizeStep& step : steps_)
    out += (out.empty() ? "" : "; ") + format_size(step.from) + ":" + format_value(step.value);
  return out;
}

}  // namespace xover
