#include "ge/compile/op_compile.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "compile/widen.hpp"
#include "ge/core/detail/out_of_memory.hpp"
#include "ge/ops/registry.hpp"
#include "kernels/cpu/movement/data_movement.hpp"

namespace ge {

namespace {

[[noreturn]] void fail(Errc code, std::string_view op, const std::string& what) {
  raise(code, "[ge.compile] [" + std::string(op) + "] " + what);
}

std::string engine_name(Engine e) { return e == Engine::host ? "host" : "vector"; }

// A 64-bit hash of constant data for cache keys: eight bytes per step (weights run to
// hundreds of megabytes, and every compile of a node hashes its constants), each word
// mixed in with a multiply and a rotate, the tail byte by byte, the length last.
std::uint64_t hash_bytes(std::span<const std::byte> bytes) {
  constexpr std::uint64_t k = 0x9e3779b97f4a7c15ull;
  std::uint64_t h = 1469598103934665603ull;
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    h = (h ^ (w * k)) * 0x100000001b3ull;
    h = (h << 29) | (h >> 35);
  }
  for (; i < bytes.size(); ++i) h = (h ^ static_cast<std::uint64_t>(bytes[i])) * 1099511628211ull;
  return (h ^ bytes.size()) * k;
}

std::string describe(const OpTensor& t) {
  if (t.is_undefined()) return "undefined";
  std::string s = std::string(to_string(t.dtype)) + "[" + t.shape.to_string() + "]" + std::string(to_string(t.format));
  if (t.constant) s += "=const#" + std::to_string(hash_bytes(t.constant->bytes())) + "/" + std::to_string(t.constant->bytes().size());
  return s;
}

std::size_t required_inputs(const OpSchema& s) {
  return static_cast<std::size_t>(std::count_if(s.inputs.begin(), s.inputs.end(),
                                                [](const ArgSpec& a) { return !a.optional && !a.variadic; })) +
         (!s.inputs.empty() && s.inputs.back().variadic && !s.inputs.back().optional ? 1 : 0);
}

bool is_optional_slot(const OpSchema& s, std::size_t i) {
  if (i < s.inputs.size()) return s.inputs[i].optional;
  return false;
}

void check_request(const OpCompileRequest& r, const OpSchema& schema) {
  const std::string_view op = r.op_type;
  if (!r.op_path.empty())
    fail(Errc::invalid_argument, op, "kernel path '" + r.op_path + "' given; the kernel path is reserved and must be empty");
  if (r.num_inputs >= 0 && static_cast<std::size_t>(r.num_inputs) != r.inputs.size())
    fail(Errc::bad_op_inputs, op, "numInputs is " + std::to_string(r.num_inputs) + " but " +
                                      std::to_string(r.inputs.size()) + " input descriptions were given; expected equal counts");
  if (r.num_outputs >= 0 && static_cast<std::size_t>(r.num_outputs) != r.outputs.size())
    fail(Errc::bad_op_inputs, op, "numOutputs is " + std::to_string(r.num_outputs) + " but " +
                                      std::to_string(r.outputs.size()) + " output descriptions were given; expected equal counts");
  const bool variadic = !schema.inputs.empty() && schema.inputs.back().variadic;
  if (r.inputs.size() < required_inputs(schema) || (!variadic && r.inputs.size() > schema.inputs.size()))
    fail(Errc::bad_op_inputs, op, std::to_string(r.inputs.size()) + " inputs given; expected " +
                                      std::to_string(required_inputs(schema)) +
                                      (variadic ? " or more" : " to " + std::to_string(schema.inputs.size())));
  for (std::size_t i = 0; i < r.inputs.size(); ++i) {
    const OpTensor& t = r.inputs[i];
    const std::string which = "input " + std::to_string(i);
    if (t.is_undefined()) {
      if (!is_optional_slot(schema, i))
        fail(Errc::bad_op_inputs, op, which + " is UNDEFINED but is not optional; expected a description");
      if (!t.shape.is_scalar() || t.format != Format::undefined || t.constant)
        fail(Errc::bad_op_inputs, op, which + " is an unused optional input, so its description must have type and format "
                                              "UNDEFINED and no dims; got shape '" + t.shape.to_string() + "' format " +
                                              std::string(to_string(t.format)));
      continue;
    }
    if (t.constant) {
      if (t.constant->dtype() != t.dtype || !(t.constant->shape() == t.shape))
        fail(Errc::bad_op_inputs, op, which + " is constant with data " + to_string(t.constant->desc()) +
                                          " but is described as " + to_string(TensorDesc{t.dtype, t.shape}) +
                                          "; expected the same type and dims");
    }
  }
}

Engine pick_engine(const OpCompileRequest& r, const OpSchema& schema) {
  switch (r.engine) {
    case EngineChoice::system: return schema.engines.has(Engine::vector) ? Engine::vector : Engine::host;
    case EngineChoice::vector:
    case EngineChoice::host: {
      const Engine e = r.engine == EngineChoice::vector ? Engine::vector : Engine::host;
      if (!schema.engines.has(e))
        fail(Errc::engine_unsupported, r.op_type, "the " + engine_name(e) + " engine cannot run it; it runs on " +
                                                      schema.engines.to_string());
      return e;
    }
  }
  return Engine::vector;
}

// Fuzzy compile: every non-constant input dim becomes unknown, the rank stays.
OpTensor generalise(const OpTensor& t) {
  if (t.is_undefined() || t.constant || !t.shape.rank_known()) return t;
  OpTensor g = t;
  g.shape = Shape(std::vector<Dim>(t.shape.dims().size(), Dim::unknown()));
  return g;
}

std::string cache_key(std::string_view op, Engine engine, CompileFlag flag, Precision precision,
                      const std::vector<OpTensor>& inputs, const std::vector<OpTensor>& outputs,
                      const Attributes& attrs) {
  std::string key(op);
  key += '|';
  key += engine_name(engine);
  key += flag == CompileFlag::fuzzy ? "|fuzzy" : "|exact";
  if (precision != Precision::f32) key += "|p:" + std::string(to_string(precision));
  for (const OpTensor& t : inputs) key += "|i:" + describe(t);
  for (const OpTensor& t : outputs) key += "|o:" + describe(t);
  for (const auto& [name, value] : attrs) {
    key += "|a:" + name + "=" + value.to_string();
    // A tensor's text names its type and dims only: its bytes key it too (ConstantOfShape's
    // value 1 and value 2 are two kernels).
    if (value.kind() == AttrKind::tensor) {
      static constexpr char hex[] = "0123456789abcdef";
      for (const std::byte b : value.as_tensor().bytes()) {
        key += hex[static_cast<unsigned>(b) >> 4];
        key += hex[static_cast<unsigned>(b) & 15];
      }
    }
  }
  return key;
}

// An f16/bf16 single op computed in f32, as widen_half_floats computes a graph's: each
// half input is cast to f32 before the f32 kernel runs and each half output is rounded
// back to its type after (round to nearest even), in buffers of the run's own.
class WidenedKernel final : public Kernel {
 public:
  WidenedKernel(std::shared_ptr<const Kernel> inner, std::vector<DataType> in_types, std::vector<DataType> out_types)
      : inner_(std::move(inner)),
        name_("widened(" + std::string(inner_->name()) + ")"),
        in_types_(std::move(in_types)),
        out_types_(std::move(out_types)) {}

