// A binary min-heap over a fixed set of slots, each with at most one live key. Setting a slot's
// key inserts it or moves it; clearing removes it; both in O(log n) with no garbage left in the
// heap. The simulator keeps its event queue in one (one slot per timer, arrival stream and GPU),
// and Symphony's RankThread keeps its pending candidates in two (seed 002 §2.6: every event
// O(log M + log G)).
#pragma once

#include <cassert>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace servescope::engine {

template <typename Key, typename Less = std::less<Key>>
class IndexedHeap {
 public:
  using Slot = std::uint32_t;
  static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

  explicit IndexedHeap(std::size_t slots = 0) { resize(slots); }

  void resize(std::size_t slots) {
    keys_.resize(slots);
    pos_.resize(slots, kAbsent);
  }
  std::size_t slot_count() const { return pos_.size(); }
  Slot add_slot() {
    keys_.emplace_back();
    pos_.push_back(kAbsent);
    return static_cast<Slot>(pos_.size() - 1);
  }

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  bool contains(Slot s) const { return pos_[s] != kAbsent; }
  const Key& key(Slot s) const { return keys_[s]; }
  Slot top() const { return heap_.front(); }
  const Key& top_key() const { return keys_[heap_.front()]; }

  void set(Slot s, const Key& k) {
    if (pos_[s] == kAbsent) {
      keys_[s] = k;
      pos_[s] = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back(s);
      sift_up(pos_[s]);
      return;
    }
    const bool up = less_(k, keys_[s]);
    keys_[s] = k;
    if (up)
      sift_up(pos_[s]);
    else
      sift_down(pos_[s]);
  }

  void erase(Slot s) {
    const auto i = pos_[s];
    if (i == kAbsent) return;
    const auto last = static_cast<std::uint32_t>(heap_.size() - 1);
    pos_[s] = kAbsent;
    if (i != last) {
      const Slot moved = heap_[last];
      heap_[i] = moved;
      pos_[moved] = i;
      heap_.pop_back();
      sift_up(i);
      if (pos_[moved] == i) sift_down(i);
    } else {
      heap_.pop_back();
    }
  }

  Slot pop() {
    const Slot s = heap_.front();
    erase(s);
    return s;
  }

 private:
  void sift_up(std::uint32_t i) {
    const Slot s = heap_[i];
    while (i > 0) {
      const auto parent = (i - 1) / 2;
      if (!less_(keys_[s], keys_[heap_[parent]])) break;
      heap_[i] = heap_[parent];
      pos_[heap_[i]] = i;
      i = parent;
    }
    heap_[i] = s;
    pos_[s] = i;
  }

  void sift_down(std::uint32_t i) {
    const Slot s = heap_[i];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    while (true) {
      auto child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && less_(keys_[heap_[child + 1]], keys_[heap_[child]])) ++child;
      if (!less_(keys_[heap_[child]], keys_[s])) break;
      heap_[i] = heap_[child];
      pos_[heap_[i]] = i;
      i = child;
    }
    heap_[i] = s;
    pos_[s] = i;
  }

  std::vector<Key> keys_;
  std::vector<std::uint32_t> pos_;
  std::vector<Slot> heap_;
  [[no_unique_address]] Less less_;
};

}  // namespace servescope::engine
