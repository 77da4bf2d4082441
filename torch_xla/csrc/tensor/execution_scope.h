#ifndef TORCH_XLA_CSRC_TENSOR_EXECUTION_SCOPE_H_
#define TORCH_XLA_CSRC_TENSOR_EXECUTION_SCOPE_H_

// Per-thread settings that the Python front end sets around a region of
// work and that the graph executor consults for every graph it runs on
// that thread: torch_xla.compile (refuse executions inside a full_graph
// function, cap the distinct graphs of a function, name its graph) and
// eager mode (each op's graph timed under upstream's EagerOp* metrics).
// The settings belong to the thread that traces; a loader thread moving
// data is not affected by the main thread's region.

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "torch_xla/csrc/metrics/metrics.h"

namespace torch_xla {

// The distinct graphs (compile-cache keys) one compiled function produced,
// and how many it may produce.
struct GraphLimit {
  int64_t max_graphs = 0;
  std::set<std::string> seen;
};

struct ExecutionScope {
  // Empty: executions are allowed. Otherwise the message of the error an
  // execution gets (it names the compiled function).
  std::string refuse_execution;
  // Names the graph's module, its dump file and its Compile/Execute
  // metrics ("" is the default SyncTensorsGraph).
  std::string graph_name;
  // The graph is one op run by eager mode.
  bool eager_op = false;
  // Set while a compiled function with max_different_graphs runs.
  std::shared_ptr<GraphLimit> limit;
};

// The calling thread's scope (mutable: the bindings set it).
ExecutionScope& CurrentExecutionScope();

// Called by the executor with each graph's compile-cache key before it
// compiles or runs it: an error when the scope refuses executions, or when
// the graph is new and the function's graph limit is reached (the message
// starts with "max_different_graphs").
absl::Status CheckGraphAllowed(const std::string& key);

// The module name of a graph built now: the scope's name, else the default.
std::string GraphModuleName(const std::string& default_name);

// Nanosecond metrics that time this scope's compiles and executions
// (EagerOpCompileTime/EagerOpExecuteTime for eager ops,
// CompileTime.<name>/ExecuteTime.<name> for a named graph), or nullptr.
metrics::Metric* ScopeCompileMetric();
metrics::Metric* ScopeExecuteMetric();

}  // namespace torch_xla

#endif  // TORCH_XLA_CSRC_TENSOR_EXECUTION_SCOPE_H_