  [[nodiscard]] std::string_view name() const noexcept override { return name_; }
  [[nodiscard]] bool captures_input(std::size_t input) const noexcept override { return inner_->captures_input(input); }

  void run(std::span<const TensorView> inputs, std::span<const TensorView> outputs) const override {
    std::vector<std::vector<float>> buffers;
    buffers.reserve(inputs.size() + outputs.size());
    const auto wide = [&](const TensorView& v) {
      buffers.emplace_back(static_cast<std::size_t>(v.elements()));
      return TensorView{buffers.back().data(), DataType::f32, v.dims};
    };
    std::vector<TensorView> in(inputs.begin(), inputs.end());
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (i >= in_types_.size() || !detail::is_half(in_types_[i]) || in[i].dtype == DataType::undefined) continue;
      if (inner_->captures_input(i)) {  // packed when made: never read
        in[i] = TensorView{nullptr, DataType::f32, in[i].dims};
        continue;
      }
      in[i] = wide(inputs[i]);
      cpu::cast(inputs[i], in[i]);
    }
    std::vector<TensorView> out(outputs.begin(), outputs.end());
    for (std::size_t o = 0; o < out.size(); ++o)
      if (o < out_types_.size() && detail::is_half(out_types_[o])) out[o] = wide(outputs[o]);
    inner_->run(in, out);
    for (std::size_t o = 0; o < out.size(); ++o)
      if (out[o].data != outputs[o].data) cpu::cast(out[o], outputs[o]);
  }

 private:
  std::shared_ptr<const Kernel> inner_;
  std::string name_;
  std::vector<DataType> in_types_;
  std::vector<DataType> out_types_;
};

