#include "runtime/cuda/cuda_probe.hpp"

#include <charconv>

namespace xover::runtime {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos)
      return out;
    start = end + 1;
  }
}

template <class T>
bool number(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

CudaProbe broken(std::string why) {
  CudaProbe out;
  out.error = "the probe's report is unreadable (" + why + ")";
  return out;
}

/// A name or an error string on one line of the report, '|' and newlines out.
std::string one_field(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '|')
      c = ' ';
  return text;
}

}  // namespace

std::string encode_probe(const CudaProbe& probe) {
  std::string out = probe.ok ? "count " + std::to_string(probe.count) : "error " + one_field(probe.error);
  out += "\nversions " + std::to_string(probe.driver_version) + " " + std::to_string(probe.runtime_version) + "\n";
  for (const CudaGpu& g : probe.gpus)
    out += "gpu " + one_field(g.name) + "|" + g.capability + "|" + std::to_string(g.memory) + "|" +
           std::to_string(g.sms) + "|" + one_field(g.pci_bus) + "\n";
  return out;
}

CudaProbe decode_probe(std::string_view report) {
  if (report.empty())
    return broken("empty: the child wrote nothing");
  std::vector<std::string_view> lines = split(report, '\n');
  if (lines.back().empty())
    lines.pop_back();
  CudaProbe out;
  const std::string_view first = lines[0];
  if (first.starts_with("count ")) {
    if (!number(first.substr(6), out.count))
      return broken("bad count '" + std::string(first.substr(6)) + "'");
    out.ok = true;
  } else if (first.starts_with("error ")) {
    out.error = first.substr(6);
  } else {
    return broken("line 1 is neither 'count' nor 'error'");
  }
  if (lines.size() < 2 || !lines[1].starts_with("versions "))
    return broken("no versions line");
  const std::vector<std::string_view> versions = split(lines[1].substr(9), ' ');
  if (versions.size() != 2 || !number(versions[0], out.driver_version) || !number(versions[1], out.runtime_version))
    return broken("bad versions '" + std::string(lines[1]) + "'");
  for (std::size_t i = 2; i < lines.size(); ++i) {
    if (!lines[i].starts_with("gpu "))
      return broken("line " + std::to_string(i + 1) + " is not a gpu");
    const std::vector<std::string_view> f = split(lines[i].substr(4), '|');
    CudaGpu g;
    if (f.size() != 5 || !number(f[2], g.memory) || !number(f[3], g.sms))
      return broken("bad gpu line " + std::to_string(i + 1));
    g.name = f[0];
    g.capability = f[1];
    g.pci_bus = f[4];
    out.gpus.push_back(std::move(g));
  }
  if (out.ok && out.gpus.size() != static_cast<std::size_t>(out.count))
    return broken(std::to_string(out.count) + " devices counted, " + std::to_string(out.gpus.size()) + " described");
  return out;
}

std::string probe_unavailable(const CudaProbe& probe) {
  if (!probe.ok)
    return "no CUDA device: cudaGetDeviceCount: " + probe.error;
  if (probe.count == 0)
    return "no CUDA device: cudaGetDeviceCount: 0 devices";
  return "";
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

BackendInfo probe_info(const CudaProbe& probe) {
  BackendInfo info;
  info.add("runtime", cuda_version_text(probe.runtime_version));
  info.add("driver", probe.driver_version ? cuda_version_text(probe.driver_version) : std::string("none"));
  if (!probe.ok)
    info.add("error", probe.error);
  info.add("devices", std::int64_t{probe.count});
  for (std::size_t i = 0; i < probe.gpus.size(); ++i) {
    const CudaGpu& g = probe.gpus[i];
    info.devices.push_back(InfoDevice{"gpu", std::to_string(i), {}});
    info.devices.back()
        .add("name", g.name)
        .add("capability", g.capability)
        .add("memory", g.memory)
        .add("sms", g.sms)
        .add("pci_bus", g.pci_bus);
  }
  return info;
}

}  // namespace xover::runtime
