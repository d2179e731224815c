// The TCP transport's set-up: listeners, address exchange, connections with
// hellos, and the refusal of strangers (tcp_wireup.hpp). The lane
// measurements are in tcp_measure.cpp.
#include "runtime/tcp/tcp_wireup.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "runtime/common.hpp"
#include "runtime/tcp/tcp_frame.hpp"
#include "runtime/tcp/tcp_measure.hpp"
#include "runtime/tcp/tcp_options.hpp"

namespace xover::runtime::tcp {
namespace {


/// Socket buffers asked for (the kernel caps them at net.core.[rw]mem_max).
constexpr int kSocketBuffer = 4 << 20;

std::string errno_text(int error) {
  return std::strerror(error);
}

std::string address_text(std::uint32_t address, std::uint16_t port) {
  in_addr a{htonl(address)};
  char text[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &a, text, sizeof text);
  return std::string(text) + ":" + std::to_string(port);
}

std::string peer_text(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return "an unknown address";
  return address_text(ntohl(a.sin_addr.s_addr), ntohs(a.sin_port));
}

std::uint64_t job_hash(const std::string& job) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (char c : job)
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

// The IPv4 address of each named interface, in the order given.
std::vector<std::uint32_t> interface_addresses(const std::vector<std::string>& names) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0)
    throw RuntimeError("tcp: cannot list the network interfaces: " + errno_text(errno));
  std::vector<std::uint32_t> addresses;
  std::set<std::string> with_ipv4;
  for (ifaddrs* i = list; i; i = i->ifa_next)
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET)
      with_ipv4.insert(i->ifa_name);
  for (const std::string& name : names) {
    const ifaddrs* found = nullptr;
    for (ifaddrs* i = list; i && !found; i = i->ifa_next)
      if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && name == i->ifa_name)
        found = i;
    if (!found) {
      std::string have;
      for (const std::string& n : with_ipv4)
        have += (have.empty() ? "" : ", ") + n;
      freeifaddrs(list);
      throw RuntimeError("tcp: interface '" + name + "' has no IPv4 address (interfaces with one: " + have + ")");
    }
    addresses.push_back(ntohl(reinterpret_cast<const sockaddr_in*>(found->ifa_addr)->sin_addr.s_addr));
  }
  freeifaddrs(list);
  return addresses;
}

void set_buffers(int fd) {
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSocketBuffer, sizeof kSocketBuffer);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kSocketBuffer, sizeof kSocketBuffer);
}

int new_socket() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    throw RuntimeError("tcp: cannot open a socket: " + errno_text(errno));
  set_buffers(fd);
  return fd;
}

sockaddr_in socket_address(std::uint32_t address, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(address);
  a.sin_port = htons(port);
  return a;
}

// Listens on `address`, port chosen by the kernel.
TcpListener listen_on(int& fd, std::uint32_t address, const std::string& iface) {
  fd = new_socket();
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a = socket_address(address, 0);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, SOMAXCONN) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw RuntimeError("tcp: cannot listen on " + iface + " (" + address_text(address, 0) + "): " + errno_text(errno));
  return {address, ntohs(a.sin_port)};
}

// One connection on its way up: ours to a higher rank, or one a listener
// accepted (perhaps a stranger's).
struct Pending {
  int fd = -1;
  bool outgoing = false;
  bool connected = false;  ///< outgoing: the TCP handshake is done
  Rank peer = 0;           ///< outgoing: the peer; incoming: once the hello says
  std::size_t lane = 0;    ///< outgoing: the lane; incoming: once the hello says
  std::size_t iface = 0;   ///< the interface (incoming: its listener's)
  std::array<std::byte, Hello::kSize> in{};
  std::size_t got = 0;
  std::array<std::byte, Hello::kSize> out{};
  std::size_t out_left = 0;
  bool done = false;  ///< up: the hello (incoming) or the answer (outgoing) checked and ours sent
};

