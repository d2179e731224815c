#include "tools/tune/installed.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <vector>

#include "base/spawn.hpp"

namespace xover::tools::tune {
namespace {

std::optional<int> whole(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

/// The release number that starts `s` ("1.13.1 ...", "4.1.4\n").
std::optional<Version> leading_version(std::string_view s) {
  std::size_t end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.'))
    ++end;
  return parse_version(s.substr(0, end));
}

}  // namespace

std::optional<Library> library_named(std::string_view name) {
  if (name == "ucx")
    return Library::Ucx;
  if (name == "ompi")
    return Library::Ompi;
  return std::nullopt;
}

std::string_view library_name(Library library) {
  return library == Library::Ucx ? "ucx" : "ompi";
}

std::string Version::text() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::optional<Version> parse_version(std::string_view text) {
  std::vector<int> parts;
  for (std::size_t at = 0;;) {
    const std::size_t dot = std::min(text.find('.', at), text.size());
    const std::optional<int> part = whole(text.substr(at, dot - at));
    if (!part)
      return std::nullopt;
    parts.push_back(*part);
    if (dot == text.size())
      break;
    at = dot + 1;
  }
  if (parts.size() < 2 || parts.size() > 3)
    return std::nullopt;
  return Version{parts[0], parts[1], parts.size() == 3 ? parts[2] : 0};
}

std::optional<Version> parse_ucx_version(std::string_view ucx_info_v) {
  const std::size_t at = ucx_info_v.find("# Version ");
  return at == std::string_view::npos ? std::nullopt : leading_version(ucx_info_v.substr(at + 10));
}

std::optional<Version> parse_ompi_version(std::string_view ompi_info) {
  for (const std::string_view mark : {std::string_view("Open MPI v"), std::string_view("Open MPI: ")}) {
    const std::size_t at = ompi_info.find(mark);
    if (at != std::string_view::npos)
      return leading_version(ompi_info.substr(at + mark.size()));
  }
  return std::nullopt;
}

std::map<std::string, std::string> parse_ucx_config(std::string_view ucx_info_c) {
  std::map<std::string, std::string> out;
  std::istringstream in{std::string(ucx_info_c)};
  for (std::string line; std::getline(in, line);) {
    const std::size_t eq = line.find('=');
    if (!line.starts_with("UCX_") || eq == std::string::npos)
      continue;
    out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

std::map<std::string, std::string> parse_ompi_params(std::string_view ompi_info_param) {
  std::map<std::string, std::string> out;
  std::istringstream in{std::string(ompi_info_param)};
  for (std::string line; std::getline(in, line);) {
    std::size_t at = line.find("parameter \"");
    std::size_t skip = 11;
    if (at == std::string::npos) {
      at = line.find("informational \"");
      skip = 15;
    }
    const std::size_t value_at = line.find("(current value: \"");
    if (at == std::string::npos || value_at == std::string::npos)
      continue;
    const std::size_t name_end = line.find('"', at + skip);
    const std::size_t value_start = value_at + 17;
    const std::size_t value_end = line.find('"', value_start);
    if (name_end == std::string::npos || value_end == std::string::npos)
      continue;
    out[line.substr(at + skip, name_end - at - skip)] = line.substr(value_start, value_end - value_start);
  }
  return out;
}

std::optional<Bytes> parse_memunits(std::string_view text) {
  if (text == "inf")
    return kSizeMax;
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
    ++digits;
  Bytes n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, n);
  if (digits == 0 || ec != std::errc())
    return std::nullopt;
  std::string unit;
  for (char c : text.substr(digits))
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // UCX's memunits: b, k|kb, m|mb, g|gb, all powers of 1024.
  if (unit.empty() || unit == "b")
    return n;
  if (unit == "k" || unit == "kb")
    return n << 10;
  if (unit == "m" || unit == "mb")
    return n << 20;
  if (unit == "g" || unit == "gb")
    return n << 30;
  return std::nullopt;
}

std::optional<std::string> Installed::get(const std::string& key) const {
  const auto it = config.find(key);
  return it == config.end() ? std::nullopt : std::optional<std::string>(it->second);
}

Installed probe_installed(Library library, const std::string& ucx_env) {
  Installed out;
  out.library = library;
  if (library == Library::Ucx) {
    const std::optional<std::string> v = shell_output("ucx_info -v");
    if (!v) {
      out.absent_reason = "ucx_info not found or failed: UCX is not installed here";
      return out;
    }
    out.present = true;
    out.version = parse_ucx_version(*v);
    out.config = parse_ucx_config(shell_output("ucx_info -c").value_or(""));
    const std::string query = "env UCX_PROTO_INFO=y " + ucx_env + " timeout 20 ucx_info -e -u t";
    out.handover = parse_ucx_proto_info(shell_output("env UCX_PROTO_ENABLE=n " + query).value_or(""),
                                        shell_output("env UCX_PROTO_ENABLE=y " + query).value_or(""));
    return out;
  }
  const std::optional<std::string> v = shell_output("ompi_info --version");
  if (!v) {
    out.absent_reason = "ompi_info not found or failed: Open MPI is not installed here";
    return out;
  }
  out.present = true;
  out.version = parse_ompi_version(*v);
  out.config = parse_ompi_params(shell_output("ompi_info --param btl all --level 9").value_or(""));
  return out;
}

}  // namespace xover::tools::tune
