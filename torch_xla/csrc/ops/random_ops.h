#ifndef TORCH_XLA_CSRC_OPS_RANDOM_OPS_H_
#define TORCH_XLA_CSRC_OPS_RANDOM_OPS_H_

// Random draws on the device from a seed (a u64 0-d value: a fresh scalar
// parameter per op, or a seed computed in a traced loop body), so a new
// seed changes no IR. The seed becomes the u64[2] state [seed, kStream] of
// rng_bit_generator (THREE_FRY, the same bits on every backend); the bits
// are mapped to values:
//
//   uniform [0, 1)  random mantissa bits under the exponent of 1.0 give a
//                   float in [1, 2); subtract 1. Only as many bits as the
//                   target dtype's mantissa are used, so the value is exact
//                   in bf16/f16 too (computed in f32).
//   normal          Box-Muller on pairs of uniforms (cos and sin branches).
//   others          transforms of those (exp of a normal, inverse CDFs).
//   integers        64 random bits modulo the range (bias <= range / 2^64).
//   permutations    indices sorted by random 32-bit keys (one stable sort).
//
// Floats are computed in f64 for f64 results, else in f32, and rounded
// once. User values (bounds, p, mean, std, ...) come in as 0-d values of
// that compute type (scalar parameters: a new value does not recompile).
// The callers (torch_xla/_ops/random_ops.py and random_sampling.py through
// _XLAC._random, _dropout, _randperm, _multinomial: one call per op) draw
// the seed and raise eager's errors for bad arguments.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "torch_xla/csrc/ir/node.h"

namespace torch_xla::ops {

// f64 for an f64 target, else f32.
DType RandomComputeType(DType target);

// Random `bits` (u32 or u64) of `dims` from `seed`.
absl::StatusOr<Value> RandomBits(Value seed, DType bits,
                                 const std::vector<int64_t>& dims);

// Values in [0, 1) of RandomComputeType(target), exact in `target`.
absl::StatusOr<Value> Uniform01(Value seed, const std::vector<int64_t>& dims,
                                DType target);

// The continuous draws filling a float tensor, with their parameters `a`
// and `b` (0-d, RandomComputeType(dtype)); a null parameter is the identity:
//   kUniform      u * a + b            (a = to - from, b = from)
//   kNormal       z * a + b            (a = std, b = mean)
//   kExponential  -log(1 - u) / a      (a = lambda)
//   kLogNormal    exp(z * a + b)       (a = std, b = mean)
//   kCauchy       b + a tan(pi (u' - 1/2)), u' in (0, 1)  (a = sigma,
//                                                          b = median)
//   kGeometric    floor(log(1 - u) / a) + 1  (a = log(1 - p)); any
//                                            numeric dtype
enum class Distribution {
  kUniform,
  kNormal,
  kExponential,
  kLogNormal,
  kCauchy,
  kGeometric,
};
absl::StatusOr<Distribution> DistributionFromName(const std::string& name);

absl::StatusOr<Value> Draw(Distribution distribution, Value seed,
                           const Shape& shape, Value a, Value b);

// torch.normal(mean, std) with a tensor mean or std, as eager's normal_out
// computes it into a tensor of `dtype` (mean's, else std's): a normal draw
// (times `std_number`, a 0-d RandomComputeType(dtype) parameter, when std
// is a number; null for 1), then times a tensor `std` (null for a number)
// in `mul_type`, then plus `mean` (a tensor, or a 0-d parameter for a
// number) in `add_type`, each step rounded to `dtype`. The shape is mean's
// and std's broadcast (eager's error when they do not broadcast).
absl::StatusOr<Value> NormalOf(Value seed, DType dtype, Value mean, Value std,
                               Value std_number, DType mul_type,
                               DType add_type);

// Eager's check of normal's tensor std: a pred 0-d value, true when some
// element is not >= 0 (NaN included).
absl::StatusOr<Value> AnyNegativeStd(Value std);

// u < p as `dtype`; `p` (a float dtype: the compare runs at its
// resolution) is 0-d or broadcasts to `dims`.
absl::StatusOr<Value> Bernoulli(Value seed, const std::vector<int64_t>& dims,
                                DType dtype, Value p);

// Integers in [from, from + span) as `dtype`: `span` a u64 0-d value (null
// for the whole 2^64), `from` an s64 0-d value.
absl::StatusOr<Value> RandomInteger(Value seed, const Shape& shape,
                                    Value span, Value from);

// native_dropout: {x * mask * scale, mask} with mask (pred) = u < keep;
// `keep` a 0-d RandomComputeType(x) value, `scale` a 0-d value of x's dtype.
absl::StatusOr<std::pair<Value, Value>> Dropout(Value seed, Value x,
                                                Value keep, Value scale);

// native_dropout_backward: grad * mask * scale (`scale` 0-d, grad's dtype).
absl::StatusOr<Value> DropoutBackward(Value grad, Value mask, Value scale);

// A random permutation of 0 .. n - 1 as `dtype`.
absl::StatusOr<Value> Randperm(Value seed, int64_t n, DType dtype);

// multinomial of the float `probs` ([n] or [rows, n]): s64 category
// indices [..., num_samples]. With replacement each draw inverts the row's
// cumulative weights at a uniform point; without, the num_samples largest
// of log(p) + Gumbel noise (exactly sampling without replacement).
absl::StatusOr<Value> Multinomial(Value seed, Value probs,
                                  int64_t num_samples, bool replacement);

// Eager's value checks of multinomial's weights, in its order: pred 0-d
// values, true when the check fails, with eager CPU's message. Its
// repeated-draw path (replacement and num_samples > 1) checks entries < 0
// and non-finite ones separately, the others together; then a row may not
// sum to 0.
absl::StatusOr<std::vector<std::pair<Value, std::string>>> MultinomialChecks(
    Value probs, bool drawing_repeatedly);

}  // namespace torch_xla::ops

#endif  // TORCH_XLA_CSRC_OPS_RANDOM_OPS_H_
