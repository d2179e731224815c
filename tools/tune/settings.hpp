// From a library's cost lines on a path to the settings that make the
// library hand over where its own protocols cross: UCX's environment or
// ob1's MCA parameters, each with the size it comes from, why, what the
// installed library does instead and what xover predicts that costs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocols/lanes/lane.hpp"
#include "tools/tune/installed.hpp"
#include "tools/tune/library_model.hpp"
#include "tools/tune/probes.hpp"

namespace xover::tools::tune {

/// What the library's own choice costs against the recommended one over
/// the sizes where they differ: the worst ratio (library / recommended)
/// at the sizes sampled (powers of two and both ends), and where.
struct Difference {
  Bytes from = 0;             ///< first size where they differ
  Bytes to = 0;               ///< last
  double worst_ratio = 1;     ///< > 1: the library's choice is slower
  Bytes worst_at = 0;
  std::string library_protocol;      ///< what the library runs there
  std::string recommended_protocol;  ///< what xover would
};

struct Setting {
  std::string name;                   ///< "UCX_RNDV_THRESH", "btl_tcp_eager_limit"
  std::string value;                  ///< "151234", "put_zcopy", "inf"
  std::optional<Bytes> size;          ///< the message size it comes from
  std::string why;
  std::optional<std::string> library; ///< the installed library's own value or hand-over
  bool compared = false;              ///< the library's own hand-over was set against it
  std::optional<Difference> cost;     ///< where it differs (compared and none: the same)
};

/// Differences are looked for up to here: past it, no message a library's
/// threshold is set for.
inline constexpr Bytes kLargestCompared = Bytes{64} << 20;

struct TuneResult {
  Library library = Library::Ucx;
  std::string backend;
  std::string platform;
  std::string transports;  ///< UCX: "tcp"; ob1: the BTL, "tcp"
  std::string transports_env;
  std::string limits_source;
  Installed installed;
  std::vector<LibLine> lines;
  std::vector<Setting> settings;
  std::vector<std::string> notes;
};

/// UCX's settings for `backend` on `path`, its lines corrected by the
/// library's own `probes` where given (apply_probes).
/// @throws PathError when the path lacks what UCX's protocols need;
/// ProbeError for probes that do not fit the lines.
TuneResult tune_ucx(const Path& path, const std::string& backend, const Installed& installed,
                    const Probes* probes = nullptr);

/// ob1's MCA parameters for the BTL of `backend` on `path`, likewise.
/// @throws PathError when the path lacks what ob1's protocols need;
/// ProbeError for probes that do not fit the lines.
TuneResult tune_ompi(const Path& path, const std::string& backend, const Installed& installed,
                     const Probes* probes = nullptr);

/// The cheapest line of `phase` at n (or of any phase when none), or null
/// when no line covers n.
const LibLine* cheapest(const std::vector<LibLine>& lines, Bytes n, std::optional<Phase> phase = std::nullopt);
/// A size as a setting's value: the number, or "inf" for kSizeMax.
std::string bytes_value(Bytes n);

/// A line's cost at n; none where it does not cover n.
std::optional<Seconds> cost_at(const LibLine& line, Bytes n);

}  // namespace xover::tools::tune
