// xover info: this build and what each of its backends finds on this
// machine, as `ucx_info -d` lists UCX's devices. Each backend's row in the
// backend table says whether it can run here and, through its describe
// probe, what it found; this file formats that and knows no backend.
#include <boost/program_options.hpp>
#include <iostream>
#include <sstream>
#include <variant>

#include "runtime/backends.hpp"
#include "tools/commands.hpp"
#include "tools/json.hpp"
#include "tools/version.hpp"

namespace po = boost::program_options;

namespace xover::tools {
namespace {

struct Found {
  const runtime::Backend* backend;
  std::string why_unavailable;
  runtime::BackendInfo info;
};

std::string text_of(const runtime::InfoValue& value) {
  if (const auto* s = std::get_if<std::string>(&value))
    return *s;
  if (const auto* b = std::get_if<bool>(&value))
    return *b ? "yes" : "no";
  return std::to_string(std::get<std::int64_t>(value));
}

void write_fields(std::ostream& os, const std::vector<runtime::InfoField>& fields, const std::string& indent) {
  std::size_t width = 0;
  for (const runtime::InfoField& f : fields)
    width = std::max(width, f.key.size());
  for (const runtime::InfoField& f : fields)
    os << indent << f.key << ":" << std::string(width - f.key.size() + 1, ' ') << text_of(f.value) << "\n";
}

std::string format_text(const std::vector<Found>& found) {
  std::ostringstream os;
  os << version_text();
  for (const Found& f : found) {
    os << "\n" << f.backend->name << ": " << f.backend->summary << "\n";
    std::vector<runtime::InfoField> head{{"available", f.why_unavailable.empty()}};
    if (!f.why_unavailable.empty())
      head.push_back({"why_not", f.why_unavailable});
    head.insert(head.end(), f.info.fields.begin(), f.info.fields.end());
    write_fields(os, head, "  ");
    for (const runtime::InfoDevice& device : f.info.devices) {
      os << "  " << device.kind << " " << device.name << "\n";
      write_fields(os, device.fields, "    ");
    }
    if (f.info.fields.empty() && f.info.devices.empty())
      os << "  (nothing to report)\n";
  }
  return os.str();
}

void write_fields(JsonWriter& j, const std::vector<runtime::InfoField>& fields) {
  j.begin_object();
  for (const runtime::InfoField& f : fields) {
    j.key(f.key);
    if (const auto* s = std::get_if<std::string>(&f.value))
      j.value(*s);
    else if (const auto* b = std::get_if<bool>(&f.value))
      j.value(*b);
    else if (const std::int64_t n = std::get<std::int64_t>(f.value); n >= 0)
      j.value(static_cast<std::uint64_t>(n));
    else
      j.value(static_cast<double>(n));
  }
  j.end_object();
}

std::string format_json(const std::vector<Found>& found) {
  JsonWriter j;
  j.begin_object();
  j.key("version").value(version());
  j.key("commit").value(git_commit());
  j.key("backends").begin_array();
  for (const Found& f : found) {
    j.begin_object();
    j.key("name").value(f.backend->name);
    j.key("summary").value(f.backend->summary);
    j.key("compiled_in").value(f.backend->compiled_in());
    j.key("available").value(f.why_unavailable.empty());
    j.key("why_unavailable");
    if (f.why_unavailable.empty())
      j.null();
    else
      j.value(f.why_unavailable);
    j.key("found");
    write_fields(j, f.info.fields);
    j.key("devices").begin_array();
    for (const runtime::InfoDevice& device : f.info.devices) {
      j.begin_object();
      j.key("kind").value(device.kind);
      j.key("name").value(device.name);
      j.key("found");
      write_fields(j, device.fields);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

}  // namespace

int info_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: xover info [--backend NAME] [--json]\n\n"
      "Prints this build's version and commit, and, for every backend in the table, whether it is\n"
      "compiled in, whether it can run on this machine (and why not), and what it finds here:\n"
      "cores and cross-memory attach for shm, interfaces, addresses and link speeds for tcp, ...\n\noptions");
  opts.add_options()("help,h", "this help")("backend,b", po::value<std::string>(), "only this backend")(
      "json", "print JSON for scripts");
  po::variables_map vm;
  if (const auto status = parse_options("info", args, opts, {}, vm))
    return *status;
  std::vector<Found> found;
  for (const runtime::Backend* b : runtime::backends()) {
    if (vm.count("backend") && b->name != vm["backend"].as<std::string>())
      continue;
    found.push_back({b, b->unavailable(), b->describe ? b->describe() : runtime::BackendInfo{}});
  }
  if (found.empty()) {
    std::cerr << "xover info: unknown backend '" << vm["backend"].as<std::string>()
              << "' (backends: " << runtime::backend_names() << ")\n";
    return kExitBadInput;
  }
  std::cout << (vm.count("json") ? format_json(found) : format_text(found));
  return 0;
}

}  // namespace xover::tools
