#ifndef TORCH_XLA_CSRC_LOWERING_EMITTER_H_
#define TORCH_XLA_CSRC_LOWERING_EMITTER_H_

// MlirEmitter writes the body of one func.func, and the regions nested in it,
// as MLIR generic-form text ("stablehlo.op"(operands) {attrs} : type).
//
// It owns SSA numbering (a single counter, so names are unique across nested
// regions, as MLIR requires for regions that are not isolated from above)
// and a stack of scopes mapping IR nodes to SSA names. A region only sees
// its own scope, so a sub-graph can never name an outer value. It writes
// into a string owned by the caller; it does not own the graph.

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "torch_xla/csrc/ir/attrs.h"
#include "torch_xla/csrc/ir/node.h"
#include "torch_xla/csrc/ir/subgraph.h"
#include "torch_xla/csrc/lowering/lower_rules.h"

namespace torch_xla {

class MlirEmitter {
 public:
  // Writes region contents: block header, ops and the terminator.
  using RegionFn = std::function<absl::Status(MlirEmitter&)>;

  MlirEmitter(const LowerRuleTable& rules, std::string* out, int indent);
  MlirEmitter(const MlirEmitter&) = delete;
  MlirEmitter& operator=(const MlirEmitter&) = delete;

  // --- Names and scopes.
  std::string NewName();  // "%7"
  void PushScope();
  void PopScope();
  // Binds all results of `node` in the current scope: `name` is the op's
  // result name; output i of a multi-result node is `name#i`.
  void Bind(const Node* node, std::string name);
  bool IsBound(const Node* node) const;
  // Binds output i of `node` to names[i] (results that no single op made,
  // e.g. an inlined call).
  void BindOutputs(const Node* node, std::vector<std::string> names);
  // SSA reference of a value bound in the current scope.
  std::string Ref(const Value& value) const;

  // --- Node helpers for lower functions.
  std::vector<std::string> OperandRefs(const Node& node) const;
  static std::vector<std::string> OperandTypes(const Node& node);
  static std::vector<std::string> ResultTypes(const Node& node);
  // Emits `node` as one op over its operands and results and binds it.
  // `attrs` is the attribute dictionary ("{a = 1}") or empty.
  void EmitNodeOp(const Node& node, absl::string_view op,
                  absl::string_view attrs = "");

  // --- Ops.
  // Emits `%r = "op"(operands) ({regions}) attrs : (types) -> types` and
  // returns the result name ("" when there are no results).
  absl::StatusOr<std::string> EmitOp(
      absl::string_view op, absl::Span<const std::string> operands,
      absl::Span<const std::string> operand_types, absl::string_view attrs,
      absl::Span<const std::string> result_types,
      absl::Span<const RegionFn> regions = {});
  // A splat constant; `value` as a constant node's "value" attribute.
  absl::StatusOr<std::string> EmitSplatConstant(const AttrValue& value,
                                                const Shape& shape);
  // `^bb0(%a: t, %b: t):` with fresh names, returned in order.
  std::vector<std::string> EmitBlockHeader(
      absl::Span<const std::string> arg_types);
  // `"stablehlo.return"(values) : (types) -> ()`.
  void EmitReturn(absl::Span<const std::string> values,
                  absl::Span<const std::string> types);
  // The body of a region that applies a scalar binary op to its two block
  // arguments (reduce / scatter combiners); empty `op` returns the second.
  void EmitScalarBinaryRegion(absl::string_view op, DType dtype);
  // A region lowering a sub-graph: block arguments are its parameters.
  absl::Status EmitSubGraphRegion(const SubGraph& graph);

  // --- Driving.
  // Lowers nodes (operands first) in the current scope; nodes already bound
  // (function arguments, block arguments) are skipped. Errors name the node.
  absl::Status LowerNodes(absl::Span<const Node* const> nodes);

  // Raw text: an indented line.
  void Line(absl::string_view text);
  // Shifts the indentation of the lines that follow (a block's body is
  // indented 2 past its ^bb0 header).
  void Indent(int delta) { indent_ += delta; }

 private:
  const LowerRuleTable& rules_;
  std::string* out_;
  int indent_;
  int64_t next_name_ = 0;
  std::vector<absl::flat_hash_map<const Node*, std::string>> scopes_;
  // BindOutputs: a node is bound to a key ("%outputs<n>") naming its list.
  absl::flat_hash_map<std::string, std::vector<std::string>> output_lists_;
};

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_LOWERING_EMITTER_H_
