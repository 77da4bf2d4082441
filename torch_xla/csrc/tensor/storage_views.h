#ifndef TORCH_XLA_CSRC_TENSOR_STORAGE_VIEWS_H_
#define TORCH_XLA_CSRC_TENSOR_STORAGE_VIEWS_H_

// The view steps of the views that address the root's storage rather than
// reshape, permute or slice their base (tensor/views.h has those): the
// diagonal, as_strided and view(dtype). Their ops (eager's checks, strides
// and storage offset) are in tensor/view_ops.h.
//
// - Diagonal: the value is ops::DiagonalValue of the base, the write-back
//   ops::DiagonalUpdate (ops/shape_ops.h, which diagonal_scatter uses too).
// - As-strided: always a step from the root (a root is contiguous with
//   storage offset 0, so its row-major value is the storage): a gather of the
//   root's flat value at offset + sum(i_k * stride_k), written back with a
//   scatter into it.
// - Bitcast: the base's bytes read as another dtype, each element's bytes
//   little-endian as on eager's hosts; a dtype of another size scales the
//   last dim by the size ratio (the value is rebuilt from same-width
//   bitcasts, shifts and masks of unsigned containers).
//
// The diagonal and as-strided steps rearrange on the host (a strided pick of
// the base's elements); so does the bitcast, whose bytes stay as they are
// (except into bool, whose bytes eager reads as != 0).

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"
#include "torch_xla/csrc/tensor/views.h"

namespace torch_xla {

// The `offset` diagonal of distinct canonical dims d1, d2, as aten.diagonal
// views it: [the base's other dims..., diagonal length].
ViewStepPtr DiagonalStep(int64_t offset, int64_t d1, int64_t d2);

// The root's elements at storage_offset + sum(i_k * strides[k]) for each
// index i of `sizes` (checked by the op to lie within the root's
// `root_dims`).
ViewStepPtr AsStridedStep(std::vector<int64_t> sizes,
                          std::vector<int64_t> strides, int64_t storage_offset,
                          std::vector<int64_t> root_dims);

// The base's bytes (dtype `from`) read as `to` (the op checked the shape
// fits: a last dim divisible by the ratio where `to` is wider).
ViewStepPtr BitcastStep(DType from, DType to);

// `x`'s bytes (dtype `from`) read as `to`: the bitcast step's value.
absl::StatusOr<Value> MakeBitcastView(Value x, DType from, DType to);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_STORAGE_VIEWS_H_
