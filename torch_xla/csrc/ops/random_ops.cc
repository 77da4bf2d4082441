#include "torch_xla/csrc/ops/random_ops.h"

#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/build_util.h"
#include "torch_xla/csrc/ops/order_ops.h"

namespace torch_xla::ops {
namespace {

// Second word of the generator state; any constant works (the seed varies).
constexpr int64_t kStream = 0x5851F42D4C957F2D;
constexpr double kPi = 3.14159265358979323846;

// Mantissa bits of a float dtype (0 for others).
int MantissaBits(DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return 52;
    case DType::kF32:
      return 23;
    case DType::kBF16:
      return 7;
    case DType::kF16:
      return 10;
    default:
      return 0;
  }
}

int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

absl::StatusOr<Value> IntLiteral(int64_t value, DType dtype,
                                 const std::vector<int64_t>& dims) {
  TXLA_ASSIGN_OR_RETURN(NodePtr node,
                        MakeIntConstant(value, Shape(dtype, dims)));
  return Value(std::move(node));
}

// a kind b, with b a literal of a's dtype and shape.
absl::StatusOr<Value> WithLiteral(OpKind kind, Value a, double b) {
  TXLA_ASSIGN_OR_RETURN(Value literal, LiteralLike(b, a));
  return Apply(kind, std::move(a), std::move(literal));
}

// a kind b for a 0-d (or broadcastable) parameter b; a itself for a null b.
absl::StatusOr<Value> WithParam(OpKind kind, Value a, Value b) {
  if (!b) return a;
  TXLA_ASSIGN_OR_RETURN(b, MakeConvert(std::move(b), a.shape().dtype));
  return ApplyTo(kind, std::move(a), std::move(b));
}

// Standard normal values (Box-Muller) of RandomComputeType(target), from
// uniforms at the compute type's full resolution.
absl::StatusOr<Value> Normal01(Value seed, const std::vector<int64_t>& dims,
                               DType target) {
  const DType code = RandomComputeType(target);
  const int64_t n = NumElements(dims);
  const int64_t half = (n + 1) / 2;
  TXLA_ASSIGN_OR_RETURN(Value u, Uniform01(std::move(seed), {2, half}, code));
  TXLA_ASSIGN_OR_RETURN(Value u1, MakeSliceDim(u, 0, 0, 1));
  TXLA_ASSIGN_OR_RETURN(u1, MakeReshape(std::move(u1), {half}));
  TXLA_ASSIGN_OR_RETURN(Value u2, MakeSliceDim(std::move(u), 0, 1, 2));
  TXLA_ASSIGN_OR_RETURN(u2, MakeReshape(std::move(u2), {half}));
  // 1 - u1 is in (0, 1]: the log is finite.
  TXLA_ASSIGN_OR_RETURN(Value one, LiteralLike(1.0, u1));
  TXLA_ASSIGN_OR_RETURN(Value rest, Apply(OpKind::kSubtract, std::move(one),
                                          std::move(u1)));
  TXLA_ASSIGN_OR_RETURN(Value log, Apply(OpKind::kLog, std::move(rest)));
  TXLA_ASSIGN_OR_RETURN(Value minus_two, LiteralLike(-2.0, log));
  TXLA_ASSIGN_OR_RETURN(Value square, Apply(OpKind::kMultiply,
                                            std::move(minus_two),
                                            std::move(log)));
  TXLA_ASSIGN_OR_RETURN(Value radius, Apply(OpKind::kSqrt, std::move(square)));
  TXLA_ASSIGN_OR_RETURN(Value two_pi, LiteralLike(2 * kPi, u2));
  TXLA_ASSIGN_OR_RETURN(Value theta, Apply(OpKind::kMultiply,
                                           std::move(two_pi), std::move(u2)));
  TXLA_ASSIGN_OR_RETURN(Value cos, Apply(OpKind::kCosine, theta));
  TXLA_ASSIGN_OR_RETURN(Value sin, Apply(OpKind::kSine, std::move(theta)));
  TXLA_ASSIGN_OR_RETURN(Value z1, Apply(OpKind::kMultiply, radius,
                                        std::move(cos)));
  TXLA_ASSIGN_OR_RETURN(Value z2, Apply(OpKind::kMultiply, std::move(radius),
                                        std::move(sin)));
  TXLA_ASSIGN_OR_RETURN(NodePtr both,
                        MakeNode(OpKind::kConcatenate,
                                 {std::move(z1), std::move(z2)},
                                 Attrs().Set("dimension", int64_t{0})));
  Value z(std::move(both));
  if (2 * half != n) {
    TXLA_ASSIGN_OR_RETURN(z, MakeSliceDim(std::move(z), 0, 0, n));
  }
  return MakeReshape(std::move(z), dims);
}

// Uniform values in (0, 1) at the full resolution of the compute type
// `code`: u + half a step, symmetric about 0.5 and never 0.
absl::StatusOr<Value> OpenUniform(Value seed, const std::vector<int64_t>& dims,
                                  DType code) {
  TXLA_ASSIGN_OR_RETURN(Value u, Uniform01(std::move(seed), dims, code));
  return WithLiteral(OpKind::kAdd, std::move(u),
                     std::ldexp(1.0, -(MantissaBits(code) + 1)));
}

// Inclusive prefix sum along `dim`: a log-depth (Hillis-Steele) scan, each
// step adding a copy shifted by 2^k (a pad with negative high padding).
absl::StatusOr<Value> PrefixSum(Value v, int64_t dim) {
  const int64_t n = v.shape().dims[dim];
  const size_t rank = v.shape().dims.size();
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0, v.shape().dtype, {}));
  for (int64_t shift = 1; shift < n; shift *= 2) {
    std::vector<int64_t> low(rank, 0), high(rank, 0);
    low[dim] = shift;
    high[dim] = -shift;
    TXLA_ASSIGN_OR_RETURN(
        NodePtr padded,
        MakeNode(OpKind::kPad, {v, zero},
                 Attrs().Set("low", std::move(low)).Set("high",
                                                        std::move(high))));
    TXLA_ASSIGN_OR_RETURN(v, Apply(OpKind::kAdd, std::move(v),
                                   Value(std::move(padded))));
  }
  return v;
}

