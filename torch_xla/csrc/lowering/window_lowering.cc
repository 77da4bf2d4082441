// Lowerings: reduce_window and select_and_scatter. Init values and the
// reducer / selector bodies follow from "kind" and the element types (see
// ir/window_shape_rules.cc). Default-valued window attributes are omitted.

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/mlir_text.h"
#include "torch_xla/csrc/lowering/scalar_ops.h"

namespace torch_xla {
namespace {

using Dims = std::vector<int64_t>;

// The largest (or lowest) value of `dtype`, as a constant "value" attribute.
AttrValue Extreme(DType dtype, bool largest) {
  const double inf = std::numeric_limits<double>::infinity();
  if (IsFloating(dtype)) return AttrValue(largest ? inf : -inf);
  switch (dtype) {
    case DType::kI8: return AttrValue(int64_t{largest ? 127 : -128});
    case DType::kI16: return AttrValue(int64_t{largest ? 32767 : -32768});
    case DType::kI32:
      return AttrValue(int64_t{largest ? std::numeric_limits<int32_t>::max()
                                       : std::numeric_limits<int32_t>::min()});
    case DType::kI64:
      return AttrValue(largest ? std::numeric_limits<int64_t>::max()
                               : std::numeric_limits<int64_t>::min());
    case DType::kU8: return AttrValue(int64_t{largest ? 255 : 0});
    case DType::kU32: return AttrValue(int64_t{largest ? 0xFFFFFFFFll : 0});
    default: return AttrValue(int64_t{largest ? -1 : 0});  // u64: all ones
  }
}

AttrValue InitValue(absl::string_view kind, DType dtype) {
  if (kind == "sum") return IsFloating(dtype) ? AttrValue(0.0)
                                              : AttrValue(int64_t{0});
  return Extreme(dtype, /*largest=*/kind == "min");
}

absl::StatusOr<std::string> WindowAttrs(const Node& node) {
  TXLA_ASSIGN_OR_RETURN(const Dims* window, node.GetAttr<Dims>("window"));
  TXLA_ASSIGN_OR_RETURN(const Dims* base_dilation,
                        node.GetOptionalAttr<Dims>("base_dilation"));
  TXLA_ASSIGN_OR_RETURN(const Dims* win_dilation,
                        node.GetOptionalAttr<Dims>("win_dilation"));
  TXLA_ASSIGN_OR_RETURN(const Dims* strides,
                        node.GetOptionalAttr<Dims>("strides"));
  const Dims zeros(window->size(), 0);
  TXLA_ASSIGN_OR_RETURN(const Dims lo, node.GetAttrOr<Dims>("pad_lo", zeros));
  TXLA_ASSIGN_OR_RETURN(const Dims hi, node.GetAttrOr<Dims>("pad_hi", zeros));
  std::vector<std::string> f;
  AppendI64ArrayField("base_dilations", base_dilation, 1, &f);
  std::vector<std::string> pairs;
  bool any = false;
  for (size_t i = 0; i < window->size(); ++i) {
    any |= lo[i] != 0 || hi[i] != 0;
    pairs.push_back(absl::StrCat("[", lo[i], ", ", hi[i], "]"));
  }
  if (any) {
    f.push_back(absl::StrCat("padding = dense<[", absl::StrJoin(pairs, ", "),
                             "]> : tensor<", window->size(), "x2xi64>"));
  }
  f.push_back(absl::StrCat("window_dimensions = ", I64Array(*window)));
  AppendI64ArrayField("window_dilations", win_dilation, 1, &f);
  AppendI64ArrayField("window_strides", strides, 1, &f);
  return absl::StrCat("{", absl::StrJoin(f, ", "), "}");
}

// (a, ia) vs (b, ib) -> the winner: the larger value, the smaller index on a
// tie; a NaN beats numbers, and the later of two NaNs wins. A total order,
// so the reduction is associative and commutative.
void EmitArgmaxBody(MlirEmitter& r, DType value, DType index) {
  const std::string vt = ScalarOps::Type(value), it = ScalarOps::Type(index);
  std::vector<std::string> args = r.EmitBlockHeader({vt, it, vt, it});
  r.Indent(2);
  ScalarOps s(r);
  const std::string &a = args[0], &ia = args[1], &b = args[2], &ib = args[3];
  std::string take_b =
      s.Or(s.Compare(b, a, "GT", value),
           s.And(s.Compare(b, a, "EQ", value), s.Compare(ib, ia, "LT", index)));
  if (IsFloating(value)) {
    const std::string nan_a = s.IsNan(a, value);
    take_b = s.Or(take_b, s.And(s.IsNan(b, value),
                                s.Or(s.Not(nan_a),
                                     s.Compare(ib, ia, "GT", index))));
  }
  r.EmitReturn({s.Select(take_b, b, a, value), s.Select(take_b, ib, ia, index)},
               {vt, it});
  r.Indent(-2);
}

absl::Status LowerReduceWindow(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const std::string* kind_attr,
                        node.GetAttr<std::string>("kind"));
  const std::string& kind = *kind_attr;
  TXLA_ASSIGN_OR_RETURN(std::string window, WindowAttrs(node));
  const DType dtype = node.operand(0).shape().dtype;
  const Shape scalar(dtype, {});
  std::vector<std::string> operands = e.OperandRefs(node);
  std::vector<std::string> types = MlirEmitter::OperandTypes(node);
  TXLA_ASSIGN_OR_RETURN(std::string init,
                        e.EmitSplatConstant(InitValue(kind, dtype), scalar));
  operands.push_back(init);
  types.push_back(scalar.ToMlirType());
  MlirEmitter::RegionFn body;
  if (kind == "argmax") {
    const DType index = node.operand(1).shape().dtype;
    const Shape index_scalar(index, {});
    TXLA_ASSIGN_OR_RETURN(
        std::string index_init,
        e.EmitSplatConstant(Extreme(index, /*largest=*/true), index_scalar));
    // Operands are (values, indices, value init, index init).
    operands.push_back(index_init);
    types.push_back(index_scalar.ToMlirType());
    body = [dtype, index](MlirEmitter& r) {
      EmitArgmaxBody(r, dtype, index);
      return absl::OkStatus();
    };
  } else {
    const absl::string_view op = kind == "sum"   ? "stablehlo.add"
                                 : kind == "max" ? "stablehlo.maximum"
                                                 : "stablehlo.minimum";
    body = [op, dtype](MlirEmitter& r) {
      r.EmitScalarBinaryRegion(op, dtype);
      return absl::OkStatus();
    };
  }
  TXLA_ASSIGN_OR_RETURN(
      std::string name,
      e.EmitOp("stablehlo.reduce_window", operands, types, window,
               MlirEmitter::ResultTypes(node), {body}));
  e.Bind(&node, std::move(name));
  return absl::OkStatus();
}

absl::Status LowerSelectAndScatter(const Node& node, MlirEmitter& e) {
  TXLA_ASSIGN_OR_RETURN(const std::string* kind,
                        node.GetAttr<std::string>("kind"));
  const bool max = *kind == "max";
  TXLA_ASSIGN_OR_RETURN(std::string window, WindowAttrs(node));
  const DType dtype = node.shape().dtype;
  const Shape scalar(dtype, {});
  TXLA_ASSIGN_OR_RETURN(std::string zero,
                        e.EmitSplatConstant(InitValue("sum", dtype), scalar));
  // select(a, b): keep the current pick a unless b is strictly better or a
  // NaN (first extreme, last NaN; windows are visited in order).
  MlirEmitter::RegionFn select = [max, dtype](MlirEmitter& r) {
    const std::string t = ScalarOps::Type(dtype);
    std::vector<std::string> args = r.EmitBlockHeader({t, t});
    r.Indent(2);
    ScalarOps s(r);
    std::string better_b = s.Compare(args[1], args[0], max ? "GT" : "LT", dtype);
    if (IsFloating(dtype)) better_b = s.Or(better_b, s.IsNan(args[1], dtype));
    r.EmitReturn({s.Not(better_b)}, {ScalarOps::Type(DType::kBool)});
    r.Indent(-2);
    return absl::OkStatus();
  };
  MlirEmitter::RegionFn scatter = [dtype](MlirEmitter& r) {
    r.EmitScalarBinaryRegion("stablehlo.add", dtype);
    return absl::OkStatus();
  };
  std::vector<std::string> operands = e.OperandRefs(node);
  std::vector<std::string> types = MlirEmitter::OperandTypes(node);
  operands.push_back(zero);
  types.push_back(scalar.ToMlirType());
  TXLA_ASSIGN_OR_RETURN(
      std::string name,
      e.EmitOp("stablehlo.select_and_scatter", operands, types, window,
               MlirEmitter::ResultTypes(node), {select, scatter}));
  e.Bind(&node, std::move(name));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterWindowLowerings(LowerRuleTable* table) {
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kReduceWindow, &LowerReduceWindow));
  TXLA_RETURN_IF_ERROR(
      table->Register(OpKind::kSelectAndScatter, &LowerSelectAndScatter));
  return absl::OkStatus();
}

}  // namespace torch_xla
