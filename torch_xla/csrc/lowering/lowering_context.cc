#include "torch_xla/csrc/lowering/lowering_context.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "torch_xla/csrc/ir/graph_hash.h"
#include "torch_xla/csrc/ir/status_macros.h"
#include "torch_xla/csrc/lowering/emitter.h"
#include "torch_xla/csrc/lowering/lower_rules.h"
#include "torch_xla/csrc/lowering/mlir_text.h"
#include "torch_xla/csrc/rewrites/summed_dots.h"
#include "torch_xla/csrc/rewrites/update_order.h"

namespace torch_xla {

LoweringContext::LoweringContext(std::string name) : name_(std::move(name)) {}

absl::Status LoweringContext::Build(absl::Span<const Value> results) {
  built_ = false;
  results_.assign(results.begin(), results.end());
  parameters_.clear();
  param_index_.clear();
  packed_.clear();
  vector_params_.clear();
  aliases_.clear();
  donors_.clear();
  param_sharding_.clear();
  result_sharding_.clear();
  for (size_t i = 0; i < results_.size(); ++i) {
    const Value& r = results_[i];
    if (r.node == nullptr || r.index < 0 ||
        static_cast<size_t>(r.index) >= r.node->num_outputs()) {
      return absl::InvalidArgumentError(
          absl::StrCat("LoweringContext::Build: result ", i,
                       " is not a valid value"));
    }
  }
  const PostOrder order = ComputePostOrder(results_);
  std::map<DType, std::vector<DataPtr>> scalars;  // to pack, by dtype
  HashBuilder packed_hash;
  int64_t leaf_ordinal = 0;
  for (const Node* node : order.nodes) {
    if (node->kind() == OpKind::kParameter) {
      return absl::InvalidArgumentError(absl::StrCat(
          "LoweringContext::Build: the graph uses ", node->ToString(),
          " outside a sub-graph; parameter nodes belong to while cond/body "
          "sub-graphs (use data leaves for computation inputs)"));
    }
    if (node->kind() != OpKind::kDeviceData) continue;
    const DataPtr& data = node->data();
    if (param_index_.count(data->id()) || packed_.count(data->id())) continue;
    DataPtr scalar = packing_.scalar_of ? packing_.scalar_of(*data) : nullptr;
    if (scalar == nullptr) {
      param_index_.emplace(data->id(), parameters_.size());
      parameters_.push_back(data);
    } else {
      const DType dtype = scalar->shape().dtype;
      std::vector<DataPtr>& of_dtype = scalars[dtype];
      packed_[data->id()] = {dtype, static_cast<int64_t>(of_dtype.size())};
      of_dtype.push_back(std::move(scalar));
      packed_hash.Add(leaf_ordinal);  // which leaves are packed: the module
    }
    ++leaf_ordinal;
  }
  for (const auto& [dtype, elements] : scalars) {
    DataPtr vector = packing_.pack(dtype, elements);
    if (vector == nullptr ||
        vector->shape() != Shape(dtype, {static_cast<int64_t>(
                                            elements.size())})) {
      return absl::InternalError(
          "LoweringContext::Build: packing scalars gave no vector of them");
    }
    vector_params_[dtype] = static_cast<int64_t>(parameters_.size());
    parameters_.push_back(std::move(vector));
  }
  graph_hash_ = GraphHash(order, results_);
  if (!packed_.empty()) {  // a different module: a different key
    HashBuilder h(graph_hash_);
    h.Add(packed_hash.value());
    graph_hash_ = h.value();
  }
  // Sharded data (and placeholders declared sharded) tell the partitioner
  // how they arrive.
  for (size_t p = 0; p < parameters_.size(); ++p) {
    if (parameters_[p]->sharding() != nullptr) {
      param_sharding_[p] = parameters_[p]->sharding()->ToString();
    }
  }
  built_ = true;
  return absl::OkStatus();
}

int64_t LoweringContext::ParameterIndex(int64_t data_id) const {
  auto it = param_index_.find(data_id);
  return it == param_index_.end() ? -1 : it->second;
}

uint64_t LoweringContext::hash() const {
  if (aliases_.empty() && donors_.empty() && param_sharding_.empty() &&
      result_sharding_.empty()) {
    return graph_hash_;
  }
  HashBuilder h(graph_hash_);
  h.Add(aliases_.size());
  for (const auto& [p, r] : aliases_) h.Add(p).Add(r);
  h.Add(donors_.size());
  for (int64_t p : donors_) h.Add(p);
  h.Add(param_sharding_.size());
  for (const auto& [p, s] : param_sharding_) h.Add(p).AddString(s);
  h.Add(result_sharding_.size());
  for (const auto& [r, s] : result_sharding_) h.Add(r).AddString(s);
  return h.value();
}

absl::Status LoweringContext::CheckParam(int64_t param_index) const {
  if (!built_) {
    return absl::FailedPreconditionError("LoweringContext: call Build first");
  }
  if (param_index < 0 ||
      param_index >= static_cast<int64_t>(parameters_.size())) {
    return absl::OutOfRangeError(
        absl::StrCat("LoweringContext: parameter index ", param_index,
                     " is out of range (", parameters_.size(),
                     " parameters)"));
  }
  return absl::OkStatus();
}

absl::Status LoweringContext::CheckResult(int64_t result_index) const {
  if (!built_) {
    return absl::FailedPreconditionError("LoweringContext: call Build first");
  }
  if (result_index < 0 ||
      result_index >= static_cast<int64_t>(results_.size())) {
    return absl::OutOfRangeError(absl::StrCat(
        "LoweringContext: result index ", result_index,
        " is out of range (", results_.size(), " results)"));
  }
  return absl::OkStatus();
}

absl::Status LoweringContext::SetAlias(int64_t param_index,
                                       int64_t result_index) {
  TXLA_RETURN_IF_ERROR(CheckParam(param_index));
  TXLA_RETURN_IF_ERROR(CheckResult(result_index));
  const Shape& p = parameters_[param_index]->shape();
  const Shape& r = results_[result_index].shape();
  if (p != r) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoweringContext::SetAlias: parameter ", param_index, " ",
        p.ToString(), " cannot alias result ", result_index, " ",
        r.ToString(), ": shapes differ"));
  }
  auto it = aliases_.find(param_index);
  if (it != aliases_.end() && it->second != result_index) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoweringContext::SetAlias: parameter ", param_index,
        " already aliases result ", it->second));
  }
  for (const auto& [other_param, other_result] : aliases_) {
    if (other_result == result_index && other_param != param_index) {
      return absl::InvalidArgumentError(absl::StrCat(
          "LoweringContext::SetAlias: result ", result_index,
          " already aliases parameter ", other_param));
    }
  }
  aliases_[param_index] = result_index;
  return absl::OkStatus();
}

