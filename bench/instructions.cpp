#include "bench/instructions.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace xover::bench {
namespace {

std::string quoted(const std::string& arg) {
  std::string out = "'";
  for (char c : arg)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string callgrind_unavailable() {
  if (std::system("command -v valgrind >/dev/null 2>&1") != 0)
    return "valgrind not found (apt-get install valgrind)";
  return "";
}

InstructionCount count_instructions(const std::vector<std::string>& args, std::uint64_t messages) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error)
    return {0, "cannot find this program: " + error.message()};
  std::string dir = (std::filesystem::temp_directory_path(error) / "sim_speed_cg.XXXXXX").string();
  if (error || !mkdtemp(dir.data()))
    return {0, "cannot make a temporary directory"};
  const std::string out = dir + "/callgrind.out";
  // LD_BIND_NOW: symbols bound at load, not on their first call inside
  // Engine::run(), where they would count against the first messages.
  std::string command = "LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file=" + quoted(out) +
                        " " + quoted("--toggle-collect=simgrid::s4u::Engine::run() const") + " " + quoted(self.string());
  for (const std::string& arg : args)
    command += " " + quoted(arg);
  command += " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  InstructionCount count;
  std::ifstream in(out);
  std::string line;
  double total = -1;
  while (std::getline(in, line))
    if (line.starts_with("summary: "))
      total = std::stod(line.substr(9));
  if (status != 0)
    count.error = "the run under valgrind failed (exit status " + std::to_string(status) + ")";
  else if (total < 0)
    count.error = "callgrind wrote no summary";
  else
    count.per_message = total / static_cast<double>(messages);
  std::filesystem::remove_all(dir, error);
  return count;
}

}  // namespace xover::bench
