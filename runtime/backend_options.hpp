// A backend's own command-line options: each row of the backend table
// (backends.hpp) declares its options and reads their text into the
// settings its transport takes, so that `xover run`, `xover calibrate` and
// `xover validate` declare every backend's options from the table and read
// them through the chosen row, once, before any rank starts.
//
//   constexpr std::array<BackendOption, 2> kTcpOptions{{
//       {"tcp-if", "lo", "interfaces to use, one lane each (lo; eth0,eth1)"},
//       {"tcp-conns", "1", "connections per interface, one lane each"},
//   }};
//   std::any read(const OptionValues& values, BackendUse use);   // throws "--tcp-conns must be ..."
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace xover::runtime {

/// One option of a backend: `--NAME VALUE` on the command line.
struct BackendOption {
  std::string_view name;           ///< "tcp-if": the option without its dashes, unique in the table
  std::string_view default_value;  ///< "lo": the value when it is not given
  std::string_view help;           ///< one line for --help, after the backend's name
};

/// Options' values as text, by name: what the command line gave, or less.
using OptionValues = std::map<std::string, std::string, std::less<>>;

/// What a backend's options are read for: a run, or `xover calibrate`,
/// which measures each lane on its own and may take fewer of them.
enum class BackendUse { Run, Calibrate };

/// The value of the option `name` in `values`, or its default in `declared`
/// when `values` has none (empty when neither has it).
std::string option_text(const OptionValues& values, std::span<const BackendOption> declared, std::string_view name);

}  // namespace xover::runtime