absl::Status LoweringContext::SetDonor(int64_t param_index) {
  TXLA_RETURN_IF_ERROR(CheckParam(param_index));
  donors_.insert(param_index);
  return absl::OkStatus();
}

absl::Status LoweringContext::SetParameterSharding(int64_t param_index,
                                                   std::string sharding) {
  TXLA_RETURN_IF_ERROR(CheckParam(param_index));
  param_sharding_[param_index] = std::move(sharding);
  return absl::OkStatus();
}

absl::Status LoweringContext::SetResultSharding(int64_t result_index,
                                                std::string sharding) {
  TXLA_RETURN_IF_ERROR(CheckResult(result_index));
  result_sharding_[result_index] = std::move(sharding);
  return absl::OkStatus();
}

absl::Status LoweringContext::LowerInPlaceUpdatesLast(
    const PostOrder& graph, absl::Span<const Value> results,
    MlirEmitter& emitter) const {
  std::vector<std::pair<int64_t, Value>> updates;
  for (const auto& [param, result] : aliases_) {
    updates.emplace_back(parameters_[param]->id(), results[result]);
  }
  const UpdateOrder order = OrderInPlaceUpdates(graph, results, updates);
  absl::flat_hash_map<const Node*, std::vector<const UpdateOrder::Barrier*>>
      barriers_before;
  for (const UpdateOrder::Barrier& barrier : order.barriers) {
    barriers_before[barrier.before].push_back(&barrier);
  }
  for (const Node* node : order.nodes) {
    auto it = barriers_before.find(node);
    if (it != barriers_before.end()) {
      for (const UpdateOrder::Barrier* barrier : it->second) {
        TXLA_RETURN_IF_ERROR(EmitUpdateBarrier(*barrier, emitter));
      }
    }
    TXLA_RETURN_IF_ERROR(emitter.LowerNodes({node}));
  }
  return absl::OkStatus();
}

