// A small JSON writer for the command line's --json outputs: values are
// written in order, keys in the order given, doubles with 17 significant
// digits so that scripts read back exactly what was computed.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xover::tools {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(double x);
  JsonWriter& value(std::uint64_t n);
  JsonWriter& value(bool b);
  JsonWriter& null();
  /// The upper end of a size range: the size, or null for kSizeMax (no end).
  JsonWriter& size_limit(std::uint64_t to) {
    return to == std::numeric_limits<std::uint64_t>::max() ? null() : value(to);
  }
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }
  /// The document, with a final newline.
  std::string str() const { return out_ + "\n"; }

 private:
  void separate();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace xover::tools
