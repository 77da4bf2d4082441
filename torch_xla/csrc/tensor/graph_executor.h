#ifndef TORCH_XLA_CSRC_TENSOR_GRAPH_EXECUTOR_H_
#define TORCH_XLA_CSRC_TENSOR_GRAPH_EXECUTOR_H_

// Turns pending IR into device data: collect tensors -> lower (one module,
// parameters keyed by data ID) -> compile, cached by graph hash -> execute
// with buffer donation -> the tensors hold the outputs. Process-wide and
// thread-safe (one sync at a time).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {

// Syncs enqueue their executions and return: the resulting device data
// becomes ready when the device finishes (reads wait for it).

// Executes the pending IR of every live tensor (torch_xla.sync()), except
// tensors whose value reads a placeholder: those stay pending. Donates
// the buffers of tensors updated in place, and of explicit donors (config
// on or off); a clone sharing an updated buffer gets a copy (donation.h). A view that can be re-derived from its root
// is not computed (views.h, TakeRederivableViews): it is re-derived here.
absl::Status SyncLiveTensors();

// Executes the pending IR of just these tensors (e.g. before reading one).
// No in-place aliasing: tensors outside the set may still need every
// input. With `donate_marked` (_xla_sync_multi) and the buffer-donor config
// on, buffers marked with _set_buffer_donation are donated (donation.h).
absl::Status SyncTensors(absl::Span<const XlaTensorPtr> tensors,
                         bool donate_marked = false);

// Waits until every enqueued execution has finished (xm.wait_device_ops(),
// sync(wait=True)); the first failure among them.
absl::Status WaitForDevice();

// Copies a tensor's value into `dst` (exactly its byte size), running its
// pending IR first. Fails for placeholders and deleted tensors.
absl::Status TensorToHost(const XlaTensorPtr& tensor, void* dst,
                          int64_t dst_size);

// The StableHLO module that a sync of these tensors would compile.
absl::StatusOr<std::string> TensorsToHloText(
    absl::Span<const XlaTensorPtr> tensors);

// The compile-cache hash of these tensors' graph (walk + hash, no text).
absl::StatusOr<uint64_t> TensorsGraphHash(
    absl::Span<const XlaTensorPtr> tensors);

// _xla_set_enable_alias_with_buffer_donor_config.
void SetEnableBufferDonorAliasing(bool enable);
bool GetEnableBufferDonorAliasing();

// Entries in the compile cache (tests and benchmarks).
int64_t CompileCacheSize();
void ClearCompileCache();

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_GRAPH_EXECUTOR_H_
