// CPU kernels of the window ops the 2-D kernels (nn.cpp, pool.cpp) leave out: Conv,
// ConvTranspose, MaxPool and AveragePool over 3 spatial dims (and f64 over 1 to 3), MaxPool
// on i8/u8 and MaxPool with its Indices output (kernels/cpu/conv/window_nd.hpp: direct loops,
// but Conv on f32, which runs as a GEMM over patches, its constant weights packed in `make`).
// Pads (auto_pad SAME_* from the input's dims; ConvTranspose's from output_shape or SAME_*
// and the output's dims) are resolved per run.
#include <algorithm>
#include <string>
#include <tuple>

#include "compile/cpu/lower.hpp"
#include "compile/cpu/packed.hpp"
#include "kernels/cpu/conv/window_nd.hpp"
#include "ops/window_attrs.hpp"

namespace ge::cpu_lower {

namespace {

struct NdAttrs {
  ops::WindowAttrs window;
  std::int64_t group = 1;
  bool count_include_pad = false, column_major = false, transpose = false, has_output_shape = false;
  std::vector<std::int64_t> output_padding;
};

std::size_t spatial_rank(const InferContext& c) {
  const Shape& x = c.shape(0);
  if (x.rank_known()) return x.rank() - 2;
  if (c.input_count() > 1 && c.shape(1).rank_known()) return c.shape(1).rank() - 2;
  return c.ints("kernel_shape").size();
}

NdAttrs nd_attrs(const InferContext& c) {
  NdAttrs a;
  const std::size_t n = spatial_rank(c);
  a.window = ops::WindowAttrs::from(c, n);
  if (c.has("group")) a.group = c.i("group");
  if (c.has("count_include_pad")) a.count_include_pad = c.i("count_include_pad") != 0;
  if (c.has("storage_order")) a.column_major = c.i("storage_order") != 0;
  if (c.has("output_padding")) a.output_padding = c.ints("output_padding");
  if (a.output_padding.size() != n) a.output_padding.assign(n, 0);
  a.has_output_shape = c.has("output_shape") && !c.ints("output_shape").empty();
  return a;
}

// The resolved window for input spatial extents `x`, kernel extents `k` and output extents `y`.
cpu::WindowNd resolve(const NdAttrs& a, std::span<const std::int64_t> x, std::span<const std::int64_t> k,
                      std::span<const std::int64_t> y) {
  const ops::WindowAttrs& w = a.window;
  const std::size_t n = x.size(), off = 3 - n;
  cpu::WindowNd p;
  p.group = a.group;
  p.count_include_pad = a.count_include_pad;
  p.column_major = a.column_major;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = off + i;
    p.kernel[j] = k[i];
    p.stride[j] = w.strides[i];
    p.dilation[j] = w.dilations[i];
    if (a.transpose && (a.has_output_shape || w.same())) {
      // `ge::transpose_pads`; the kernel writes y's extent, so positions past the full
      // transposed extent (its `extra`) hold the bias alone, as the 2-D kernel's do.
      const TransposePads t = transpose_pads(x[i], k[i], w.axis(i), a.output_padding[i], y[i],
                                             w.auto_pad == ops::AutoPad::same_upper);
      p.pad_begin[j] = t.begin;
      p.pad_end[j] = t.end;
    } else if (a.transpose) {
      p.pad_begin[j] = w.pads[i];
      p.pad_end[j] = w.pads[i + n];
    } else {
      std::tie(p.pad_begin[j], p.pad_end[j]) = w.pads_at(i, x[i], k[i]);
    }
  }
  return p;
}

bool rank_in(const InferContext& c, std::size_t lo, std::size_t hi) {
  const Shape& x = c.shape(0);
  return x.rank_known() && x.rank() >= lo && x.rank() <= hi;
}

// The convolutions the 2-D kernels do not take: f32 in 3-D, f64 in 1-D to 3-D.
bool conv_fits(const KernelRequest& r) {
  const InferContext& c = r.context;
  if (c.has("layout") && c.s("layout") != "NCHW") return false;
  const DataType t = c.input(0).dtype;
  return (t == DataType::f32 && rank_in(c, 5, 5)) || (t == DataType::f64 && rank_in(c, 3, 5));
}

// The pools the 2-D kernels do not take: 3-D, f64, i8/u8 (MaxPool), MaxPool's Indices.
bool pool_fits(const KernelRequest& r, bool is_max) {
  const InferContext& c = r.context;
  if (c.has("layout") && c.s("layout") != "NCHW") return false;
  const DataType t = c.input(0).dtype;
  if (!rank_in(c, 3, 5) || c.shape(0).rank() != c.ints("kernel_shape").size() + 2) return false;
  if (is_max && (t == DataType::i8 || t == DataType::u8)) return true;
  if (t == DataType::f64) return true;
  return t == DataType::f32 && (c.shape(0).rank() == 5 || (is_max && r.outputs.size() > 1));
}

std::span<const std::int64_t> spatial(const TensorView& t) { return t.dims.subspan(2); }

// Conv on f32: the GEMM over patches, constant weights packed once here; f64 the direct loop.
std::shared_ptr<const Kernel> make_conv_nd(const KernelRequest& req) {
  const NdAttrs a = nd_attrs(req.context);
  const InferContext& c = req.context;
  const Tensor* w = c.constant(1);
  if (c.input(0).dtype == DataType::f32 && w != nullptr) {
    const char* name = "cpu.conv_nd.gemm";
    const std::vector<std::int64_t> k(w->dims().begin() + 2, w->dims().end());
    auto packed = packed_part<cpu::PackedConvWeights>(req, 0, name, [&] {
      cpu::WindowNd q;
      q.group = a.group;
      return cpu::pack_conv_nd(q, view_of(*w));
    });
    return make_packed_kernel(name, [a, k, packed](Views in, Views out) {
      const cpu::WindowNd p = resolve(a, spatial(in[0]), k, spatial(out[0]));
      cpu::conv_nd(p, in[0], *packed, optional_input(in, 2), out[0]);
    }, {1}, packed);
  }
  return make_kernel("cpu.conv_nd", [a](Views in, Views out) {
    const cpu::WindowNd p = resolve(a, spatial(in[0]), spatial(in[1]), spatial(out[0]));
    if (in[0].dtype == DataType::f32) cpu::conv_nd(p, in[0], cpu::pack_conv_nd(p, in[1]), optional_input(in, 2), out[0]);
    else cpu::conv_nd(p, in[0], in[1], optional_input(in, 2), out[0]);
  });
}

}  // namespace

