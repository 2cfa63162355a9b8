#pragma once
/// \file
/// `ge::LruCache<V>`: a thread-safe map from string keys to shared values with a size
/// limit and least-recently-used eviction, counting hits, misses and evictions. The
/// kernel cache of single-op compile and the per-signature plan cache of range
/// compiles are two of them.
///
/// ```
/// ge::LruCache<Kernel> cache(20000);
/// auto k = cache.get_or_create(key, [&] { return std::make_shared<const Kernel>(...); });
/// cache.stats().hits;
/// ```

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "ge/core/error.hpp"

namespace ge {

/// The counters of a cache.
struct CacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t evictions = 0;
  std::size_t size = 0;
  std::size_t capacity = 0;
};

/// See the file comment. Values are shared: an evicted value lives on while a caller
/// still holds it.
template <class V>
class LruCache {
 public:
  using Value = std::shared_ptr<const V>;

  /// A cache of at most `capacity` entries. Throws `Errc::invalid_argument` for 0.
  explicit LruCache(std::size_t capacity) : capacity_(capacity) {
    if (capacity == 0) raise(Errc::invalid_argument, "[ge.core] cache capacity 0; expected at least 1");
  }

  /// The value under `key`, or null (a miss is counted only by `get_or_create`).
  [[nodiscard]] Value find(const std::string& key) {
    std::lock_guard lock(mutex_);
    const auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  /// The most recently used value for which `pred(value)` is true, or null: a search
  /// by meaning rather than by key (a compiled op whose ranges hold a real shape). The
  /// value found becomes the most recent; the counters stay. `pred` runs under the lock
  /// and must not call back into the cache.
  template <class Pred>
  [[nodiscard]] Value find_if(Pred&& pred) {
    std::lock_guard lock(mutex_);
    for (auto it = order_.begin(); it != order_.end(); ++it) {
      if (!pred(*it->second)) continue;
      order_.splice(order_.begin(), order_, it);
      return order_.front().second;
    }
    return nullptr;
  }

  /// The value under `key`; on a miss, `create()` makes it (outside the lock, so that
  /// slow compiles do not block hits; when two threads miss on one key at once, the
  /// first value stored wins and both get it). `create` may throw: nothing is stored.
  template <class Create>
  Value get_or_create(const std::string& key, Create&& create) {
    {
      std::lock_guard lock(mutex_);
      const auto it = index_.find(key);
      if (it != index_.end()) {
        ++stats_.hits;
        order_.splice(order_.begin(), order_, it->second);
        return it->second->second;
      }
      ++stats_.misses;
    }
    Value made = create();
    std::lock_guard lock(mutex_);
    const auto it = index_.find(key);
    if (it != index_.end()) return it->second->second;
    order_.emplace_front(key, std::move(made));
    index_.emplace(key, order_.begin());
    while (index_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
      ++stats_.evictions;
    }
    return order_.front().second;
  }

  /// Changes the limit, evicting the least recently used entries beyond it.
  void set_capacity(std::size_t capacity) {
    if (capacity == 0) raise(Errc::invalid_argument, "[ge.core] cache capacity 0; expected at least 1");
    std::lock_guard lock(mutex_);
    capacity_ = capacity;
    while (index_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
      ++stats_.evictions;
    }
  }

  /// Drops every entry (counters stay).
  void clear() {
    std::lock_guard lock(mutex_);
    index_.clear();
    order_.clear();
  }

  /// The counters now.
  [[nodiscard]] CacheStats stats() const {
    std::lock_guard lock(mutex_);
    CacheStats s = stats_;
    s.size = index_.size();
    s.capacity = capacity_;
    return s;
  }

 private:
  using Entry = std::pair<std::string, Value>;
  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::list<Entry> order_;  // most recent first
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
  CacheStats stats_;
};

}  // namespace ge
