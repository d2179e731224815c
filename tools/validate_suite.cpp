// Reading the validation suite's file (validate_suite.hpp).
#include "tools/validate_suite.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace xover::tools {

std::vector<SuiteCase> read_suite(const std::string& file) {
  std::ifstream in(file);
  if (!in)
    throw std::invalid_argument(file + ": cannot read the suite");
  const std::filesystem::path folder = std::filesystem::path(file).parent_path();
  std::vector<SuiteCase> cases;
  std::set<std::string> names;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const auto fail = [&](const std::string& what) {
      throw std::invalid_argument(file + ":" + std::to_string(number) + ": " + what);
    };
    std::istringstream words(line.substr(0, line.find('#')));
    std::string scenario;
    if (!(words >> scenario))
      continue;
    SuiteCase c;
    c.scenario = (folder / scenario).string();
    c.name = std::filesystem::path(scenario).stem().string();
    for (std::string word; words >> word;) {
      if (word.starts_with("only=") && word.size() > 5 && !c.only) {
        c.only = word.substr(5);
      } else if (word.starts_with("--") && word.size() > 2) {
        std::string value;
        if (!(words >> value) || value.starts_with("--"))
          fail("option " + word + " has no value");
        c.options.insert(c.options.end(), {word, value});
      } else {
        fail("'" + word + "' is neither only=BACKEND (once) nor a backend option --NAME VALUE");
      }
    }
    if (!names.insert(c.name).second)
      fail("a second case named '" + c.name + "' (cases are named by their scenario file)");
    cases.push_back(std::move(c));
  }
  if (cases.empty())
    throw std::invalid_argument(file + ": the suite lists no scenario");
  return cases;
}

std::vector<SuiteCase> cases_for(const std::vector<SuiteCase>& cases, const std::string& backend) {
  std::vector<SuiteCase> out;
  for (const SuiteCase& c : cases)
    if (!c.only || *c.only == backend)
      out.push_back(c);
  return out;
}

}  // namespace xover::tools
