#include "torch_xla/csrc/runtime/host_heap.h"

#include <malloc.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/runtime/xla_flags.h"

namespace torch_xla::runtime {
namespace {

constexpr char kTempSplitFlag[] = "xla_multiheap_size_constraint_per_heap";

bool UserChose(const char* variable) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0';
}

}  // namespace

void ApplyHostHeapPolicy() {
  static const bool done = [] {
    if (!UserChose("MALLOC_MMAP_THRESHOLD_")) {
      mallopt(M_MMAP_THRESHOLD, kHeapBlockLimitBytes);
    }
    if (!UserChose("MALLOC_TRIM_THRESHOLD_")) {
      mallopt(M_TRIM_THRESHOLD, kKeptHeapTopBytes);
    }
    if (!UserChose("MALLOC_TOP_PAD_")) mallopt(M_TOP_PAD, kThreadHeapBytes);
    AddXlaFlag(kTempSplitFlag, absl::StrCat(kHeapBlockLimitBytes));
    return true;
  }();
  (void)done;
}

void ReleaseFreedHeap() { malloc_trim(0); }

}  // namespace torch_xla::runtime
