// A Transport wrapper for tests: passes everything through to the real
// transport and logs the order in which the pieces of messages reach the
// worker, so that a test can check its own premise (that lanes overtook).
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "protocols/eager/eager.hpp"
#include "protocols/rndv/rndv.hpp"
#include "protocols/wire.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/forwarding_transport.hpp"

namespace xover::test {

/// A Transport that passes everything through and notes each piece of a
/// message from the peer as it reaches the worker: eager messages,
/// multi-eager fragments and RTSs, whose headers (protocols/wire.hpp) begin
/// {tag, seq}, a fragment's going on {total, offset}.
class ArrivalLog final : public ForwardingTransport {
 public:
  /// A piece of a message: its source, its sequence number from that
  /// source and, for a multi-eager fragment, its offset.
  using Piece = std::tuple<Rank, std::uint64_t, Bytes>;

  explicit ArrivalLog(Transport& inner) : ForwardingTransport(inner) {}

  const std::vector<Piece>& pieces() const { return pieces_; }

  /// True when the first piece of some message arrived before the first
  /// piece of an earlier one from its source: the receiver had to hold it
  /// for its turn.
  bool messages_overtook() const {
    std::map<Rank, std::set<std::uint64_t>> seen;
    for (const auto& [source, seq, offset] : pieces_)
      if (seen[source].insert(seq).second && seq < *seen[source].rbegin())
        return true;
    return false;
  }

  /// The premise of the multi-eager tests: the fragments of their one
  /// message arrived out of offset order.
  void check_out_of_order(Problems& problems) const {
    if (pieces_.size() < 2 || std::is_sorted(pieces_.begin(), pieces_.end()))
      problems.push_back("premise: the " + std::to_string(pieces_.size()) +
                         " fragments arrived in offset order; no lane overtook another");
  }

  void set_am_handler(AmId id, AmHandler handler) override {
    if (id != kAmEager && id != kAmMulti && id != kAmRts) {
      inner_.set_am_handler(id, std::move(handler));
      return;
    }
    inner_.set_am_handler(id, [this, id, handler = std::move(handler)](const AmMessage& msg) {
      wire::HeaderReader header(msg.header);
      header.get();  // tag
      const std::uint64_t seq = header.get();
      Bytes offset = 0;
      if (id == kAmMulti) {
        header.get();  // total
        offset = header.get();
      }
      pieces_.emplace_back(msg.source, seq, offset);
      handler(msg);
    });
  }

 private:
  std::vector<Piece> pieces_;
};

}  // namespace xover::test
