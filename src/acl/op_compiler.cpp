// Single-op compile (aclopCompile, aclopCompileAndExecute[V2]) and the compile options
// (aclSetCompileopt, aclGetCompileopt[Size], aclopSetCompileFlag).
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "acl/single_op.hpp"

namespace acl {

namespace {

struct CompileOptions {
  std::mutex mutex;
  std::map<int, std::string> values;
  bool fuzz = false;  // aclopSetCompileFlag(ACL_OP_COMPILE_FUZZ)
};

CompileOptions& options() {
  static CompileOptions o;
  return o;
}

// The value of an aclCompileOpt parameter, checked.
int option_of(const aclCompileOpt& opt) {
  const int o = raw(opt);
  require(o >= ACL_PRECISION_MODE && o <= ACL_OP_DEBUG_OPTION, "compile option " + std::to_string(o) + " is not an aclCompileOpt");
  return o;
}

std::string option_value(int opt) {
  CompileOptions& o = options();
  std::lock_guard lock(o.mutex);
  const auto it = o.values.find(opt);
  return it == o.values.end() ? std::string() : it->second;
}

ge::EngineChoice engine_of(const aclopEngineType& engine) {
  const int e = raw(engine);
  switch (e) {
    case ACL_ENGINE_SYS: return ge::EngineChoice::system;
    case ACL_ENGINE_AICORE:
    case ACL_ENGINE_VECTOR: return ge::EngineChoice::vector;
  }
  throw CallError(ACL_ERROR_INVALID_PARAM, "[acl] engine type " + std::to_string(e) +
                                               " is not an aclopEngineType");
}

void check_compile_args(const aclopCompileType& compile_type, const char* op_path) {
  const int flag = raw(compile_type);
  require(flag == ACL_COMPILE_SYS || flag == ACL_COMPILE_UNREGISTERED,
          "compile type " + std::to_string(flag) + " is not an aclopCompileType");
  require(flag == ACL_COMPILE_SYS, "ACL_COMPILE_UNREGISTERED: ops compiled by a function of the caller's are not offered",
          ACL_ERROR_API_NOT_SUPPORT);
  if (op_path != nullptr)
    throw CallError(ACL_ERROR_INVALID_PARAM,
                    std::string("[acl] opPath '") + op_path + "' given; the kernel path is reserved and must be null");
}

// Compiles the call as given and runs it; V2 rewrites the output descriptions.
aclError compile_and_execute(std::string_view api, const char* op_type, int num_inputs,
                             const aclTensorDesc* const* input_desc, const aclDataBuffer* const* inputs,
                             int num_outputs, const aclTensorDesc* const* output_desc, aclDataBuffer* const* outputs,
                             const aclopAttr* attr, const aclopEngineType& engine, const aclopCompileType& flag,
                             const char* op_path,
                             aclrtStream stream, aclTensorDesc* const* rewrite) {
  return guard(api, [&] {
    require_initialized(api);
    require_stream(stream, api);
    const ge::EngineChoice choice = engine_of(engine);
    check_compile_args(flag, op_path);
    const GeCall call = read_call(op_type, num_inputs, input_desc, num_outputs, output_desc, attr);
    const auto dims = real_dims(num_inputs, input_desc);
    const auto op = op_compiler().compile(compile_request(call, choice));
    const auto real = run_task(api, stream, [&] { return run(*op, call, dims, num_inputs, inputs, num_outputs, outputs); });
    if (rewrite != nullptr) rewrite_outputs(num_outputs, rewrite, real);
    return ACL_SUCCESS;
  });
}

}  // namespace

ge::OpCompileRequest compile_request(const GeCall& call, ge::EngineChoice engine) {
  ge::OpCompileRequest r;
  r.op_type = call.op_type;
  r.inputs = call.inputs;
  r.outputs = call.outputs;
  r.attrs = call.attrs;
  r.engine = engine;
  const bool fuzz = [] {
    std::lock_guard lock(options().mutex);
    return options().fuzz;
  }();
  r.flag = fuzz || option_value(ACL_OP_JIT_COMPILE) == "disable" ? ge::CompileFlag::fuzzy : ge::CompileFlag::exact;
  const std::string precision = option_value(ACL_PRECISION_MODE);
  r.precision = precision == "allow_fp32_to_bf16" || precision == "allow_mix_precision_bf16" ? ge::Precision::bf16
                                                                                              : ge::Precision::f32;
  return r;
}

}  // namespace acl

