// What the installed communication library says about itself: its version
// (`ucx_info -v`, `ompi_info --version`), its configuration with defaults
// (`ucx_info -c`; `ompi_info --param btl all --level 9`) and, for UCX, its
// own hand-over (`UCX_PROTO_INFO=y ucx_info -e -u t`, tools/ucx_proto.hpp).
// The parsers are pure functions of the text, tested on captured outputs;
// probe_installed() runs the programs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "protocols/units.hpp"
#include "tools/ucx_proto.hpp"

namespace xover::tools::tune {

/// The libraries `xover tune --for` knows.
enum class Library { Ucx, Ompi };

/// The library called `name` ("ucx", "ompi"), or none.
std::optional<Library> library_named(std::string_view name);
std::string_view library_name(Library library);

/// A dotted release number: 1.13.1, 4.1.4.
struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  bool at_least(int ma, int mi) const { return major > ma || (major == ma && minor >= mi); }
  std::string text() const;
  bool operator==(const Version&) const = default;
};

/// "1.13.1" or "4.1" (patch 0); none for anything else.
std::optional<Version> parse_version(std::string_view text);
/// The `# Version 1.13.1` line of `ucx_info -v`; none when absent.
std::optional<Version> parse_ucx_version(std::string_view ucx_info_v);
/// `Open MPI v4.1.4` (`ompi_info --version`) or `Open MPI: 4.1.4`
/// (`ompi_info`); none when absent.
std::optional<Version> parse_ompi_version(std::string_view ompi_info);

/// `KEY=VALUE` lines of `ucx_info -c` (comment lines skipped).
std::map<std::string, std::string> parse_ucx_config(std::string_view ucx_info_c);
/// `parameter "NAME" (current value: "VALUE", ...` lines of
/// `ompi_info --param btl all --level 9`, informational ones included.
std::map<std::string, std::string> parse_ompi_params(std::string_view ompi_info_param);

/// A size in a library's memory units: "8256", "8K", "512kb", "1M", "inf"
/// (kSizeMax); none for "auto" or anything that is not a size.
std::optional<Bytes> parse_memunits(std::string_view text);

/// One library as found on this machine.
struct Installed {
  Library library = Library::Ucx;
  bool present = false;
  std::string absent_reason;                  ///< why not, when not present
  std::optional<Version> version;
  std::map<std::string, std::string> config;  ///< UCX_* or btl_* defaults
  std::optional<UcxHandover> handover;        ///< UCX's own tag_send hand-over on the transports
  /// The value of `key` in config, when there.
  std::optional<std::string> get(const std::string& key) const;
};

/// Runs the library's own tools (`ucx_info`, `ompi_info`) with `ucx_env`
/// (the transports, "UCX_TLS=tcp UCX_NET_DEVICES=lo") for UCX's hand-over.
Installed probe_installed(Library library, const std::string& ucx_env);

}  // namespace xover::tools::tune
