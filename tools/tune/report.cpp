#include "tools/tune/report.hpp"

#include <cstdio>
#include <sstream>

#include "tools/json.hpp"

namespace xover::tools::tune {
namespace {

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", r);
  return buf;
}

std::string library_text(const TuneResult& r) {
  const std::string name = r.library == Library::Ucx ? "UCX" : "Open MPI";
  if (!r.installed.present)
    return name + ": " + r.installed.absent_reason;
  return name + " " + (r.installed.version ? r.installed.version->text() : std::string("(version unknown)"));
}

/// "differs: ..., predicted 2.10x slower at 64K" or "the same".
std::string cost_text(const Setting& s) {
  if (!s.compared)
    return "";
  if (!s.cost)
    return "the same";
  const Difference& d = *s.cost;
  return "differs over " + format_size(d.from) + ".." + format_size(d.to) + ": the library runs " +
         d.library_protocol + " where " + d.recommended_protocol + " is predicted faster, worst " +
         ratio_text(d.worst_ratio) + " at " + format_size(d.worst_at);
}

/// A line's pieces: from, to, c, m each.
void write_pieces(JsonWriter& w, const PiecewiseFunc& pieces) {
  w.begin_array();
  for (const Piece& p : pieces) {
    w.begin_object();
    w.key("from").value(std::uint64_t{p.from});
    w.key("to").size_limit(p.to);
    w.key("c").value(p.f.c);
    w.key("m").value(p.f.m);
    w.end_object();
  }
  w.end_array();
}

/// What the library's own probes added (null where none).
void write_measured(JsonWriter& w, const std::optional<Measured>& m) {
  if (!m) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("c").value(m->c);
  w.key("m").value(m->m);
  w.key("points").begin_array();
  for (const auto& [n, t] : m->points) {
    w.begin_object();
    w.key("size").value(std::uint64_t{n});
    w.key("seconds").value(t);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

/// "; a stream: 1.2 us + 0.05 ns/B · n" where the line prices streams.
std::string stream_text(const LibLine& l) {
  if (l.stream.empty())
    return "";
  std::ostringstream out;
  const Piece& first = l.stream.front();
  out << "; in a stream " << format_time(first.f.c) << " + " << first.f.m * 1e9 << " ns/B · n per message";
  if (l.stream_measured)
    out << " (the library's own stream probes add " << format_time(l.stream_measured->c) << " + "
        << l.stream_measured->m * 1e9 << " ns/B · n)";
  return out.str();
}

}  // namespace

std::string env_name(const TuneResult& r, const Setting& s) {
  return r.library == Library::Ucx ? s.name : "OMPI_MCA_" + s.name;
}

std::string format_shell(const TuneResult& r) {
  std::ostringstream out;
  out << "# xover tune --for " << library_name(r.library) << " --backend " << r.backend << "\n"
      << "# platform: " << r.platform << "\n"
      << "# library: " << library_text(r) << "; transports: " << r.transports << " (" << r.transports_env << ")\n"
      << "# limits: " << r.limits_source << "\n";
  for (const Setting& s : r.settings) {
    out << "# " << s.name;
    if (s.size)
      out << " from " << bytes_value(*s.size) << " B";
    out << ": " << s.why << "\n";
    if (s.library)
      out << "#   installed: " << *s.library << (s.compared ? "; " + cost_text(s) : std::string()) << "\n";
    out << "export " << env_name(r, s) << "=" << s.value << "\n";
  }
  for (const std::string& note : r.notes)
    out << "# " << note << "\n";
  return out.str();
}

std::string format_json(const TuneResult& r) {
  JsonWriter w;
  w.begin_object();
  w.key("library").value(library_name(r.library));
  w.key("backend").value(r.backend);
  w.key("platform").value(r.platform);
  w.key("transports").value(r.transports);
  w.key("transports_env").value(r.transports_env);
  w.key("limits_source").value(r.limits_source);
  w.key("installed").begin_object();
  w.key("present").value(r.installed.present);
  if (r.installed.present)
    w.key("version").value(r.installed.version ? std::optional<std::string>(r.installed.version->text()) : std::nullopt);
  else
    w.key("reason").value(r.installed.absent_reason);
  w.end_object();
  w.key("settings").begin_array();
  for (const Setting& s : r.settings) {
    w.begin_object();
    w.key("name").value(s.name);
    w.key("env").value(env_name(r, s));
    w.key("value").value(s.value);
    w.key("size").value(s.size ? std::optional<std::uint64_t>(*s.size) : std::nullopt);
    w.key("why").value(s.why);
    w.key("library").value(s.library);
    w.key("cost");
    if (s.cost) {
      w.begin_object();
      w.key("from").value(std::uint64_t{s.cost->from});
      w.key("to").value(std::uint64_t{s.cost->to});
      w.key("worst_ratio").value(s.cost->worst_ratio);
      w.key("worst_at").value(std::uint64_t{s.cost->worst_at});
      w.key("library_protocol").value(s.cost->library_protocol);
      w.key("recommended_protocol").value(s.cost->recommended_protocol);
      w.end_object();
    } else {
      w.null();
    }
    w.end_object();
  }
  w.end_array();
  w.key("lines").begin_array();
  for (const LibLine& l : r.lines) {
    w.begin_object();
    w.key("protocol").value(l.name);
    w.key("phase").value(l.phase == Phase::Eager ? "eager" : "rndv");
    w.key("formula").value(l.formula);
    w.key("fragment").value(std::uint64_t{l.fragment});
    w.key("measured");
    write_measured(w, l.measured);
    w.key("ranges");
    write_pieces(w, l.cost);
    w.key("stream");
    write_pieces(w, l.stream);
    w.key("stream_measured");
    write_measured(w, l.stream_measured);
    w.key("slow");
    write_pieces(w, l.slow);
    w.end_object();
  }
  w.end_array();
  w.key("notes").begin_array();
  for (const std::string& note : r.notes)
    w.value(note);
  w.end_array();
  w.end_object();
  return w.str();
}

std::string format_table(const TuneResult& r) {
  std::ostringstream out;
  out << "xover tune: " << library_text(r) << " on " << r.backend << " (" << r.transports << "), platform "
      << r.platform << "\n\n";
  char row[512];
  std::snprintf(row, sizeof row, "%-32s %-14s %-10s %s\n", "setting", "value", "from", "installed");
  out << row;
  for (const Setting& s : r.settings) {
    std::snprintf(row, sizeof row, "%-32s %-14s %-10s %s\n", env_name(r, s).c_str(), s.value.c_str(),
                  s.size ? format_size(*s.size).c_str() : "-", s.library ? s.library->c_str() : "-");
    out << row;
  }
  out << "\nwhy:\n";
  for (const Setting& s : r.settings) {
    out << "  " << s.name << ": " << s.why << "\n";
    if (const std::string c = cost_text(s); !c.empty())
      out << "    installed: " << c << "\n";
  }
  out << "\nthe library's protocols on this path (latency of one message):\n";
  for (const LibLine& l : r.lines) {
    const Piece& first = l.cost.front();
    out << "  " << l.name << " " << format_size(first.from) << ".." << format_size(l.cost.back().to) << ": "
        << format_time(first.f.c) << " + " << first.f.m * 1e9 << " ns/B · n"
        << (l.cost.size() > 1 ? " (and " + std::to_string(l.cost.size() - 1) + " more piece(s))" : "") << "; "
        << l.formula << stream_text(l) << "\n";
  }
  for (const std::string& note : r.notes)
    out << "note: " << note << "\n";
  return out.str();
}

}  // namespace xover::tools::tune
