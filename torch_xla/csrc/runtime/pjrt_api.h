#ifndef TORCH_XLA_CSRC_RUNTIME_PJRT_API_H_
#define TORCH_XLA_CSRC_RUNTIME_PJRT_API_H_

// The one place that turns PJRT C API errors into absl::Status and releases
// PJRT objects. Everything else in runtime/ calls the C API through these
// helpers: no raw *_Destroy calls elsewhere.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/pjrt/c/pjrt_c_api.h"

namespace torch_xla::runtime {

// Takes ownership of `error` (may be null) and converts it to a status whose
// message is XLA's, prefixed by `context`.
absl::Status ToStatus(const PJRT_Api* api, PJRT_Error* error,
                      absl::string_view context);

// Zero-initialised PJRT args struct with struct_size set, as the API demands.
template <typename Args>
Args MakeArgs(size_t struct_size) {
  Args args{};
  args.struct_size = struct_size;
  return args;
}
#define PJRT_ARGS(Name) \
  ::torch_xla::runtime::MakeArgs<Name##_Args>(Name##_Args_STRUCT_SIZE)

// Calls api->Name(&args) and returns its error as a status on failure.
#define PJRT_RETURN_IF_ERROR(api, Name, args)                              \
  do {                                                                     \
    absl::Status _status = ::torch_xla::runtime::ToStatus(                 \
        (api), (api)->Name(&(args)), #Name);                               \
    if (!_status.ok()) return _status;                                     \
  } while (0)

// Awaits and destroys an event; returns the event's error if any.
absl::Status AwaitEvent(const PJRT_Api* api, PJRT_Event* event,
                        absl::string_view context);
void DestroyEvent(const PJRT_Api* api, PJRT_Event* event);

// Deleters for owning handles. Each keeps the API it came from.
struct BufferDeleter {
  const PJRT_Api* api;
  void operator()(PJRT_Buffer* buffer) const;
};
struct LoadedExecutableDeleter {
  const PJRT_Api* api;
  void operator()(PJRT_LoadedExecutable* executable) const;
};
struct ExecutableDeleter {
  const PJRT_Api* api;
  void operator()(PJRT_Executable* executable) const;
};
struct ClientDeleter {
  const PJRT_Api* api;
  void operator()(PJRT_Client* client) const;
};

using OwnedBuffer = std::unique_ptr<PJRT_Buffer, BufferDeleter>;
using OwnedLoadedExecutable =
    std::unique_ptr<PJRT_LoadedExecutable, LoadedExecutableDeleter>;
using OwnedExecutable = std::unique_ptr<PJRT_Executable, ExecutableDeleter>;
using OwnedClient = std::unique_ptr<PJRT_Client, ClientDeleter>;

}  // namespace torch_xla::runtime

#endif  // TORCH_XLA_CSRC_RUNTIME_PJRT_API_H_
