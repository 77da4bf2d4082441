#include "torch_xla/csrc/ir/subgraph.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "torch_xla/csrc/ir/builder.h"
#include "torch_xla/csrc/ir/graph_hash.h"
#include "torch_xla/csrc/ir/replace_values.h"
#include "torch_xla/csrc/ir/status_macros.h"

namespace torch_xla {

SubGraph::SubGraph(PrivateKey, std::vector<NodePtr> parameters,
                   std::vector<Value> results, PostOrder order, uint64_t hash)
    : parameters_(std::move(parameters)),
      results_(std::move(results)),
      order_(std::move(order)),
      hash_(hash) {}

absl::StatusOr<SubGraphPtr> SubGraph::Create(std::vector<NodePtr> parameters,
                                             std::vector<Value> results) {
  absl::flat_hash_map<const Node*, int64_t> own;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const NodePtr& p = parameters[i];
    if (p == nullptr || p->kind() != OpKind::kParameter) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sub-graph: parameter ", i, " must be a parameter node, got ",
          p == nullptr ? "null" : p->ToString()));
    }
    TXLA_ASSIGN_OR_RETURN(const int64_t* index, p->GetAttr<int64_t>("index"));
    if (*index != static_cast<int64_t>(i)) {
      return absl::InvalidArgumentError(
          absl::StrCat("sub-graph: parameter ", i, " is ", p->ToString(),
                       "; parameters must be listed in index order"));
    }
    own.emplace(p.get(), i);
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const Value& r = results[i];
    if (r.node == nullptr || r.index < 0 ||
        static_cast<size_t>(r.index) >= r.node->num_outputs()) {
      return absl::InvalidArgumentError(
          absl::StrCat("sub-graph: result ", i, " is not a valid value"));
    }
  }
  PostOrder order = ComputePostOrder(results);
  for (const Node* node : order.nodes) {
    if (node->kind() == OpKind::kDeviceData &&
        node->data()->kind() == DataKind::kHost) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sub-graph is not closed: it uses a host value ",
          node->shape().ToString(), " (data id ", node->data()->id(),
          "); make host scalars and fills constants first "
          "(tensor/host_constants.h InlineHostData) or pass the value in as "
          "a parameter"));
    }
    if (node->kind() == OpKind::kDeviceData) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sub-graph is not closed: it uses a data leaf ",
          node->shape().ToString(), " (data id ", node->data()->id(),
          "); sub-graphs may only use their own parameters and constants, "
          "so pass the value in as a parameter (a carried value)"));
    }
    if (node->kind() == OpKind::kParameter && !own.contains(node)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sub-graph is not closed: it uses ", node->ToString(),
          ", which is not one of its own parameters"));
    }
  }
  HashBuilder h(GraphHash(order, results));
  h.Add(parameters.size());
  for (const NodePtr& p : parameters) h.AddShape(p->shape());
  return std::make_shared<const SubGraph>(PrivateKey(), std::move(parameters),
                                          std::move(results), std::move(order),
                                          h.value());
}

absl::StatusOr<SubGraphPtr> SubGraph::CreateFromDataLeaves(
    absl::Span<const DataPtr> parameters, std::vector<Value> results) {
  std::vector<NodePtr> params;
  params.reserve(parameters.size());
  absl::flat_hash_map<int64_t, size_t> param_of_data;
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("sub-graph: parameter data ", i, " is null"));
    }
    if (!param_of_data.emplace(parameters[i]->id(), i).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sub-graph: data id ", parameters[i]->id(),
          " is listed twice as a parameter (parameters ",
          param_of_data[parameters[i]->id()], " and ", i, ")"));
    }
    TXLA_ASSIGN_OR_RETURN(NodePtr p,
                          MakeParameter(static_cast<int64_t>(i),
                                        parameters[i]->shape()));
    params.push_back(std::move(p));
  }

  Replacements replacements;
  for (size_t i = 0; i < parameters.size(); ++i) {
    replacements.AddData(parameters[i]->id(), params[i]);
  }
  TXLA_ASSIGN_OR_RETURN(results, ReplaceValues(results, replacements));
  return Create(std::move(params), std::move(results));
}

std::string SubGraph::SignatureString() const {
  std::vector<Shape> in, out;
  for (const NodePtr& p : parameters_) in.push_back(p->shape());
  for (const Value& r : results_) out.push_back(r.shape());
  auto list = [](const std::vector<Shape>& shapes) {
    std::string s = "(";
    for (size_t i = 0; i < shapes.size(); ++i) {
      absl::StrAppend(&s, i == 0 ? "" : ", ", shapes[i].ToString());
    }
    return s + ")";
  };
  return absl::StrCat(list(in), " -> ", list(out));
}

}  // namespace torch_xla