// The kernel of a single op whose inputs or outputs are f16/bf16 and that no kernel
// computes in those types: the op's f32 kernel inside a WidenedKernel, or null when the
// op in f32 has no kernel, gives other output types than f32 for the half ones, or has
// outputs whose dims depend on the data.
std::shared_ptr<const Kernel> widened_kernel(const OpSchema& schema, const std::string& node,
                                             const std::vector<OpTensor>& inputs, std::span<const TensorDesc> outputs,
                                             const Attributes& attrs, Engine engine, Precision precision) {
  const bool half =
      std::any_of(inputs.begin(), inputs.end(), [](const OpTensor& t) { return detail::is_half(t.dtype); }) ||
      std::any_of(outputs.begin(), outputs.end(), [](const TensorDesc& t) { return detail::is_half(t.dtype); });
  if (!half) return nullptr;
  std::vector<TensorDesc> descs;
  std::vector<Tensor> wide_constants;
  wide_constants.reserve(inputs.size());
  std::vector<const Tensor*> constants;
  std::vector<DataType> in_types;
  for (const OpTensor& t : inputs) {
    in_types.push_back(t.dtype);
    const DataType dtype = detail::is_half(t.dtype) ? DataType::f32 : t.dtype;
    descs.push_back({dtype, t.shape});
    if (!t.constant) {
      constants.push_back(nullptr);
    } else {
      wide_constants.push_back(detail::is_half(t.dtype) ? detail::widened(*t.constant) : *t.constant);
      constants.push_back(&wide_constants.back());
    }
  }
  const Attributes wide_attrs = detail::widened(attrs);
  std::vector<TensorDesc> wide_outputs;
  try {
    wide_outputs = infer_outputs(schema, node, descs, constants, wide_attrs, outputs.size());
  } catch (const Error&) {
    return nullptr;  // the op takes no f32 (its schema's types): no_kernel as before
  }
  std::vector<DataType> out_types;
  for (std::size_t o = 0; o < outputs.size() && o < wide_outputs.size(); ++o) {
    const DataType want = detail::is_half(outputs[o].dtype) ? DataType::f32 : outputs[o].dtype;
    if (wide_outputs[o].dtype != want) return nullptr;
    wide_outputs[o].shape = outputs[o].shape;
    out_types.push_back(outputs[o].dtype);
  }
  const InferContext context(schema, node, descs, constants, wide_attrs, outputs.size());
  const KernelRequest request{context, wide_outputs, engine, precision, nullptr};
  const auto impl = KernelRegistry::global().select(request);
  if (!impl) return nullptr;
  auto inner = impl->make(request);
  if (inner->data_dependent()) return nullptr;
  return std::make_shared<WidenedKernel>(std::move(inner), std::move(in_types), std::move(out_types));
}

}  // namespace

OpTensor OpTensor::constant_of(Tensor data, Format format) {
  OpTensor t;
  t.dtype = data.dtype();
  t.shape = data.shape();
  t.format = format;
  t.constant = std::move(data);
  return t;
}

OpCompiler::OpCompiler(std::size_t capacity) : cache_(capacity) {}

OpCompiler& OpCompiler::global() {
  static OpCompiler compiler;
  return compiler;
}