class Connector {
 public:
  Connector(Bootstrap& boot, const RuntimeOptions& options, const TcpOptions& tcp, const TcpTestHooks& hooks,
            const std::vector<std::string>& lane_names, std::vector<int>& listeners, const std::vector<Card>& cards)
      : boot_(boot), options_(options), tcp_(tcp), hooks_(hooks), names_(lane_names), listeners_(listeners),
        cards_(cards), job_(job_hash(boot.job())), fds_(boot.size()) {}
  ~Connector() {
    for (const Pending& p : pending_)
      if (p.fd >= 0)
        close(p.fd);
  }
  Connector(const Connector&) = delete;
  Connector& operator=(const Connector&) = delete;

  /// Connects and accepts until every lane to every peer is up; returns
  /// the sockets, [peer][lane].
  std::vector<std::vector<int>> run();

 private:
  void refuse(Pending& p, const std::string& why);
  void connect_lane(Rank peer, std::size_t lane);
  void on_ready(Pending& p, short events);
  void check_hello(Pending& p);
  void accept_all(std::size_t iface);
  void sweep_strangers();
  std::string missing() const;

  Bootstrap& boot_;
  const RuntimeOptions& options_;
  const TcpOptions& tcp_;
  const TcpTestHooks& hooks_;
  const std::vector<std::string>& names_;
  std::vector<int>& listeners_;
  const std::vector<Card>& cards_;
  std::uint64_t job_;
  std::vector<std::vector<int>> fds_;
  std::vector<Pending> pending_;
};

void Connector::refuse(Pending& p, const std::string& why) {
  const std::string line = "tcp: refused a connection on " + tcp_.interfaces[p.iface] + " from " +
                           peer_text(p.fd) + ": " + why;
  std::fprintf(stderr, "xover: rank %u: %s\n", boot_.rank(), line.c_str());
  if (hooks_.on_refused)
    hooks_.on_refused(line);
  close(p.fd);
  p.fd = -1;
}

