#ifndef TORCH_XLA_CSRC_TENSOR_LRU_CACHE_H_
#define TORCH_XLA_CSRC_TENSOR_LRU_CACHE_H_

// The caches of the executor (compiled programs, uploaded scalars) share one
// bounded, thread-safe, least-recently-used map.

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace torch_xla {

// A thread-safe LRU map from string keys to shared pointers; Find returns
// null for a missing key.
template <typename T>
class LruCache {
 public:
  explicit LruCache(size_t capacity) : capacity_(capacity) {}

  std::shared_ptr<T> Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  // Keeps an existing entry for `key`.
  void Insert(const std::string& key, std::shared_ptr<T> value) {
    std::lock_guard<std::mutex> lock(mu_);
    if (index_.count(key)) return;
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  void Erase(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return;
    order_.erase(it->second);
    index_.erase(it);
  }

  int64_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int64_t>(order_.size());
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    order_.clear();
    index_.clear();
  }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<T>>;
  const size_t capacity_;
  std::mutex mu_;
  std::list<Entry> order_;
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
};

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_LRU_CACHE_H_
