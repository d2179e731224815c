#include "protocols/workload/attributes.hpp"

#include <charconv>
#include <limits>

#include "protocols/workload/scenario.hpp"

namespace xover {

void Attributes::fail(const std::string& what) const {
  throw ScenarioError(place() + ": " + what);
}

std::string_view Attributes::required(std::string_view name) const {
  const auto value = find(name);
  if (!value)
    fail("<" + std::string(element()) + "> needs a '" + std::string(name) + "' attribute");
  return *value;
}

void Attributes::bad(std::string_view name, std::string_view value, const std::string& why) const {
  fail("bad " + std::string(name) + "=\"" + std::string(value) + "\" on <" + std::string(element()) + ">: " + why);
}

std::uint64_t Attributes::count(std::string_view name, std::uint64_t least) const {
  const std::string_view value = required(name);
  std::uint64_t n = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (error != std::errc() || end != value.data() + value.size())
    bad(name, value,
        "expected a whole number (decimal digits, at most " +
            std::to_string(std::numeric_limits<std::uint64_t>::max()) + ")");
  if (n < least)
    bad(name, value, "must be at least " + std::to_string(least));
  return n;
}

}  // namespace xover
