#include "runtime/tcp/tcp_options.hpp"

#include <sstream>
#include <stdexcept>

namespace xover::runtime {
namespace {

/// The most connections per interface a command line may ask for.
constexpr std::size_t kMaxConnections = 16;

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

}  // namespace

std::any read_tcp_options(const OptionValues& values, BackendUse use) {
  TcpOptions out;
  const std::string interfaces = option_text(values, kTcpOptions, "tcp-if");
  out.interfaces = split_commas(interfaces);
  if (out.interfaces.empty())
    throw std::invalid_argument("--tcp-if names no interface");
  if (use == BackendUse::Calibrate && (out.interfaces.size() > 1 || interfaces.find(',') != std::string::npos))
    throw std::invalid_argument("--tcp-if takes one interface");
  const std::string connections = option_text(values, kTcpOptions, "tcp-conns");
  std::size_t used = 0;
  try {
    out.connections = std::stoul(connections, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != connections.size() || connections.front() == '-' || out.connections < 1 ||
      out.connections > kMaxConnections)
    throw std::invalid_argument("--tcp-conns must be from 1 to " + std::to_string(kMaxConnections));
  if (use == BackendUse::Calibrate && out.connections != 1)
    throw std::invalid_argument("--tcp-conns takes 1 with calibrate, which measures each lane on its own");
  return out;
}

TcpOptions tcp_options(const RuntimeOptions& options) {
  return options.backend.has_value() ? std::any_cast<const TcpOptions&>(options.backend) : TcpOptions{};
}

}  // namespace xover::runtime
