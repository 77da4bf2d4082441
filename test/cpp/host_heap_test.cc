#include "torch_xla/csrc/runtime/host_heap.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include "gtest/gtest.h"

namespace torch_xla::runtime {
namespace {

size_t MappedBytes() { return mallinfo2().hblkhd; }

// After a large block is freed, glibc would serve the next one from the heap
// and keep it there; with the threshold fixed it is mapped and unmapped
// with its lifetime, however many were freed before.
TEST(HostHeapTest, WeightSizedBlocksStayMappedAfterFrees) {
  KeepLargeBuffersOffTheHeap();
  // Each freed block would raise glibc's threshold above the next one.
  for (size_t megabytes : {32, 24, 20}) {
    const size_t kBytes = megabytes << 20;
    const size_t before = MappedBytes();
    void* block = std::malloc(kBytes);
    ASSERT_NE(block, nullptr);
    std::memset(block, 1, kBytes);
    EXPECT_GE(MappedBytes(), before + kBytes) << megabytes << " MiB";
    std::free(block);
    EXPECT_EQ(MappedBytes(), before) << megabytes << " MiB";
  }
}

TEST(HostHeapTest, SmallBlocksStayOnTheHeap) {
  KeepLargeBuffersOffTheHeap();
  const size_t before = MappedBytes();
  void* block = std::malloc(1 << 20);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(MappedBytes(), before);
  std::free(block);
  ReleaseFreedHeap();
}

}  // namespace
}  // namespace torch_xla::runtime
