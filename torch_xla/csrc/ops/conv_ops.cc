#include "torch_xla/csrc/ops/conv_ops.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/error_class.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/opmath.h"

namespace torch_xla::ops {
namespace {

using Dims = std::vector<int64_t>;

// Dim layouts of a convolution node (lhs, rhs, out); empty: the defaults
// (NCHW input, OIHW kernel, NCHW result).
struct Layout {
  Dims lhs, rhs, out;
};

Dims Ones(size_t n) { return Dims(n, 1); }

// One convolution node in the accumulation dtype. Negative padding (a
// window that stops short of the input's end) crops x first, since the
// node takes padding >= 0. An empty `lhs_dilation` is all ones.
absl::StatusOr<Value> Convolve(Value x, Value w, const Dims& stride,
                               Dims pad_lo, Dims pad_hi, Dims lhs_dilation,
                               const Dims& rhs_dilation, int64_t groups,
                               int64_t batch_groups, const Layout& layout) {
  const size_t nsp = stride.size();
  if (lhs_dilation.empty()) lhs_dilation = Ones(nsp);
  const bool negative =
      std::any_of(pad_lo.begin(), pad_lo.end(), [](int64_t p) { return p < 0; }) ||
      std::any_of(pad_hi.begin(), pad_hi.end(), [](int64_t p) { return p < 0; });
  if (negative) {
    const size_t rank = x.shape().dims.size();
    Dims lo(rank, 0), hi(rank, 0), interior(rank, 0);
    for (size_t i = 0; i < nsp; ++i) {
      const int64_t d = layout.lhs.empty() ? static_cast<int64_t>(2 + i)
                                           : layout.lhs[2 + i];
      lo[d] = std::min<int64_t>(pad_lo[i], 0);
      hi[d] = std::min<int64_t>(pad_hi[i], 0);
      interior[d] = lhs_dilation[i] - 1;
      pad_lo[i] = std::max<int64_t>(pad_lo[i], 0);
      pad_hi[i] = std::max<int64_t>(pad_hi[i], 0);
    }
    TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, x.shape().dtype, {}));
    TXLA_ASSIGN_OR_RETURN(
        NodePtr padded,
        MakeNode(OpKind::kPad, {std::move(x), std::move(zero)},
                 Attrs()
                     .Set("low", std::move(lo))
                     .Set("high", std::move(hi))
                     .Set("interior", std::move(interior))));
    x = Value(std::move(padded));
    lhs_dilation = Ones(nsp);
  }
  const DType dtype = x.shape().dtype;
  const DType acc = OpMathType(dtype);
  Attrs attrs;
  attrs.Set("feature_groups", groups)
      .Set("batch_groups", batch_groups)
      .Set("strides", stride)
      .Set("pad_lo", std::move(pad_lo))
      .Set("pad_hi", std::move(pad_hi))
      .Set("lhs_dilation", std::move(lhs_dilation))
      .Set("rhs_dilation", rhs_dilation);
  if (!layout.lhs.empty()) {
    attrs.Set("lhs_dims", layout.lhs)
        .Set("rhs_dims", layout.rhs)
        .Set("out_dims", layout.out);
  }
  if (acc != dtype) attrs.Set("dtype", acc);
  if (dtype == DType::kF32 || dtype == DType::kF64) {
    attrs.Set("precision", "HIGHEST");
  }
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node, MakeNode(OpKind::kConvolution, {std::move(x), std::move(w)},
                             std::move(attrs)));
  return Value(std::move(node));
}

// Forward convolution of x [N, C, *S] and w [O, C/g, *K] -> [N, O, *out]
// in the accumulation dtype.
absl::StatusOr<Value> Forward(Value x, Value w, const Dims& stride,
                              Dims pad_lo, Dims pad_hi, const Dims& dilation,
                              int64_t groups, Dims lhs_dilation = {}) {
  return Convolve(std::move(x), std::move(w), stride, std::move(pad_lo),
                  std::move(pad_hi), std::move(lhs_dilation), dilation, groups,
                  /*batch_groups=*/1, Layout());
}

