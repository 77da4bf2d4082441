#ifndef TORCH_XLA_CSRC_RUNTIME_DISTRIBUTED_H_
#define TORCH_XLA_CSRC_RUNTIME_DISTRIBUTED_H_

// How the processes of one job (a pod: one process per host, per device in
// CPU tests) find each other. Each process states its place (process index
// and count) and a key-value store shared by all of them before its client
// exists; the client hands the store to PJRT_Client_Create as its KV
// callbacks, and the processes publish their devices under it to agree on
// one global device list. The store is owned here (a process-wide
// shared_ptr); implementations must be thread-safe, as PJRT may call them
// from its own threads. docs/pods.md has the measured plugin facts.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/pjrt/c/pjrt_c_api.h"

namespace torch_xla::runtime {

// A key-value store reachable from every process of the job.
class KeyValueStore {
 public:
  virtual ~KeyValueStore() = default;
  // Blocks until `key` is set or `timeout_ms` passes (DeadlineExceeded).
  virtual absl::StatusOr<std::string> Get(absl::string_view key,
                                          int timeout_ms) = 0;
  virtual absl::Status Put(absl::string_view key, absl::string_view value) = 0;
};

struct ProcessTopology {
  int process_index = 0;
  int process_count = 1;
  // How long a process waits for another at start-up (device exchange).
  int timeout_ms = 300000;
};

// Set both before the client is created (they are read once, then fixed).
void SetProcessTopology(ProcessTopology topology);
ProcessTopology GetProcessTopology();
void SetKeyValueStore(std::shared_ptr<KeyValueStore> store);
std::shared_ptr<KeyValueStore> GetKeyValueStore();  // null: none set

// A function that joins the job before the client is created (Python sets
// one that connects to the coordinator and calls SetProcessTopology and
// SetKeyValueStore), so the first use of a device in any way joins too.
void SetJoinHook(std::function<absl::Status()> hook);
// Runs the hook once (later calls return its first result).
absl::Status RunJoinHookOnce();

// Points the KV callbacks of `args` at the store set above (no-op if none).
// Keys are prefixed with "pjrt:" so the plugin's keys cannot collide with
// ours.
void SetKeyValueCallbacks(PJRT_Client_Create_Args* args);

// One device of the job, as every process lists it.
struct GlobalDevice {
  int id = 0;             // PJRT global device id
  int process_index = 0;  // the process that drives it
  std::string kind;
};

// Publishes `local` under this process's key and reads every other
// process's list, waiting up to `timeout_ms` for each. The result is ordered
// by process index, then by the order each process listed its devices. An
// error names the process whose devices never arrived.
absl::StatusOr<std::vector<GlobalDevice>> ExchangeDevices(
    const std::vector<GlobalDevice>& local, const ProcessTopology& topology,
    KeyValueStore* store, int timeout_ms);

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_DISTRIBUTED_H_
