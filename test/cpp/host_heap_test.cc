#include "torch_xla/csrc/runtime/host_heap.h"

#include <malloc.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace torch_xla::runtime {
namespace {

size_t MappedBytes() { return mallinfo2().hblkhd; }

// The number of malloc arenas, from glibc's malloc_info report.
int ArenaCount() {
  char* report = nullptr;
  size_t size = 0;
  FILE* stream = open_memstream(&report, &size);
  if (stream == nullptr) return -1;
  malloc_info(0, stream);
  std::fclose(stream);
  int count = 0;
  for (const char* at = report; (at = std::strstr(at, "<heap nr=")); ++at) {
    ++count;
  }
  std::free(report);
  return count;
}

// After a large block is freed, glibc would serve the next one from the heap
// and keep it there; with the threshold fixed, blocks above it are mapped
// and unmapped with their lifetime, however many were freed before.
TEST(HostHeapTest, BlocksAboveTheLimitStayMappedAfterFrees) {
  ApplyHostHeapPolicy();
  // Each freed block would raise glibc's threshold above the next one.
  for (size_t megabytes : {64, 48, 40}) {
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

// A 1376x512x8 f32 stack (22 MiB) of a scan over 8 layers: from the heap,
// where the next step reuses it without faulting it in again.
TEST(HostHeapTest, BlocksUpToTheLimitComeFromTheHeap) {
  ApplyHostHeapPolicy();
  const size_t before = MappedBytes();
  void* block = std::malloc(22 << 20);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(MappedBytes(), before);
  std::free(block);
  ReleaseFreedHeap();
}

// A step's gradients (here 128 MiB of 2 MiB blocks) freed after the step
// stay in the heap for the next one instead of being faulted in again.
TEST(HostHeapTest, FreedBlocksAtTheHeapTopAreKept) {
  ApplyHostHeapPolicy();
  ReleaseFreedHeap();
  const size_t before = mallinfo2().arena;
  std::vector<void*> blocks;
  for (int i = 0; i < 64; ++i) {
    blocks.push_back(std::malloc(2 << 20));
    ASSERT_NE(blocks.back(), nullptr);
  }
  for (void* block : blocks) std::free(block);
  EXPECT_GE(mallinfo2().arena, before + (128 << 20));
  ReleaseFreedHeap();
  EXPECT_LT(mallinfo2().arena, before + (128 << 20));
}

// XLA's threads allocate a running program's buffers while the Python
// thread traces the next step: they must not share one arena's lock.
TEST(HostHeapTest, AnotherThreadAllocatesFromAnotherArena) {
  ApplyHostHeapPolicy();
  void* here = std::malloc(64);
  std::thread([] { std::free(std::malloc(64)); }).join();
  std::free(here);
  EXPECT_GE(ArenaCount(), 2);
}

// A thread's blocks beyond its arena's first heap live in further heaps,
// which glibc would unmap as soon as they are empty: each step would fault
// its blocks in again. They stay mapped, so the second round of the same
// blocks faults in no page.
TEST(HostHeapTest, AThreadsEmptiedHeapsStayMapped) {
  ApplyHostHeapPolicy();
  constexpr size_t kBytes = 24 << 20;
  long second_round_faults = -1;
  std::thread([&] {
    auto round = [] {
      std::vector<void*> blocks;
      for (int i = 0; i < 4; ++i) {
        blocks.push_back(std::malloc(kBytes));
        std::memset(blocks.back(), 1, kBytes);
      }
      for (void* block : blocks) std::free(block);
    };
    round();
    rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    const long before = usage.ru_minflt;
    round();
    getrusage(RUSAGE_THREAD, &usage);
    second_round_faults = usage.ru_minflt - before;
  }).join();
  // 4 blocks are 24k pages; a few hundred are glibc's bookkeeping.
  EXPECT_LT(second_round_faults, 1000);
}

TEST(HostHeapTest, XlaSplitsTemporariesAtTheLimit) {
  const std::string flag = "--xla_multiheap_size_constraint_per_heap=" +
                           std::to_string(kHeapBlockLimitBytes);
  ApplyHostHeapPolicy();
  const char* flags = std::getenv("XLA_FLAGS");
  ASSERT_NE(flags, nullptr);
  EXPECT_NE(std::string(flags).find(flag), std::string::npos) << flags;
}

}  // namespace
}  // namespace torch_xla::runtime
