#include "tools/ucx_proto.hpp"

#include <charconv>
#include <sstream>

namespace xover::tools {
namespace {

std::string trim(std::string_view s) {
  const std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos)
    return {};
  const std::size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::optional<Bytes> whole(std::string_view s) {
  Bytes v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

/// The cells of a table row `| a | b | c |`, or none for another line.
std::optional<UcxProtoRow> table_row(const std::string& line) {
  const std::size_t bar = line.find('|');
  if (bar == std::string::npos)
    return std::nullopt;
  std::vector<std::string> cells;
  std::size_t at = bar + 1;
  for (std::size_t next; (next = line.find('|', at)) != std::string::npos; at = next + 1)
    cells.push_back(trim(std::string_view(line).substr(at, next - at)));
  if (cells.size() != 3)
    return std::nullopt;
  const std::size_t dots = cells[0].find("..");
  if (dots == std::string::npos)
    return std::nullopt;
  const std::optional<Bytes> from = whole(std::string_view(cells[0]).substr(0, dots));
  const std::string_view to = std::string_view(cells[0]).substr(dots + 2);
  if (!from || (to != "inf" && !whole(to)))
    return std::nullopt;
  return UcxProtoRow{*from, to == "inf" ? std::nullopt : whole(to), cells[1], cells[2]};
}

}  // namespace

UcxHandover parse_ucx_proto_info(std::string_view v1_text, std::string_view v2_text) {
  UcxHandover out;
  for (const std::string& line : lines(v1_text)) {
    const std::size_t at = line.find("tag_send:");
    if (at == std::string::npos)
      continue;
    out.v1_line = trim(std::string_view(line).substr(at + 9));
    // 0..<egr/short>..93..<egr/bcopy>..8256..<rndv>..(inf): the size before <rndv>.
    const std::size_t rndv = out.v1_line.find("..<rndv>");
    if (rndv != std::string::npos) {
      const std::size_t start = out.v1_line.rfind("..", rndv - 1);
      out.v1_rndv = whole(std::string_view(out.v1_line).substr(start == std::string::npos ? 0 : start + 2,
                                                               rndv - (start == std::string::npos ? 0 : start + 2)));
    }
    break;
  }
  bool in_table = false;
  for (const std::string& line : lines(v2_text)) {
    if (!in_table) {
      in_table = line.find("tagged message by ucp_tag_send") != std::string::npos &&
                 line.find("from host memory") != std::string::npos;
      continue;
    }
    const std::optional<UcxProtoRow> row = table_row(line);
    if (row)
      out.v2_rows.push_back(*row);
    else if (!out.v2_rows.empty())
      break;
  }
  for (const UcxProtoRow& row : out.v2_rows)
    if (row.protocol.find("rendezvous") != std::string::npos) {
      out.v2_rndv = row.from;
      break;
    }
  return out;
}

}  // namespace xover::tools
