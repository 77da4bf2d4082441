#ifndef TORCH_XLA_CSRC_RUNTIME_HOST_HEAP_H_
#define TORCH_XLA_CSRC_RUNTIME_HOST_HEAP_H_

// How the CPU plugin's device buffers, which are malloc blocks, meet the
// process heap. A block served by mmap costs a page fault per page each
// time it is allocated again; a heap block is reused for free, but what
// the heap keeps counts towards RSS. glibc's defaults get a training loop
// wrong both ways: its mmap threshold floats up to the size of every freed
// block (after a few steps the heap keeps weight-sized blocks on top of
// every later peak), and XLA hands a program all its temporaries as one
// block, far above any threshold, faulted in page by page on every
// execution (a fifth of a scan_layers step on the reference decoder).

namespace torch_xla::runtime {

// Blocks up to this size come from the heap (glibc's ceiling for the
// threshold); larger ones are mapped and unmapped with their lifetime.
inline constexpr int kHeapBlockLimitBytes = 32 << 20;

// Freed memory at the heap's top up to this size is kept, not given back.
inline constexpr int kKeptHeapTopBytes = 1 << 30;

// The size of the heaps glibc maps for the arenas of threads other than the
// main one (HEAP_MAX_SIZE on 64-bit), and the padding each heap keeps: a
// heap emptied by a free stays mapped for the next step's blocks.
inline constexpr int kThreadHeapBytes = 64 << 20;

// The policy, applied once before the CPU client is created:
// - the mmap threshold fixed at kHeapBlockLimitBytes;
// - up to kKeptHeapTopBytes freed at the heap's top kept for the next
//   step: a step frees its gradients and activations and allocates them
//   again in the next, and memory given back would be faulted in again
//   page by page (30k faults, about a tenth of the reference decoder's step,
//   when 64 MiB were kept); the step's peak is reached either way, and a
//   compile gives the compiler's scratch back explicitly
//   (ReleaseFreedHeap);
// - the arenas left to glibc (several per core): with one arena, each
//   malloc and free of the Python thread waited on its lock while XLA's
//   threads allocated for a running program or a compile (a trace-once
//   step's sync took 3-6 ms instead of 1, and a first compile 10-30%
//   longer);
// - a top pad of kThreadHeapBytes: without it glibc unmaps a thread
//   arena's heap as soon as its blocks are freed, and the next step faults
//   it in again (58k faults per scan_layers step of the reference
//   decoder; 1.7k with the pad);
// - XLA splits a program's temporaries into blocks of at most
//   kHeapBlockLimitBytes (--xla_multiheap_size_constraint_per_heap).
// A setting the user chose (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_,
// MALLOC_TOP_PAD_, the flag in XLA_FLAGS) is left alone. Idempotent.
void ApplyHostHeapPolicy();

// Hands freed heap back to the OS, e.g. the compiler's scratch after a
// compile, before the program's own buffers are allocated.
void ReleaseFreedHeap();

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_HOST_HEAP_H_
