// CPU kernels of QuantizeLinear, DequantizeLinear (axis resolved per run),
// DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv (the
// window resolved per run from the input's dims: SAME pads need them).
#include <cmath>
#include <string>

#include "compile/cpu/lower.hpp"
#include "compile/cpu/quant_attrs.hpp"
#include "kernels/cpu/int8/int8.hpp"
#include "kernels/cpu/int8/quantize.hpp"
#include "ops/window_attrs.hpp"

namespace ge::cpu_lower {

namespace {

// A per-axis op's axis: resolved against x's rank only where it is used (a per-axis scale).
std::int64_t quant_axis(std::string_view op, std::int64_t axis, const TensorView& x, const TensorView& scale) {
  if (scale.elements() == 1 || x.rank() == 0) return 0;
  return resolve_axis(op, axis, x.rank());
}

cpu::IntConvParams int_conv_params(std::string_view op, const Attributes& attrs, const TensorView& x,
                                   const TensorView& w) {
  if (x.rank() < 3 || w.rank() != x.rank())
    fail(Errc::bad_op_inputs, op, "x and w need the same rank >= 3");
  const std::size_t n = x.rank() - 2;
  const ops::WindowAttrs win = ops::WindowAttrs::from(attrs, n);
  cpu::IntConvParams p{.strides = win.strides, .dilations = win.dilations, .pads_begin = {}, .group = 1};
  for (std::size_t i = 0; i < n; ++i) p.pads_begin.push_back(win.pads_at(i, x.dims[i + 2], w.dims[i + 2]).first);
  p.group = attrs.at("group").as_int();
  return p;
}

void add_products(KernelRegistry& r) {
  r.add({.op = "MatMulInteger",
         .name = "cpu.matmul_integer",
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.matmul_integer", [](Views in, Views out) {
             cpu::matmul_integer(in[0], in[1], optional_input(in, 2), optional_input(in, 3), out[0]);
           });
         }});
  r.add({.op = "QLinearMatMul",
         .name = "cpu.qlinear_matmul",
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.qlinear_matmul", [](Views in, Views out) {
             const cpu::Requantize rq{&in[1], &in[4], &in[6], &in[7]};
             cpu::matmul_integer(in[0], in[3], &in[2], &in[5], out[0], &rq);
           });
         }});
  r.add({.op = "ConvInteger",
         .name = "cpu.conv_integer",
         .make = [](const KernelRequest& req) {
           const Attributes attrs = req.context.attrs();
           return make_kernel("cpu.conv_integer", [attrs](Views in, Views out) {
             const cpu::IntConvParams p = int_conv_params("ConvInteger", attrs, in[0], in[1]);
             cpu::conv_integer(p, in[0], in[1], optional_input(in, 2), optional_input(in, 3), nullptr, out[0]);
           });
         }});
  r.add({.op = "QLinearConv",
         .name = "cpu.qlinear_conv",
         .make = [](const KernelRequest& req) {
           const Attributes attrs = req.context.attrs();
           return make_kernel("cpu.qlinear_conv", [attrs](Views in, Views out) {
             const cpu::IntConvParams p = int_conv_params("QLinearConv", attrs, in[0], in[3]);
             const cpu::Requantize rq{&in[1], &in[4], &in[6], &in[7]};
             cpu::conv_integer(p, in[0], in[3], &in[2], &in[5], optional_input(in, 8), out[0], &rq);
           });
         }});
}

}  // namespace

cpu::QuantU8 input_quant(const InferContext& c, const std::string& prefix) {
  const double scale = c.f(prefix + "x_scale");
  const std::int64_t zp = c.i(prefix + "x_zero_point");
  if (!(scale > 0.0) || !std::isfinite(scale) || zp < 0 || zp > 255)
    raise(Errc::bad_attribute, "[ge.compile] node '" + std::string(c.node()) + "': " + prefix + "x_scale " +
                                   std::to_string(scale) + ", " + prefix + "x_zero_point " + std::to_string(zp) +
                                   "; expected a positive finite scale and a zero point in [0, 255]");
  return {static_cast<float>(scale), static_cast<std::int32_t>(zp)};
}

std::optional<cpu::FakeQuant> round_trip(const InferContext& c, const std::string& prefix, bool optional) {
  const std::string y = prefix.empty() || prefix.back() == '_' ? prefix : prefix + "_";
  const double scale = c.f(y + "scale");
  if (optional && scale == 0.0) return std::nullopt;
  const std::int64_t zp = c.i(y + "zero_point"), lo = c.i(y + "qmin"), hi = c.i(y + "qmax");
  if (!(scale > 0.0) || !std::isfinite(scale) || lo < -128 || hi > 255 || lo >= hi || zp < lo || zp > hi)
    raise(Errc::bad_attribute, "[ge.compile] node '" + std::string(c.node()) + "': " + y + "scale " +
                                   std::to_string(scale) + ", zero point " + std::to_string(zp) + ", range [" +
                                   std::to_string(lo) + ", " + std::to_string(hi) +
                                   "]; expected a positive finite scale and -128 <= qmin <= zero point <= qmax <= 255, "
                                   "qmin < qmax");
  return cpu::FakeQuant{static_cast<float>(scale), static_cast<std::int32_t>(zp), static_cast<std::int32_t>(lo),
                        static_cast<std::int32_t>(hi)};
}

void register_cpu_quantize(KernelRegistry& r) {
  r.add({.op = "FakeQuant",
         .name = "cpu.fake_quant",
         .make = [](const KernelRequest& req) {
           const InferContext& c = req.context;
           const cpu::FakeQuant q = *round_trip(c, "", false);
           return make_kernel("cpu.fake_quant", [q](Views in, Views out) {
             const float* x = in[0].as<const float>();
             float* y = out[0].as<float>();
             cpu::parallel_for(in[0].elements(), 16384,
                               [&](std::int64_t b, std::int64_t e) { cpu::fake_quant(q, x + b, e - b, y + b); });
           });
         }});
  r.add({.op = "QuantizeLinear",
         .name = "cpu.quantize_linear",
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           return make_kernel("cpu.quantize_linear", [axis](Views in, Views out) {
             cpu::quantize_linear(quant_axis("QuantizeLinear", axis, in[0], in[1]), in[0], in[1], optional_input(in, 2),
                                  out[0]);
           });
         }});
  r.add({.op = "DequantizeLinear",
         .name = "cpu.dequantize_linear",
         .make = [](const KernelRequest& req) {
           const std::int64_t axis = req.context.i("axis");
           return make_kernel("cpu.dequantize_linear", [axis](Views in, Views out) {
             cpu::dequantize_linear(quant_axis("DequantizeLinear", axis, in[0], in[1]), in[0], in[1],
                                    optional_input(in, 2), out[0]);
           });
         }});
  r.add({.op = "DynamicQuantizeLinear",
         .name = "cpu.dynamic_quantize_linear",
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.dynamic_quantize_linear", [](Views in, Views out) {
             cpu::dynamic_quantize_linear(in[0], out[0], out[1], out[2]);
           });
         }});
  add_products(r);
}

}  // namespace ge::cpu_lower
