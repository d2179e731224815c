// A pooled request reused after a rendezvous, a striped or a registered
// message starts as clean as a new one, though an eager request's reuse
// leaves its rendezvous fields alone (Request::tail_used): every writer of
// those fields must say so, and these tests fail where one does not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/child.hpp"
#include "protocols/core/worker.hpp"
#include "sim/sim_transport.hpp"

namespace xover {
namespace {

const std::string kSkewed = XOVER_SOURCE_DIR "/tests/data/platforms/two_rails_skewed.xml";
constexpr Bytes kLarge = 300000;

/// What is left in a request's rendezvous fields, or "" when they are all
/// as a new request has them.
std::string leftovers(const Request& r) {
  std::string out;
  out += r.tail_used ? "tail_used " : "";
  out += r.lane_credit.empty() ? "" : "lane_credit ";
  out += r.regions.empty() ? "" : "regions ";
  out += r.regions_cached ? "regions_cached " : "";
  out += r.remote.empty() ? "" : "remote ";
  out += r.remote_id == 0 ? "" : "remote_id ";
  out += r.arrived.bytes() == 0 ? "" : "arrived ";
  return out;
}

/// Rank 0 sends kLarge bytes with `protocol` forced, then 8 bytes with the
/// default settings; rank 1 receives both. Each rank's second request is
/// its first one again (the pool hands back the last released); returns,
/// per rank, that the large request's rendezvous fields were written and
/// what the small one found left of them.
std::string after(const std::string& protocol) {
  return in_child([&] {
    const sim::LogGPPlatform platform = sim::LogGPPlatform::load(kSkewed);
    sim::SimNetwork network(platform, {"node0", "node1"});
    std::vector<std::string> report(2);
    sim::run_ranks(network, [&](Rank rank, Transport& t) {
      SelectConfig forced;
      forced.set("proto", protocol);
      forced.set("max_eager_lanes", "2");
      forced.set("max_rndv_lanes", "2");
      Worker worker(t, forced);
      std::vector<std::byte> large(kLarge, std::byte{1});
      std::byte small[8]{};
      Request* first = rank == 0 ? worker.tag_send(1, {large.data(), kLarge}, 1) : worker.tag_recv({large.data(), kLarge}, 1);
      worker.wait(first);
      const bool written = first->tail_used;
      worker.release(first);
      worker.configure(SelectConfig{});
      Request* second = rank == 0 ? worker.tag_send(1, {small, 8}, 2) : worker.tag_recv({small, 8}, 2);
      const std::string left = second == first ? leftovers(*second) : "another request ";
      worker.wait(second);
      worker.release(second);
      worker.flush();
      report[rank] = std::string(written ? "written" : "untouched") + ":" + left;
    });
    return report[0] + "|" + report[1];
  });
}

TEST(RequestReuse, AfterRndvGetTheRegistrationsAndTheSendersBufferAreGone) {
  // The sender registered its buffer; the receiver took the sender's
  // buffer and request id, and registered its own.
  EXPECT_EQ(after("rndv/get"), "written:|written:");
}

TEST(RequestReuse, AfterRndvAmTheArrivedBytesAndStripingAreGone) {
  // The sender striped its fragments over two lanes; the receiver counted
  // each fragment's bytes in.
  EXPECT_EQ(after("rndv/am"), "written:|written:");
}

TEST(RequestReuse, AfterAMultiEagerZcopyTheRegistrationsAreGone) {
  // The sender registered its buffer and striped; the receiver's message
  // came eager (its bytes counted in the message, not the request).
  EXPECT_EQ(after("eager/multi/zcopy"), "written:|untouched:");
}

}  // namespace
}  // namespace xover
