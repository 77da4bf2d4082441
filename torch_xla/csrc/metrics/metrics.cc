#include "torch_xla/csrc/metrics/metrics.h"

#include <algorithm>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torch_xla::metrics {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Both maps only grow, so handed-out pointers stay valid.
struct Registry {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Counter>, std::less<>> counters;
  std::map<std::string, std::unique_ptr<Metric>, std::less<>> metrics;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: see above
  return *registry;
}

std::string FormatValue(double value, Metric::Unit unit) {
  switch (unit) {
    case Metric::Unit::kNanoseconds:
      if (value >= 1e9) return absl::StrFormat("%.3fs", value / 1e9);
      if (value >= 1e6) return absl::StrFormat("%.3fms", value / 1e6);
      return absl::StrFormat("%.3fus", value / 1e3);
    case Metric::Unit::kBytes:
      if (value >= 1 << 30) return absl::StrFormat("%.2fGB", value / (1 << 30));
      if (value >= 1 << 20) return absl::StrFormat("%.2fMB", value / (1 << 20));
      if (value >= 1 << 10) return absl::StrFormat("%.2fKB", value / (1 << 10));
      return absl::StrFormat("%.0fB", value);
    case Metric::Unit::kNumber:
      return absl::StrFormat("%g", value);
  }
  return "";
}

}  // namespace

void Metric::Add(double value) {
  std::lock_guard<std::mutex> lock(mu_);
  ++count_;
  accumulator_ += value;
  Sample sample{NowNs(), value};
  if (ring_.size() < kMaxSamples) {
    ring_.push_back(sample);
  } else {
    ring_[next_] = sample;
  }
  next_ = (next_ + 1) % kMaxSamples;
}

int64_t Metric::count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return count_;
}

double Metric::accumulator() const {
  std::lock_guard<std::mutex> lock(mu_);
  return accumulator_;
}

std::vector<Sample> Metric::samples() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (ring_.size() < kMaxSamples) return ring_;
  std::vector<Sample> ordered(ring_.begin() + next_, ring_.end());
  ordered.insert(ordered.end(), ring_.begin(), ring_.begin() + next_);
  return ordered;
}

void Metric::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  count_ = 0;
  accumulator_ = 0;
  ring_.clear();
  next_ = 0;
}

Counter* GetCounter(absl::string_view name) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.counters.find(name);
  if (it == registry.counters.end()) {
    it = registry.counters
             .emplace(std::string(name), std::make_unique<Counter>())
             .first;
  }
  return it->second.get();
}

Metric* GetMetric(absl::string_view name, Metric::Unit unit) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.metrics.find(name);
  if (it == registry.metrics.end()) {
    it = registry.metrics
             .emplace(std::string(name), std::make_unique<Metric>(unit))
             .first;
  }
  return it->second.get();
}

const Counter* FindCounter(absl::string_view name) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.counters.find(name);
  return it == registry.counters.end() ? nullptr : it->second.get();
}

const Metric* FindMetric(absl::string_view name) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.metrics.find(name);
  return it == registry.metrics.end() ? nullptr : it->second.get();
}

std::vector<std::string> CounterNames() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  std::vector<std::string> names;
  for (const auto& [name, counter] : registry.counters) {
    if (counter->value() != 0) names.push_back(name);
  }
  return names;
}

std::vector<std::string> MetricNames() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  std::vector<std::string> names;
  for (const auto& [name, metric] : registry.metrics) {
    if (metric->count() != 0) names.push_back(name);
  }
  return names;
}

void ClearCounters() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  for (auto& [name, counter] : registry.counters) counter->Reset();
}

void ClearMetrics() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  for (auto& [name, metric] : registry.metrics) metric->Reset();
}

std::string MetricsReport() {
  std::string out;
  for (const std::string& name : MetricNames()) {
    const Metric* metric = FindMetric(name);
    int64_t count = metric->count();
    double total = metric->accumulator();
    absl::StrAppend(&out, "Metric: ", name, "\n  TotalSamples: ", count,
                    "\n  Accumulator: ", FormatValue(total, metric->unit()),
                    "\n  Mean: ", FormatValue(total / count, metric->unit()),
                    "\n");
  }
  for (const std::string& name : CounterNames()) {
    absl::StrAppend(&out, "Counter: ", name,
                    "\n  Value: ", FindCounter(name)->value(), "\n");
  }
  return out;
}

std::string ShortMetricsReport() {
  std::string out;
  for (absl::string_view name :
       {"CompileTime", "ExecuteTime", "TransferToDeviceTime",
        "TransferFromDeviceTime"}) {
    const Metric* metric = FindMetric(name);
    if (metric == nullptr || metric->count() == 0) continue;
    absl::StrAppend(&out, "Metric: ", name, "\n  TotalSamples: ",
                    metric->count(), "\n  Accumulator: ",
                    FormatValue(metric->accumulator(), metric->unit()), "\n");
  }
  for (const std::string& name : CounterNames()) {
    if (name.rfind("aten::", 0) != 0 && name != "CachedCompile" &&
        name != "UncachedCompile") {
      continue;
    }
    absl::StrAppend(&out, "Counter: ", name,
                    "\n  Value: ", FindCounter(name)->value(), "\n");
  }
  return out;
}

}  // namespace torch_xla::metrics
