#ifndef TORCH_XLA_CSRC_RUNTIME_HOST_HEAP_H_
#define TORCH_XLA_CSRC_RUNTIME_HOST_HEAP_H_

// How the process heap treats device buffers that live in host memory (the
// CPU plugin allocates them with malloc). glibc serves blocks above its mmap
// threshold with mmap and returns them to the OS on free, but it raises that
// threshold each time such a block is freed; after the first step, every
// weight-sized output and temporary then comes from the heap, and the heap
// keeps what a step frees on top of every later peak.

namespace torch_xla::runtime {

// Fixes the mmap threshold (which stops glibc from moving it) so buffers of
// a weight's size and up map and unmap with their lifetime. Leaves it alone
// when the user chose one (MALLOC_MMAP_THRESHOLD_). Idempotent.
void KeepLargeBuffersOffTheHeap();

// Hands freed heap back to the OS, e.g. the compiler's scratch after a
// compile, before the program's own buffers are allocated.
void ReleaseFreedHeap();

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_HOST_HEAP_H_