// Any element of pred `bad` true (a 0-d pred).
absl::StatusOr<Value> AnyOf(Value bad) {
  if (bad.shape().dims.empty()) return bad;
  const std::vector<int64_t> dims = Range(0, bad.shape().dims.size());
  return MakeReduce(std::move(bad), dims, "or", false);
}

// Where `v` is not >= 0 (NaN included).
absl::StatusOr<Value> Negative(const Value& v) {
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, v));
  TXLA_ASSIGN_OR_RETURN(Value ge, Compare(v, std::move(zero), "GE"));
  return Apply(OpKind::kNot, std::move(ge));
}

absl::StatusOr<Value> NotFinite(const Value& v) {
  TXLA_ASSIGN_OR_RETURN(Value finite, Apply(OpKind::kIsFinite, v));
  return Apply(OpKind::kNot, std::move(finite));
}

}  // namespace

DType RandomComputeType(DType target) {
  return target == DType::kF64 ? DType::kF64 : DType::kF32;
}

absl::StatusOr<Value> RandomBits(Value seed, DType bits,
                                 const std::vector<int64_t>& dims) {
  if (seed.shape().dtype != DType::kU64 || seed.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "random ops: the seed must be a u64 0-d value, got ",
        seed.shape().ToString()));
  }
  TXLA_ASSIGN_OR_RETURN(Value head, MakeReshape(std::move(seed), {1}));
  TXLA_ASSIGN_OR_RETURN(Value stream, IntLiteral(kStream, DType::kU64, {1}));
  TXLA_ASSIGN_OR_RETURN(NodePtr state,
                        MakeNode(OpKind::kConcatenate,
                                 {std::move(head), std::move(stream)},
                                 Attrs().Set("dimension", int64_t{0})));
  TXLA_ASSIGN_OR_RETURN(NodePtr node,
                        MakeNode(OpKind::kRngBitGenerator, {Value(state)},
                                 Attrs()
                                     .Set("dtype", bits)
                                     .Set("dims", dims)
                                     .Set("algorithm", "THREE_FRY")));
  return Value(std::move(node), 1);
}