extern "C" {

aclError aclopCompile(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[], int numOutputs,
                      const aclTensorDesc* const outputDesc[], const aclopAttr* attr, aclopEngineType engineType,
                      aclopCompileType compileFlag, const char* opPath) {
  return acl::guard("aclopCompile", [&] {
    acl::require_initialized("aclopCompile");
    const ge::EngineChoice engine = acl::engine_of(engineType);
    acl::check_compile_args(compileFlag, opPath);
    const acl::GeCall call = acl::read_call(opType, numInputs, inputDesc, numOutputs, outputDesc, attr);
    (void)acl::op_compiler().compile(acl::compile_request(call, engine));
    return ACL_SUCCESS;
  });
}

aclError aclopCompileAndExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                                const aclDataBuffer* const inputs[], int numOutputs,
                                const aclTensorDesc* const outputDesc[], aclDataBuffer* const outputs[],
                                const aclopAttr* attr, aclopEngineType engineType, aclopCompileType compileFlag,
                                const char* opPath, aclrtStream stream) {
  return acl::compile_and_execute("aclopCompileAndExecute", opType, numInputs, inputDesc, inputs, numOutputs,
                                  outputDesc, outputs, attr, engineType, compileFlag, opPath, stream, nullptr);
}

aclError aclopCompileAndExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                                  aclDataBuffer* inputs[], int numOutputs, aclTensorDesc* outputDesc[],
                                  aclDataBuffer* outputs[], aclopAttr* attr, aclopEngineType engineType,
                                  aclopCompileType compileFlag, const char* opPath, aclrtStream stream) {
  return acl::compile_and_execute("aclopCompileAndExecuteV2", opType, numInputs, inputDesc, inputs, numOutputs,
                                  outputDesc, outputs, attr, engineType, compileFlag, opPath, stream, outputDesc);
}

aclError aclSetCompileopt(aclCompileOpt opt, const char* value) {
  return acl::guard("aclSetCompileopt", [&] {
    const int o = acl::option_of(opt);
    acl::require(value != nullptr, "the option value is null");
    const std::string v(value);
    if (o == ACL_OP_JIT_COMPILE)
      acl::require(v == "enable" || v == "disable", "ACL_OP_JIT_COMPILE is '" + v + "'; expected enable or disable");
    std::lock_guard lock(acl::options().mutex);
    acl::options().values[o] = v;
    return ACL_SUCCESS;
  });
}

size_t aclGetCompileoptSize(aclCompileOpt opt) {
  return acl::guard_value<size_t>("aclGetCompileoptSize", 0, [&] {
    return acl::option_value(acl::option_of(opt)).size() + 1;
  });
}

aclError aclGetCompileopt(aclCompileOpt opt, char* value, size_t length) {
  return acl::guard("aclGetCompileopt", [&] {
    const int o = acl::option_of(opt);
    acl::require(value != nullptr, "the value buffer is null");
    const std::string v = acl::option_value(o);
    acl::require(length > v.size(), "the value needs " + std::to_string(v.size() + 1) + " bytes; the buffer holds " +
                                        std::to_string(length));
    std::memcpy(value, v.c_str(), v.size() + 1);
    return ACL_SUCCESS;
  });
}

aclError aclopSetCompileFlag(aclOpCompileFlag flag) {
  return acl::guard("aclopSetCompileFlag", [&] {
    const int f = acl::raw(flag);
    acl::require(f == ACL_OP_COMPILE_DEFAULT || f == ACL_OP_COMPILE_FUZZ,
                 "compile flag " + std::to_string(f) + " is not an aclOpCompileFlag");
    std::lock_guard lock(acl::options().mutex);
    acl::options().fuzz = f == ACL_OP_COMPILE_FUZZ;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
