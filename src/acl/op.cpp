// Single-op execution (aclopExecuteV2, the handles), shape inference and the cache's
// capacity, over ge's OpCompiler and execute_op.
#include <limits>
#include <memory>
#include <string>

#include "acl/single_op.hpp"
#include "ge/ops/registry.hpp"
#include "ge/runtime/execute_op.hpp"
#include "runtime/boundary.hpp"

namespace acl {

ge::OpCompiler& op_compiler() {
  static ge::OpCompiler compiler;
  return compiler;
}

GeCall read_call(const char* op_type, int num_inputs, const aclTensorDesc* const* input_desc, int num_outputs,
                 const aclTensorDesc* const* output_desc, const aclopAttr* attr) {
  require(op_type != nullptr && *op_type != '\0', "the op type is null or empty");
  auto inputs = to_op_tensors(num_inputs, input_desc, "input");
  auto outputs = to_op_tensors(num_outputs, output_desc, "output");
  std::vector<int> formats;
  for (int i = 0; i < num_inputs; ++i) formats.push_back(raw(input_desc[i]->format));
  return translate(op_type, std::move(inputs), std::move(outputs), attributes_of(attr), formats);
}

std::shared_ptr<const ge::CompiledOp> find_compiled(const GeCall& call) {
  const ge::OpCompileRequest request = compile_request(call, ge::EngineChoice::system);
  if (auto op = op_compiler().find(request)) return op;
  require(op_compiler().find(request, true) == nullptr,
          "[" + call.op_type + "] a constant input's data differs from the data it was compiled with",
          ACL_ERROR_OP_INPUT_NOT_MATCH);
  throw CallError(ACL_ERROR_OP_NOT_FOUND, "[acl] [" + call.op_type +
                                              "] was not compiled for these descriptions and attributes; call aclopCompile first");
}

std::vector<std::vector<std::int64_t>> real_dims(int num_inputs, const aclTensorDesc* const* input_desc) {
  std::vector<std::vector<std::int64_t>> dims;
  for (int i = 0; i < num_inputs; ++i) dims.push_back(static_dims(*input_desc[i], "input " + std::to_string(i)));
  return dims;
}

namespace {

// The bytes a view's dims need, checked at ge's boundary (its buffer big enough, no
// overflow, not null): ACL_ERROR_INVALID_PARAM with ge's words.
std::int64_t checked_bytes(const ge::TensorView& v, const std::string& which) {
  try {
    return ge::detail::view_bytes_with_data(v, [&] { return which; });
  } catch (const ge::Error& e) {
    throw CallError(ACL_ERROR_INVALID_PARAM, "[acl] " + std::string(e.what()));
  }
}

// The caller's input `v` transposed by `perm` into a buffer kept in `keep`: what ge reads.
ge::TensorView transposed_in(const ge::TensorView& v, std::span<const std::int64_t> perm, const std::string& which,
                             std::vector<std::unique_ptr<std::byte[]>>& keep) {
  require(v.rank() == perm.size(), which + " has " + std::to_string(v.rank()) + " dims; its layout (NHWC, HWCN) needs " +
                                       std::to_string(perm.size()),
          ACL_ERROR_FORMAT_NOT_MATCH);
  const std::int64_t bytes = checked_bytes(v, which);
  keep.push_back(std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(bytes)));
  const std::vector<std::int64_t> dims = permuted(v.dims, perm);
  transpose(v.data, keep.back().get(), v.dims, perm, static_cast<std::size_t>(ge::size_of(v.dtype)));
  return ge::TensorView(keep.back().get(), v.dtype, ge::ViewDims(dims), bytes);
}

}  // namespace

