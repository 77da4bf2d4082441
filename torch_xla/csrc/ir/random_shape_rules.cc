// Shape rules: rng_bit_generator(state) -> (new state, random bits).

#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/shape_inference.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {
namespace {

using Shapes = std::vector<Shape>;

absl::StatusOr<Shapes> RngBitGeneratorShape(const ShapeRuleArgs& args) {
  TXLA_RETURN_IF_ERROR(args.ExpectNumOperands(1));
  TXLA_ASSIGN_OR_RETURN(const DType* dtype, args.Get<DType>("dtype"));
  TXLA_ASSIGN_OR_RETURN(const std::vector<int64_t>* dims,
                        args.Get<std::vector<int64_t>>("dims"));
  TXLA_ASSIGN_OR_RETURN(const std::string* algorithm,
                        args.GetOptional<std::string>("algorithm"));
  TXLA_RETURN_IF_ERROR(CheckDimSizes(args, "dims", *dims));
  const Shape& state = args.shape(0);
  const bool philox = algorithm != nullptr && *algorithm == "PHILOX";
  if (algorithm != nullptr && !philox && *algorithm != "DEFAULT" &&
      *algorithm != "THREE_FRY") {
    return args.Error(absl::StrCat("algorithm '", *algorithm,
                                   "' is not one of DEFAULT, THREE_FRY, "
                                   "PHILOX"));
  }
  bool state_ok = state.dtype == DType::kU64 && state.rank() == 1 &&
                  (state.dims[0] == 2 || (philox && state.dims[0] == 3));
  if (!state_ok) {
    return args.Error(absl::StrCat("state is ", state.ToString(),
                                   "; expected u64[2]",
                                   philox ? " or u64[3]" : ""));
  }
  if (*dtype != DType::kU32 && *dtype != DType::kU64) {
    return args.Error(absl::StrCat("dtype ", DTypeName(*dtype),
                                   " must be u32 or u64 (convert the bits "
                                   "afterwards)"));
  }
  Shapes shapes;
  shapes.reserve(2);
  shapes.push_back(state);
  shapes.emplace_back(*dtype, *dims);
  return shapes;
}

}  // namespace

absl::Status RegisterRandomShapeRules(ShapeRuleTable* table) {
  return table->Register(OpKind::kRngBitGenerator, &RngBitGeneratorShape);
}

}  // namespace torch_xla
