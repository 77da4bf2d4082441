#ifndef TORCH_XLA_CSRC_RUNTIME_DEVICE_THREADS_H_
#define TORCH_XLA_CSRC_RUNTIME_DEVICE_THREADS_H_

// The CPU plugin's device threads (its client pool and its intra-op Eigen
// pool) share the host's cores with the Python thread that traces and
// dispatches. Execute enqueues the program and wakes them; at equal policy
// Linux lets a freshly woken thread preempt the dispatching thread, which
// then waits in the run queue inside Execute for milliseconds (up to a
// scheduler slice) before it returns (docs/execution_pipeline.md, "When
// Execute returns"). SCHED_BATCH threads never preempt on wakeup, and keep
// their fair share of the CPU otherwise. Threads inherit the policy of the
// thread that creates them, so the client is created under it.

#include "absl/strings/string_view.h"

namespace torch_xla::runtime {

// While alive, the calling thread runs under SCHED_BATCH, so that every
// thread the plugin starts meanwhile (PJRT_Client_Create starts its pools)
// does too; the destructor restores the caller's own policy. Does nothing
// unless `device_type` is "CPU", or if TORCH_XLA_CPU_SCHED_BATCH is "0".
// Not copyable; one per scope.
class ScopedDeviceThreadPolicy {
 public:
  explicit ScopedDeviceThreadPolicy(absl::string_view device_type);
  ~ScopedDeviceThreadPolicy();
  ScopedDeviceThreadPolicy(const ScopedDeviceThreadPolicy&) = delete;
  ScopedDeviceThreadPolicy& operator=(const ScopedDeviceThreadPolicy&) =
      delete;

 private:
  bool changed_ = false;
  int saved_policy_ = 0;
  int saved_priority_ = 0;
};

// Whether the CPU plugin's device threads are to run under SCHED_BATCH
// (TORCH_XLA_CPU_SCHED_BATCH unset or not "0").
bool CpuDeviceThreadsBatch();

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_DEVICE_THREADS_H_
