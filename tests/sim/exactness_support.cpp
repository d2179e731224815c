// The simulator against the cost lines, the helpers the exactness tests
// share (exactness_support.hpp).
#include "tests/sim/exactness_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "base/child.hpp"
#include "sim/simulate.hpp"

namespace xover::exactness {

std::map<std::string, std::vector<Measured>> simulate(const std::string& platform_file,
                                                      const std::vector<std::string>& curves,
                                                      const std::vector<Bytes>& sizes,
                                                      const std::vector<std::pair<std::string, SelectConfig>>& settings,
                                                      MemType memory, const Workload* workload) {
  const std::string out = in_child([&] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(platform_file);
    std::ostringstream os;
    for (const auto& [label, config] : settings) {
      Scenario s;
      s.name = "exactness";
      s.platform = platform_file;
      s.iterations = 1;
      s.warmup = 1;
      s.sizes = sizes;
      s.curves = curves;
      s.select = config;
      s.memory = memory;
      s.workload = workload;
      const Results results = sim::simulate(s, platform);
      for (const Point* p : results.points()) {
        char line[256];
        std::snprintf(line, sizeof line, "%s %s %llu %.17g %.17g %zu\n", label.c_str(), p->curve.c_str(),
                      static_cast<unsigned long long>(p->size), p->median(), p->model.value_or(-1), p->errors);
        os << line;
        if (p->selected != p->curve || p->errors != 0)
          os << "BAD " << p->curve << " ran " << p->selected << " with " << p->errors << " errors\n";
      }
    }
    return os.str();
  });
  std::map<std::string, std::vector<Measured>> by;
  std::istringstream in(out);
  std::string label;
  while (in >> label) {
    if (label == "BAD" || label == "ERROR:") {
      std::string rest;
      std::getline(in, rest);
      ADD_FAILURE() << label << rest;
      continue;
    }
    Measured m;
    std::size_t errors = 0;
    unsigned long long size = 0;
    in >> m.protocol >> size >> m.time >> m.model >> errors;
    m.size = size;
    by[label + " " + m.protocol].push_back(m);
  }
  return by;
}

SelectConfig with(const char* key, const char* value) {
  SelectConfig c;
  c.set(key, value);
  return c;
}

Tally check_against_models(const std::map<std::string, std::vector<Measured>>& results, Seconds slack) {
  Tally tally;
  for (const auto& [key, points] : results) {
    for (const Measured& m : points) {
      EXPECT_GT(m.model, 0) << key << " " << m.size;
      const bool multi = m.protocol.starts_with("eager/multi");
      const Bytes fragment = multi ? kMultiFragment : kRndvAmFragment;
      const bool fragmented = (multi || m.protocol == "rndv/am") && m.size > fragment;
      if (!fragmented || m.size % fragment == 0) {
        EXPECT_NEAR(m.time, m.model, 1e-9 * m.model) << key << " at " << m.size << " B";
        ++tally.exact;
      } else {
        EXPECT_NEAR(m.time, m.model, slack) << key << " at " << m.size << " B";
        ++tally.bounded;
      }
    }
  }
  return tally;
}

std::map<std::string, double> exact_differences(const std::map<std::string, std::vector<Measured>>& minus,
                                                const std::map<std::string, std::vector<Measured>>& plus) {
  std::map<std::string, double> out;
  for (const auto& [key, points] : plus) {
    EXPECT_EQ(minus.count(key), 1U) << key;
    if (minus.count(key) == 0)
      continue;
    EXPECT_EQ(minus.at(key).size(), points.size()) << key;
    for (std::size_t i = 0; i < points.size() && i < minus.at(key).size(); ++i) {
      const Measured& m = points[i];
      const bool multi = m.protocol.starts_with("eager/multi");
      const Bytes fragment = multi ? kMultiFragment : kRndvAmFragment;
      if ((multi || m.protocol == "rndv/am") && m.size > fragment && m.size % fragment != 0)
        continue;
      out[m.protocol + " " + std::to_string(m.size)] = minus.at(key)[i].time - m.time;
    }
  }
  return out;
}

}  // namespace xover::exactness