absl::StatusOr<Value> Uniform01(Value seed, const std::vector<int64_t>& dims,
                                DType target) {
  const DType code = RandomComputeType(target);
  const bool wide = code == DType::kF64;
  const DType bits_type = wide ? DType::kU64 : DType::kU32;
  const int64_t one_bits = wide ? 0x3FF0000000000000 : 0x3F800000;
  const int width = wide ? 64 : 32;
  const int mantissa = wide ? 52 : 23;
  const int keep = MantissaBits(target) ? MantissaBits(target) : mantissa;
  TXLA_ASSIGN_OR_RETURN(Value bits,
                        RandomBits(std::move(seed), bits_type, dims));
  TXLA_ASSIGN_OR_RETURN(Value shift, IntLiteral(width - keep, bits_type, dims));
  TXLA_ASSIGN_OR_RETURN(bits, Apply(OpKind::kShiftRightLogical,
                                    std::move(bits), std::move(shift)));
  if (keep != mantissa) {
    TXLA_ASSIGN_OR_RETURN(Value back,
                          IntLiteral(mantissa - keep, bits_type, dims));
    TXLA_ASSIGN_OR_RETURN(bits, Apply(OpKind::kShiftLeft, std::move(bits),
                                      std::move(back)));
  }
  TXLA_ASSIGN_OR_RETURN(Value exponent, IntLiteral(one_bits, bits_type, dims));
  TXLA_ASSIGN_OR_RETURN(bits, Apply(OpKind::kOr, std::move(bits),
                                    std::move(exponent)));
  TXLA_ASSIGN_OR_RETURN(NodePtr value,
                        MakeNode(OpKind::kBitcastConvert, {std::move(bits)},
                                 Attrs().Set("dtype", code)));
  return WithLiteral(OpKind::kSubtract, Value(std::move(value)), 1.0);
}

absl::StatusOr<Distribution> DistributionFromName(const std::string& name) {
  if (name == "uniform") return Distribution::kUniform;
  if (name == "normal") return Distribution::kNormal;
  if (name == "exponential") return Distribution::kExponential;
  if (name == "log_normal") return Distribution::kLogNormal;
  if (name == "cauchy") return Distribution::kCauchy;
  if (name == "geometric") return Distribution::kGeometric;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown distribution '", name, "' (expected uniform, normal, "
      "exponential, log_normal, cauchy or geometric)"));
}

