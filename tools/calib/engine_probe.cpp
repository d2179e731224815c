#include "tools/calib/engine_probe.hpp"

#include "protocols/workload/results.hpp"
#include "runtime/common.hpp"

namespace xover::calib {
namespace {

constexpr Bytes kPutBytes = 8;
constexpr Seconds kTimeout = 10;
constexpr std::uint64_t kSeed = 0x786f766572;

}  // namespace

DeviceFigures probe_device_engine(DeviceAlltoallMaker make, Transport& t, runtime::Bootstrap& boot,
                                  std::size_t exchanges) {
  Worker worker(t, SelectConfig{});
  const std::unique_ptr<DeviceAlltoall> pe = make(t, worker, kPutBytes, kSeed);
  std::vector<Seconds> post, serve, wake;
  const std::size_t warmup = exchanges / 10 + 1;
  for (const AlltoallFlavour flavour : {AlltoallFlavour::Direct, AlltoallFlavour::Proxy})
    for (std::size_t i = 0; i < warmup + exchanges; ++i) {
      pe->prepare(kPutBytes);
      boot.barrier();
      const DeviceExchange x = pe->exchange(flavour, kPutBytes, kTimeout);
      const Findings found = pe->verify(kPutBytes);
      const char* name = flavour == AlltoallFlavour::Direct ? "direct" : "proxy";
      if (!x.complete)
        throw runtime::RuntimeError(std::string("calibrate: a ") + name + " exchange on the device did not complete" +
                                    (x.problem.empty() ? "" : ": " + x.problem));
      if (found.errors > 0)
        throw runtime::RuntimeError(std::string("calibrate: a ") + name + " exchange on the device: " +
                                    found.problems.front());
      // No rank prepares the next exchange while a peer still checks this one.
      boot.barrier();
      if (i < warmup)
        continue;
      if (flavour == AlltoallFlavour::Direct)
        post.insert(post.end(), x.post.begin(), x.post.end());
      serve.insert(serve.end(), x.serve.begin(), x.serve.end());
      wake.insert(wake.end(), x.wake.begin(), x.wake.end());
    }
  pe->finish(worker);
  DeviceFigures out;
  out.device_o = quantile(post, 0.5);
  out.device_o_burst = out.device_o;
  out.proxy_o = quantile(serve, 0.5);
  out.proxy_wake = quantile(wake, 0.5);
  out.puts = post.size();
  return out;
}

}  // namespace xover::calib
