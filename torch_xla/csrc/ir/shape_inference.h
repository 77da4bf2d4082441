#ifndef TORCH_XLA_CSRC_IR_SHAPE_INFERENCE_H_
#define TORCH_XLA_CSRC_IR_SHAPE_INFERENCE_H_

// The shape half of the op rule table: {kind -> shape_fn}. A shape function
// checks a node's operands and attributes when the node is built and returns
// its result shapes, or InvalidArgument naming the op, the operand shapes and
// what was expected. (The lowering half, {kind -> lower_fn}, lives in
// lowering/lower_rules.h; a test checks every OpKind has both.)
//
// Tables are filled by explicit RegisterXxxShapeRules calls; there are no
// static registration objects.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/attrs.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/op_kind.h"
#include "torch_xla/csrc/ir/rule_table.h"
#include "torch_xla/csrc/ir/shape.h"

namespace torch_xla {

// What a shape function sees of a node under construction. Attribute reads
// are recorded so that the builder can reject attributes no rule asked for
// (typos such as "dim" for "dims").
class ShapeRuleArgs {
 public:
  ShapeRuleArgs(OpKind kind, absl::Span<const Value> operands,
                const Attrs& attrs)
      : kind_(kind), operands_(operands), attrs_(attrs) {}

  OpKind kind() const { return kind_; }
  absl::string_view op() const { return OpKindName(kind_); }
  size_t num_operands() const { return operands_.size(); }
  absl::Span<const Value> operands() const { return operands_; }
  const Shape& shape(size_t i) const { return operands_[i].shape(); }
  const Attrs& attrs() const { return attrs_; }

  // A required attribute of type T.
  template <typename T>
  absl::StatusOr<const T*> Get(absl::string_view name) const {
    const AttrValue* v = Lookup(name);
    if (v == nullptr) {
      return Error(absl::StrCat("missing attribute '", name, "' (",
                                AttrTypeName<T>(), ")"));
    }
    return As<T>(name, *v);
  }
  // An optional attribute of type T: nullptr when absent.
  template <typename T>
  absl::StatusOr<const T*> GetOptional(absl::string_view name) const {
    const AttrValue* v = Lookup(name);
    if (v == nullptr) return static_cast<const T*>(nullptr);
    return As<T>(name, *v);
  }
  // An optional attribute of type T with a default.
  template <typename T>
  absl::StatusOr<T> GetOr(absl::string_view name, T default_value) const {
    const AttrValue* v = Lookup(name);
    if (v == nullptr) return default_value;
    absl::StatusOr<const T*> typed = As<T>(name, *v);
    if (!typed.ok()) return typed.status();
    return **typed;
  }

  // An attribute of any type (nullptr when absent).
  const AttrValue* GetAny(absl::string_view name) const {
    return Lookup(name);
  }

  // InvalidArgument "<op>: <message>".
  absl::Status Error(absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(op(), ": ", message));
  }
  // Checks the operand count; the message lists the operand shapes.
  absl::Status ExpectNumOperands(size_t n) const;
  // "f32[2,3], s64[]": the operand shapes, for messages.
  std::string OperandShapes() const;

  // Bit i set: attribute i was read.
  uint64_t used_attrs() const { return used_; }

 private:
  const AttrValue* Lookup(absl::string_view name) const {
    for (size_t i = 0; i < attrs_.size(); ++i) {
      if (attrs_[i].name == name) {
        if (i < 64) used_ |= uint64_t{1} << i;
        return &attrs_[i].value;
      }
    }
    return nullptr;
  }
  template <typename T>
  absl::StatusOr<const T*> As(absl::string_view name,
                              const AttrValue& v) const {
    const T* typed = std::get_if<T>(&v);
    if (typed == nullptr) {
      return Error(absl::StrCat("attribute '", name, "' must be ",
                                AttrTypeName<T>(), ", got ", AttrTypeName(v),
                                " ", AttrValueToString(v)));
    }
    return typed;
  }

  OpKind kind_;
  absl::Span<const Value> operands_;
  const Attrs& attrs_;
  mutable uint64_t used_ = 0;
};

using ShapeFn = absl::StatusOr<std::vector<Shape>> (*)(const ShapeRuleArgs&);

// {kind -> shape_fn}.
class ShapeRuleTable : public RuleTable<ShapeFn> {
 public:
  ShapeRuleTable() : RuleTable("shape rule") {}
};

// The table used by MakeNode: every Register*ShapeRules below, built once.
const ShapeRuleTable& DefaultShapeRules();

absl::Status RegisterLeafShapeRules(ShapeRuleTable* table);
absl::Status RegisterElementwiseShapeRules(ShapeRuleTable* table);
absl::Status RegisterDataMovementShapeRules(ShapeRuleTable* table);
absl::Status RegisterReduceShapeRules(ShapeRuleTable* table);
absl::Status RegisterDotShapeRules(ShapeRuleTable* table);
absl::Status RegisterGatherScatterShapeRules(ShapeRuleTable* table);
absl::Status RegisterControlShapeRules(ShapeRuleTable* table);
absl::Status RegisterRandomShapeRules(ShapeRuleTable* table);
absl::Status RegisterSortShapeRules(ShapeRuleTable* table);
absl::Status RegisterConvolutionShapeRules(ShapeRuleTable* table);
absl::Status RegisterWindowShapeRules(ShapeRuleTable* table);
absl::Status RegisterCallShapeRules(ShapeRuleTable* table);
absl::Status RegisterCollectiveShapeRules(ShapeRuleTable* table);

// Helpers shared by the rule files.

// A one-element result list. (`Shapes{shape}` would copy the shape out of
// an initializer_list: one more allocation per node.)
inline std::vector<Shape> SingleShape(Shape shape) {
  std::vector<Shape> shapes;
  shapes.push_back(std::move(shape));
  return shapes;
}

// "[0,1]".
std::string DimsToString(absl::Span<const int64_t> dims);
// Each dim in [0, rank) and no repeats; `what` names the attribute, `owner`
// and `owner_shape` (optional) what the dims index ("lhs", f32[2,3]).
absl::Status CheckDimIndices(const ShapeRuleArgs& args, absl::string_view what,
                             absl::Span<const int64_t> dims, int64_t rank,
                             absl::string_view owner,
                             const Shape* owner_shape = nullptr);
// Sizes >= 0.
absl::Status CheckDimSizes(const ShapeRuleArgs& args, absl::string_view what,
                           absl::Span<const int64_t> dims);
// The element type of a contraction (dot_general, convolution): the optional
// preferred "dtype" (e.g. f32 for bf16 operands), which must be of the
// operands' kind, else the operands' own.
absl::StatusOr<DType> ContractionDType(const ShapeRuleArgs& args,
                                       DType operands,
                                       const DType* preferred);

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_IR_SHAPE_INFERENCE_H_
