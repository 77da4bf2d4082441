#include "torch_xla/csrc/runtime/pjrt_api.h"

#include "absl/strings/str_cat.h"

namespace torch_xla::runtime {
namespace {

absl::StatusCode ToStatusCode(PJRT_Error_Code code) {
  // PJRT error codes follow absl's numbering.
  return static_cast<absl::StatusCode>(static_cast<int>(code));
}

// Destroying never fails in a way we could act on, so errors are dropped.
void DropError(const PJRT_Api* api, PJRT_Error* error) {
  if (error == nullptr) return;
  auto args = PJRT_ARGS(PJRT_Error_Destroy);
  args.error = error;
  api->PJRT_Error_Destroy(&args);
}

}  // namespace

absl::Status ToStatus(const PJRT_Api* api, PJRT_Error* error,
                      absl::string_view context) {
  if (error == nullptr) return absl::OkStatus();
  auto message = PJRT_ARGS(PJRT_Error_Message);
  message.error = error;
  api->PJRT_Error_Message(&message);
  std::string text(message.message, message.message_size);

  auto code = PJRT_ARGS(PJRT_Error_GetCode);
  code.error = error;
  PJRT_Error* code_error = api->PJRT_Error_GetCode(&code);
  absl::StatusCode status_code = code_error == nullptr
                                     ? ToStatusCode(code.code)
                                     : absl::StatusCode::kUnknown;
  DropError(api, code_error);
  DropError(api, error);
  if (status_code == absl::StatusCode::kOk) {
    status_code = absl::StatusCode::kUnknown;
  }
  return absl::Status(status_code, absl::StrCat(context, ": ", text));
}

absl::Status AwaitEvent(const PJRT_Api* api, PJRT_Event* event,
                        absl::string_view context) {
  if (event == nullptr) return absl::OkStatus();
  auto args = PJRT_ARGS(PJRT_Event_Await);
  args.event = event;
  absl::Status status = ToStatus(api, api->PJRT_Event_Await(&args), context);
  DestroyEvent(api, event);
  return status;
}

void DestroyEvent(const PJRT_Api* api, PJRT_Event* event) {
  if (event == nullptr) return;
  auto args = PJRT_ARGS(PJRT_Event_Destroy);
  args.event = event;
  DropError(api, api->PJRT_Event_Destroy(&args));
}

void BufferDeleter::operator()(PJRT_Buffer* buffer) const {
  auto args = PJRT_ARGS(PJRT_Buffer_Destroy);
  args.buffer = buffer;
  DropError(api, api->PJRT_Buffer_Destroy(&args));
}

void LoadedExecutableDeleter::operator()(
    PJRT_LoadedExecutable* executable) const {
  auto args = PJRT_ARGS(PJRT_LoadedExecutable_Destroy);
  args.executable = executable;
  DropError(api, api->PJRT_LoadedExecutable_Destroy(&args));
}

void ExecutableDeleter::operator()(PJRT_Executable* executable) const {
  auto args = PJRT_ARGS(PJRT_Executable_Destroy);
  args.executable = executable;
  DropError(api, api->PJRT_Executable_Destroy(&args));
}

void ClientDeleter::operator()(PJRT_Client* client) const {
  auto args = PJRT_ARGS(PJRT_Client_Destroy);
  args.client = client;
  DropError(api, api->PJRT_Client_Destroy(&args));
}

}  // namespace torch_xla::runtime
