// CPU kernels of the math ops of src/ops/math_ops.cpp: HardSigmoid (alpha, beta), Not,
// Mod (fmod), variadic Min, Max, Sum and Mean, InstanceNormalization (epsilon), Trilu (upper; k read
// per run from its optional input, which may be computed) and Range. Range with three
// constant inputs has a static length; otherwise its kernel is data-dependent: per run
// it refuses a delta of 0, infers the length by the schema from the inputs' values,
// asks for the output's memory, then fills it.
#include <limits>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "ge/ops/registry.hpp"
#include "kernels/cpu/elementwise/math.hpp"

namespace ge::cpu_lower {

namespace {

constexpr std::initializer_list<DataType> kIntegers{DataType::i8, DataType::i16, DataType::i32, DataType::i64,
                                                    DataType::u8, DataType::u16, DataType::u32, DataType::u64};
constexpr std::initializer_list<DataType> kMinMaxTypes{DataType::f32, DataType::f64, DataType::i8,  DataType::i16,
                                                       DataType::i32, DataType::i64, DataType::u8,  DataType::u16,
                                                       DataType::u32, DataType::u64};

bool all_inputs_in(const KernelRequest& r, std::initializer_list<DataType> types) {
  for (std::size_t i = 0; i < r.context.input_count(); ++i)
    if (!input_type_in(r, i, types)) return false;
  return true;
}

// The single value of a Range input, NaN when it does not hold one.
double scalar_value(const TensorView& t) {
  const std::vector<double> v = read_doubles("Range", t);
  return v.size() == 1 ? v[0] : std::numeric_limits<double>::quiet_NaN();
}

std::shared_ptr<const Kernel> make_range(const KernelRequest& req) {
  const InferContext& c = req.context;
  if (!runtime_data(c, {0, 1, 2}))
    return make_kernel("cpu.range", [](Views in, Views out) { cpu::range(in[0], in[2], out[0]); });
  auto schema = std::make_shared<const OpSchema>(c.schema());
  return make_dynamic_kernel("cpu.range.runtime", [schema, node = std::string(c.node())](Views in, Allocate allocate) {
    if (in.size() != 3) fail(Errc::bad_op_inputs, "Range", std::to_string(in.size()) + " inputs; expected 3");
    std::vector<TensorDesc> descs;
    std::vector<Tensor> values;
    values.reserve(3);
    std::vector<const Tensor*> constants;
    for (const TensorView& v : in) {
      if (v.data == nullptr && v.elements() > 0) fail(Errc::bad_tensor, "Range", "an input has no data (null buffer)");
      std::vector<std::int64_t> dims(v.dims.begin(), v.dims.end());
      descs.push_back({v.dtype, Shape(std::vector<Dim>(dims.begin(), dims.end()))});
      const auto* bytes = static_cast<const std::byte*>(v.data);
      values.emplace_back(v.dtype, std::move(dims), std::vector<std::byte>(bytes, bytes + v.bytes()));
      constants.push_back(&values.back());
    }
    // Kernels are shared by every node of one signature, so this one cannot name its
    // node; the message names the op and the values.
    if (scalar_value(in[2]) == 0.0)
      fail(Errc::invalid_argument, "Range", "delta is 0 at run time (start " + std::to_string(scalar_value(in[0])) +
                                                ", limit " + std::to_string(scalar_value(in[1])) +
                                                "); expected a non-zero step");
    const std::vector<TensorDesc> out = infer_outputs(*schema, node, descs, constants, Attributes{}, 1);
    const std::vector<std::int64_t> dims = out.at(0).shape.values();
    cpu::range(in[0], in[2], TensorView{allocate(0, dims), out[0].dtype, dims});
  });
}

// Trilu's k: 0 when the input is omitted, else its single value.
std::int64_t trilu_k(Views in) {
  const TensorView* k = optional_input(in, 1);
  if (k == nullptr) return 0;
  const std::vector<std::int64_t> v = read_ints("Trilu", *k);
  if (v.size() != 1) fail(Errc::bad_op_inputs, "Trilu", "k has " + std::to_string(v.size()) + " values; expected one");
  return v[0];
}

void add_variadic(KernelRegistry& r, const char* op, cpu::Variadic kind) {
  r.add({.op = op,
         .name = std::string("cpu.") + op,
         .fits = [](const KernelRequest& req) { return all_inputs_in(req, kMinMaxTypes); },
         .make = [op, kind](const KernelRequest&) {
           return make_kernel(std::string("cpu.") + op, [kind](Views in, Views out) { cpu::variadic(kind, in, out[0]); });
         }});
}

}  // namespace

void register_cpu_math(KernelRegistry& r) {
  r.add({.op = "HardSigmoid",
         .name = "cpu.hard_sigmoid",
         .fits = [](const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32}); },
         .make = [](const KernelRequest& req) {
           const cpu::HardSigmoidParams p{.alpha = static_cast<float>(req.context.f("alpha")),
                                          .beta = static_cast<float>(req.context.f("beta"))};
           return make_kernel("cpu.hard_sigmoid", [p](Views in, Views out) { cpu::hard_sigmoid(p, in[0], out[0]); });
         }});
  r.add({.op = "Not",
         .name = "cpu.not",
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.not", [](Views in, Views out) { cpu::logical_not(in[0], out[0]); });
         }});
  r.add({.op = "Mod",
         .name = "cpu.mod",
         .fits = [](const KernelRequest& req) {
           return all_inputs_in(req, kIntegers) ||
                  (all_inputs_in(req, {DataType::f32, DataType::f64}) && req.context.i("fmod") == 1);
         },
         .make = [](const KernelRequest& req) {
           const bool fmod = req.context.i("fmod") != 0;
           return make_kernel("cpu.mod", [fmod](Views in, Views out) { cpu::mod(fmod, in[0], in[1], out[0]); });
         }});
  add_variadic(r, "Min", cpu::Variadic::min);
  add_variadic(r, "Max", cpu::Variadic::max);
  add_variadic(r, "Sum", cpu::Variadic::sum);
  add_variadic(r, "Mean", cpu::Variadic::mean);
  r.add({.op = "InstanceNormalization",
         .name = "cpu.instance_norm",
         .fits = [](const KernelRequest& req) { return all_inputs_in(req, {DataType::f32}); },
         .make = [](const KernelRequest& req) {
           const cpu::InstanceNormParams p{.epsilon = static_cast<float>(req.context.f("epsilon"))};
           return make_kernel("cpu.instance_norm",
                              [p](Views in, Views out) { cpu::instance_norm(p, in[0], in[1], in[2], out[0]); });
         }});
  r.add({.op = "Trilu",
         .name = "cpu.trilu",
         .make = [](const KernelRequest& req) {
           const bool upper = req.context.i("upper") != 0;
           return make_kernel("cpu.trilu", [upper](Views in, Views out) {
             cpu::trilu({.upper = upper, .k = trilu_k(in)}, in[0], out[0]);
           });
         }});
  r.add({.op = "Range",
         .name = "cpu.range",
         .fits = [](const KernelRequest& req) {
           return input_type_in(req, 0, {DataType::f32, DataType::f64, DataType::i16, DataType::i32, DataType::i64});
         },
         .make = make_range});
}

}  // namespace ge::cpu_lower
