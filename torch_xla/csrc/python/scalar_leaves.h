#ifndef TORCH_XLA_CSRC_PYTHON_SCALAR_LEAVES_H_
#define TORCH_XLA_CSRC_PYTHON_SCALAR_LEAVES_H_

// Python numbers as scalar parameters (HostData leaves, sent packed when a
// graph runs, so a new value never recompiles).
//
// A number is shared with earlier equal numbers from the same *site*: the
// same instruction of the same user code (the innermost Python frame outside
// torch_xla). A loop like `for _: x = x * 1.0001 + 0.1` then reads two
// parameters, not one per iteration, which XLA compiles far faster. Numbers
// from different sites never share, even when equal: AdamW's
// `1 - lr * weight_decay` and `beta2` stay two parameters when they happen to
// be equal, so a later learning rate does not change the graph's structure.
// Used under the GIL only.

#include <vector>

#include "pybind11/pybind11.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::python {

Value ScalarLeafAtSite(pybind11::handle number, DType dtype);

// `leaf` broadcast to `dims`, built once per (leaf, dims): a traced chain
// reuses one broadcast node.
Value BroadcastScalarLeaf(const Value& leaf, const std::vector<int64_t>& dims);

}  // namespace torch_xla::python

#endif  // TORCH_XLA_CSRC_PYTHON_SCALAR_LEAVES_H_
