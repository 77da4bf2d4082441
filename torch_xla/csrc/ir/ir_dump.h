#ifndef TORCH_XLA_CSRC_IR_IR_DUMP_H_
#define TORCH_XLA_CSRC_IR_IR_DUMP_H_

// Debug text of a graph (what _get_xla_tensors_text prints):
//
//   IR {
//     %0 = f32[2,3]{1,0} xla::device_data()
//     %1 = f32[2,3] sine(%0)
//     %2 = f32[] constant(), value=1
//     ROOT %3 = (u64[2], u32[4]) rng_bit_generator(%1.0), algorithm=DEFAULT
//   }
//
// Nodes are numbered in post-order; %n.i is output i of a multi-result node.
// Device data and placeholder leaves both print as xla::device_data(), their
// shape with XLA's default row-major layout as upstream prints it
// (f32[2,3]{1,0}; a scalar has none).
// Sub-graph attributes print as nested blocks.

#include <string>

#include "absl/types/span.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla {

std::string DumpIrText(absl::Span<const Value> roots);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_IR_DUMP_H_