absl::StatusOr<Value> Draw(Distribution distribution, Value seed,
                           const Shape& shape, Value a, Value b) {
  const DType dtype = shape.dtype;
  const std::vector<int64_t>& dims = shape.dims;
  if (distribution != Distribution::kGeometric && !IsFloating(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "random draw: a continuous distribution needs a float dtype, got ",
        shape.ToString()));
  }
  if (NumElements(dims) == 0) return MakeLiteral(0, dtype, dims);
  const DType cc = RandomComputeType(dtype);
  Value value;
  switch (distribution) {
    case Distribution::kUniform: {
      TXLA_ASSIGN_OR_RETURN(value, Uniform01(std::move(seed), dims, dtype));
      TXLA_ASSIGN_OR_RETURN(value, WithParam(OpKind::kMultiply,
                                             std::move(value), std::move(a)));
      TXLA_ASSIGN_OR_RETURN(value, WithParam(OpKind::kAdd, std::move(value),
                                             std::move(b)));
      break;
    }
    case Distribution::kNormal:
    case Distribution::kLogNormal: {
      TXLA_ASSIGN_OR_RETURN(value, Normal01(std::move(seed), dims, dtype));
      TXLA_ASSIGN_OR_RETURN(value, WithParam(OpKind::kMultiply,
                                             std::move(value), std::move(a)));
      TXLA_ASSIGN_OR_RETURN(value, WithParam(OpKind::kAdd, std::move(value),
                                             std::move(b)));
      if (distribution == Distribution::kLogNormal) {
        TXLA_ASSIGN_OR_RETURN(value,
                              Apply(OpKind::kExponential, std::move(value)));
      }
      break;
    }
    case Distribution::kExponential: {
      // -log(1 - u) / lambda, finite because 1 - u is in (0, 1].
      TXLA_ASSIGN_OR_RETURN(Value u, Uniform01(std::move(seed), dims, cc));
      TXLA_ASSIGN_OR_RETURN(u, Apply(OpKind::kNegate, std::move(u)));
      TXLA_ASSIGN_OR_RETURN(u, Apply(OpKind::kLogPlusOne, std::move(u)));
      TXLA_ASSIGN_OR_RETURN(value, Apply(OpKind::kNegate, std::move(u)));
      TXLA_ASSIGN_OR_RETURN(value, WithParam(OpKind::kDivide,
                                             std::move(value), std::move(a)));
      break;
    }
    case Distribution::kCauchy: {
      // u in (0, 1) keeps the angle inside (-pi/2, pi/2): no pole, no sign
      // flip from rounding pi/2 up.
      TXLA_ASSIGN_OR_RETURN(Value u, OpenUniform(std::move(seed), dims, cc));
      TXLA_ASSIGN_OR_RETURN(u, WithLiteral(OpKind::kSubtract, std::move(u),
                                           0.5));
      TXLA_ASSIGN_OR_RETURN(u, WithLiteral(OpKind::kMultiply, std::move(u),
                                           kPi));
      TXLA_ASSIGN_OR_RETURN(value, Apply(OpKind::kTan, std::move(u)));
      TXLA_ASSIGN_OR_RETURN(value, WithParam(OpKind::kMultiply,
                                             std::move(value), std::move(a)));
      TXLA_ASSIGN_OR_RETURN(value, WithParam(OpKind::kAdd, std::move(value),
                                             std::move(b)));
      break;
    }
    case Distribution::kGeometric: {
      // u = 0 gives a ratio of 0: the smallest value is 1.
      TXLA_ASSIGN_OR_RETURN(Value u, Uniform01(std::move(seed), dims, cc));
      TXLA_ASSIGN_OR_RETURN(u, Apply(OpKind::kNegate, std::move(u)));
      TXLA_ASSIGN_OR_RETURN(u, Apply(OpKind::kLogPlusOne, std::move(u)));
      TXLA_ASSIGN_OR_RETURN(u, WithParam(OpKind::kDivide, std::move(u),
                                         std::move(a)));
      TXLA_ASSIGN_OR_RETURN(u, Apply(OpKind::kFloor, std::move(u)));
      TXLA_ASSIGN_OR_RETURN(value, WithLiteral(OpKind::kAdd, std::move(u),
                                               1.0));
      break;
    }
  }
  return MakeConvert(std::move(value), dtype);
}

absl::StatusOr<Value> Bernoulli(Value seed, const std::vector<int64_t>& dims,
                                DType dtype, Value p) {
  if (NumElements(dims) == 0) return MakeLiteral(0, dtype, dims);
  const DType cc = RandomComputeType(p.shape().dtype);
  TXLA_ASSIGN_OR_RETURN(p, MakeConvert(std::move(p), cc));
  TXLA_ASSIGN_OR_RETURN(p, MakeBroadcastTo(std::move(p), dims));
  TXLA_ASSIGN_OR_RETURN(Value u, Uniform01(std::move(seed), dims, cc));
  TXLA_ASSIGN_OR_RETURN(Value hit, Compare(std::move(u), std::move(p), "LT"));
  return MakeConvert(std::move(hit), dtype);
}