std::vector<std::vector<std::int64_t>> run(const ge::CompiledOp& op, const GeCall& call,
                                           std::span<const std::vector<std::int64_t>> dims, int num_inputs,
                                           const aclDataBuffer* const* inputs, int num_outputs,
                                           aclDataBuffer* const* outputs) {
  require(num_inputs == 0 || inputs != nullptr, "the input buffers are null");
  require(num_outputs == 0 || outputs != nullptr, "the output buffers are null");
  require(num_outputs == static_cast<int>(op.outputs.size()),
          std::to_string(num_outputs) + " outputs given; the op has " + std::to_string(op.outputs.size()),
          ACL_ERROR_OP_OUTPUT_NOT_MATCH);
  std::vector<ge::TensorView> in;
  std::vector<std::unique_ptr<std::byte[]>> transposed;  // the inputs and outputs ge reads and writes transposed
  transposed.reserve(call.slots.size() + static_cast<std::size_t>(num_outputs));
  for (std::size_t j = 0; j < call.slots.size(); ++j) {
    const std::size_t s = call.slots[j];
    if (op.inputs[j].is_undefined()) {
      in.emplace_back();
      continue;
    }
    const std::string which = "input " + std::to_string(s);
    ge::TensorView v = view_of(inputs[s], op.inputs[j].dtype, dims[s], which);
    if (const auto perm = call.input_perm(j); !perm.empty()) v = transposed_in(v, perm, which, transposed);
    if (const auto masks = call.input_regroup(j); !masks.empty())  // the same bytes, other dims
      v.dims = ge::ViewDims(regrouped(v.dims, masks));
    in.push_back(v);
  }
  const auto out_dims = op.output_dims(in);
  std::vector<ge::TensorView> out;  // what ge writes
  std::vector<ge::TensorView> given;  // the caller's buffers, where ge writes elsewhere
  std::vector<std::vector<std::int64_t>> real(static_cast<std::size_t>(num_outputs));
  for (int o = 0; o < num_outputs; ++o) {
    const auto k = static_cast<std::size_t>(o);
    const std::string which = "output " + std::to_string(o);
    const auto perm = call.output_perm(k);
    real[k] = perm.empty() ? out_dims[k] : permuted(out_dims[k], perm);
    given.push_back(view_of(outputs[o], op.outputs[k].dtype, real[k], which));
    if (perm.empty()) {
      out.push_back(given.back());
      continue;
    }
    const std::int64_t bytes = checked_bytes(given.back(), which);
    transposed.push_back(std::make_unique_for_overwrite<std::byte[]>(static_cast<std::size_t>(bytes)));
    out.emplace_back(transposed.back().get(), op.outputs[k].dtype, ge::ViewDims(out_dims[k]), bytes);
  }
  const auto ran = ge::execute_op(op, in, out);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const auto perm = call.output_perm(k);
    if (perm.empty()) {
      real[k] = ran[k];
      continue;
    }
    transpose(out[k].data, given[k].data, ran[k], perm, static_cast<std::size_t>(ge::size_of(out[k].dtype)));
    real[k] = permuted(ran[k], perm);
  }
  return real;
}

void rewrite_outputs(int num_outputs, aclTensorDesc* const* output_desc,
                     const std::vector<std::vector<std::int64_t>>& dims) {
  for (int o = 0; o < num_outputs; ++o) {
    const auto& d = dims[static_cast<std::size_t>(o)];
    set_shape(*output_desc[o], ge::Shape(std::vector<ge::Dim>(d.begin(), d.end())));
  }
}

namespace {

// The value of an input for shape inference: its constant data, else the data of an
// integer input whose buffer is given (a Reshape's shape).
std::optional<ge::Tensor> value_of(const ge::OpTensor& t, const aclDataBuffer* buffer) {
  if (t.constant) return t.constant;
  if (buffer == nullptr || buffer->data == nullptr || !t.shape.is_static()) return std::nullopt;
  if (t.dtype != ge::DataType::i32 && t.dtype != ge::DataType::i64) return std::nullopt;
  const auto dims = t.shape.values();
  std::int64_t n = 1;
  for (const std::int64_t d : dims) n *= d;
  const auto bytes = static_cast<std::size_t>(n * ge::size_of(t.dtype));
  require(buffer->size >= bytes, "an integer input's buffer holds " + std::to_string(buffer->size) +
                                     " bytes; its dims need " + std::to_string(bytes));
  const auto* p = static_cast<const std::byte*>(buffer->data);
  return ge::Tensor(t.dtype, dims, std::vector<std::byte>(p, p + bytes));
}

}  // namespace

}  // namespace acl

