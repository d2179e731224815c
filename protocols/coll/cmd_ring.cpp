#include "protocols/coll/cmd_ring.hpp"

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

namespace xover {
namespace {

constexpr std::uint64_t kReservedBits = 0xffffff00ULL;
constexpr std::size_t kFlagWord = kCommandWords - 1;

std::atomic_ref<std::uint64_t> at(std::uint64_t* word) {
  return std::atomic_ref<std::uint64_t>(*word);
}

/// The flag a command at `pos` carries in a ring of `entries`.
std::uint64_t lap_flag(std::uint64_t pos, std::uint32_t entries) {
  return ((pos / entries) & 1) ^ 1;
}

}  // namespace

CommandWords encode_command(const Command& c, std::uint64_t flag) {
  return {static_cast<std::uint64_t>(c.op) | (std::uint64_t{c.pe} << 32), c.offset, c.local, c.size, c.posted_ns, 0, 0,
          flag};
}

DecodedCommand decode_command(const CommandWords& w, const CommandLimits& limits) {
  DecodedCommand out;
  Command& c = out.command;
  c.op = static_cast<CommandOp>(w[0] & 0xff);
  c.pe = static_cast<Rank>(w[0] >> 32);
  c.offset = w[1];
  c.local = w[2];
  c.size = w[3];
  c.posted_ns = w[4];
  if (c.op != CommandOp::PutSignal)
    out.error = "unknown op";
  else if ((w[0] & kReservedBits) != 0 || w[5] != 0 || w[6] != 0)
    out.error = "reserved bits set";
  else if (w[kFlagWord] > 1)
    out.error = "flag is neither 0 nor 1";
  else if (c.pe >= limits.pes)
    out.error = "no such PE";
  else if (c.size > limits.buffer || c.offset > limits.buffer - c.size)
    out.error = "bytes past the target's buffer";
  else if (c.local < limits.local_base || c.local - limits.local_base > limits.local_bytes ||
           c.size > limits.local_bytes - (c.local - limits.local_base))
    out.error = "bytes past the local buffer";
  return out;
}

CommandRing CommandRing::create(std::span<std::byte> memory, std::uint32_t entries) {
  if (entries == 0 || memory.size() < bytes_for(entries) ||
      reinterpret_cast<std::uintptr_t>(memory.data()) % kAlign != 0)
    throw std::invalid_argument("CommandRing: " + std::to_string(entries) + " entries need " +
                                std::to_string(bytes_for(entries)) + " bytes aligned to " + std::to_string(kAlign) +
                                ", got " + std::to_string(memory.size()));
  std::memset(memory.data(), 0, bytes_for(entries));
  return CommandRing(memory.data(), entries);
}

std::uint64_t* CommandRing::control(std::size_t line) const {
  return reinterpret_cast<std::uint64_t*>(base_ + line * kAlign);
}

std::uint64_t* CommandRing::slot(std::uint64_t pos) const {
  return reinterpret_cast<std::uint64_t*>(base_ + kControlBytes + (pos % entries_) * kEntryBytes);
}

std::uint64_t CommandRing::reserve() const {
  return at(control(0)).fetch_add(1, std::memory_order_relaxed);
}

bool CommandRing::has_room(std::uint64_t pos) const {
  return pos - consumed() < entries_;
}

void CommandRing::write(std::uint64_t pos, const Command& command) const {
  const CommandWords words = encode_command(command, lap_flag(pos, entries_));
  std::uint64_t* entry = slot(pos);
  for (std::size_t i = 0; i < kFlagWord; ++i)
    at(entry + i).store(words[i], std::memory_order_relaxed);
  at(entry + kFlagWord).store(words[kFlagWord], std::memory_order_release);
}

bool CommandRing::ready(std::uint64_t pos) const {
  return at(slot(pos) + kFlagWord).load(std::memory_order_acquire) == lap_flag(pos, entries_);
}

CommandWords CommandRing::read(std::uint64_t pos) const {
  CommandWords words;
  std::uint64_t* entry = slot(pos);
  for (std::size_t i = 0; i < kCommandWords; ++i)
    words[i] = at(entry + i).load(std::memory_order_relaxed);
  return words;
}

void CommandRing::publish(std::uint64_t next) const {
  at(control(1)).store(next, std::memory_order_release);
}

std::uint64_t CommandRing::consumed() const {
  return at(control(1)).load(std::memory_order_acquire);
}

}  // namespace xover