absl::StatusOr<Value> RandomInteger(Value seed, const Shape& shape,
                                    Value span, Value from) {
  if (NumElements(shape.dims) == 0) {
    return MakeLiteral(0, shape.dtype, shape.dims);
  }
  TXLA_ASSIGN_OR_RETURN(Value bits,
                        RandomBits(std::move(seed), DType::kU64, shape.dims));
  TXLA_ASSIGN_OR_RETURN(bits, WithParam(OpKind::kRemainder, std::move(bits),
                                        std::move(span)));
  TXLA_ASSIGN_OR_RETURN(Value value, MakeConvert(std::move(bits),
                                                 DType::kI64));  // wraps
  TXLA_ASSIGN_OR_RETURN(value, WithParam(OpKind::kAdd, std::move(value),
                                         std::move(from)));
  return MakeConvert(std::move(value), shape.dtype);
}

absl::StatusOr<std::pair<Value, Value>> Dropout(Value seed, Value x,
                                                Value keep, Value scale) {
  const DType dtype = x.shape().dtype;
  if (!IsFloating(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "native_dropout: expected a float input, got ", x.shape().ToString()));
  }
  const std::vector<int64_t> dims = x.shape().dims;
  TXLA_ASSIGN_OR_RETURN(
      Value u, Uniform01(std::move(seed), dims, RandomComputeType(dtype)));
  TXLA_ASSIGN_OR_RETURN(keep, MakeConvert(std::move(keep), u.shape().dtype));
  TXLA_ASSIGN_OR_RETURN(keep, MakeBroadcastTo(std::move(keep), dims));
  TXLA_ASSIGN_OR_RETURN(Value mask, Compare(std::move(u), std::move(keep),
                                            "LT"));
  TXLA_ASSIGN_OR_RETURN(Value kept, MakeConvert(mask, dtype));
  TXLA_ASSIGN_OR_RETURN(Value out, Apply(OpKind::kMultiply, std::move(x),
                                         std::move(kept)));
  TXLA_ASSIGN_OR_RETURN(out, WithParam(OpKind::kMultiply, std::move(out),
                                       std::move(scale)));
  return std::make_pair(std::move(out), std::move(mask));
}

absl::StatusOr<Value> DropoutBackward(Value grad, Value mask, Value scale) {
  const DType dtype = grad.shape().dtype;
  TXLA_ASSIGN_OR_RETURN(Value m, MakeConvert(std::move(mask), dtype));
  TXLA_ASSIGN_OR_RETURN(m, MakeBroadcastTo(std::move(m), grad.shape().dims));
  TXLA_ASSIGN_OR_RETURN(m, WithParam(OpKind::kMultiply, std::move(m),
                                     std::move(scale)));
  return Apply(OpKind::kMultiply, std::move(grad), std::move(m));
}

absl::StatusOr<Value> Randperm(Value seed, int64_t n, DType dtype) {
  if (n < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("randperm: n must be non-negative, got ", n));
  }
  if (n <= 1) {
    TXLA_ASSIGN_OR_RETURN(Value iota, Iota(DType::kI64, {n}, 0));
    return MakeConvert(std::move(iota), dtype);
  }
  // Stable, so equal keys keep index order: the same permutation as sorting
  // (key << 32 | index).
  TXLA_ASSIGN_OR_RETURN(Value keys,
                        RandomBits(std::move(seed), DType::kU32, {n}));
  TXLA_ASSIGN_OR_RETURN(auto sorted, SortAlong(std::move(keys), 0, false));
  return MakeConvert(std::move(sorted.second), dtype);
}

namespace {

// probs as [rows, n] weights in the compute type.
absl::StatusOr<Value> Weights(Value probs) {
  const std::vector<int64_t>& dims = probs.shape().dims;
  if ((dims.size() != 1 && dims.size() != 2) ||
      !IsFloating(probs.shape().dtype) || dims.back() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "multinomial: expected float probabilities [n] or [rows, n] with "
        "n > 0, got ", probs.shape().ToString()));
  }
  const int64_t rows = dims.size() == 2 ? dims[0] : 1;
  const int64_t n = dims.back();
  const DType cc = RandomComputeType(probs.shape().dtype);
  TXLA_ASSIGN_OR_RETURN(Value w, MakeConvert(std::move(probs), cc));
  return MakeReshape(std::move(w), {rows, n});
}

}  // namespace

