#include "sim/sim_threads.hpp"

#include <exception>
#include <mutex>
#include <vector>

namespace s4u = simgrid::s4u;

namespace xover::sim {

SimThreads::SimThreads(s4u::Host* host, DeviceAttrs device, std::string name)
    : host_(host), device_(device), name_(std::move(name)) {}

void SimThreads::run(std::size_t count, const std::function<void(std::size_t)>& body) {
  std::vector<std::exception_ptr> errors(count);
  std::vector<s4u::ActorPtr> actors;
  actors.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    actors.push_back(s4u::Actor::create(name_ + ".t" + std::to_string(i), host_, [&body, &errors, i] {
      try {
        body(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }));
  for (const s4u::ActorPtr& actor : actors)
    actor->join();
  for (const std::exception_ptr& e : errors)
    if (e)
      std::rethrow_exception(e);
}

void SimThreads::spend(Seconds t) {
  if (t > 0)
    s4u::this_actor::sleep_for(t);
}

Seconds SimThreads::now() const {
  return s4u::Engine::get_clock();
}

void SimThreads::wait_until(Seconds date) {
  if (date > s4u::Engine::get_clock())
    s4u::this_actor::sleep_until(date);
}

void SimThreads::pause(std::uint64_t) {
  if (!changed_) {
    mutex_ = s4u::Mutex::create();
    changed_ = s4u::ConditionVariable::create();
  }
  std::unique_lock lock(*mutex_);
  changed_->wait_for(lock, kPauseLimit);
}

void SimThreads::notify() {
  if (changed_)
    changed_->notify_all();
}

}  // namespace xover::sim
