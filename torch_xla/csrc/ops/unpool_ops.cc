#include "torch_xla/csrc/ops/unpool_ops.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_util.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/ir/value_builders.h"
#include "torch_xla/csrc/ops/scatter_ops.h"

namespace torch_xla::ops {

absl::StatusOr<Value> MaxUnpool(Value x, Value indices,
                                const std::vector<int64_t>& output_size) {
  const std::vector<int64_t> dims = x.shape().dims;
  const int64_t nsp = static_cast<int64_t>(output_size.size());
  if (static_cast<int64_t>(dims.size()) < nsp ||
      indices.shape().dims != dims) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_unpool: x ", x.shape().ToString(), " and indices ",
        indices.shape().ToString(), " must have one shape with at least ",
        nsp, " spatial dims"));
  }
  // [lead..., plane]: the planes flattened, input and output alike.
  std::vector<int64_t> lead(dims.begin(), dims.end() - nsp);
  std::vector<int64_t> in_flat = lead, out_flat = lead, out_dims = lead;
  in_flat.push_back(NumElements(
      std::vector<int64_t>(dims.end() - nsp, dims.end())));
  out_flat.push_back(NumElements(output_size));
  out_dims.insert(out_dims.end(), output_size.begin(), output_size.end());
  TXLA_ASSIGN_OR_RETURN(Value zeros,
                        MakeLiteral(0, x.shape().dtype, out_flat));
  if (NumElements(out_flat) == 0 || NumElements(in_flat) == 0) {
    return MakeReshape(std::move(zeros), out_dims);
  }
  TXLA_ASSIGN_OR_RETURN(Value src, MakeReshape(std::move(x), in_flat));
  TXLA_ASSIGN_OR_RETURN(Value index, MakeReshape(std::move(indices), in_flat));
  TXLA_ASSIGN_OR_RETURN(
      Value out,
      ScatterAlongDim(std::move(zeros), static_cast<int64_t>(lead.size()),
                      std::move(index), std::move(src),
                      /*broadcast_src=*/false, /*add=*/false));
  return MakeReshape(std::move(out), out_dims);
}

}  // namespace torch_xla::ops
