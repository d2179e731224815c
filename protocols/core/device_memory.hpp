// Device memory as the protocol core sees it, after UCX's memory types and
// its cuda_copy and cuda_ipc transports: buffers a backend allocates on a
// device, the copies between them and host memory that the staging
// protocols make, and the handles through which a rank on the same node
// maps a peer's buffer. The core links no device runtime: the cuda backend
// implements this (runtime/cuda/cuda_memory.*), and so does the simulator
// (host bytes, the copies' costs in simulated time).
//
// A Transport hands out the rank's DeviceMemory (Transport::device_memory);
// the Worker asks it whether a buffer is device memory (owns()) on every
// send and receive, so that lookup is a range search in this object, never
// a call into the device runtime.
//
// Copies come two ways. to_host, to_device and copy_device return with the
// bytes there. copy_async starts a copy and returns; the rank's progress
// (Worker::progress calls progress() here) polls it and calls its
// completion once the bytes are there, never waiting for it: the cuda
// backend records an event behind the copy on its own stream and queries
// it (UCX's cuda_copy). The staging protocols keep several fragments in
// flight so (rndv/pipe), each in a staging slot of host memory
// (take_staging), at most pipeline_depth() a message.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "protocols/core/transport.hpp"
#include "protocols/proto.hpp"

namespace xover {

/// What a peer on the same node needs to map a buffer: the runtime's handle
/// of the allocation (64 bytes, a cudaIpcMemHandle_t's size), the
/// allocation's number, unique in the owner's process, and its address
/// there (mappings are cached by address and checked by number: a new
/// allocation may sit at a freed one's address, and the handle's bytes may
/// differ from one export of an allocation to the next), its size and the
/// buffer's offset in it.
struct IpcBuffer {
  static constexpr std::size_t kHandleBytes = 64;
  using Handle = std::array<std::byte, kHandleBytes>;
  Handle handle{};
  std::uint64_t id = 0;
  std::uint64_t base = 0;
  Bytes size = 0;
  Bytes offset = 0;
};

class DeviceMemory {
 public:
  DeviceMemory() = default;
  /// Frees the staging slots made with the default allocate_staging.
  virtual ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  virtual MemType type() const = 0;
  /// n bytes of device memory, or null (why() says why); freed by free().
  std::byte* alloc(Bytes n);
  void free(std::byte* p);
  /// Whether [p, p + n) lies in one buffer alloc() gave.
  bool owns(const void* p, Bytes n) const;

  /// Copies n bytes from device to host memory, or host to device; false
  /// on failure (why()). Synchronous: the bytes are there at return. Null
  /// buffers (a phantom payload, simulation only) copy nothing but cost
  /// what the copy costs.
  virtual bool to_host(std::byte* host, const std::byte* device, Bytes n) = 0;
  virtual bool to_device(std::byte* device, const std::byte* host, Bytes n) = 0;
  /// Copies n bytes from device memory (this rank's or a peer's mapped
  /// through ipc_open) into this rank's device memory; null buffers as above.
  virtual bool copy_device(std::byte* to, const std::byte* from, Bytes n) = 0;

  /// Whether this rank can map `peer`'s buffers (same node, IPC possible).
  virtual bool ipc_reachable(Rank peer) const = 0;
  /// The handle of the allocation that holds `p`; false when there is none.
  virtual bool ipc_export(const std::byte* p, IpcBuffer& out) = 0;
  /// The allocation of `peer` that `buffer` names, mapped into this
  /// process: mapped on first use and kept, by peer and address, until this
  /// object goes or another allocation comes at that address (UCX's
  /// cuda_ipc cache); null on failure.
  virtual const std::byte* ipc_open(Rank peer, const IpcBuffer& buffer) = 0;

  /// A host buffer of at least n bytes to stage through, this object's,
  /// valid until the next call (pinned where the runtime can pin it).
  virtual std::byte* staging(Bytes n);

  /// Which way copy_async moves the bytes.
  enum class CopyKind : std::uint8_t { ToHost, ToDevice };
  /// Starts copying n bytes from `from` to `to` (device to host, or host to
  /// device); both must stay as they are until it completes. Returns Ok
  /// when the bytes are there already (no completion follows), InProgress
  /// when `done` will be called from progress() (with Ok, or Error and
  /// why() set), Error when it could not start (why()). Null buffers (a
  /// phantom payload) copy nothing but cost what the copy costs. This
  /// default copies at once with to_host or to_device (the simulator's, whose
  /// copies cost the rank's time where they are made).
  virtual Status copy_async(CopyKind kind, std::byte* to, const std::byte* from, Bytes n, Completion done);
  /// Polls the copies started and not yet complete, calling the
  /// completions of those done, in the order they completed; returns how
  /// many. Never waits.
  virtual std::size_t progress() { return 0; }
  /// The copies started and not yet complete.
  virtual std::size_t copies_in_flight() const { return 0; }

  /// A staging slot: host memory of at least n bytes (pinned where the
  /// runtime can pin it), this rank's until give_staging(); taken from the
  /// slots given back before, made when none of n bytes is free.
  std::byte* take_staging(Bytes n);
  void give_staging(std::byte* slot);
  /// The slots made so far, in use or not.
  std::size_t staging_slots() const { return slots_.size(); }
  /// The slots taken and not given back.
  std::size_t staging_taken() const;
  /// How many fragments of one message a staging protocol keeps in flight
  /// at once (each in a slot of its own): 4 unless set.
  std::size_t pipeline_depth() const { return depth_; }
  /// @throws std::invalid_argument for a depth of 0.
  void set_pipeline_depth(std::size_t depth);

  /// This end's copy figures, measured by the backend; zeros where the
  /// platform gives them (simulation).
  virtual DeviceCopy figures() const = 0;

  /// Why the last call failed.
  const std::string& why() const { return why_; }

 protected:
  /// The runtime's allocation and release, behind alloc() and free().
  virtual std::byte* allocate(Bytes n) = 0;
  virtual void release(std::byte* p) = 0;
  /// The host memory of a staging slot, and its release: the heap's unless
  /// the runtime pins it. A runtime that overrides them frees its slots
  /// with drop_staging() in its destructor (a base class's destructor
  /// cannot call them).
  virtual std::byte* allocate_staging(Bytes n);
  virtual void release_staging(std::byte* slot, Bytes n);
  void drop_staging();
  /// One buffer alloc() gave: where, how large, and its number (unique in
  /// this object's life).
  struct Buffer {
    const std::byte* base = nullptr;
    Bytes size = 0;
    std::uint64_t id = 0;
  };
  /// The buffer of alloc()'s that holds `p`, or null.
  const Buffer* find(const std::byte* p) const;
  bool failed(std::string why) {
    why_ = std::move(why);
    return false;
  }

 private:
  std::vector<Buffer> buffers_;  ///< alloc()'s, by address
  std::uint64_t next_id_ = 1;
  std::vector<std::byte> staging_;
  /// Staging slots: where, how large, whether taken.
  struct Slot {
    std::byte* data = nullptr;
    Bytes size = 0;
    bool taken = false;
  };
  std::vector<Slot> slots_;
  std::size_t depth_ = 4;
  std::string why_;
};

}  // namespace xover