// optimization_barrier(parameter, the other readers' results); from here on
// the parameter's leaves (read only by the update now) name its result 0.
absl::Status LoweringContext::EmitUpdateBarrier(
    const UpdateOrder::Barrier& barrier, MlirEmitter& emitter) const {
  const int64_t param = ParameterIndex(barrier.data_id);
  const std::string type = parameters_[param]->shape().ToMlirType();
  std::vector<std::string> operands = {absl::StrCat("%arg", param)};
  std::vector<std::string> types = {type};
  for (const Value& v : barrier.waits_for) {
    operands.push_back(emitter.Ref(v));
    types.push_back(v.shape().ToMlirType());
  }
  TXLA_ASSIGN_OR_RETURN(
      std::string name,
      emitter.EmitOp("stablehlo.optimization_barrier", operands, types, "",
                     types));
  for (const Node* leaf : barrier.leaves) {
    emitter.Bind(leaf, absl::StrCat(name, "#0"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> LoweringContext::HloText() const {
  if (!built_) {
    return absl::FailedPreconditionError("LoweringContext: call Build first");
  }
  // Signature.
  std::string out = absl::StrCat("module ", MlirSymbol(name_), " {\n");
  absl::StrAppend(&out, "  func.func public @main(");
  for (size_t i = 0; i < parameters_.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ", ", "%arg", i, ": ",
                    parameters_[i]->shape().ToMlirType());
    std::vector<std::string> attrs;
    auto alias = aliases_.find(i);
    if (alias != aliases_.end()) {
      attrs.push_back(
          absl::StrCat("tf.aliasing_output = ", alias->second, " : i32"));
    } else if (donors_.count(i) > 0) {
      attrs.push_back("jax.buffer_donor = true");
    }
    auto sharding = param_sharding_.find(i);
    if (sharding != param_sharding_.end()) {
      attrs.push_back(absl::StrCat("mhlo.sharding = ",
                                   MlirStringLiteral(sharding->second)));
    }
    if (!attrs.empty()) {
      absl::StrAppend(&out, " {", absl::StrJoin(attrs, ", "), "}");
    }
  }
  absl::StrAppend(&out, ") -> (");
  std::vector<std::string> result_types;
  for (size_t i = 0; i < results_.size(); ++i) {
    result_types.push_back(results_[i].shape().ToMlirType());
    absl::StrAppend(&out, i == 0 ? "" : ", ", result_types.back());
    auto sharding = result_sharding_.find(i);
    if (sharding != result_sharding_.end()) {
      absl::StrAppend(&out, " {mhlo.sharding = ",
                      MlirStringLiteral(sharding->second), "}");
    }
  }
  absl::StrAppend(&out, ") {\n");

  // Body: the graph with its sums of products folded (rewrites/summed_dots.h;
  // the same data leaves, so the same parameters). Not when partitioned: the
  // folded operands are concatenated along their batch dim, which SPMD
  // shards, and the partitioner would gather them.
  const bool partitioned =
      !param_sharding_.empty() || !result_sharding_.empty();
  std::vector<Value> results = results_;
  if (!partitioned) {
    TXLA_ASSIGN_OR_RETURN(results, FoldSummedDots(results_));
  }
  const PostOrder graph = ComputePostOrder(results);
  MlirEmitter emitter(DefaultLowerRules(), &out, /*indent=*/4);
  absl::flat_hash_map<int64_t, std::string> packed_names;  // data id -> SSA
  for (const Node* node : graph.nodes) {
    if (node->kind() != OpKind::kDeviceData) continue;
    const int64_t id = node->data()->id();
    auto packed = packed_.find(id);
    if (packed == packed_.end()) {
      emitter.Bind(node, absl::StrCat("%arg", ParameterIndex(id)));
      continue;
    }
    auto emitted = packed_names.find(id);
    if (emitted != packed_names.end()) {
      emitter.Bind(node, emitted->second);
      continue;
    }
    // Element k of the vector, reshaped to a scalar and broadcast to the
    // leaf's shape (a fill).
    const auto [dtype, k] = packed->second;
    const int64_t p = vector_params_.at(dtype);
    const Shape& vector = parameters_[p]->shape();
    const Shape one(vector.dtype, {1}), scalar(vector.dtype, {});
    TXLA_ASSIGN_OR_RETURN(
        std::string name,
        emitter.EmitOp("stablehlo.slice", {absl::StrCat("%arg", p)},
                       {vector.ToMlirType()},
                       absl::StrCat("{start_indices = array<i64: ", k,
                                    ">, limit_indices = array<i64: ", k + 1,
                                    ">, strides = array<i64: 1>}"),
                       {one.ToMlirType()}));
    TXLA_ASSIGN_OR_RETURN(
        name, emitter.EmitOp("stablehlo.reshape", {name}, {one.ToMlirType()},
                             "", {scalar.ToMlirType()}));
    if (node->shape(0) != scalar) {
      TXLA_ASSIGN_OR_RETURN(
          name, emitter.EmitOp("stablehlo.broadcast_in_dim", {name},
                               {scalar.ToMlirType()},
                               "{broadcast_dimensions = array<i64>}",
                               {node->shape(0).ToMlirType()}));
    }
    packed_names[id] = name;
    emitter.Bind(node, std::move(name));
  }
  TXLA_RETURN_IF_ERROR(LowerInPlaceUpdatesLast(graph, results, emitter));
  std::vector<std::string> refs;
  refs.reserve(results.size());
  for (const Value& r : results) refs.push_back(emitter.Ref(r));
  if (refs.empty()) {
    emitter.Line("return");
  } else {
    emitter.Line(absl::StrCat("return ", absl::StrJoin(refs, ", "), " : ",
                              absl::StrJoin(result_types, ", ")));
  }
  absl::StrAppend(&out, "  }\n}\n");
  return out;
}

}  // namespace torch_xla
