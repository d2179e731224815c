// The rendezvous on shared memory across forked ranks: a rndv/get message
// is read with one get of the whole message on the cma lane (one
// process_vm_readv, which moves all of it unless the kernel stops short),
// with no fragments and no extra copy. The receiving rank counts the gets
// its Worker hands the real shm transport; each rank reports what went
// wrong as text, an empty report being a pass.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocols/core/worker.hpp"
#include "runtime/launch/launch.hpp"
#include "runtime/shm/shm_transport.hpp"
#include "tests/support/forwarding_transport.hpp"
#include "tests/support/pattern.hpp"

namespace xover::runtime {
namespace {

using test::pattern;
using test::patterned;

/// The shm transport, counting the gets asked of it and their bytes.
class CountingGets : public test::ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  Status get(std::size_t lane, Rank peer, MutableBuffer local, RemoteAddr remote, Completion done) override {
    ++gets;
    bytes += local.size;
    return ForwardingTransport::get(lane, peer, local, remote, std::move(done));
  }
  unsigned gets = 0;
  Bytes bytes = 0;
};

/// Rank 0 sends `size` bytes to rank 1 with rndv/get, `messages` times;
/// rank 1 checks every byte and the gets per message.
std::string rndv_get_messages(LocalBootstrap& boot, Bytes size, unsigned messages) {
  auto shm = make_shm_transport(boot, {});
  const Rank peer = 1 - boot.rank();
  if (shm->path(peer).lanes.size() < 2)
    return "skip: the cma lane is left out on this machine (process_vm_readv refused; see stderr)";
  CountingGets t(*shm);
  SelectConfig config;
  config.set("proto", "rndv/get");
  Worker worker(t, config);
  std::string problems;
  for (unsigned m = 0; m < messages; ++m) {
    std::vector<std::byte> buf = boot.rank() == 0 ? patterned(20 + m, size) : std::vector<std::byte>(size);
    if (boot.rank() == 0) {
      Request* s = worker.tag_send(peer, {buf.data(), size}, m);
      if (s->protocol == nullptr || s->protocol->name != "rndv/get")
        problems += "message " + std::to_string(m) + " did not take rndv/get\n";
      worker.wait(s);
      worker.release(s);
      continue;
    }
    const unsigned gets_before = t.gets;
    const Bytes bytes_before = t.bytes;
    Request* r = worker.tag_recv({buf.data(), size}, m);
    worker.wait(r);
    if (r->status != Status::Ok)
      problems += "message " + std::to_string(m) + " failed\n";
    worker.release(r);
    if (t.gets - gets_before != 1 || t.bytes - bytes_before != size)
      problems += "message " + std::to_string(m) + ": " + std::to_string(t.gets - gets_before) + " gets of " +
                  std::to_string(t.bytes - bytes_before) + " bytes in all, not one of " + std::to_string(size) + "\n";
    for (Bytes i = 0; i < size; ++i)
      if (buf[i] != pattern(20 + m, i)) {
        problems += "message " + std::to_string(m) + ": byte " + std::to_string(i) + " wrong\n";
        break;
      }
  }
  worker.flush();
  boot.barrier();
  return problems;
}

void expect_one_get_per_message(Bytes size) {
  const LaunchResult r = launch_local(2, {}, [size](LocalBootstrap& boot) {
    boot.report(rndv_get_messages(boot, size, 4));
    return 0;
  });
  ASSERT_TRUE(r.ok) << r.message;
  if (r.reports[0].starts_with("skip:"))
    GTEST_SKIP() << r.reports[0];
  EXPECT_EQ(r.reports[0], "");
  EXPECT_EQ(r.reports[1], "");
}

TEST(ShmRndv, OneMebibyteIsOneGetOfTheWholeMessage) {
  expect_one_get_per_message(Bytes{1} << 20);
}

TEST(ShmRndv, FourMebibytesAreOneGetOfTheWholeMessage) {
  expect_one_get_per_message(Bytes{4} << 20);
}

TEST(ShmRndv, AnOddSizeIsOneGetOfTheWholeMessage) {
  expect_one_get_per_message((Bytes{1} << 18) + 13);
}

}  // namespace
}  // namespace xover::runtime
