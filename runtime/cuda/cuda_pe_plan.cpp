#include "runtime/cuda/cuda_pe_plan.hpp"

#include <algorithm>
#include <stdexcept>

namespace xover::runtime {

std::string_view width_name(DirectWidth width) {
  switch (width) {
    case DirectWidth::Thread:
      return "thread";
    case DirectWidth::Warp:
      return "warp";
    case DirectWidth::Block:
      break;
  }
  return "block";
}

bool parse_width(std::string_view name, DirectWidth& out) {
  for (DirectWidth w : {DirectWidth::Thread, DirectWidth::Warp, DirectWidth::Block})
    if (name == width_name(w)) {
      out = w;
      return true;
    }
  return false;
}

std::string_view flavour_name(PeFlavour flavour) {
  switch (flavour) {
    case PeFlavour::Direct:
      return "direct";
    case PeFlavour::Engine:
      return "engine";
    case PeFlavour::Proxy:
      return "proxy";
    case PeFlavour::Copy:
      break;
  }
  return "copy";
}

bool parse_flavour(std::string_view name, PeFlavour& out) {
  for (PeFlavour f : {PeFlavour::Direct, PeFlavour::Engine, PeFlavour::Proxy, PeFlavour::Copy})
    if (name == flavour_name(f)) {
      out = f;
      return true;
    }
  return false;
}

PeLaunch plan_pe_launch(std::uint32_t pes, GpuResidency gpu, std::uint32_t threads) {
  if (pes < 2 || pes > kPeGroupMaxPes)
    throw std::invalid_argument("PE group: " + std::to_string(pes) + " PEs, not 2 to " +
                                std::to_string(kPeGroupMaxPes));
  if (threads == 0 || threads % kWarpLanes != 0)
    throw std::invalid_argument("PE group: " + std::to_string(threads) + " threads a block, not a multiple of 32");
  const std::uint64_t resident = std::uint64_t{gpu.sms} * gpu.blocks_per_sm;
  if (resident < pes)
    throw std::invalid_argument("PE group: " + std::to_string(pes) + " PEs need " + std::to_string(pes) +
                                " blocks of " + std::to_string(threads) +
                                " threads resident at once (one cooperative launch); this GPU holds " +
                                std::to_string(resident) + " (" + std::to_string(gpu.sms) + " SMs x " +
                                std::to_string(gpu.blocks_per_sm) + ")");
  PeLaunch l;
  l.threads = threads;
  l.blocks_per_pe = static_cast<std::uint32_t>(std::min<std::uint64_t>(pes - 1, resident / pes));
  l.grid = pes * l.blocks_per_pe;
  return l;
}

std::uint64_t heap_bytes(std::uint32_t pes, std::uint64_t max_size) {
  // The slice's largest term, P · max_size plus rounding, times P slices.
  const std::uint64_t limit = (~std::uint64_t{0} / 4) / (std::uint64_t{pes} * pes + 1);
  if (pes == 0 || max_size > limit)
    throw std::invalid_argument("PE group: " + std::to_string(pes) + " PEs of " + std::to_string(max_size) +
                                " bytes a peer overflow the heap's 64-bit size");
  return std::uint64_t{pes} * heap_layout(pes, max_size).slice;
}

}  // namespace xover::runtime
