#include "bench/measurement.hpp"

#include <sys/resource.h>

#include <sstream>
#include <stdexcept>

namespace xover::bench {

std::string Measurement::serialize() const {
  std::ostringstream out;
  out.precision(17);
  out << messages << ' ' << errors << ' ' << load_s << ' ' << setup_s << ' ' << run_s << ' ' << sim_s << ' '
      << max_rss_kib << ' ' << note;
  return out.str();
}

Measurement Measurement::parse(const std::string& text) {
  std::istringstream in(text);
  Measurement m;
  if (!(in >> m.messages >> m.errors >> m.load_s >> m.setup_s >> m.run_s >> m.sim_s >> m.max_rss_kib))
    throw std::runtime_error("unreadable measurement: '" + text + "'");
  std::getline(in >> std::ws, m.note);
  return m;
}

long max_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace xover::bench
