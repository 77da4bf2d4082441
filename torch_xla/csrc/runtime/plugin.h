#ifndef TORCH_XLA_CSRC_RUNTIME_PLUGIN_H_
#define TORCH_XLA_CSRC_RUNTIME_PLUGIN_H_

// Finds and loads a PJRT plugin (.so exporting GetPjrtApi). The loaded
// library is never unloaded: PJRT objects may outlive any owner we could
// give it.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/pjrt/c/pjrt_c_api.h"

namespace torch_xla::runtime {

// Where to look for plugins shipped inside Python packages: site-packages
// style directories (Python passes sys.path; tests pass their venv).
void SetPluginSearchPath(std::vector<std::string> directories);

// The plugin library for a PJRT_DEVICE value ("CPU", "CUDA", "TPU").
// PJRT_PLUGIN_LIBRARY_PATH, when set and not empty, wins. The error names the package to
// install when nothing is found.
absl::StatusOr<std::string> FindPluginLibrary(absl::string_view device_type);

// OK when a plugin implementing PJRT C API `major`.`minor` can serve this
// build: same major version, minor at least the header's.
absl::Status CheckPluginApiVersion(int major, int minor);

// dlopens `path` and initialises the plugin (once per path per process).
absl::StatusOr<const PJRT_Api*> LoadPlugin(const std::string& path);

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_PLUGIN_H_
