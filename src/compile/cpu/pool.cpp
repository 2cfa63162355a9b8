// CPU kernels of the pools, f32 NCHW (a 1-D pool runs as a 2-D one with H = 1): MaxPool and
// AveragePool resolve kernel, strides, dilations, count_include_pad in `make`, and pads or
// auto_pad SAME_*/VALID per run from the input's dims; ceil_mode needs nothing more, as
// the output view's dims (computed by the schema) say how many windows to take and the
// kernels clip the windows that run past the input. MaxPool's optional Indices output has
// no kernel. GlobalAveragePool and GlobalMaxPool take any rank >= 3.
#include <array>
#include <tuple>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "kernels/cpu/pool/pool.hpp"
#include "ops/window_attrs.hpp"

namespace ge::cpu_lower {

namespace {

struct PoolAttrs {
  ops::WindowAttrs window;  // kernel_shape is required: every axis has its kernel
  bool count_include_pad = false;
};

PoolAttrs pool_attrs(const InferContext& c, bool is_max) {
  return {ops::WindowAttrs::from(c, c.ints("kernel_shape").size()), !is_max && c.i("count_include_pad") != 0};
}

// The 2-D parameters for an input of `spatial` extents (one or two).
cpu::Pool2dParams resolve(const PoolAttrs& a, std::span<const std::int64_t> spatial) {
  const ops::WindowAttrs& w = a.window;
  const std::size_t n = w.rank();
  std::array<std::int64_t, 2> k{1, 1}, s{1, 1}, d{1, 1}, begin{0, 0}, end{0, 0};
  const std::size_t off = 2 - n;  // a 1-D pool fills the W slot
  for (std::size_t i = 0; i < n; ++i) {
    k[off + i] = w.kernel[i];
    s[off + i] = w.strides[i];
    d[off + i] = w.dilations[i];
    std::tie(begin[off + i], end[off + i]) = w.pads_at(i, spatial[i], w.kernel[i]);
  }
  return {.kernel_h = k[0], .kernel_w = k[1], .stride_h = s[0], .stride_w = s[1], .pad_top = begin[0],
          .pad_left = begin[1], .pad_bottom = end[0], .pad_right = end[1], .dilation_h = d[0], .dilation_w = d[1],
          .count_include_pad = a.count_include_pad};
}

bool nhwc_pool(const KernelRequest& r) { return r.context.has("layout") && r.context.s("layout") == "NHWC"; }

bool pool_fits(const KernelRequest& r) {
  const Shape& x = r.context.shape(0);
  const std::size_t n = r.context.ints("kernel_shape").size();
  return input_type_in(r, 0, {DataType::f32}) && r.outputs.size() == 1 && (n == 1 || n == 2) &&
         (!x.rank_known() || x.rank() == n + 2) && !nhwc_pool(r);
}

void add_pool(KernelRegistry& r, const char* op, bool is_max) {
  const std::string name = is_max ? "cpu.max_pool2d" : "cpu.average_pool2d";
  r.add({.op = op,
         .name = name,
         .fits = pool_fits,
         .make = [is_max, name](const KernelRequest& req) {
           const PoolAttrs a = pool_attrs(req.context, is_max);
           return make_kernel(name, [a, is_max](Views in, Views out) {
             const TensorView& x = in[0];
             const TensorView& y = out[0];
             const cpu::Pool2dParams p = resolve(a, x.dims.subspan(2));
             if (x.rank() == 4) {
               if (is_max) cpu::max_pool2d(p, x, y);
               else cpu::average_pool2d(p, x, y);
               return;
             }
             // 1-D: [N, C, W] as [N, C, 1, W].
             const std::array<std::int64_t, 4> xd{x.dims[0], x.dims[1], 1, x.dims[2]};
             const std::array<std::int64_t, 4> yd{y.dims[0], y.dims[1], 1, y.dims[2]};
             const TensorView x4{x.data, x.dtype, xd}, y4{y.data, y.dtype, yd};
             if (is_max) cpu::max_pool2d(p, x4, y4);
             else cpu::average_pool2d(p, x4, y4);
           });
         }});
}

}  // namespace

void register_cpu_pool(KernelRegistry& r) {
  add_pool(r, "MaxPool", true);
  add_pool(r, "AveragePool", false);
  for (const bool is_max : {true, false}) {
    const char* name = is_max ? "cpu.max_pool2d.nhwc" : "cpu.average_pool2d.nhwc";
    r.add({.op = is_max ? "MaxPool" : "AveragePool",
           .name = name,
           .fits =
               [](const KernelRequest& req) {
                 return nhwc_pool(req) && input_type_in(req, 0, {DataType::f32}) && req.outputs.size() == 1 &&
                        req.context.ints("kernel_shape").size() == 2;
               },
           .make = [is_max, name](const KernelRequest& req) {
             const PoolAttrs a = pool_attrs(req.context, is_max);
             return make_kernel(name, [a, is_max](Views in, Views out) {
               const TensorView& x = in[0];
               const std::array<std::int64_t, 2> spatial{x.dims[1], x.dims[2]};
               if (is_max) cpu::max_pool2d_nhwc(resolve(a, spatial), x, out[0]);
               else cpu::average_pool2d_nhwc(resolve(a, spatial), x, out[0]);
             });
           }});
  }
  r.add({.op = "GlobalAveragePool",
         .name = "cpu.global_average_pool",
         .fits = [](const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32}); },
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.global_average_pool", [](Views in,
                                                            Views out) {
             cpu::global_average_pool(in[0], out[0]);
           });
         }});
  r.add({.op = "GlobalMaxPool",
         .name = "cpu.global_max_pool",
         .fits = [](const KernelRequest& req) { return input_type_in(req, 0, {DataType::f32}); },
         .make = [](const KernelRequest&) {
           return make_kernel("cpu.global_max_pool", [](Views in, Views out) { cpu::global_max_pool(in[0], out[0]); });
         }});
}

}  // namespace ge::cpu_lower
