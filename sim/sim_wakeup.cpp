// SimTransport's wake-up machinery: how a rank waits for its transfers,
// its bell and its slot, and how what lands becomes an event on its CPU.
#include "sim/sim_transport.hpp"

#include <algorithm>
#include <vector>

#include "sim/sim_transfer.hpp"

namespace s4u = simgrid::s4u;

namespace xover::sim {
namespace {

constexpr std::size_t kNoSlot = ~std::size_t{0};

}  // namespace

namespace detail {

std::vector<s4u::CommPtr>& spare_slots() {
  static auto* spare = new std::vector<s4u::CommPtr>;
  return *spare;
}

}  // namespace detail

using detail::spare_slots;
using detail::transfer;

void SimTransport::quiesce() {
  settle();
  if (bell_ && bell_->get_state() != s4u::Activity::State::CANCELED)
    bell_->cancel();
  bell_ = nullptr;
  if (slot_)
    spare_slots().push_back(std::move(slot_));
}

void SimTransport::incoming(std::unique_ptr<Flight> flight, s4u::Host* src, s4u::Host* dst, Bytes bytes,
                            double rate) {
  s4u::CommPtr comm = slot_ ? std::move(slot_) : s4u::Comm::sendto_init();
  flight->comm = comm;
  // Listed before the transfer starts: the start lets other actors run, and
  // this rank, should it begin to wait meanwhile, must wait on this one too
  // (land_finished() leaves it alone until it has started). A rank already
  // waiting on this slot wakes when the transfer lands; one waiting on
  // others is rung.
  const bool ring_it = waiting_ && comm.get() != waited_slot_;
  flights_.push_back(std::move(flight));
  transfer(std::move(comm), src, dst, bytes, rate);
  if (ring_it)
    ring();
}

void SimTransport::ring() {
  if (waiting_ && bell_) {
    bell_->resume();
    bell_ = nullptr;
  }
}

void SimTransport::add_flight(std::unique_ptr<Flight> flight) {
  flights_.push_back(std::move(flight));
  ring();
}

void SimTransport::add_event(Event event) {
  ready_.push_back(std::move(event));
  ring();
}

void SimTransport::land_finished(std::size_t first) {
  // wait_any names the first finished transfer in list (send) order. One
  // that finished just now is the only one; one that finished while this
  // rank was busy may have company, and they must be taken in the order
  // they arrived, not the order they were sent.
  if (!(flights_[first]->comm->get_finish_time() < s4u::Engine::get_clock())) {
    std::unique_ptr<Flight> flight = std::move(flights_[first]);  // the common case: no vectors
    flights_.erase(flights_.begin() + static_cast<std::ptrdiff_t>(first));
    landed(std::move(flight));
    return;
  }
  std::vector<std::size_t> finished{first};
  {
    for (std::size_t i = 0; i < flights_.size(); ++i)
      if (i != first && flights_[i]->comm->get_state() == s4u::Activity::State::STARTED && flights_[i]->comm->test())
        finished.push_back(i);
    std::stable_sort(finished.begin(), finished.end(), [this](std::size_t a, std::size_t b) {
      return flights_[a]->comm->get_finish_time() < flights_[b]->comm->get_finish_time();
    });
  }
  std::vector<std::unique_ptr<Flight>> arrived;
  for (std::size_t i : finished)
    arrived.push_back(std::move(flights_[i]));
  std::erase(flights_, nullptr);
  for (auto& flight : arrived)
    landed(std::move(flight));
}

void SimTransport::wait(Seconds deadline) {
  if (!bell_) {
    // Arm the bell first: start() and suspend() let other actors run, and
    // what they send meanwhile must be in the list below. It stays armed
    // until it rings.
    bell_ = s4u::this_actor::exec_init(0);
    bell_owner_ = s4u::this_actor::get_pid();
    bell_->suspend();  // before start(): one simcall instead of two
    bell_->start();
  }
  // A slot only when nothing is on its way here: SimGrid 3.32 walks a list
  // of every transfer made and not ended on each landing (Activity list of
  // the maestro), so a slot per waiting rank would lengthen every walk, and
  // a rank with a transfer on its way wakes with it anyway.
  if (!slot_ && flights_.empty()) {
    std::vector<s4u::CommPtr>& spare = spare_slots();
    if (spare.empty()) {
      slot_ = s4u::Comm::sendto_init();
    } else {
      slot_ = std::move(spare.back());
      spare.pop_back();
    }
  }
  std::vector<s4u::ActivityPtr>& activities = activities_;
  activities.clear();
  for (const auto& flight : flights_)
    activities.push_back(flight->comm);
  const std::size_t slot_at = slot_ ? activities.size() : kNoSlot;
  if (slot_)
    activities.push_back(slot_);
  activities.push_back(bell_);  // last: bell_ is null once it has rung
  const Seconds now = s4u::Engine::get_clock();
  const double timeout = deadline == kForever ? -1.0 : std::max(0.0, deadline - now);
  waiting_ = true;
  waited_slot_ = slot_.get();
  const ssize_t done = s4u::Activity::wait_any_for(activities, timeout);
  waiting_ = false;
  waited_slot_ = nullptr;
  const s4u::Activity* finished = done < 0 ? nullptr : activities[static_cast<std::size_t>(done)].get();
  const bool rung = static_cast<std::size_t>(done) + 1 == activities.size();
  activities.clear();
  if (!finished)
    return;
  if (rung) {
    bell_ = nullptr;
    return;
  }
  // The slot's transfer is the flight a sender added while this rank
  // waited, wherever others were added around it.
  std::size_t index = static_cast<std::size_t>(done);
  if (static_cast<std::size_t>(done) == slot_at)
    index = static_cast<std::size_t>(
        std::find_if(flights_.begin(), flights_.end(), [&](const auto& f) { return f->comm.get() == finished; }) -
        flights_.begin());
  land_finished(index);
}

void SimTransport::progress(Seconds deadline) {
  if (!has_ready())
    settle();
  if (bell_ && bell_owner_ != s4u::this_actor::get_pid()) {
    // Armed by another of the rank's threads (SimThreads): an actor's
    // activities end with it, so each thread that waits keeps its own.
    if (bell_->get_state() != s4u::Activity::State::CANCELED)
      bell_->cancel();
    bell_ = nullptr;
  }
  if (!has_ready())
    wait(deadline);
  while (has_ready()) {
    Event event = std::move(ready_[ready_head_++]);
    if (!has_ready()) {
      ready_.clear();
      ready_head_ = 0;
    }
    busy(event.cpu);
    if (event.arrived && event.arrived->kind == Flight::Kind::GetServe) {
      serve_get(std::move(event.arrived));
    } else if (event.arrived) {
      const Flight& f = *event.arrived;
      const ConstBuffer payload{f.phantom ? nullptr : f.bytes.data(), f.size};
      if (f.id < handlers_.size() && handlers_[f.id])
        handlers_[f.id](AmMessage{f.peer, f.lane, {f.header.data(), f.header.size()}, payload});
      recycle(std::move(event.arrived));
    } else if (event.done) {
      event.done(event.status);
    }
  }
}

}  // namespace xover::sim