// d(sum(grad * conv(x, w)))/dw for x [N, C, *S], grad [N, O, *out] ->
// [O, C/g, *kernel] in the accumulation dtype.
absl::StatusOr<Value> WeightGrad(Value x, Value grad, const Dims& kernel,
                                 const Dims& stride, const Dims& pad_lo,
                                 const Dims& pad_hi, const Dims& dilation,
                                 int64_t groups) {
  const size_t nsp = kernel.size();
  const Dims size(x.shape().dims.begin() + 2, x.shape().dims.end());
  const Dims out(grad.shape().dims.begin() + 2, grad.shape().dims.end());
  Dims expected(nsp), hi(nsp), spatial(nsp);
  for (size_t i = 0; i < nsp; ++i) {
    const int64_t span = size[i] + pad_lo[i] + pad_hi[i] -
                         dilation[i] * (kernel[i] - 1) - 1;
    // Python's floor division (span may be negative).
    expected[i] = (span >= 0 ? span / stride[i]
                             : -((-span + stride[i] - 1) / stride[i])) + 1;
  }
  if (expected != out) {
    return EagerRuntimeError(absl::StrCat(
        "convolution_backward: grad_output spatial size [",
        absl::StrJoin(out, ", "), "] does not match the forward output size [",
        absl::StrJoin(expected, ", "), "]"));
  }
  // Windows over x of the grad's extent (dilated by the stride), one per
  // kernel offset (stride = the forward dilation); padding reaches exactly
  // the last input row a window used.
  for (size_t i = 0; i < nsp; ++i) {
    hi[i] = stride[i] * (out[i] - 1) + dilation[i] * (kernel[i] - 1) + 1 -
            size[i] - pad_lo[i];
    spatial[i] = static_cast<int64_t>(2 + i);
  }
  Dims swapped = {1, 0}, straight = {0, 1};
  swapped.insert(swapped.end(), spatial.begin(), spatial.end());
  straight.insert(straight.end(), spatial.begin(), spatial.end());
  return Convolve(std::move(x), std::move(grad), dilation, pad_lo,
                  std::move(hi), {}, stride, /*groups=*/1,
                  /*batch_groups=*/groups, Layout{swapped, straight, swapped});
}

// [O, C/g, *K] -> [C, O/g, *K] with the kernel flipped: the weight of the
// convolution that computes the input gradient.
absl::StatusOr<Value> FlipSwap(Value w, int64_t groups) {
  const Dims& dims = w.shape().dims;
  const int64_t o = dims[0], cg = dims[1];
  const Dims kernel(dims.begin() + 2, dims.end());
  const int64_t nsp = static_cast<int64_t>(kernel.size());
  Dims grouped = {groups, o / groups, cg}, perm = {0, 2, 1}, swapped,
       reversed = Range(2, 2 + nsp);
  grouped.insert(grouped.end(), kernel.begin(), kernel.end());
  for (int64_t i = 0; i < nsp; ++i) perm.push_back(3 + i);
  swapped = {groups * cg, o / groups};
  swapped.insert(swapped.end(), kernel.begin(), kernel.end());
  TXLA_ASSIGN_OR_RETURN(Value v, MakeReshape(std::move(w), grouped));
  TXLA_ASSIGN_OR_RETURN(v, MakeTranspose(std::move(v), perm));
  TXLA_ASSIGN_OR_RETURN(v, MakeReshape(std::move(v), swapped));
  TXLA_ASSIGN_OR_RETURN(
      NodePtr node,
      MakeNode(OpKind::kReverse, {std::move(v)}, Attrs().Set("dims", reversed)));
  return Value(std::move(node));
}

// d(sum(grad * conv(x, w)))/dx for w [O, C/g, *K] -> [N, C, *input].
absl::StatusOr<Value> InputGrad(Value grad, Value w, const Dims& input,
                                const Dims& stride, const Dims& padding,
                                const Dims& dilation, int64_t groups) {
  const Dims kernel(w.shape().dims.begin() + 2, w.shape().dims.end());
  const size_t nsp = kernel.size();
  const Dims out(grad.shape().dims.begin() + 2, grad.shape().dims.end());
  Dims lo(nsp), hi(nsp);
  for (size_t i = 0; i < nsp; ++i) {
    const int64_t span = dilation[i] * (kernel[i] - 1);
    // Input rows past the last window get no gradient: pad for them.
    const int64_t rest =
        input[i] + 2 * padding[i] - span - 1 - (out[i] - 1) * stride[i];
    lo[i] = span - padding[i];
    hi[i] = span - padding[i] + rest;
  }
  TXLA_ASSIGN_OR_RETURN(Value flipped, FlipSwap(std::move(w), groups));
  return Forward(std::move(grad), std::move(flipped), Ones(nsp), std::move(lo),
                 std::move(hi), dilation, groups, /*lhs_dilation=*/stride);
}

