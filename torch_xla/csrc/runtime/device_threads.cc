#include "torch_xla/csrc/runtime/device_threads.h"

#include <pthread.h>
#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace torch_xla::runtime {

bool CpuDeviceThreadsBatch() {
  const char* value = std::getenv("TORCH_XLA_CPU_SCHED_BATCH");
  return value == nullptr || std::strcmp(value, "0") != 0;
}

ScopedDeviceThreadPolicy::ScopedDeviceThreadPolicy(
    absl::string_view device_type) {
#ifdef SCHED_BATCH
  if (device_type != "CPU" || !CpuDeviceThreadsBatch()) return;
  sched_param param{};
  if (pthread_getschedparam(pthread_self(), &saved_policy_, &param) != 0) {
    return;
  }
  // Only a normal caller is switched: a real-time caller keeps its policy
  // (and so do the threads it starts).
  if (saved_policy_ != SCHED_OTHER) return;
  saved_priority_ = param.sched_priority;
  sched_param batch{};
  batch.sched_priority = 0;
  changed_ = pthread_setschedparam(pthread_self(), SCHED_BATCH, &batch) == 0;
#else
  (void)device_type;
#endif
}

ScopedDeviceThreadPolicy::~ScopedDeviceThreadPolicy() {
  if (!changed_) return;
  sched_param param{};
  param.sched_priority = saved_priority_;
  if (pthread_setschedparam(pthread_self(), saved_policy_, &param) != 0) {
    std::cerr << "torch_xla: could not restore the scheduling policy of the "
                 "thread that created the PJRT client; it stays SCHED_BATCH"
              << std::endl;
  }
}

}  // namespace torch_xla::runtime
