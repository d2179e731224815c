#include "tools/results_table.hpp"

#include <cstdio>
#include <map>
#include <sstream>

#include "protocols/workload/workload.hpp"
#include "runtime/backends.hpp"

namespace xover::tools {
namespace {

bool simulated(const std::string& backend) {
  const runtime::Backend* b = runtime::find_backend(backend);
  return b && b->simulated();
}

}  // namespace

std::string format_results_table(const Scenario& scenario, const Results& results, const std::string& backend,
                                 const std::string& platform) {
  std::map<std::string, std::map<Bytes, const Point*>> by_curve;
  for (const Point* p : results.points())
    by_curve[p->curve][p->size] = p;
  const Workload& workload = *scenario.workload;
  const bool held = workload.reports_held;

  std::ostringstream os;
  os << "# " << scenario.name << ": " << workload.name
     << (simulated(backend) ? " in simulation on " : " on " + backend + " on ") << platform << "\n";
  if (!scenario.description.empty())
    os << "# " << scenario.description << "\n";
  os << "# median time per " << workload.sample << " in us" << (held ? "; held: bytes the receiver buffered" : "")
     << "\n";
  char cell[128];
  std::snprintf(cell, sizeof cell, "%10s", "size");
  os << cell;
  for (const std::string& curve : scenario.curves) {
    std::snprintf(cell, sizeof cell, "  %-30s", curve.c_str());
    os << cell;
  }
  os << "\n";
  for (Bytes n : scenario.sizes) {
    std::snprintf(cell, sizeof cell, "%10s", format_size(n).c_str());
    os << cell;
    for (const std::string& curve : scenario.curves) {
      const auto& points = by_curve[curve];
      const auto it = points.find(n);
      std::string text = "-";
      if (it != points.end()) {
        const Point& p = *it->second;
        char value[96];
        std::snprintf(value, sizeof value, "%.3f", p.median() * 1e6);
        text = value;
        if (curve != p.selected)
          text += " " + p.selected;
        if (held) {
          std::snprintf(value, sizeof value, " held %llu", static_cast<unsigned long long>(p.buffered_peak));
          text += value;
        }
        if (p.errors)
          text += " ERRORS " + std::to_string(p.errors);
      }
      std::snprintf(cell, sizeof cell, "  %-30s", text.c_str());
      os << cell;
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace xover::tools
