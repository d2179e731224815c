// A bootstrap of one rank: its collectives are this rank alone. For tests
// that make a backend's transport in the test process itself.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runtime/bootstrap.hpp"

namespace xover::test {

class OneRank final : public runtime::Bootstrap {
 public:
  explicit OneRank(std::string job) : job_(std::move(job)) {}
  Rank rank() const override { return 0; }
  Rank size() const override { return 1; }
  const std::string& job() const override { return job_; }
  std::vector<runtime::Blob> allgather(std::span<const std::byte> mine) override {
    return {runtime::Blob(mine.begin(), mine.end())};
  }

 private:
  std::string job_;
};

}  // namespace xover::test
