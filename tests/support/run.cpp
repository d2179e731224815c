#include "tests/support/run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace xover::test {
namespace {

std::string slurp(const std::string& file) {
  std::ifstream in(file);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace

std::string temp_dir() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

CommandResult run_command(const std::string& command) {
  std::string out_name = temp_dir() + "/xover-test-out-XXXXXX";
  std::string err_name = temp_dir() + "/xover-test-err-XXXXXX";
  const int out_fd = mkstemp(out_name.data());
  const int err_fd = mkstemp(err_name.data());
  if (out_fd < 0 || err_fd < 0)
    throw std::runtime_error("run_command: cannot create temporary files in " + temp_dir() + " (TMPDIR)");
  close(out_fd);
  close(err_fd);
  const int raw = std::system(("(" + command + ") >" + out_name + " 2>" + err_name + " </dev/null").c_str());
  CommandResult result;
  if (raw != -1 && WIFEXITED(raw))
    result.status = WEXITSTATUS(raw);
  result.out = slurp(out_name);
  result.err = slurp(err_name);
  unlink(out_name.c_str());
  unlink(err_name.c_str());
  return result;
}

bool python_imports(const std::string& python, const std::string& module) {
  return run_command(python + " -c 'import " + module + "'").status == 0;
}

std::vector<std::vector<std::string>> read_csv(const std::string& file) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    // A quoted cell may hold commas and doubled quotes; a trailing comma
    // ends with an empty cell.
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"' && (quoted || cells.back().empty())) {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.emplace_back();
      } else {
        cells.back() += c;
      }
    }
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace xover::test