Dims Spatial(const Value& v) {
  return Dims(v.shape().dims.begin() + 2, v.shape().dims.end());
}

}  // namespace

absl::StatusOr<Value> Convolution(Value x, Value w, Value bias,
                                  const ConvWindow& window) {
  const DType dtype = x.shape().dtype;
  const Dims& stride = window.stride;
  const Dims& padding = window.padding;
  const Dims& dilation = window.dilation;
  Value value;
  if (window.transposed) {
    const Dims size = Spatial(x), kernel = Spatial(w);
    Dims spatial(size.size());
    for (size_t i = 0; i < size.size(); ++i) {
      spatial[i] = (size[i] - 1) * stride[i] - 2 * padding[i] +
                   dilation[i] * (kernel[i] - 1) + window.output_padding[i] + 1;
    }
    TXLA_ASSIGN_OR_RETURN(value,
                          InputGrad(std::move(x), std::move(w), spatial,
                                    stride, padding, dilation, window.groups));
  } else {
    TXLA_ASSIGN_OR_RETURN(value, Forward(std::move(x), std::move(w), stride,
                                         padding, padding, dilation,
                                         window.groups));
  }
  if (bias) {
    TXLA_ASSIGN_OR_RETURN(Value b,
                          MakeConvert(std::move(bias), value.shape().dtype));
    TXLA_ASSIGN_OR_RETURN(b, BroadcastInDim(std::move(b), value.shape().dims,
                                            {1}));
    TXLA_ASSIGN_OR_RETURN(value,
                          Apply(OpKind::kAdd, std::move(value), std::move(b)));
  }
  return MakeConvert(std::move(value), dtype);
}

absl::StatusOr<ConvGrads> ConvolutionBackward(Value grad, Value x, Value w,
                                              const ConvWindow& window,
                                              std::array<bool, 3> mask) {
  const DType dtype = x.shape().dtype;
  const Dims& stride = window.stride;
  const Dims& padding = window.padding;
  const Dims& dilation = window.dilation;
  const Dims kernel = Spatial(w);
  ConvGrads grads;
  if (mask[0]) {
    Value value;
    if (window.transposed) {
      TXLA_ASSIGN_OR_RETURN(value, Forward(grad, w, stride, padding, padding,
                                           dilation, window.groups));
    } else {
      TXLA_ASSIGN_OR_RETURN(value, InputGrad(grad, w, Spatial(x), stride,
                                             padding, dilation, window.groups));
    }
    TXLA_ASSIGN_OR_RETURN(grads.input, MakeConvert(std::move(value), dtype));
  }
  if (mask[1]) {
    Value value;
    if (window.transposed) {
      TXLA_ASSIGN_OR_RETURN(value,
                            WeightGrad(grad, x, kernel, stride, padding,
                                       padding, dilation, window.groups));
    } else {
      TXLA_ASSIGN_OR_RETURN(value,
                            WeightGrad(x, grad, kernel, stride, padding,
                                       padding, dilation, window.groups));
    }
    TXLA_ASSIGN_OR_RETURN(grads.weight, MakeConvert(std::move(value), dtype));
  }
  if (mask[2]) {
    const int64_t rank = static_cast<int64_t>(grad.shape().dims.size());
    Dims dims = Range(2, rank);
    dims.insert(dims.begin(), 0);
    TXLA_ASSIGN_OR_RETURN(Value g, MakeConvert(grad, OpMathType(dtype)));
    TXLA_ASSIGN_OR_RETURN(Value sum,
                          MakeReduce(std::move(g), dims, "sum",
                                     /*keep_dims=*/false));
    TXLA_ASSIGN_OR_RETURN(grads.bias, MakeConvert(std::move(sum), dtype));
  }
  return grads;
}

}  // namespace torch_xla::ops
