#include "bench/cluster_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace xover::bench {

ClusterFile::ClusterFile(int hosts) {
  const char* dir = std::getenv("TMPDIR");
  std::string name = std::string(dir && *dir ? dir : "/tmp") + "/xover-sim-speed-XXXXXX.xml";
  const int fd = ::mkstemps(name.data(), 4);
  if (fd < 0)
    throw std::runtime_error("cannot create " + name + ": " + std::strerror(errno));
  path_ = name;
  char text[2048];
  // Plain hosts are their own NIC, so every pair of hosts has one lane (named
  // after the source's private link) with LaneAttrs' default o, g and limits.
  const int n = std::snprintf(text, sizeof text,
                              "<?xml version='1.0'?>\n"
                              "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                              "<platform version=\"4.1\">\n"
                              "  <config>\n"
                              "    <prop id=\"network/model\" value=\"CM02\"/>\n"
                              "    <prop id=\"network/crosstraffic\" value=\"0\"/>\n"
                              "    <prop id=\"network/TCP-gamma\" value=\"0\"/>\n"
                              "    <prop id=\"surf/precision\" value=\"1e-12\"/>\n"
                              "  </config>\n"
                              "  <zone id=\"bench\" routing=\"Full\">\n"
                              "    <cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-%d\" speed=\"1Gf\"\n"
                              "             bw=\"%gBps\" lat=\"%gs\" sharing_policy=\"SPLITDUPLEX\"/>\n"
                              "  </zone>\n"
                              "</platform>\n",
                              hosts - 1, kLinkBandwidth, kLinkLatency);
  const bool ok = n > 0 && static_cast<std::size_t>(n) < sizeof text &&
                  ::write(fd, text, static_cast<std::size_t>(n)) == n;
  ::close(fd);
  if (!ok) {
    ::unlink(path_.c_str());
    throw std::runtime_error("cannot write " + path_);
  }
}

ClusterFile::~ClusterFile() {
  ::unlink(path_.c_str());
}

std::string host_name(unsigned rank) {
  return "n" + std::to_string(rank);
}

}  // namespace xover::bench
