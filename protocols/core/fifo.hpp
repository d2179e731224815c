// A first-in first-out queue over a vector: taken from the front, added at
// the back, now and then one taken from the middle. Unlike std::deque, it
// holds no memory until its first element: a Worker keeps three, and a
// simulation of P ranks P Workers.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace xover {

template <typename T>
class Fifo {
 public:
  using iterator = typename std::vector<T>::iterator;

  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  T& front() { return items_[head_]; }
  iterator begin() { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  iterator end() { return items_.end(); }

  template <typename... Args>
  void emplace_back(Args&&... args) {
    items_.emplace_back(std::forward<Args>(args)...);
  }
  void push_back(T item) { items_.push_back(std::move(item)); }
  void pop_front() {
    items_[head_++] = T{};
    if (head_ == items_.size()) {
      clear();
    } else if (head_ >= 32 && 2 * head_ >= items_.size()) {
      // A queue that never empties drops what it has taken, now and then.
      items_.erase(items_.begin(), begin());
      head_ = 0;
    }
  }
  /// Removes the element at `it`, keeping the others' order.
  void erase(iterator it) {
    if (it == begin()) {
      pop_front();
      return;
    }
    items_.erase(it);
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;  ///< items_ before it are taken
};

}  // namespace xover
