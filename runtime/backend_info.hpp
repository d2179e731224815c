// What a backend finds on this machine, for `xover info` (as `ucx_info -d`
// lists UCX's devices): facts about the backend as a whole, then each
// device it could use (a network interface, an RDMA port, a GPU), each a
// list of named values. Each backend's folder writes its own probe and
// names it in its row of the backend table (backends.hpp); `xover info`
// prints what the probe returns, as text or JSON, and knows no backend by
// name.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace xover::runtime {

/// A value: text, a whole number or a yes/no.
using InfoValue = std::variant<std::string, std::int64_t, bool>;

/// One named value: {"cores_online", 16}, {"cma", "allowed"}. Keys are
/// lower case with '_' between words, the same in the text and the JSON.
struct InfoField {
  std::string key;
  InfoValue value;
};

/// One thing a backend found and could use, with what it knows of it.
struct InfoDevice {
  std::string kind;  ///< "interface", "device", "port", "gpu"
  std::string name;  ///< "eth0", "mlx5_0:1"
  std::vector<InfoField> fields;

  InfoDevice& add(std::string key, InfoValue value) {
    fields.push_back({std::move(key), std::move(value)});
    return *this;
  }
};

/// A backend's findings: fields about it as a whole, then its devices, in
/// the order the probe found them.
struct BackendInfo {
  std::vector<InfoField> fields;
  std::vector<InfoDevice> devices;

  BackendInfo& add(std::string key, InfoValue value) {
    fields.push_back({std::move(key), std::move(value)});
    return *this;
  }
};

}  // namespace xover::runtime
