// The attributes of one element of a scenario file, for code that reads its
// own without knowing the file's format: each workload reads its attributes
// of <workload> through this (Workload::parse). The file's reader
// (formats/scenario_xml.cpp) implements it; fail() stops the read with a
// ScenarioError at the element's place, so that the code reading a value
// says only what is wrong with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace xover {

class Attributes {
 public:
  virtual ~Attributes() = default;

  /// The element's name ("workload"), for messages.
  virtual std::string_view element() const = 0;
  /// The value of the attribute `name`, or nothing when the element has none.
  /// A value is never empty: the reader refuses `name=""` before.
  virtual std::optional<std::string_view> find(std::string_view name) const = 0;
  /// Where the element is, "FILE:LINE", for messages.
  virtual std::string place() const = 0;

  /// Stops the read: throws ScenarioError "FILE:LINE: what".
  [[noreturn]] void fail(const std::string& what) const;
  /// The value of `name`; fails "<E> needs a 'N' attribute" when it is absent.
  std::string_view required(std::string_view name) const;
  /// Fails "bad N="VALUE" on <E>: why".
  [[noreturn]] void bad(std::string_view name, std::string_view value, const std::string& why) const;
  /// The attribute `name` (required) as a whole number in decimal digits,
  /// at least `least`.
  std::uint64_t count(std::string_view name, std::uint64_t least) const;

 protected:
  Attributes() = default;
  Attributes(const Attributes&) = default;
  Attributes& operator=(const Attributes&) = default;
};

}  // namespace xover
