// Harness: what the cuda backend reads from others at set-up: the card a
// GPU PE sends each peer (runtime/cuda/cuda_card.*), before it opens the
// IPC handles the card holds, and the report its probe's child writes
// (runtime/cuda/cuda_probe.*), whose reason the backend table then gives.
//
// Input: u8 the card's sender, u8 report length r, r bytes of report, then
// the card.
// Checks: a refused card says why; an accepted card names its sender and
// the receive buffer this PE expects. A report gives either a probe that
// succeeded with one GPU described per GPU counted, or one that failed
// with a reason; the no-device reason is given exactly when it failed or
// counted none, and always starts "no CUDA device: ".
#include <string>
#include <string_view>

#include "fuzz/harness.hpp"
#include "runtime/cuda/cuda_card.hpp"
#include "runtime/cuda/cuda_probe.hpp"

namespace {

using namespace xover::runtime;
using xover::fuzz::check;

constexpr std::uint64_t kRecvBytes = 4 << 20;

void check_report(std::string_view report) {
  const CudaProbe probe = decode_probe(report);
  const std::string why = probe_unavailable(probe);
  if (probe.ok) {
    check(probe.count >= 0 && probe.gpus.size() == static_cast<std::size_t>(probe.count),
          "an accepted report describes every GPU it counts");
    check(why.empty() == (probe.count > 0), "a report with GPUs has no reason, one without has one");
  } else {
    check(!why.empty(), "a failed probe has a reason");
  }
  if (!why.empty())
    check(why.starts_with("no CUDA device: "), "the reason says there is no CUDA device");
  const BackendInfo info = probe_info(probe);
  check(info.devices.size() == probe.gpus.size(), "xover info lists every GPU described");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  xover::fuzz::Input in(data, size);
  const std::uint32_t from = in.u8();
  const std::span<const std::byte> report = in.bytes(in.u8());
  check_report({reinterpret_cast<const char*>(report.data()), report.size()});
  const DecodedCard card = decode_card(in.rest(), from, kRecvBytes);
  if (!card.error.empty())
    return 0;
  check(card.card.rank == from, "an accepted card names its sender");
  check(card.card.recv_bytes == kRecvBytes, "an accepted card has the receive buffer expected");
  return 0;
}