std::shared_ptr<const CompiledOp> OpCompiler::compile(const OpCompileRequest& r) {
  const Target& target = r.target != nullptr ? *r.target : default_target();
  if (!target.supports_single_op_compile)
    fail(Errc::unsupported, r.op_type, "target '" + std::string(target.name) + "' (" + std::string(target.product) +
                                           ") offers no single-op compile; expected a target that does, such as 'cpu'");
  const OpSchema* schema = OpRegistry::global().try_find(r.op_type);
  if (schema == nullptr) (void)OpRegistry::global().find(r.op_type);  // throws unknown_op with a suggestion
  check_request(r, *schema);
  const Engine engine = pick_engine(r, *schema);
  std::vector<OpTensor> inputs;
  inputs.reserve(r.inputs.size());
  for (const OpTensor& t : r.inputs) inputs.push_back(r.flag == CompileFlag::fuzzy ? generalise(t) : t);
  std::vector<OpTensor> outputs = r.outputs;
  if (r.flag == CompileFlag::fuzzy)
    for (OpTensor& t : outputs) t = generalise(t);

  const std::string key = cache_key(r.op_type, engine, r.flag, r.precision, inputs, outputs, r.attrs);
  const auto make = [&]() -> std::shared_ptr<const CompiledOp> {
    std::vector<TensorDesc> descs;
    std::vector<const Tensor*> constants;
    for (const OpTensor& t : inputs) {
      descs.push_back({t.dtype, t.shape});
      constants.push_back(t.constant ? &*t.constant : nullptr);
    }
    const std::string node = r.op_type + "(single op)";
    auto inferred = infer_outputs(*schema, node, descs, constants, r.attrs, outputs.size());
    if (!outputs.empty() && outputs.size() != inferred.size())
      fail(Errc::bad_op_inputs, r.op_type, std::to_string(outputs.size()) + " output descriptions given; the op has " +
                                                 std::to_string(inferred.size()));
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].dtype != inferred[i].dtype)
        fail(Errc::type_mismatch, r.op_type, "output " + std::to_string(i) + " is described as " +
                                                 std::string(to_string(outputs[i].dtype)) + " but the op gives " +
                                                 std::string(to_string(inferred[i].dtype)));
      if (!compatible(outputs[i].shape, inferred[i].shape))
        fail(Errc::incompatible_shapes, r.op_type, "output " + std::to_string(i) + " is described as '" +
                                                       outputs[i].shape.to_string() + "' but the op gives '" +
                                                       inferred[i].shape.to_string() + "'");
      inferred[i].shape = merge(outputs[i].shape, inferred[i].shape);
    }
    const Attributes attrs = schema->with_defaults(r.attrs);
    const InferContext context(*schema, node, descs, constants, attrs, outputs.size());
    const KernelRequest request{context, inferred, engine, r.precision, r.packed};
    const auto impl = KernelRegistry::global().select(request);
    // No kernel computes the op in f16/bf16: its f32 kernel does, between casts.
    std::shared_ptr<const Kernel> widened =
        impl ? nullptr : widened_kernel(*schema, node, inputs, inferred, attrs, engine, r.precision);
    if (!impl && !widened)
      fail(Errc::no_kernel, r.op_type, "no " + engine_name(engine) + "-engine kernel fits inputs " +
                                           [&] {
                                             std::string s;
                                             bool half = false;
                                             for (const OpTensor& t : inputs) {
                                               s += (s.empty() ? "" : ", ") + describe(t);
                                               half = half || t.dtype == DataType::f16 || t.dtype == DataType::bf16;
                                             }
                                             // f16/bf16 ops compute in f32 (widened_kernel).
                                             if (half) s += "; f16/bf16 ops compute in f32, and no f32 kernel serves it either";
                                             return s;
                                           }());
    auto op = std::make_shared<CompiledOp>();
    op->op_type = r.op_type;
    op->key = key;
    op->engine = engine;
    op->flag = r.flag;
    op->inputs = inputs;
    op->outputs = std::move(inferred);
    op->attrs = r.attrs;
    op->kernel = impl ? impl->make(request) : std::move(widened);
    op->precision = r.precision;
    return op;
  };
  // A subgraph's text names no graph (`graph`): such ops are compiled outside the cache.
  if (std::any_of(r.attrs.begin(), r.attrs.end(), [](const auto& a) { return a.second.kind() == AttrKind::graph; }))
    return make();
  return cache_.get_or_create(key, make);
}

namespace {

// Whether compiled input `c` serves requested input `t` (see OpCompiler::find).
bool serves(const OpTensor& c, const OpTensor& t, bool ignore_constant_data) {
  if (c.is_undefined() || t.is_undefined()) return c.is_undefined() && t.is_undefined();
  if (c.dtype != t.dtype || c.format != t.format || c.constant.has_value() != t.constant.has_value()) return false;
  if (c.constant && !ignore_constant_data && !(*c.constant == *t.constant)) return false;
  return relaxes(c.shape, t.shape);
}

}  // namespace

std::shared_ptr<const CompiledOp> OpCompiler::find(const OpCompileRequest& r, bool ignore_constant_data) {
  const OpSchema& schema = OpRegistry::global().find(r.op_type);
  const Attributes attrs = schema.with_defaults(r.attrs);
  return cache_.find_if([&](const CompiledOp& op) {
    if (op.op_type != r.op_type || op.precision != r.precision || op.inputs.size() != r.inputs.size() ||
        op.outputs.size() != r.outputs.size())
      return false;
    if (r.engine != EngineChoice::system && (op.engine == Engine::host) != (r.engine == EngineChoice::host)) return false;
    for (std::size_t i = 0; i < r.inputs.size(); ++i)
      if (!serves(op.inputs[i], r.inputs[i], ignore_constant_data)) return false;
    for (std::size_t o = 0; o < r.outputs.size(); ++o)
      if (op.outputs[o].dtype != r.outputs[o].dtype) return false;
    return schema.with_defaults(op.attrs) == attrs;
  });
}

std::shared_ptr<const CompiledOp> compile_op(std::string_view op_type, std::vector<OpTensor> inputs,
                                             std::vector<OpTensor> outputs, Attributes attrs, EngineChoice engine,
                                             CompileFlag flag, const char* op_path) {
  OpCompileRequest r;
  r.op_type = std::string(op_type);
  r.inputs = std::move(inputs);
  r.outputs = std::move(outputs);
  r.attrs = std::move(attrs);
  r.engine = engine;
  r.flag = flag;
  r.op_path = op_path ? op_path : "";
  return detail::guard_memory("[ge.compile] compiling op", [&] { return "'" + r.op_type + "'"; },
                              [&] { return OpCompiler::global().compile(r); });
}

}  // namespace ge