void Connector::connect_lane(Rank peer, std::size_t lane) {
  const std::size_t iface = lane / tcp_.connections;
  Pending p;
  p.fd = new_socket();
  p.outgoing = true;
  p.peer = peer;
  p.lane = lane;
  p.iface = iface;
  const TcpListener mine{cards_[boot_.rank()].listeners[iface].address, 0};
  const TcpListener theirs = cards_[peer].listeners[iface];
  sockaddr_in from = socket_address(mine.address, 0);
  sockaddr_in to = socket_address(theirs.address, theirs.port);
  if (bind(p.fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      (connect(p.fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS)) {
    const int error = errno;
    close(p.fd);
    throw RuntimeError("tcp: rank " + std::to_string(boot_.rank()) + " cannot connect lane " + names_[lane] +
                       " to rank " + std::to_string(peer) + " at " + address_text(theirs.address, theirs.port) + ": " +
                       errno_text(error));
  }
  Hello{Hello::kMagic, job_, boot_.rank(), static_cast<std::uint32_t>(lane)}.encode(p.out.data());
  p.out_left = Hello::kSize;
  pending_.push_back(p);
}

void Connector::check_hello(Pending& p) {
  const Hello h = Hello::decode(p.in.data());
  if (p.outgoing) {
    // The answer must come from the rank we dialled, for this lane.
    if (h.magic != Hello::kMagic || h.job != job_ || h.rank != p.peer || h.lane != p.lane)
      throw RuntimeError("tcp: lane " + names_[p.lane] + " to rank " + std::to_string(p.peer) + " at " +
                         peer_text(p.fd) + " was answered by a stranger (another job on the same port?)");
    p.done = true;
    return;
  }
  const std::string why = refuse_hello(h, {job_, boot_.rank(), boot_.size(), names_, tcp_.connections},
                                       p.iface, fds_);
  if (!why.empty()) {
    refuse(p, why);
    return;
  }
  p.peer = h.rank;
  p.lane = h.lane;
  fds_[p.peer][p.lane] = p.fd;
  Hello{Hello::kMagic, job_, boot_.rank(), h.lane}.encode(p.out.data());
  p.out_left = Hello::kSize;
}

void Connector::on_ready(Pending& p, short events) {
  if (p.outgoing && !p.connected) {
    int error = 0;
    socklen_t len = sizeof error;
    getsockopt(p.fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error == EINPROGRESS || (error == 0 && !(events & (POLLOUT | POLLERR | POLLHUP))))
      return;
    if (error != 0) {
      const TcpListener theirs = cards_[p.peer].listeners[p.lane / tcp_.connections];
      throw RuntimeError("tcp: rank " + std::to_string(boot_.rank()) + " cannot connect lane " + names_[p.lane] +
                         " to rank " + std::to_string(p.peer) + " at " + address_text(theirs.address, theirs.port) +
                         ": " + errno_text(error));
    }
    p.connected = true;
  }
  if (p.out_left > 0) {
    const ssize_t n = send(p.fd, p.out.data() + (Hello::kSize - p.out_left), p.out_left, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      p.out_left -= static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      if (p.outgoing)
        throw RuntimeError("tcp: lane " + names_[p.lane] + " to rank " + std::to_string(p.peer) +
                           " failed during set-up: " + errno_text(errno));
      fds_[p.peer][p.lane] = -1;
      refuse(p, "went away before our answer: " + errno_text(errno));
      return;
    }
    if (!p.outgoing && p.out_left == 0 && p.got == Hello::kSize)
      p.done = true;
    return;
  }
  if (p.got == Hello::kSize)
    return;
  const ssize_t n = recv(p.fd, p.in.data() + p.got, Hello::kSize - p.got, MSG_DONTWAIT);
  if (n > 0) {
    p.got += static_cast<std::size_t>(n);
    if (p.got == Hello::kSize)
      check_hello(p);
    return;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (p.outgoing)
    throw RuntimeError("tcp: rank " + std::to_string(p.peer) + " closed lane " + names_[p.lane] +
                       " during set-up (did it refuse our hello?)");
  refuse(p, n == 0 ? "closed after " + std::to_string(p.got) + " bytes of hello" : errno_text(errno));
}

std::string Connector::missing() const {
  std::string text;
  for (const Pending& p : pending_)
    if (p.fd >= 0 && p.outgoing && !p.done)
      text += " " + names_[p.lane] + " to rank " + std::to_string(p.peer) + ";";
  for (Rank r = 0; r < boot_.rank(); ++r)
    for (std::size_t l = 0; l < names_.size(); ++l)
      if (fds_[r][l] < 0)
        text += " " + names_[l] + " from rank " + std::to_string(r) + ";";
  return text;
}

void Connector::accept_all(std::size_t iface) {
  for (int fd; (fd = accept4(listeners_[iface], nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
    Pending p;
    p.fd = fd;
    p.iface = iface;
    pending_.push_back(p);
  }
}

void Connector::sweep_strangers() {
  // Whoever else knocked (or is still knocking) is refused with a reason.
  for (std::size_t i = 0; i < listeners_.size(); ++i)
    accept_all(i);
  for (Pending& p : pending_)
    if (p.fd >= 0 && !p.outgoing && p.got < Hello::kSize) {
      const ssize_t n = recv(p.fd, p.in.data() + p.got, Hello::kSize - p.got, MSG_DONTWAIT);
      if (n > 0)
        p.got += static_cast<std::size_t>(n);
      if (p.got == Hello::kSize)
        check_hello(p);
      else
        refuse(p, p.got == 0 ? "no hello" : "only " + std::to_string(p.got) + " bytes of hello");
    }
}

std::vector<std::vector<int>> Connector::run() {
  const Rank me = boot_.rank();
  const std::size_t lanes = names_.size();
  for (Rank r = 0; r < boot_.size(); ++r)
    fds_[r].assign(r == me ? 0 : lanes, -1);
  for (Rank peer = me + 1; peer < boot_.size(); ++peer)
    for (std::size_t lane = 0; lane < lanes; ++lane)
      connect_lane(peer, lane);
  const Seconds deadline = clock_now() + options_.timeout;
  auto up = [&] {
    std::size_t n = 0;
    for (const Pending& p : pending_)
      n += p.fd >= 0 && p.done;
    return n;
  };
  const std::size_t want = (boot_.size() - 1) * lanes;
  std::vector<pollfd> polls;
  while (up() < want) {
    polls.clear();
    for (int fd : listeners_)
      polls.push_back({fd, POLLIN, 0});
    for (const Pending& p : pending_)
      polls.push_back({p.fd, static_cast<short>((p.outgoing && !p.connected) || p.out_left ? POLLOUT : POLLIN), 0});
    const auto left = static_cast<long long>((deadline - clock_now()) * 1e3);
    if (left <= 0)
      throw RuntimeError("tcp: rank " + std::to_string(me) + " gave up after " + std::to_string(options_.timeout) +
                         " s waiting for lanes:" + missing());
    if (poll(polls.data(), polls.size(), static_cast<int>(std::min<long long>(left, 100))) < 0 && errno != EINTR)
      throw RuntimeError("tcp: poll failed during set-up: " + errno_text(errno));
    for (std::size_t i = 0; i < listeners_.size(); ++i)
      if (polls[i].revents & POLLIN)
        accept_all(i);
    const std::size_t known = polls.size() - listeners_.size();
    for (std::size_t i = 0; i < known; ++i)
      if (pending_[i].fd >= 0 && polls[listeners_.size() + i].revents)
        on_ready(pending_[i], polls[listeners_.size() + i].revents);
  }
  sweep_strangers();
  for (int& fd : listeners_) {
    close(fd);
    fd = -1;
  }
  // The lanes are handed over; the destructor closes the rest.
  for (Pending& p : pending_)
    if (p.fd >= 0 && p.done) {
      fds_[p.peer][p.lane] = p.fd;
      p.fd = -1;
    }
  return std::move(fds_);
}

}  // namespace

Blob encode_card(double memcpy_bw, const std::string& host, const std::vector<TcpListener>& listeners) {
  Blob b(8 + 4 + 6 * listeners.size() + 2 + host.size());
  std::byte* at = b.data();
  put_le(at, std::bit_cast<std::uint64_t>(memcpy_bw));
  put_le(at + 8, listeners.size(), 4);
  at += 12;
  for (const TcpListener& l : listeners) {
    put_le(at, l.address, 4);
    put_le(at + 4, l.port, 2);
    at += 6;
  }
  put_le(at, host.size(), 2);
  std::memcpy(at + 2, host.data(), host.size());
  return b;
}

Card decode_card(const Blob& b, Rank rank, std::size_t interfaces) {
  const std::size_t fixed = 12 + 6 * interfaces + 2;
  if (b.size() < fixed || get_le(b.data() + 8, 4) != interfaces || b.size() != fixed + get_le(b.data() + fixed - 2, 2))
    throw RuntimeError("tcp: rank " + std::to_string(rank) + " published a malformed address card (" +
                       std::to_string(b.size()) + " bytes; do all ranks use the same interfaces?)");
  Card card;
  card.memcpy_bw = std::bit_cast<double>(get_le(b.data()));
  if (!std::isfinite(card.memcpy_bw) || !(card.memcpy_bw > 0))
    throw RuntimeError("tcp: rank " + std::to_string(rank) + " published a memcpy bandwidth of " +
                       std::to_string(card.memcpy_bw) + " B/s; a bandwidth is a positive number");
  for (std::size_t i = 0; i < interfaces; ++i)
    card.listeners.push_back({static_cast<std::uint32_t>(get_le(b.data() + 12 + 6 * i, 4)),
                              static_cast<std::uint16_t>(get_le(b.data() + 16 + 6 * i, 2))});
  card.host.assign(reinterpret_cast<const char*>(b.data() + fixed), b.size() - fixed);
  return card;
}

std::string refuse_hello(const Hello& hello, const HelloRules& rules, std::size_t iface,
                         const std::vector<std::vector<int>>& fds) {
  const std::size_t lanes = rules.lane_names.size();
  if (hello.magic != Hello::kMagic)
    return "bad magic";
  if (hello.rank >= rules.size)
    return "rank " + std::to_string(hello.rank) + " out of range (size " + std::to_string(rules.size) + ")";
  if (hello.lane >= lanes)
    return "lane " + std::to_string(hello.lane) + " out of range (" + std::to_string(lanes) + " lanes)";
  if (hello.job != rules.job)
    return "a hello from another job";
  if (hello.rank >= rules.rank)
    return "rank " + std::to_string(hello.rank) + " should accept, not connect";
  if (hello.lane / rules.connections != iface)
    return "lane " + rules.lane_names[hello.lane] + " on the listener of another interface";
  if (fds[hello.rank][hello.lane] >= 0)
    return "lane " + rules.lane_names[hello.lane] + " from rank " + std::to_string(hello.rank) +
           " is connected already";
  return "";
}

Wiring wire_up(Bootstrap& boot, const RuntimeOptions& options, const TcpTestHooks& hooks) {
  const TcpOptions tcp = tcp_options(options);
  if (tcp.interfaces.empty())
    throw RuntimeError("tcp: no interface to listen on (give at least one, e.g. lo)");
  if (tcp.connections == 0 || tcp.interfaces.size() * tcp.connections > 64)
    throw RuntimeError("tcp: " + std::to_string(tcp.connections) +
                       " connections per interface; give 1 to 64 lanes in all");
  Wiring wiring;
  for (const std::string& iface : tcp.interfaces)
    for (std::size_t c = 0; c < tcp.connections; ++c)
      wiring.lane_names.push_back("tcp:" + iface + (tcp.connections > 1 ? "." + std::to_string(c) : ""));

  const std::vector<std::uint32_t> addresses = interface_addresses(tcp.interfaces);
  std::vector<int> listen_fds(addresses.size(), -1);
  std::vector<TcpListener> mine;
  std::vector<std::vector<int>> fds;
  try {
    for (std::size_t i = 0; i < addresses.size(); ++i)
      mine.push_back(listen_on(listen_fds[i], addresses[i], tcp.interfaces[i]));
    const std::vector<Blob> blobs = boot.allgather(encode_card(measure_memcpy(), host_name(), mine));
    std::vector<Card> cards;
    for (Rank r = 0; r < boot.size(); ++r)
      cards.push_back(decode_card(blobs.at(r), r, addresses.size()));
    if (hooks.on_listening) {
      std::vector<std::vector<TcpListener>> all;
      for (const Card& card : cards)
        all.push_back(card.listeners);
      hooks.on_listening(boot.rank(), all);
    }
    fds = Connector(boot, options, tcp, hooks, wiring.lane_names, listen_fds, cards).run();
    for (auto& peer : fds)
      for (int fd : peer) {
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      }
    wiring.paths = measure_lanes(boot, options, wiring.lane_names, fds);
    for (Rank r = 0; r < boot.size(); ++r) {
      wiring.paths[r].from = cards[boot.rank()].host + ":" + std::to_string(boot.rank());
      wiring.paths[r].to = cards[r].host + ":" + std::to_string(r);
      wiring.paths[r].memcpy_bw_local = cards[boot.rank()].memcpy_bw;
      wiring.paths[r].memcpy_bw_remote = cards[r].memcpy_bw;
    }
  } catch (...) {
    for (int fd : listen_fds)
      if (fd >= 0)
        close(fd);
    for (auto& peer : fds)
      for (int fd : peer)
        if (fd >= 0)
          close(fd);
    throw;
  }
  wiring.fds = std::move(fds);
  return wiring;
}

}  // namespace xover::runtime::tcp
