// The helpers of lower.hpp shared by every op family: messages, axes, integer inputs.
#include "compile/cpu/lower.hpp"

#include <algorithm>
#include <cstring>

#include "ge/ops/registry.hpp"

namespace ge::cpu_lower {

void fail(Errc code, std::string_view op, const std::string& what) {
  raise(code, "[ge.compile] [" + std::string(op) + "] " + what);
}

std::int64_t resolve_axis(std::string_view op, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    fail(Errc::bad_attribute, op, "axis " + std::to_string(axis) + " is outside [" + std::to_string(-r) + ", " +
                                      std::to_string(r) + ") for an input of rank " + std::to_string(r));
  return axis < 0 ? axis + r : axis;
}

std::vector<std::int64_t> read_ints(std::string_view op, const TensorView& t) {
  const std::int64_t n = t.elements();
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  if (n > 0 && t.data == nullptr) fail(Errc::bad_tensor, op, "an integer input has no data (null buffer)");
  switch (t.dtype) {
    case DataType::i64:
      if (n > 0) std::memcpy(v.data(), t.data, static_cast<std::size_t>(n) * sizeof(std::int64_t));
      break;
    case DataType::i32:
      for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = t.as<const std::int32_t>()[i];
      break;
    default:
      fail(Errc::type_mismatch, op, "an integer input is '" + std::string(to_string(t.dtype)) + "'; expected i32 or i64");
  }
  return v;
}

void read_ints(std::string_view op, const TensorView& t, cpu::SmallDims& out) {
  const std::int64_t n = t.elements();
  if (n > static_cast<std::int64_t>(cpu::SmallDims::kMax))
    fail(Errc::unsupported, op, "an integer input of " + std::to_string(n) + " values; at most " +
                                    std::to_string(cpu::SmallDims::kMax) + " are read here (one per axis)");
  if (n > 0 && t.data == nullptr) fail(Errc::bad_tensor, op, "an integer input has no data (null buffer)");
  out.clear();
  switch (t.dtype) {
    case DataType::i64:
      for (std::int64_t i = 0; i < n; ++i) out.push_back(t.as<const std::int64_t>()[i]);
      break;
    case DataType::i32:
      for (std::int64_t i = 0; i < n; ++i) out.push_back(t.as<const std::int32_t>()[i]);
      break;
    default:
      fail(Errc::type_mismatch, op, "an integer input is '" + std::string(to_string(t.dtype)) + "'; expected i32 or i64");
  }
}

std::vector<double> read_doubles(std::string_view op, const TensorView& t) {
  const std::int64_t n = t.elements();
  std::vector<double> v(static_cast<std::size_t>(n));
  if (n > 0 && t.data == nullptr) fail(Errc::bad_tensor, op, "an input has no data (null buffer)");
  for (std::int64_t i = 0; i < n; ++i) {
    double& d = v[static_cast<std::size_t>(i)];
    switch (t.dtype) {
      case DataType::f32: d = t.as<const float>()[i]; break;
      case DataType::f64: d = t.as<const double>()[i]; break;
      case DataType::i32: d = t.as<const std::int32_t>()[i]; break;
      case DataType::i64: d = static_cast<double>(t.as<const std::int64_t>()[i]); break;
      default:
        fail(Errc::type_mismatch, op, "an input is '" + std::string(to_string(t.dtype)) + "'; expected f32, f64, i32 or i64");
    }
  }
  return v;
}

std::optional<std::vector<std::int64_t>> constant_ints(const InferContext& c, std::size_t i) {
  const Tensor* t = c.constant(i);
  if (t == nullptr) return std::nullopt;
  return t->to_int64s();
}

TensorView view_of(const Tensor& t) {
  return TensorView{const_cast<std::byte*>(t.bytes().data()), t.dtype(), t.dims()};
}

bool input_type_in(const KernelRequest& r, std::size_t i, std::initializer_list<DataType> types) {
  if (!r.context.has_input(i)) return false;
  const DataType t = r.context.input(i).dtype;
  for (const DataType u : types)
    if (u == t) return true;
  return false;
}

std::int64_t count_of(std::span<const std::int64_t> dims) noexcept {
  std::int64_t n = 1;
  for (const std::int64_t d : dims) n *= d;
  return n;
}

bool runtime_data(const InferContext& c, std::initializer_list<std::size_t> slots) {
  for (const std::size_t i : slots)
    if (c.has_input(i) && c.constant(i) == nullptr) return true;
  return false;
}

std::shared_ptr<const Kernel> make_shaped_kernel(std::string name, const KernelRequest& req,
                                                 std::initializer_list<std::size_t> slots, Body body) {
  const InferContext& c = req.context;
  if (!runtime_data(c, slots)) return make_kernel(std::move(name), std::move(body));
  auto schema = std::make_shared<const OpSchema>(c.schema());
  Attributes attrs;
  for (const AttrSpec& a : schema->attrs)
    if (c.has(a.name)) attrs.emplace(a.name, c.attr(a.name));
  const std::vector<std::size_t> data(slots);
  const std::size_t outputs = req.outputs.size();
  return make_dynamic_kernel(name, [name, schema, attrs, data, outputs, body](Views in,
                                                                           Allocate allocate) {
    std::vector<TensorDesc> descs(in.size());
    std::vector<Tensor> values;
    values.reserve(data.size());
    std::vector<const Tensor*> constants(in.size(), nullptr);
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (in[i].dtype == DataType::undefined) continue;
      descs[i] = {in[i].dtype, Shape(std::vector<Dim>(in[i].dims.begin(), in[i].dims.end()))};
      if (std::find(data.begin(), data.end(), i) == data.end()) continue;
      const auto* bytes = static_cast<const std::byte*>(in[i].data);
      values.emplace_back(in[i].dtype, std::vector<std::int64_t>(in[i].dims.begin(), in[i].dims.end()),
                          std::vector<std::byte>(bytes, bytes + in[i].bytes()));
      constants[i] = &values.back();
    }
    const auto inferred = infer_outputs(*schema, name, descs, constants, attrs, outputs);
    std::vector<std::vector<std::int64_t>> dims(inferred.size());
    std::vector<TensorView> out(inferred.size());
    for (std::size_t o = 0; o < inferred.size(); ++o) {
      dims[o] = inferred[o].shape.values();
      out[o] = TensorView{nullptr, inferred[o].dtype, dims[o]};
    }
    for (std::size_t o = 0; o < out.size(); ++o) out[o].data = allocate(o, dims[o]);
    body(in, out);
  });
}

}  // namespace ge::cpu_lower