extern "C" {

aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                        int numOutputs, aclTensorDesc* outputDesc[], aclDataBuffer* outputs[], aclopAttr* attr,
                        aclrtStream stream) {
  return acl::guard("aclopExecuteV2", [&] {
    acl::require_initialized("aclopExecuteV2");
    acl::require_stream(stream, "aclopExecuteV2");
    const acl::GeCall call = acl::read_call(opType, numInputs, inputDesc, numOutputs, outputDesc, attr);
    const auto dims = acl::real_dims(numInputs, inputDesc);
    const auto op = acl::find_compiled(call);
    const auto real = acl::run_task("aclopExecuteV2", stream,
                                    [&] { return acl::run(*op, call, dims, numInputs, inputs, numOutputs, outputs); });
    acl::rewrite_outputs(numOutputs, outputDesc, real);
    return ACL_SUCCESS;
  });
}

aclError aclopCreateHandle(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[], int numOutputs,
                           const aclTensorDesc* const outputDesc[], const aclopAttr* opAttr, aclopHandle** handle) {
  return acl::guard("aclopCreateHandle", [&] {
    acl::require_initialized("aclopCreateHandle");
    acl::require(handle != nullptr, "the pointer to store the handle in is null");
    acl::GeCall call = acl::read_call(opType, numInputs, inputDesc, numOutputs, outputDesc, opAttr);
    auto dims = acl::real_dims(numInputs, inputDesc);
    auto op = acl::find_compiled(call);
    *handle = new aclopHandle{std::move(op), std::move(call), std::move(dims), numInputs, numOutputs};
    return ACL_SUCCESS;
  });
}

void aclopDestroyHandle(aclopHandle* handle) { delete handle; }

aclError aclopExecWithHandle(aclopHandle* handle, int numInputs, const aclDataBuffer* const inputs[], int numOutputs,
                             aclDataBuffer* const outputs[], aclrtStream stream) {
  return acl::guard("aclopExecWithHandle", [&] {
    acl::require_initialized("aclopExecWithHandle");
    acl::require_stream(stream, "aclopExecWithHandle");
    acl::require(handle != nullptr, "the handle is null");
    acl::require(numInputs == handle->num_inputs && numOutputs == handle->num_outputs,
                 std::to_string(numInputs) + " inputs and " + std::to_string(numOutputs) +
                     " outputs given; the handle was made for " + std::to_string(handle->num_inputs) + " and " +
                     std::to_string(handle->num_outputs));
    if (handle->direct) {  // a handle of aclblasCreateHandleFor*
      handle->direct(inputs, outputs, stream);
      return ACL_SUCCESS;
    }
    (void)acl::run_task("aclopExecWithHandle", stream, [&] {
      return acl::run(*handle->op, handle->call, handle->dims, numInputs, inputs, numOutputs, outputs);
    });
    return ACL_SUCCESS;
  });
}

aclError aclopSetMaxOpQueueNum(uint64_t maxOpNum) {
  return acl::guard("aclopSetMaxOpQueueNum", [&] {
    acl::require(maxOpNum > 0, "the op queue must hold at least one op", ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG);
    const auto cap = std::min<uint64_t>(maxOpNum, std::numeric_limits<std::size_t>::max());
    acl::op_compiler().set_capacity(static_cast<std::size_t>(cap));
    return ACL_SUCCESS;
  });
}

