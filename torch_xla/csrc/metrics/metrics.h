#ifndef TORCH_XLA_CSRC_METRICS_METRICS_H_
#define TORCH_XLA_CSRC_METRICS_METRICS_H_

// Process-wide counters and sampled metrics, read from Python through
// torch_xla.debug.metrics. Counters and metrics are created on first use and
// live for the whole process; callers keep the returned pointer (cheap to
// bump on hot paths). Thread-safe.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace torch_xla::metrics {

class Counter {
 public:
  void Add(int64_t delta) { value_.fetch_add(delta, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }
  void Reset() { value_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

struct Sample {
  int64_t timestamp_ns;
  double value;
};

// A stream of samples: count and sum of all, plus the most recent ones.
class Metric {
 public:
  enum class Unit { kNanoseconds, kBytes, kNumber };
  explicit Metric(Unit unit) : unit_(unit) {}

  void Add(double value);
  int64_t count() const;
  double accumulator() const;
  std::vector<Sample> samples() const;
  Unit unit() const { return unit_; }
  void Reset();

 private:
  static constexpr size_t kMaxSamples = 1024;
  const Unit unit_;
  mutable std::mutex mu_;
  int64_t count_ = 0;
  double accumulator_ = 0;
  std::vector<Sample> ring_;  // ring buffer of the newest samples
  size_t next_ = 0;
};

Counter* GetCounter(absl::string_view name);
Metric* GetMetric(absl::string_view name,
                  Metric::Unit unit = Metric::Unit::kNumber);

// Names of counters that are non-zero / metrics with samples.
std::vector<std::string> CounterNames();
std::vector<std::string> MetricNames();
// nullptr when the name was never created.
const Counter* FindCounter(absl::string_view name);
const Metric* FindMetric(absl::string_view name);

void ClearCounters();
void ClearMetrics();

// Human-readable summaries in upstream's spirit.
std::string MetricsReport();
std::string ShortMetricsReport();

// Records the elapsed wall time into a nanosecond metric when destroyed.
class ScopedTimer {
 public:
  explicit ScopedTimer(Metric* metric)
      : metric_(metric), start_(std::chrono::steady_clock::now()) {}
  // A null metric times nothing.
  ~ScopedTimer() {
    if (metric_ == nullptr) return;
    metric_->Add(std::chrono::duration<double, std::nano>(
                     std::chrono::steady_clock::now() - start_)
                     .count());
  }

 private:
  Metric* metric_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace torch_xla::metrics

#endif  // TORCH_XLA_CSRC_METRICS_METRICS_H_
