// The bootstrap of ranks that a launcher on this node started (launch.hpp):
// each rank holds one end of a socket pair whose other end the launcher
// serves. A collective is one frame from every rank, answered by the
// launcher with every rank's frame once all are in; a report is a frame the
// launcher keeps (a test's findings) and does not answer.
//
// Frames: u8 kind ('G' allgather, 'R' report), u32 length (little-endian),
// then the bytes. A launcher that goes away makes every later collective
// throw RuntimeError.
#pragma once

#include <memory>
#include <string>

#include "runtime/bootstrap.hpp"

namespace xover::runtime {

class LocalBootstrap final : public Bootstrap {
 public:
  /// `fd` is this rank's end of the launcher's socket pair; it is closed
  /// with the bootstrap.
  LocalBootstrap(Rank rank, Rank size, int fd, std::string job);
  ~LocalBootstrap() override;
  LocalBootstrap(const LocalBootstrap&) = delete;
  LocalBootstrap& operator=(const LocalBootstrap&) = delete;

  /// The bootstrap a launcher left in this process's environment
  /// (XOVER_RANK, XOVER_SIZE, XOVER_BOOT_FD, XOVER_JOB); null when this
  /// process was not started by one.
  /// @throws RuntimeError when the variables are there but malformed.
  static std::unique_ptr<LocalBootstrap> from_environment();

  Rank rank() const override { return rank_; }
  Rank size() const override { return size_; }
  const std::string& job() const override { return job_; }
  std::vector<Blob> allgather(std::span<const std::byte> mine) override;
  /// Hands `text` to the launcher, which returns it with the rank's outcome.
  void report(const std::string& text);

 private:
  Rank rank_;
  Rank size_;
  int fd_;
  std::string job_;
};

}  // namespace xover::runtime