aclError aclopInferShape(const char* opType, int numInputs, aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                         int numOutputs, aclTensorDesc* outputDesc[], aclopAttr* attr) {
  return acl::guard("aclopInferShape", [&] {
    const acl::GeCall call = acl::read_call(opType, numInputs, inputDesc, numOutputs, outputDesc, attr);
    const ge::OpSchema& schema = ge::OpRegistry::global().find(call.op_type);
    std::vector<ge::TensorDesc> descs;
    std::vector<std::optional<ge::Tensor>> values;
    for (std::size_t j = 0; j < call.inputs.size(); ++j) {
      const ge::OpTensor& t = call.inputs[j];
      descs.push_back({t.dtype, t.shape});
      // A buffer in the acl layout is not ge's value.
      const bool transposed = (!call.input_perm(j).empty() || !call.input_regroup(j).empty()) && !t.constant;
      values.push_back(acl::value_of(t, inputs != nullptr && !transposed ? inputs[call.slots[j]] : nullptr));
    }
    std::vector<const ge::Tensor*> constants;
    for (const auto& v : values) constants.push_back(v ? &*v : nullptr);
    const auto out = ge::infer_outputs(schema, call.op_type, descs, constants, call.attrs,
                                       static_cast<std::size_t>(numOutputs));
    for (int o = 0; o < numOutputs && static_cast<std::size_t>(o) < out.size(); ++o) {
      ge::Shape shape = out[static_cast<std::size_t>(o)].shape;
      const auto perm = call.output_perm(static_cast<std::size_t>(o));
      if (!perm.empty() && shape.rank_known() && shape.rank() == perm.size()) {
        std::vector<ge::Dim> dims;
        for (const std::int64_t p : perm) dims.push_back(shape[static_cast<std::ptrdiff_t>(p)]);
        shape = ge::Shape(std::move(dims));
      }
      acl::set_shape(*outputDesc[o], shape);
    }
    return ACL_SUCCESS;
  });
}

}  // extern "C"

namespace {

// GE's Cast call: the "Cast" single op with "truncate" and "dst_type" (the destination
// description's type), its descriptions checked.
acl::GeCall cast_call(const aclTensorDesc* src, const aclTensorDesc* dst, uint8_t truncate) {
  acl::require(src != nullptr && dst != nullptr, "the source or destination description is null");
  aclopAttr attr;
  attr.attrs["truncate"] = truncate != 0;
  attr.attrs["dst_type"] = static_cast<std::int64_t>(acl::raw(dst->dtype));
  const aclTensorDesc* in[1] = {src};
  const aclTensorDesc* out[1] = {dst};
  return acl::read_call("Cast", 1, in, 1, out, &attr);
}

}  // namespace

extern "C" {

aclError aclopCast(const aclTensorDesc* srcDesc, const aclDataBuffer* srcBuffer, const aclTensorDesc* dstDesc,
                   aclDataBuffer* dstBuffer, uint8_t truncate, aclrtStream stream) {
  return acl::guard("aclopCast", [&] {
    acl::require_initialized("aclopCast");
    acl::require_stream(stream, "aclopCast");
    const acl::GeCall call = cast_call(srcDesc, dstDesc, truncate);
    acl::require(srcBuffer != nullptr && dstBuffer != nullptr, "the source or destination buffer is null");
    const aclTensorDesc* in[1] = {srcDesc};
    const auto dims = acl::real_dims(1, in);
    const auto op = acl::find_compiled(call);
    const aclDataBuffer* inputs[1] = {srcBuffer};
    aclDataBuffer* outputs[1] = {dstBuffer};
    (void)acl::run(*op, call, dims, 1, inputs, 1, outputs);
    return ACL_SUCCESS;
  });
}

aclError aclopCreateHandleForCast(aclTensorDesc* srcDesc, aclTensorDesc* dstDesc, uint8_t truncate,
                                  aclopHandle** handle) {
  return acl::guard("aclopCreateHandleForCast", [&] {
    acl::require_initialized("aclopCreateHandleForCast");
    acl::require(handle != nullptr, "the pointer to store the handle in is null");
    acl::GeCall call = cast_call(srcDesc, dstDesc, truncate);
    const aclTensorDesc* in[1] = {srcDesc};
    auto dims = acl::real_dims(1, in);
    auto op = acl::find_compiled(call);
    *handle = new aclopHandle{std::move(op), std::move(call), std::move(dims), 1, 1};
    return ACL_SUCCESS;
  });
}

}  // extern "C"