absl::StatusOr<Value> Multinomial(Value seed, Value probs,
                                  int64_t num_samples, bool replacement) {
  std::vector<int64_t> out_dims = probs.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value weights, Weights(std::move(probs)));
  const int64_t rows = weights.shape().dims[0];
  const int64_t n = weights.shape().dims[1];
  if (num_samples <= 0 || (!replacement && num_samples > n)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "multinomial: cannot draw ", num_samples, " samples from ", n,
        replacement ? " categories" : " categories without replacement"));
  }
  out_dims.back() = num_samples;
  const DType cc = weights.shape().dtype;
  Value index;
  if (replacement) {
    TXLA_ASSIGN_OR_RETURN(Value cdf, PrefixSum(std::move(weights), 1));
    TXLA_ASSIGN_OR_RETURN(Value total, MakeSliceDim(cdf, 1, n - 1, n));
    const std::vector<int64_t> draws = {rows, num_samples};
    const std::vector<int64_t> pair = {rows, num_samples, n};
    TXLA_ASSIGN_OR_RETURN(Value u, Uniform01(std::move(seed), draws, cc));
    TXLA_ASSIGN_OR_RETURN(total, MakeBroadcastTo(std::move(total), draws));
    TXLA_ASSIGN_OR_RETURN(Value point, Apply(OpKind::kMultiply, std::move(u),
                                             std::move(total)));
    TXLA_ASSIGN_OR_RETURN(Value cdf_wide,
                          BroadcastInDim(std::move(cdf), pair, {0, 2}));
    TXLA_ASSIGN_OR_RETURN(Value point_wide,
                          BroadcastInDim(std::move(point), pair, {0, 1}));
    TXLA_ASSIGN_OR_RETURN(Value below, Compare(std::move(cdf_wide),
                                               std::move(point_wide), "LE"));
    TXLA_ASSIGN_OR_RETURN(Value counts, MakeConvert(std::move(below),
                                                    DType::kI64));
    TXLA_ASSIGN_OR_RETURN(index,
                          MakeReduce(std::move(counts), {2}, "sum", false));
    // Rounding can put the point at the total: stay on the last category.
    TXLA_ASSIGN_OR_RETURN(index, WithLiteral(OpKind::kMinimum,
                                             std::move(index),
                                             static_cast<double>(n - 1)));
  } else {
    // The Gumbel top-k trick: the num_samples largest log(p) + Gumbel noise.
    TXLA_ASSIGN_OR_RETURN(Value u, OpenUniform(std::move(seed), {rows, n}, cc));
    TXLA_ASSIGN_OR_RETURN(Value g, Apply(OpKind::kLog, std::move(u)));
    TXLA_ASSIGN_OR_RETURN(g, Apply(OpKind::kNegate, std::move(g)));
    TXLA_ASSIGN_OR_RETURN(g, Apply(OpKind::kLog, std::move(g)));
    TXLA_ASSIGN_OR_RETURN(g, Apply(OpKind::kNegate, std::move(g)));
    TXLA_ASSIGN_OR_RETURN(Value log_w, Apply(OpKind::kLog, std::move(weights)));
    TXLA_ASSIGN_OR_RETURN(Value keys, Apply(OpKind::kAdd, std::move(log_w),
                                            std::move(g)));
    TXLA_ASSIGN_OR_RETURN(auto top,
                          SortFirst(std::move(keys), 1, num_samples, true));
    index = std::move(top.second);
  }
  return MakeReshape(std::move(index), out_dims);
}

