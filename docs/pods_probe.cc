// What a CPU PJRT plugin does across processes, asked through the C API only.
// docs/pods.md quotes its output; build and run it as that page says:
//
//   g++ -std=c++17 -O1 -I <dir holding xla/pjrt/c/pjrt_c_api.h> \
//       docs/pods_probe.cc -ldl -o /tmp/pods_probe
//   /tmp/pods_probe <plugin.so> <process_id> <num_processes> <devices> <kvdir>
//       [name=value ...]   (further int64 create options to try)
//
// Each process creates a client with create options cpu_device_count,
// process_id (and any others named on the command line), and
// key-value callbacks over files in <kvdir> that log every call. It then
// prints the client's process index, its global and addressable devices
// (global id, process index), compiles an all-reduce over the devices of all
// processes (num_replicas = num_processes * devices, the global ids in the
// device assignment) and runs it if that compiled, and finally runs an
// all-reduce over this process's own devices only: with one process, once
// in one Execute over all devices and once with a thread per device
// (execute_device, one launch_id).

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "xla/pjrt/c/pjrt_c_api.h"

namespace {

const PJRT_Api* api = nullptr;
std::string kv_dir;

#define ARGS(Name) \
  Name##_Args args{}; \
  args.struct_size = Name##_Args_STRUCT_SIZE

std::string ErrorText(PJRT_Error* error) {
  if (error == nullptr) return "OK";
  PJRT_Error_Message_Args m{};
  m.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE;
  m.error = error;
  api->PJRT_Error_Message(&m);
  std::string text(m.message, m.message_size);
  PJRT_Error_Destroy_Args d{};
  d.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
  d.error = error;
  api->PJRT_Error_Destroy(&d);
  return text;
}

void Check(PJRT_Error* error, const char* what) {
  if (error == nullptr) return;
  std::printf("FAILED %s: %s\n", what, ErrorText(error).c_str());
  std::fflush(stdout);
  std::exit(1);
}

std::string KeyPath(const char* key, size_t size) {
  std::string name(key, size);
  for (char& c : name) {
    if (c == '/' || c == ':') c = '_';
  }
  return kv_dir + "/" + name;
}

PJRT_Error* KvPut(PJRT_KeyValuePutCallback_Args* args) {
  std::printf("kv_put %.*s (%zu bytes)\n", static_cast<int>(args->key_size),
              args->key, args->value_size);
  std::string path = KeyPath(args->key, args->key_size);
  std::ofstream(path + ".tmp", std::ios::binary)
      .write(args->value, args->value_size);
  std::rename((path + ".tmp").c_str(), path.c_str());
  return nullptr;
}

void DeleteValue(char* value) { delete[] value; }

PJRT_Error* KvGet(PJRT_KeyValueGetCallback_Args* args) {
  std::printf("kv_get %.*s timeout %d ms\n", static_cast<int>(args->key_size),
              args->key, args->timeout_in_ms);
  std::fflush(stdout);
  std::string path = KeyPath(args->key, args->key_size);
  for (int i = 0; i < 200; ++i) {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::stringstream data;
      data << in.rdbuf();
      std::string value = data.str();
      args->value = new char[value.size()];
      std::memcpy(args->value, value.data(), value.size());
      args->value_size = value.size();
      args->value_deleter_callback = DeleteValue;
      return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return (*args->callback_error)(PJRT_Error_Code_DEADLINE_EXCEEDED, "timeout", 7);
}

PJRT_NamedValue Int64Option(const char* name, int64_t value) {
  PJRT_NamedValue v{};
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kInt64;
  v.int64_value = value;
  v.value_size = 1;
  return v;
}

struct DeviceInfo {
  PJRT_Device* device;
  int id;
  int process;
  bool addressable;
};

DeviceInfo Describe(PJRT_Device* device) {
  DeviceInfo info{device, 0, 0, false};
  PJRT_DeviceDescription* description;
  {
    ARGS(PJRT_Device_GetDescription);
    args.device = device;
    Check(api->PJRT_Device_GetDescription(&args), "GetDescription");
    description = args.device_description;
  }
  {
    ARGS(PJRT_DeviceDescription_Id);
    args.device_description = description;
    Check(api->PJRT_DeviceDescription_Id(&args), "Id");
    info.id = args.id;
  }
  {
    ARGS(PJRT_DeviceDescription_ProcessIndex);
    args.device_description = description;
    Check(api->PJRT_DeviceDescription_ProcessIndex(&args), "ProcessIndex");
    info.process = args.process_index;
  }
  {
    ARGS(PJRT_Device_IsAddressable);
    args.device = device;
    Check(api->PJRT_Device_IsAddressable(&args), "IsAddressable");
    info.addressable = args.is_addressable;
  }
  return info;
}

// Protobuf CompileOptionsProto with num_replicas and a device assignment of
// one computation over `ids` (see runtime/compile_options.cc).
void Varint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
void Field(int field, uint64_t v, std::string* out) {
  Varint(static_cast<uint64_t>(field) << 3, out);
  Varint(v, out);
}
void Message(int field, const std::string& m, std::string* out) {
  Varint((static_cast<uint64_t>(field) << 3) | 2, out);
  Varint(m.size(), out);
  out->append(m);
}
std::string Options(const std::vector<int>& ids) {
  std::string devices, assignment, build, options;
  for (int id : ids) Field(1, id, &devices);
  Field(1, ids.size(), &assignment);
  Field(2, 1, &assignment);
  Message(3, devices, &assignment);
  Field(4, ids.size(), &build);
  Field(5, 1, &build);
  Message(9, assignment, &build);
  Message(3, build, &options);
  return options;
}

std::string AllReduceModule(size_t replicas) {
  std::string group;
  for (size_t i = 0; i < replicas; ++i) {
    group += (i ? ", " : "") + std::to_string(i);
  }
  return "module {\n func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
         "  %r = \"stablehlo.all_reduce\"(%x) ({\n"
         "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
         "    %s = stablehlo.add %a, %b : tensor<f32>\n"
         "    stablehlo.return %s : tensor<f32>\n"
         "  }) {replica_groups = dense<[[" + group + "]]> : tensor<1x" +
         std::to_string(replicas) +
         "xi64>} : (tensor<2xf32>) -> tensor<2xf32>\n"
         "  return %r : tensor<2xf32>\n }\n}\n";
}

// Compiles the all-reduce over `ids` and, if that works, runs it on the
// addressable ones with input [ordinal+1, 10*(ordinal+1)] where ordinal is
// the device's position in `ids`.
void AllReduce(PJRT_Client* client, const std::vector<DeviceInfo>& devices,
               const std::vector<int>& ids, const char* label) {
  std::string code = AllReduceModule(ids.size());
  std::string options = Options(ids);
  PJRT_Program program{};
  program.struct_size = PJRT_Program_STRUCT_SIZE;
  program.code = code.data();
  program.code_size = code.size();
  program.format = "mlir";
  program.format_size = 4;
  PJRT_LoadedExecutable* executable = nullptr;
  {
    ARGS(PJRT_Client_Compile);
    args.client = client;
    args.program = &program;
    args.compile_options = options.data();
    args.compile_options_size = options.size();
    PJRT_Error* error = api->PJRT_Client_Compile(&args);
    std::printf("%s: compile all_reduce over %zu replicas (ids", label,
                ids.size());
    for (int id : ids) std::printf(" %d", id);
    std::printf("): %s\n", ErrorText(error).c_str());
    std::fflush(stdout);
    if (error != nullptr) return;
    executable = args.executable;
  }
  std::vector<std::vector<PJRT_Buffer*>> arg_lists;
  for (size_t r = 0; r < ids.size(); ++r) {
    for (const DeviceInfo& d : devices) {
      if (d.id != ids[r] || !d.addressable) continue;
      float host[2] = {static_cast<float>(r + 1), 10.0f * (r + 1)};
      int64_t dims[1] = {2};
      ARGS(PJRT_Client_BufferFromHostBuffer);
      args.client = client;
      args.data = host;
      args.type = PJRT_Buffer_Type_F32;
      args.dims = dims;
      args.num_dims = 1;
      args.host_buffer_semantics =
          PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
      args.device = d.device;
      Check(api->PJRT_Client_BufferFromHostBuffer(&args), "BufferFromHost");
      arg_lists.push_back({args.buffer});
    }
  }
  std::vector<PJRT_Buffer* const*> arg_ptrs;
  std::vector<std::vector<PJRT_Buffer*>> out(arg_lists.size(),
                                             std::vector<PJRT_Buffer*>(1));
  std::vector<PJRT_Buffer**> out_ptrs;
  for (size_t i = 0; i < arg_lists.size(); ++i) {
    arg_ptrs.push_back(arg_lists[i].data());
    out_ptrs.push_back(out[i].data());
  }
  PJRT_ExecuteOptions exec_options{};
  exec_options.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
  {
    ARGS(PJRT_LoadedExecutable_Execute);
    args.executable = executable;
    args.options = &exec_options;
    args.argument_lists = arg_ptrs.data();
    args.num_devices = arg_ptrs.size();
    args.num_args = 1;
    args.output_lists = out_ptrs.data();
    PJRT_Error* error = api->PJRT_LoadedExecutable_Execute(&args);
    std::printf("%s: execute on %zu addressable devices: %s\n", label,
                arg_ptrs.size(), ErrorText(error).c_str());
    std::fflush(stdout);
    if (error != nullptr) return;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    float host[2] = {0, 0};
    ARGS(PJRT_Buffer_ToHostBuffer);
    args.src = out[i][0];
    args.dst = host;
    args.dst_size = sizeof(host);
    PJRT_Error* error = api->PJRT_Buffer_ToHostBuffer(&args);
    if (error == nullptr) {
      PJRT_Event_Await_Args await{};
      await.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
      await.event = args.event;
      error = api->PJRT_Event_Await(&await);
    }
    std::printf("%s: result on addressable device %zu: [%g, %g] %s\n", label,
                i, host[0], host[1], ErrorText(error).c_str());
  }
  std::fflush(stdout);
}

// Runs the compiled all-reduce over this process's devices once more, each
// device's part launched by its own thread with execute_device (upstream's
// thread-per-device model), all with the same launch_id.
void AllReduceThreads(PJRT_Client* client,
                      const std::vector<DeviceInfo>& devices) {
  std::vector<int> ids;
  for (const DeviceInfo& d : devices) ids.push_back(d.id);
  std::string code = AllReduceModule(ids.size());
  std::string options = Options(ids);
  PJRT_Program program{};
  program.struct_size = PJRT_Program_STRUCT_SIZE;
  program.code = code.data();
  program.code_size = code.size();
  program.format = "mlir";
  program.format_size = 4;
  PJRT_LoadedExecutable* executable;
  {
    ARGS(PJRT_Client_Compile);
    args.client = client;
    args.program = &program;
    args.compile_options = options.data();
    args.compile_options_size = options.size();
    Check(api->PJRT_Client_Compile(&args), "Compile (threads)");
    executable = args.executable;
  }
  std::vector<std::string> lines(devices.size());
  std::vector<std::thread> threads;
  for (size_t r = 0; r < devices.size(); ++r) {
    threads.emplace_back([&, r] {
      float host[2] = {static_cast<float>(r + 1), 10.0f * (r + 1)};
      int64_t dims[1] = {2};
      PJRT_Buffer* input;
      {
        ARGS(PJRT_Client_BufferFromHostBuffer);
        args.client = client;
        args.data = host;
        args.type = PJRT_Buffer_Type_F32;
        args.dims = dims;
        args.num_dims = 1;
        args.host_buffer_semantics =
            PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
        args.device = devices[r].device;
        Check(api->PJRT_Client_BufferFromHostBuffer(&args), "BufferFromHost");
        input = args.buffer;
      }
      // PODS_PROBE_SEPARATE=1: each replica compiles the program itself.
      PJRT_LoadedExecutable* mine = executable;
      if (std::getenv("PODS_PROBE_SEPARATE") != nullptr) {
        ARGS(PJRT_Client_Compile);
        args.client = client;
        args.program = &program;
        args.compile_options = options.data();
        args.compile_options_size = options.size();
        Check(api->PJRT_Client_Compile(&args), "Compile (per replica)");
        mine = args.executable;
      }
      PJRT_Buffer* const arg_list[1] = {input};
      PJRT_Buffer* const* arg_lists[1] = {arg_list};
      PJRT_Buffer* out_list[1] = {nullptr};
      PJRT_Buffer** out_lists[1] = {out_list};
      PJRT_ExecuteOptions exec_options{};
      exec_options.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE;
      exec_options.launch_id = 7;
      ARGS(PJRT_LoadedExecutable_Execute);
      args.executable = mine;
      args.options = &exec_options;
      args.argument_lists = arg_lists;
      args.num_devices = 1;
      args.num_args = 1;
      args.output_lists = out_lists;
      args.execute_device = devices[r].device;
      PJRT_Error* error = api->PJRT_LoadedExecutable_Execute(&args);
      float result[2] = {0, 0};
      if (error == nullptr) {
        ARGS(PJRT_Buffer_ToHostBuffer);
        args.src = out_list[0];
        args.dst = result;
        args.dst_size = sizeof(result);
        error = api->PJRT_Buffer_ToHostBuffer(&args);
        if (error == nullptr) {
          PJRT_Event_Await_Args await{};
          await.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE;
          await.event = args.event;
          error = api->PJRT_Event_Await(&await);
        }
      }
      lines[r] = "threads: device " + std::to_string(r) + " result [" +
                 std::to_string(result[0]) + ", " + std::to_string(result[1]) +
                 "] " + ErrorText(error);
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& line : lines) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::printf("usage: %s plugin.so process_id num_processes devices kvdir\n",
                argv[0]);
    return 2;
  }
  int process_id = std::atoi(argv[2]);
  int num_processes = std::atoi(argv[3]);
  int per_process = std::atoi(argv[4]);
  kv_dir = argv[5];
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::printf("dlopen: %s\n", dlerror());
    return 1;
  }
  using GetApi = const PJRT_Api* (*)();
  api = reinterpret_cast<GetApi>(dlsym(lib, "GetPjrtApi"))();
  {
    ARGS(PJRT_Plugin_Initialize);
    Check(api->PJRT_Plugin_Initialize(&args), "Plugin_Initialize");
  }
  std::vector<PJRT_NamedValue> options = {
      Int64Option("cpu_device_count", per_process),
      Int64Option("process_id", process_id),
  };
  // Further int64 options to try, as name=value arguments.
  std::vector<std::string> extra_names;
  for (int i = 6; i < argc; ++i) extra_names.push_back(argv[i]);
  for (const std::string& extra : extra_names) {
    size_t eq = extra.find('=');
    options.push_back(Int64Option(extra.c_str(), 0));
    options.back().name_size = eq;
    options.back().int64_value = std::atoll(extra.c_str() + eq + 1);
  }
  PJRT_Client* client;
  {
    ARGS(PJRT_Client_Create);
    args.create_options = options.data();
    args.num_options = options.size();
    args.kv_get_callback = KvGet;
    args.kv_put_callback = KvPut;
    Check(api->PJRT_Client_Create(&args), "Client_Create");
    client = args.client;
  }
  std::printf("process %d: client created (api %d.%d)\n", process_id,
              api->pjrt_api_version.major_version,
              api->pjrt_api_version.minor_version);
  {
    ARGS(PJRT_Client_ProcessIndex);
    args.client = client;
    Check(api->PJRT_Client_ProcessIndex(&args), "ProcessIndex");
    std::printf("process %d: PJRT_Client_ProcessIndex = %d\n", process_id,
                args.process_index);
  }
  std::vector<DeviceInfo> devices;
  {
    ARGS(PJRT_Client_Devices);
    args.client = client;
    Check(api->PJRT_Client_Devices(&args), "Devices");
    for (size_t i = 0; i < args.num_devices; ++i) {
      devices.push_back(Describe(args.devices[i]));
    }
  }
  size_t addressable = 0;
  {
    ARGS(PJRT_Client_AddressableDevices);
    args.client = client;
    Check(api->PJRT_Client_AddressableDevices(&args), "AddressableDevices");
    addressable = args.num_addressable_devices;
  }
  std::printf("process %d: %zu devices, %zu addressable:", process_id,
              devices.size(), addressable);
  for (const DeviceInfo& d : devices) {
    std::printf(" {id %d, process %d%s}", d.id, d.process,
                d.addressable ? ", addressable" : "");
  }
  std::printf("\n");
  std::fflush(stdout);

  // Every process's devices, by the global ids CPU clients give: the
  // process index in the high bits (1 << 17 apart), the local index below.
  std::vector<int> global_ids;
  for (int p = 0; p < num_processes; ++p) {
    for (int d = 0; d < per_process; ++d) global_ids.push_back((p << 11) + d);
  }
  std::vector<int> local_ids;
  for (const DeviceInfo& d : devices) {
    if (d.addressable) local_ids.push_back(d.id);
  }
  if (num_processes > 1) AllReduce(client, devices, global_ids, "global");
  AllReduce(client, devices, local_ids, "local");
  if (num_processes == 1 && per_process > 1) AllReduceThreads(client, devices);
  return 0;
}
