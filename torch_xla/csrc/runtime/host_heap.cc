#include "torch_xla/csrc/runtime/host_heap.h"

#include <malloc.h>

#include <cstdlib>

namespace torch_xla::runtime {
namespace {

// A 1024x4096 f32 matrix. Smaller blocks stay on the heap, where reuse is
// cheap; mapping every block above glibc's 128 KiB default would page-fault
// every temporary of every step.
constexpr int kMmapThresholdBytes = 16 << 20;

}  // namespace

void KeepLargeBuffersOffTheHeap() {
  static const bool done = [] {
    const char* chosen = std::getenv("MALLOC_MMAP_THRESHOLD_");
    if (chosen == nullptr || *chosen == '\0') {
      mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
    }
    return true;
  }();
  (void)done;
}

void ReleaseFreedHeap() { malloc_trim(0); }

}  // namespace torch_xla::runtime