void register_cpu_window_nd(KernelRegistry& r) {
  r.add({.op = "Conv",
         .name = "cpu.conv_nd",
         .fits = conv_fits,
         .make = make_conv_nd});
  r.add({.op = "ConvTranspose",
         .name = "cpu.conv_transpose_nd",
         .fits = conv_fits,
         .make = [](const KernelRequest& req) {
           NdAttrs a = nd_attrs(req.context);
           a.transpose = true;
           return make_kernel("cpu.conv_transpose_nd", [a](Views in, Views out) {
             const cpu::WindowNd p = resolve(a, spatial(in[0]), spatial(in[1]), spatial(out[0]));
             cpu::conv_transpose_nd(p, in[0], in[1], optional_input(in, 2), out[0]);
           });
         }});
  for (const bool is_max : {true, false}) {
    const char* name = is_max ? "cpu.max_pool_nd" : "cpu.average_pool_nd";
    r.add({.op = is_max ? "MaxPool" : "AveragePool",
           .name = name,
           .fits = [is_max](const KernelRequest& req) { return pool_fits(req, is_max); },
           .make = [is_max, name](const KernelRequest& req) {
             const NdAttrs a = nd_attrs(req.context);
             return make_kernel(name, [a, is_max](Views in, Views out) {
               const cpu::WindowNd p = resolve(a, spatial(in[0]), a.window.kernel, spatial(out[0]));
               if (!is_max) cpu::average_pool_nd(p, in[0], out[0]);
               else cpu::max_pool_nd(p, in[0], out[0], optional_input(out, 1));
             });
           }});
  }
}

}  // namespace ge::cpu_lower
