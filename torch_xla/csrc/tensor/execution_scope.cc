#include "torch_xla/csrc/tensor/execution_scope.h"

#include "absl/strings/str_cat.h"

namespace torch_xla {

ExecutionScope& CurrentExecutionScope() {
  thread_local ExecutionScope scope;
  return scope;
}

absl::Status CheckGraphAllowed(const std::string& key) {
  ExecutionScope& scope = CurrentExecutionScope();
  if (!scope.refuse_execution.empty()) {
    return absl::FailedPreconditionError(scope.refuse_execution);
  }
  if (scope.limit != nullptr && !scope.limit->seen.count(key)) {
    if (static_cast<int64_t>(scope.limit->seen.size()) >=
        scope.limit->max_graphs) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "max_different_graphs: a new graph after ",
          scope.limit->seen.size(), " (graph key ", key, ")"));
    }
    scope.limit->seen.insert(key);
  }
  return absl::OkStatus();
}

std::string GraphModuleName(const std::string& default_name) {
  const ExecutionScope& scope = CurrentExecutionScope();
  if (scope.eager_op) return "EagerOp";
  return scope.graph_name.empty() ? default_name : scope.graph_name;
}

namespace {

metrics::Metric* ScopeMetric(const char* what) {
  const ExecutionScope& scope = CurrentExecutionScope();
  if (scope.eager_op) {
    return metrics::GetMetric(absl::StrCat("EagerOp", what),
                              metrics::Metric::Unit::kNanoseconds);
  }
  if (scope.graph_name.empty()) return nullptr;
  return metrics::GetMetric(absl::StrCat(what, ".", scope.graph_name),
                            metrics::Metric::Unit::kNanoseconds);
}

}  // namespace

metrics::Metric* ScopeCompileMetric() { return ScopeMetric("CompileTime"); }
metrics::Metric* ScopeExecuteMetric() { return ScopeMetric("ExecuteTime"); }

}  // namespace torch_xla
