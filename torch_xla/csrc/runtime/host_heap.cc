#include "torch_xla/csrc/runtime/host_heap.h"

#include <malloc.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace torch_xla::runtime {
namespace {

constexpr int kTrimThresholdBytes = 64 << 20;
constexpr char kTempSplitFlag[] = "--xla_multiheap_size_constraint_per_heap";

bool UserChose(const char* variable) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0';
}

}  // namespace

std::string TempSplitXlaFlags(const char* xla_flags) {
  std::string flags = xla_flags == nullptr ? "" : xla_flags;
  if (absl::StrContains(flags, kTempSplitFlag)) return flags;
  return absl::StrCat(flags, flags.empty() ? "" : " ", kTempSplitFlag, "=",
                      kHeapBlockLimitBytes);
}

void ApplyHostHeapPolicy() {
  static const bool done = [] {
    if (!UserChose("MALLOC_MMAP_THRESHOLD_")) {
      mallopt(M_MMAP_THRESHOLD, kHeapBlockLimitBytes);
    }
    if (!UserChose("MALLOC_TRIM_THRESHOLD_")) {
      mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes);
    }
    if (!UserChose("MALLOC_ARENA_MAX")) mallopt(M_ARENA_MAX, 1);
    // XLA reads its flags once, at the latest when it first compiles.
    setenv("XLA_FLAGS", TempSplitXlaFlags(std::getenv("XLA_FLAGS")).c_str(),
           /*overwrite=*/1);
    return true;
  }();
  (void)done;
}

void ReleaseFreedHeap() { malloc_trim(0); }

}  // namespace torch_xla::runtime
