#ifndef TORCH_XLA_CSRC_OPS_GRID_SAMPLER_OPS_H_
#define TORCH_XLA_CSRC_OPS_GRID_SAMPLER_OPS_H_

// grid_sampler_2d (F.grid_sample on 4-d input) and its backward: bilinear,
// nearest and bicubic interpolation, zeros, border and reflection padding,
// both align_corners values, with eager's arithmetic
// (aten/native/GridSampler.h): source coordinates unnormalized as
// ((g + 1) / 2) (size - 1) or ((g + 1) size - 1) / 2; nearest rounds half
// to even; bicubic uses Keys' weights (A = -0.75) on the unpadded
// coordinate and pads each tap's coordinate (truncated to an integer).
// bf16/f16 compute in f32 (eager's opmath) and round once.
//
// Design: each output point p reads T taps of its input plane (bilinear 4,
// nearest 1, bicubic 16), tap k at (y_k, x_k) with weight w_k; taps
// outside the plane read nothing. Laid out [N, T, P] for all points at
// once, the forward is one gather of the tapped values and a weighted sum
// over the taps; the backward scatter-adds grad * w_k into the plane (the
// input's gradient) and contracts the gathered values with the weights'
// derivatives times the source coordinate's chain factor (the grid's;
// nearest's is 0). The caller (torch_xla/_ops/grid_sampler.py through
// _XLAC._grid_sampler_2d and _grid_sampler_2d_backward) checks eager's
// argument errors; the modes passed here are valid.

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// input [N, C, H, W], grid [N, Ho, Wo, 2] (x, y in [-1, 1]) of one float
// dtype; mode 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border,
// 2 reflection. Returns [N, C, Ho, Wo].
absl::StatusOr<Value> GridSampler2d(Value input, Value grid, int64_t mode,
                                    int64_t padding, bool align_corners);

// {grad_input [N, C, H, W] (null without `input_grad`), grad_grid [N, Ho,
// Wo, 2]} for grad_output [N, C, Ho, Wo].
absl::StatusOr<std::array<Value, 2>> GridSampler2dBackward(
    Value grad_output, Value input, Value grid, int64_t mode, int64_t padding,
    bool align_corners, bool input_grad);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_GRID_SAMPLER_OPS_H_
