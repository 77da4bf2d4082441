#ifndef TORCH_XLA_CSRC_OPS_SHAPE_OPS_H_
#define TORCH_XLA_CSRC_OPS_SHAPE_OPS_H_

// Shape ops that copy (cat, stack, flip, roll, repeat, tril/triu, constant
// padding, select's backward) and arange: each op's IR, built once. The
// Python rules (torch_xla/_ops/shape_ops.py) check eager's arguments and
// raise eager's errors, then make one _XLAC call (python/
// shape_op_bindings.cc) into these builders.
//
// Arguments arrive canonical (dims non-negative, in range). A builder that
// returns its input unchanged (flip of no dims, roll by 0) leaves the copy
// to its binding (ResultTensor clones), so a result is never an alias.
// Numbers from the user (the tril diagonal, a pad value, arange's start and
// step) come in as scalar parameter Values, so a new value never recompiles.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla::ops {

// aten.cat: `values` converted to `dtype` and joined along `dim`. Legacy
// 1-d empty values are skipped (whatever their neighbours' shapes); when
// every value is one, an empty [0] tensor of `dtype`. One value is
// returned converted (itself when already `dtype`).
absl::StatusOr<Value> Cat(std::vector<Value> values, int64_t dim,
                          DType dtype);

// aten.stack: `values` (one shape) converted to `dtype`, each given a new
// dim of size 1 at `dim`, and joined along it.
absl::StatusOr<Value> Stack(std::vector<Value> values, int64_t dim,
                            DType dtype);

// aten.flip: x reversed along `dims` (distinct); x for no dims or rank 0.
absl::StatusOr<Value> Flip(Value x, const std::vector<int64_t>& dims);

// aten.roll: x rolled by shifts[i] along dims[i] (any sign; a shift wraps
// modulo the dim's size). No dims: x flattened, rolled by shifts[0] and
// reshaped back.
absl::StatusOr<Value> Roll(Value x, const std::vector<int64_t>& shifts,
                           const std::vector<int64_t>& dims);

// aten.repeat: x (1s prepended to its rank) tiled repeats[i] times along
// dim i; repeats has at least x's rank entries, each >= 0.
absl::StatusOr<Value> Repeat(Value x, const std::vector<int64_t>& repeats);

// aten.tril / triu: x (rank >= 2) with the elements above (tril) or below
// (triu) the `diagonal`-th diagonal of its last two dims zeroed;
// `diagonal` is an s64 scalar.
absl::StatusOr<Value> Triangle(Value x, Value diagonal, bool lower);

// aten.constant_pad_nd: x padded by low[d] / high[d] (negative crops) with
// `fill`, a scalar of x's dtype.
absl::StatusOr<Value> ConstantPad(Value x, Value fill,
                                  std::vector<int64_t> low,
                                  std::vector<int64_t> high);

// reflection_pad{1,2,3}d (`reflect`) / replication_pad{1,2,3}d: x padded
// along dims[i] by low[i] / high[i] (checked: in range for reflection,
// non-negative with a non-empty dim for replication) with its mirror image
// (edge excluded) or copies of its edge.
absl::StatusOr<Value> ModePad(Value x, const std::vector<int64_t>& dims,
                              const std::vector<int64_t>& low,
                              const std::vector<int64_t>& high, bool reflect);

// Their backward: `grad` (of ModePad's result) folded back onto an input of
// shape `sizes`, each padded element's gradient added to the element it
// copied.
absl::StatusOr<Value> ModePadBackward(Value grad,
                                      const std::vector<int64_t>& sizes,
                                      const std::vector<int64_t>& dims,
                                      const std::vector<int64_t>& low,
                                      const std::vector<int64_t>& high,
                                      bool reflect);

// The diagonal `offset` of dims d1 != d2 (canonical) of x, as aten.diagonal
// views it: [x's other dims..., n]. The diagonal view's forward
// (tensor/storage_views.h) and diagonal_scatter's shape.
absl::StatusOr<Value> DiagonalValue(Value x, int64_t offset, int64_t d1,
                                    int64_t d2);

// `base` with that diagonal replaced by `update` (DiagonalValue's shape,
// base's dtype): the diagonal view's inverse, diagonal_scatter and
// diagonal_backward (into zeros).
absl::StatusOr<Value> DiagonalUpdate(Value base, Value update, int64_t offset,
                                     int64_t d1, int64_t d2);

// aten.select_backward: `grad` (x.select(dim, index)'s gradient) placed in
// zeros of shape `sizes` at `index` (in range) of `dim`: one pad.
absl::StatusOr<Value> SelectBackward(Value grad,
                                     const std::vector<int64_t>& sizes,
                                     int64_t dim, int64_t index);

// arange of `n` elements in `dtype`: start + i * step computed in
// `compute` (s64 for integer ranges, f64 for f64, else f32) and converted.
// A null `start` (with a null `step`) is the plain iota 0, 1, ..., n - 1.
absl::StatusOr<Value> Arange(int64_t n, DType dtype, DType compute,
                             Value start, Value step);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_SHAPE_OPS_H_
