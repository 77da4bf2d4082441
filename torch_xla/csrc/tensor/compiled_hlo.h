#ifndef TORCH_XLA_CSRC_TENSOR_COMPILED_HLO_H_
#define TORCH_XLA_CSRC_TENSOR_COMPILED_HLO_H_

// The HLO view of a pending graph (_XLAC._get_xla_tensors_hlo, upstream's
// contract): the program XLA compiles for the tensors, in XLA's HLO text.
// The graph is lowered to the StableHLO a sync of the tensors would
// compile (TensorsToHloText), compiled without running it and without
// moving any data, and the compiled HloModuleProto is printed
// (runtime/hlo_text.h). Placeholders lower to parameters, so a graph of
// placeholders has a view too. The compile cache and its metrics are left
// alone: this is a debug view, not a sync.

#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/tensor/xla_tensor.h"

namespace torch_xla {

// Compiles for the first tensor's device (xla:0 when the list is empty),
// replicated when the graph holds collectives and replicas are on, or for
// all devices with SPMD partitioning in SPMD mode; the text is that of the
// optimized program.
absl::StatusOr<std::string> TensorsToCompiledHloText(
    absl::Span<const XlaTensorPtr> tensors);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_COMPILED_HLO_H_