absl::StatusOr<std::vector<std::pair<Value, std::string>>> MultinomialChecks(
    Value probs, bool drawing_repeatedly) {
  static constexpr char kInvalid[] = "invalid multinomial distribution ";
  std::vector<std::pair<Value, std::string>> checks;
  TXLA_ASSIGN_OR_RETURN(Value negative, Negative(probs));
  TXLA_ASSIGN_OR_RETURN(Value not_finite, NotFinite(probs));
  if (drawing_repeatedly) {
    TXLA_ASSIGN_OR_RETURN(Value bad, AnyOf(std::move(negative)));
    checks.emplace_back(std::move(bad),
                        absl::StrCat(kInvalid,
                                     "(encountering probability entry < 0)"));
    TXLA_ASSIGN_OR_RETURN(bad, AnyOf(std::move(not_finite)));
    checks.emplace_back(
        std::move(bad),
        absl::StrCat(kInvalid,
                     "(encountering probability entry = infinity or NaN)"));
  } else {
    TXLA_ASSIGN_OR_RETURN(Value either, Apply(OpKind::kOr, std::move(negative),
                                              std::move(not_finite)));
    TXLA_ASSIGN_OR_RETURN(Value bad, AnyOf(std::move(either)));
    checks.emplace_back(std::move(bad),
                        "probability tensor contains either `inf`, `nan` or "
                        "element < 0");
  }
  TXLA_ASSIGN_OR_RETURN(Value weights, Weights(std::move(probs)));
  TXLA_ASSIGN_OR_RETURN(Value total,
                        MakeReduce(std::move(weights), {1}, "sum", false));
  TXLA_ASSIGN_OR_RETURN(Value zero, LiteralLike(0, total));
  TXLA_ASSIGN_OR_RETURN(Value empty, Compare(std::move(total),
                                             std::move(zero), "EQ"));
  TXLA_ASSIGN_OR_RETURN(Value bad, AnyOf(std::move(empty)));
  checks.emplace_back(std::move(bad),
                      absl::StrCat(kInvalid, "(sum of probabilities <= 0)"));
  return checks;
}

absl::StatusOr<Value> NormalOf(Value seed, DType dtype, Value mean, Value std,
                               Value std_number, DType mul_type,
                               DType add_type) {
  std::vector<const std::vector<int64_t>*> shapes = {&mean.shape().dims};
  if (std) shapes.push_back(&std.shape().dims);
  TXLA_ASSIGN_OR_RETURN(std::vector<int64_t> dims, BroadcastDims(shapes));
  TXLA_ASSIGN_OR_RETURN(Value out, Draw(Distribution::kNormal, std::move(seed),
                                        Shape(dtype, dims),
                                        std::move(std_number), Value()));
  // `out` op `operand` in `type`, rounded to dtype (eager's in-place step).
  auto step = [&](OpKind kind, Value operand,
                  DType type) -> absl::StatusOr<Value> {
    TXLA_ASSIGN_OR_RETURN(Value a, MakeConvert(std::move(out), type));
    TXLA_ASSIGN_OR_RETURN(Value b, MakeConvert(std::move(operand), type));
    TXLA_ASSIGN_OR_RETURN(b, MakeBroadcastTo(std::move(b), dims));
    TXLA_ASSIGN_OR_RETURN(Value r, Apply(kind, std::move(a), std::move(b)));
    return MakeConvert(std::move(r), dtype);
  };
  if (std) {
    TXLA_ASSIGN_OR_RETURN(out, step(OpKind::kMultiply, std::move(std),
                                    mul_type));
  }
  return step(OpKind::kAdd, std::move(mean), add_type);
}

absl::StatusOr<Value> AnyNegativeStd(Value std) {
  const std::vector<int64_t> dims = std.shape().dims;
  TXLA_ASSIGN_OR_RETURN(Value zero, MakeLiteral(0.0, std.shape().dtype, dims));
  TXLA_ASSIGN_OR_RETURN(Value at_least,
                        Compare(std::move(std), std::move(zero), "GE"));
  TXLA_ASSIGN_OR_RETURN(Value bad, Apply(OpKind::kNot, std::move(at_least)));
  if (dims.empty()) return bad;
  return MakeReduce(std::move(bad), Range(0, dims.size()), "or", false);
}

}  // namespace torch_xla::ops
