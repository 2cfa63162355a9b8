// Neural-network ops: Conv, FusedConv, ConvTranspose, MatMul, Gemm, BatchNormalization,
// LayerNormalization, MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool.
#include <limits>

#include "common.hpp"
#include "ge/shape/window.hpp"
#include "ops/window_attrs.hpp"

namespace ge::ops {

namespace {

const Check auto_pad_check = one_of({"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"});

// The window attributes Conv, ConvTranspose and the pools share (WindowAttrs reads them),
// plus `more`, sorted by name. A pool's kernel_shape is required.
std::vector<AttrSpec> window_attr_specs(bool kernel_required, std::vector<AttrSpec> more) {
  more.push_back(attr("auto_pad", "NOTSET", auto_pad_check));
  more.push_back(attr_opt("dilations", AttrKind::integers, ints_at_least(1)));
  more.push_back(kernel_required ? attr_req("kernel_shape", AttrKind::integers, ints_at_least(1))
                                 : attr_opt("kernel_shape", AttrKind::integers, ints_at_least(1)));
  more.push_back(attr_opt("pads", AttrKind::integers, ints_at_least(0)));
  more.push_back(attr_opt("strides", AttrKind::integers, ints_at_least(1)));
  std::sort(more.begin(), more.end(), [](const AttrSpec& a, const AttrSpec& b) { return a.name < b.name; });
  return more;
}

std::string dim_name(std::size_t i) { return "spatial dim " + std::to_string(i); }

// A per-spatial-dim list attribute: its value, or `fill` repeated, with its length checked.
std::vector<std::int64_t> per_dim(const InferContext& c, std::string_view name, std::size_t n, std::int64_t fill) {
  std::vector<std::int64_t> v = c.ints(name);
  if (v.empty()) return std::vector<std::int64_t>(n, fill);
  if (v.size() != n)
    c.fail(Errc::bad_attribute, "attribute '" + std::string(name) + "' is " + ints_text(v) + " with " +
                                    std::to_string(v.size()) + " values; expected " + std::to_string(n) +
                                    " (one per spatial dim)");
  return v;
}

// The output extent of spatial dim i of a conv or pool window over the interval of h and
// the kernel extents k (`ge::window_out`); bad_op_inputs when no input fits the window.
Dim window_out(const InferContext& c, const Dim& h, const Dim& k, const WindowAttrs& w, std::size_t i,
               const std::string& input) {
  const WindowAxis a = w.axis(i);
  if (!ge::window_fits(h, k, a))
    c.fail(Errc::bad_op_inputs, input + " " + dim_name(i) + " is " + h.to_string() + ", too small for a window of " +
                                    std::to_string(window_span(std::max<std::int64_t>(k.lo(), 1), a.dilation)) +
                                    " (kernel " + k.to_string() + ", dilation " + std::to_string(a.dilation) +
                                    ") with pads " + std::to_string(a.pad_begin) + "+" + std::to_string(a.pad_end) +
                                    "; expected an output extent >= 1");
  return ge::window_out(h, k, a);
}

OpSchema conv() {
  OpSchema s;
  s.name = "Conv";
  s.doc = "N-d convolution with groups, strides, pads, dilations, auto_pad";
  s.inputs = {arg("X", "T"), arg("W", "T"), opt("B", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", TypeSet::floats()}};
  s.attrs = window_attr_specs(false, {attr("group", 1, int_at_least(1))});
  s.infer = [](const InferContext& c) {
    const Shape& x = c.shape(0);
    const Shape& wt = c.shape(1);
    require_rank(c, 0, 3, static_cast<std::size_t>(-1));
    require_rank(c, 1, 3, static_cast<std::size_t>(-1));
    const DataType t = c.input(0).dtype;
    std::size_t n = 0;
    if (wt.rank_known()) n = wt.rank() - 2;
    else if (x.rank_known()) n = x.rank() - 2;
    else if (!c.ints("kernel_shape").empty()) n = c.ints("kernel_shape").size();
    else return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};
    if (x.rank_known() && wt.rank_known() && x.rank() != wt.rank())
      c.fail(Errc::bad_op_inputs, "input 0 (X) has rank " + std::to_string(x.rank()) + " [" + x.to_string() +
                                      "], input 1 (W) has rank " + std::to_string(wt.rank()) + " [" + wt.to_string() +
                                      "]; expected equal ranks");
    const std::int64_t group = c.i("group");
    // Kernel: from kernel_shape, else from W; both must agree.
    WindowAttrs w = WindowAttrs::from(c, n);
    std::vector<std::int64_t>& kernel = w.kernel;
    for (std::size_t i = 0; i < n && wt.rank_known(); ++i) {
      const Dim& kd = wt[static_cast<std::ptrdiff_t>(i + 2)];
      if (kernel[i] == 0) kernel[i] = kd.is_static() ? kd.lo() : 0;
      else if (!kd.contains(kernel[i]))
        c.fail(Errc::bad_attribute, "attribute 'kernel_shape' is " + ints_text(c.ints("kernel_shape")) +
                                        " but input 1 (W) is [" + wt.to_string() + "]; expected W's spatial dims");
    }
    const Dim m = wt.rank_known() ? wt[0] : Dim::unknown();
    if (x.rank_known() && wt.rank_known()) {
      const Dim want = wt[1] * Dim(group);
      if (!compatible(x[1], want))
        c.fail(Errc::bad_op_inputs, "input 1 (W) has " + wt[1].to_string() + " input channels per group x group " +
                                        std::to_string(group) + " = " + want.to_string() + ", input 0 (X) has " +
                                        x[1].to_string() + "; expected X's channels (dim 1) = W's dim 1 * group");
    }
    if (m.is_static() && m.lo() % group != 0)
      c.fail(Errc::bad_op_inputs, "input 1 (W) has " + m.to_string() + " output channels, not a multiple of group " +
                                      std::to_string(group));
    Dim out_c = m;
    if (c.has_input(2)) {
      require_rank(c, 2, 1, 1);
      if (c.shape(2).rank_known()) out_c = merge_dims(c, m, c.shape(2)[0], "input 2 (B) length vs W's output channels");
    }
    std::vector<Dim> out{x.rank_known() ? x[0] : Dim::unknown(), out_c};
    for (std::size_t i = 0; i < n; ++i) {
      const Dim h = x.rank_known() ? x[static_cast<std::ptrdiff_t>(i + 2)] : Dim::unknown();
      // A kernel extent not fixed (W's dim is a range) is the range of W's dim.
      const Dim k = kernel[i] > 0 ? Dim(kernel[i]) : wt.rank_known() ? wt[static_cast<std::ptrdiff_t>(i + 2)] : Dim();
      out.push_back(window_out(c, h, k, w, i, "input 0 (X)"));
    }
    return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
  };
  return s;
}

// [N, C, H, W] <-> [N, H, W, C] (a rank-4 shape; others as they are).
Shape nchw_of_nhwc(const Shape& s) {
  if (!s.rank_known() || s.rank() != 4) return s;
  return Shape(std::vector<Dim>{s[0], s[3], s[1], s[2]});
}
Shape nhwc_of_nchw(const Shape& s) {
  if (!s.rank_known() || s.rank() != 4) return s;
  return Shape(std::vector<Dim>{s[0], s[2], s[3], s[1]});
}

// FusedConv's gate G: only on an NHWC 1x1 conv with unit strides, no pads and group 1,
// shaped [N or 1, 1, 1, C] for X [N, H, W, C].
void check_gate(const InferContext& c) {
  const WindowAttrs w = WindowAttrs::from(c, 2);
  const Shape& wt = c.shape(1);
  const bool pointwise = wt.rank_known() && wt.rank() == 4 && wt[2].is_static() && wt[2].value() == 1 &&
                         wt[3].is_static() && wt[3].value() == 1 && w.unit() && c.i("group") == 1;
  if (c.s("layout") != "NHWC" || !pointwise || c.f("x_scale") > 0.0)
    c.fail(Errc::bad_op_inputs, "input 4 (G), a gate on the input's channels, needs an NHWC 1x1 conv with unit "
                                "strides and dilations, no pads, group 1 and an f32 (not quantized) input");
  require_rank(c, 4, 4, 4);
  const Shape& g = c.shape(4);
  const Shape& x = c.shape(0);
  if (!g.rank_known()) return;
  const bool x_known = x.rank_known() && x.rank() == 4;
  if (!compatible(g[1], Dim(1)) || !compatible(g[2], Dim(1)) || (x_known && !compatible(g[3], x[3])) ||
      (x_known && !compatible(g[0], Dim(1)) && !compatible(g[0], x[0])))
    c.fail(Errc::bad_op_inputs, "input 4 (G) is [" + g.to_string() + "], input 0 (X) is [" + x.to_string() +
                                    "]; expected G [N or 1, 1, 1, C] for X [N, H, W, C]");
}

// Conv with a residual add and an activation fused in (made by `ge::fuse_activations`):
// Y = act(conv(X, W) + B + Z). Inputs and attributes are Conv's plus the optional
// residual Z (the output's shape) and the activation with its clip bounds (Clip) or slope
// and offset (HardSigmoid), slope (LeakyRelu, in alpha; Silu is x * sigmoid(x), HardSwish x * HardSigmoid_{1/6, 1/2}(x)). With layout
// NHWC (made by `ge::layout_nhwc`) X, Z and Y are 2-D images [N, H, W, C]; W stays OIHW.
// An NHWC 1x1 conv (unit strides, no pads, group 1) may take a gate G [N or 1, 1, 1, C]
// (made by `ge::fuse_channel_gate`): X's channels are multiplied by G's factors of their
// image before the product, Y = act(conv(X * G, W) + B + Z). With x_layout NCHW (under
// layout NHWC, made by `ge::fold_transposes` for a chain's first conv over at most 4
// input channels) X stays [N, C, H, W]: the conv reads the image as given, no Transpose.
OpSchema fused_conv() {
  OpSchema s = conv();
  s.name = "FusedConv";
  s.doc = "Conv + optional residual add + activation (made by the fusion pass), NCHW or NHWC; an NHWC 1x1 conv "
          "may scale its input's channels by a gate G first";
  s.inputs.push_back(opt("Z", "T"));
  s.inputs.push_back(opt("G", "T"));
  const double inf = std::numeric_limits<double>::infinity();
  s.attrs.push_back(
      attr("activation", "", one_of({"", "Relu", "Clip", "Sigmoid", "Silu", "HardSigmoid", "HardSwish", "LeakyRelu", "Gelu",
                                  "GeluTanh"})));
  s.attrs.push_back(attr("alpha", 0.2));  // HardSigmoid's, as ONNX's HardSigmoid (the fusion sets it for LeakyRelu)
  s.attrs.push_back(attr("beta", 0.5));
  s.attrs.push_back(attr("clip_min", -inf));
  s.attrs.push_back(attr("clip_max", inf));
  s.attrs.push_back(attr("layout", "NCHW", one_of({"NCHW", "NHWC"})));
  s.attrs.push_back(attr("x_layout", "", one_of({"", "NCHW"})));  // X's, where not `layout`'s
  // A quantized input (compile/qdq.cpp, NHWC only): X is quantized to u8 by x_scale and
  // x_zero_point before the product, which runs in int8 (W lies on a per-channel int8
  // grid); x_scale 0: not quantized.
  s.attrs.push_back(attr("x_scale", 0.0));
  s.attrs.push_back(attr("x_zero_point", std::int64_t{0}));
  // With a quantized input, the output may go through a quantize-dequantize round trip
  // last (a FakeQuant fused in): y_scale 0: none.
  s.attrs.push_back(attr("y_scale", 0.0));
  s.attrs.push_back(attr("y_zero_point", std::int64_t{0}));
  s.attrs.push_back(attr("y_qmin", std::int64_t{0}));
  s.attrs.push_back(attr("y_qmax", std::int64_t{255}));
  std::sort(s.attrs.begin(), s.attrs.end(), [](const AttrSpec& a, const AttrSpec& b) { return a.name < b.name; });
  const auto nchw_infer = [conv_infer = s.infer](const InferContext& c) {
    std::vector<TensorDesc> out = conv_infer(c);
    if (c.has_input(3)) {
      const Shape& z = c.shape(3);
      if (!compatible(z, out[0].shape))
        c.fail(Errc::bad_op_inputs, "input 3 (Z) is [" + z.to_string() + "], the output is [" +
                                        out[0].shape.to_string() + "]; expected the residual to have the output's shape");
      out[0].shape = merge(out[0].shape, z);
    }
    return out;
  };
  s.infer = [nchw_infer](const InferContext& c) {
    const bool x_nchw = c.s("x_layout") == "NCHW";
    if (x_nchw && (c.s("layout") != "NHWC" || c.has_input(4)))
      c.fail(Errc::bad_attribute, "x_layout NCHW (X read as given by an NHWC conv) needs layout NHWC and no gate G");
    if (c.has_input(4)) check_gate(c);
    if (c.s("layout") != "NHWC") return nchw_infer(c);
    // NHWC: the NCHW rule on the inputs seen as NCHW, its output seen as NHWC.
    require_rank(c, 0, 4, 4);
    if (c.has_input(3)) require_rank(c, 3, 4, 4);
    std::vector<TensorDesc> ins(c.input_count());
    std::vector<const Tensor*> constants(c.input_count());
    for (std::size_t i = 0; i < ins.size(); ++i) {
      ins[i] = c.input(i);
      constants[i] = c.constant(i);
    }
    if (!x_nchw) ins[0].shape = nchw_of_nhwc(ins[0].shape);
    if (c.has_input(3)) ins[3].shape = nchw_of_nhwc(ins[3].shape);
    const InferContext nchw(c.schema(), c.node(), ins, constants, c.attrs(), c.num_outputs());
    std::vector<TensorDesc> out = nchw_infer(nchw);
    out[0].shape = nhwc_of_nchw(out[0].shape);
    return out;
  };
  return s;
}

OpSchema conv_transpose() {
  OpSchema s;
  s.name = "ConvTranspose";
  s.doc = "N-d transposed convolution with groups, strides, pads, output_padding, output_shape";
  s.inputs = {arg("X", "T"), arg("W", "T"), opt("B", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", TypeSet::floats()}};
  s.attrs = window_attr_specs(false, {attr("group", 1, int_at_least(1)),
                                      attr_opt("output_padding", AttrKind::integers, ints_at_least(0)),
                                      attr_opt("output_shape", AttrKind::integers, ints_at_least(0))});
  s.infer = [](const InferContext& c) {
    const Shape& x = c.shape(0);
    const Shape& wt = c.shape(1);
    require_rank(c, 0, 3, static_cast<std::size_t>(-1));
    require_rank(c, 1, 3, static_cast<std::size_t>(-1));
    const DataType t = c.input(0).dtype;
    if (!wt.rank_known() && !x.rank_known()) return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};
    const std::size_t n = (wt.rank_known() ? wt.rank() : x.rank()) - 2;
    if (x.rank_known() && wt.rank_known() && x.rank() != wt.rank())
      c.fail(Errc::bad_op_inputs, "input 0 (X) has rank " + std::to_string(x.rank()) + ", input 1 (W) has rank " +
                                      std::to_string(wt.rank()) + "; expected equal ranks");
    const std::int64_t group = c.i("group");
    if (x.rank_known() && wt.rank_known() && !compatible(x[1], wt[0]))
      c.fail(Errc::bad_op_inputs, "input 0 (X) has " + x[1].to_string() + " channels, input 1 (W) has " +
                                      wt[0].to_string() + " in dim 0; expected equal (W is [C, M/group, k...])");
    Dim out_c = wt.rank_known() ? wt[1] * Dim(group) : Dim::unknown();
    if (c.has_input(2)) {
      require_rank(c, 2, 1, 1);
      if (c.shape(2).rank_known()) out_c = merge_dims(c, out_c, c.shape(2)[0], "input 2 (B) length vs output channels");
    }
    WindowAttrs w = WindowAttrs::from(c, n);
    std::vector<std::int64_t>& kernel = w.kernel;
    for (std::size_t i = 0; i < n && wt.rank_known(); ++i)
      if (kernel[i] == 0 && wt[static_cast<std::ptrdiff_t>(i + 2)].is_static()) kernel[i] = wt[static_cast<std::ptrdiff_t>(i + 2)].lo();
    const std::vector<std::int64_t> out_pad = per_dim(c, "output_padding", n, 0);
    for (std::size_t i = 0; i < n; ++i)
      if (out_pad[i] >= std::max(w.strides[i], w.dilations[i]))
        c.fail(Errc::bad_attribute, "attribute 'output_padding' is " + ints_text(out_pad) +
                                        "; expected each value below its stride or dilation");
    std::vector<std::int64_t> out_shape = c.ints("output_shape");
    if (!out_shape.empty() && out_shape.size() != n && out_shape.size() != n + 2)
      c.fail(Errc::bad_attribute, "attribute 'output_shape' is " + ints_text(out_shape) + "; expected " +
                                      std::to_string(n) + " spatial extents");
    std::vector<Dim> out{x.rank_known() ? x[0] : Dim::unknown(), out_c};
    for (std::size_t i = 0; i < n; ++i) {
      if (!out_shape.empty()) {
        out.emplace_back(out_shape[out_shape.size() - n + i]);
        continue;
      }
      const Dim h = x.rank_known() ? x[static_cast<std::ptrdiff_t>(i + 2)] : Dim::unknown();
      if (kernel[i] == 0) {
        out.emplace_back(Dim::unknown());
        continue;
      }
      out.push_back(window_transpose_out(h, kernel[i], w.axis(i), out_pad[i]));
    }
    return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
  };
  return s;
}

OpSchema matmul() {
  OpSchema s;
  s.name = "MatMul";
  s.doc = "numpy matmul: batched, with broadcasting of the batch dims; 1-D inputs are promoted";
  s.inputs = {arg("A", "T"), arg("B", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", TypeSet::numeric()}};
  s.infer = [](const InferContext& c) {
    const Shape& a = c.shape(0);
    const Shape& b = c.shape(1);
    const DataType t = c.input(0).dtype;
    require_rank(c, 0, 1, static_cast<std::size_t>(-1));
    require_rank(c, 1, 1, static_cast<std::size_t>(-1));
    if (!a.rank_known() || !b.rank_known()) return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};
    std::vector<Dim> da = a.dims(), db = b.dims();
    const bool a1 = da.size() == 1, b1 = db.size() == 1;
    if (a1) da.insert(da.begin(), Dim(1));
    if (b1) db.push_back(Dim(1));
    const Dim& ka = da.back();
    const Dim& kb = db[db.size() - 2];
    if (!compatible(ka, kb))
      c.fail(Errc::bad_op_inputs, "input 0 (A) [" + a.to_string() + "] has K = " + ka.to_string() + " (last dim), input 1 (B) [" +
                                      b.to_string() + "] has K = " + kb.to_string() +
                                      " (second to last dim); expected equal");
    const Shape batch = broadcast_shapes(c, Shape(std::vector<Dim>(da.begin(), da.end() - 2)),
                                         Shape(std::vector<Dim>(db.begin(), db.end() - 2)));
    std::vector<Dim> out = batch.dims();
    if (!a1) out.push_back(da[da.size() - 2]);
    if (!b1) out.push_back(db.back());
    return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
  };
  return s;
}

OpSchema gemm() {
  OpSchema s;
  s.name = "Gemm";
  s.doc = "Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A; C broadcasts to [M, N]";
  s.inputs = {arg("A", "T"), arg("B", "T"), opt("C", "T")};
  s.outputs = {arg("Y", "T")};
  s.types = {{"T", TypeSet::numeric()}};
  s.attrs = {attr("alpha", 1.0), attr("beta", 1.0), attr("transA", 0, int_in(0, 1)), attr("transB", 0, int_in(0, 1))};
  s.infer = [](const InferContext& c) {
    require_rank(c, 0, 2, 2);
    require_rank(c, 1, 2, 2);
    const Shape a = c.shape(0).rank_known() ? c.shape(0) : unknown_dims(2);
    const Shape b = c.shape(1).rank_known() ? c.shape(1) : unknown_dims(2);
    const bool ta = c.i("transA") != 0, tb = c.i("transB") != 0;
    const Dim m = a[ta ? 1 : 0], ka = a[ta ? 0 : 1];
    const Dim kb = b[tb ? 1 : 0], n = b[tb ? 0 : 1];
    if (!compatible(ka, kb))
      c.fail(Errc::bad_op_inputs, "input 0 (A) [" + a.to_string() + "] has K = " + ka.to_string() +
                                      (ta ? " (transA)" : "") + ", input 1 (B) [" + b.to_string() + "] has K = " +
                                      kb.to_string() + (tb ? " (transB)" : "") + "; expected equal");
    Shape out{m, n};
    if (c.has_input(2)) {
      require_rank(c, 2, 0, 2);
      const Shape bc = broadcast_shapes(c, out, c.shape(2));
      if (!compatible(bc, out))
        c.fail(Errc::bad_op_inputs, "input 2 (C) [" + c.shape(2).to_string() + "] does not broadcast to [" +
                                        out.to_string() + "]");
      out = merge(bc, out);
    }
    return std::vector<TensorDesc>{{c.input(0).dtype, out}};
  };
  return s;
}

OpSchema batch_norm() {
  OpSchema s;
  s.name = "BatchNormalization";
  s.doc = "Y = scale * (X - mean) / sqrt(var + epsilon) + B over channel dim 1";
  s.inputs = {arg("X", "T"), arg("scale", "U"), arg("B", "U"), arg("input_mean", "U"), arg("input_var", "U")};
  s.outputs = {arg("Y", "T"), opt("running_mean", "U"), opt("running_var", "U")};
  s.types = {{"T", TypeSet::floats()}, {"U", TypeSet::floats()}};
  s.attrs = {attr("epsilon", 1e-5, float_at_least(0, false)), attr("momentum", 0.9), attr("training_mode", 0, int_in(0, 1))};
  s.in_place = {{0, 0}};
  s.infer = [](const InferContext& c) {
    require_rank(c, 0, 2, static_cast<std::size_t>(-1));
    Dim ch = c.shape(0).rank_known() ? c.shape(0)[1] : Dim::unknown();
    for (std::size_t i = 1; i < 5; ++i) {
      require_rank(c, i, 1, 1);
      if (!c.shape(i).rank_known()) continue;
      if (!compatible(ch, c.shape(i)[0]))
        c.fail(Errc::bad_op_inputs, c.input_name(i) + " has length " + c.shape(i)[0].to_string() + ", input 0 (X) [" +
                                        c.shape(0).to_string() + "] has " + ch.to_string() +
                                        " channels; expected one value per channel");
      ch = merge(ch, c.shape(i)[0]);
    }
    std::vector<TensorDesc> out{c.input(0)};
    if (c.i("training_mode") != 0) {
      out.push_back({c.input(1).dtype, Shape{ch}});
      out.push_back({c.input(1).dtype, Shape{ch}});
    }
    return out;
  };
  return s;
}

OpSchema layer_norm() {
  OpSchema s;
  s.name = "LayerNormalization";
  s.doc = "normalizes X over the dims from axis on, then Y = normalized * Scale + B";
  s.inputs = {arg("X", "T"), arg("Scale", "T"), opt("B", "T")};
  s.outputs = {arg("Y", "T"), opt("Mean", "U"), opt("InvStdDev", "U")};
  s.types = {{"T", TypeSet::floats()}, {"U", TypeSet::floats()}};
  s.attrs = {attr("axis", -1), attr("epsilon", 1e-5, float_at_least(0, false)), attr("stash_type", 1, int_in(1, 1))};
  s.in_place = {{0, 0}};
  s.infer = [](const InferContext& c) {
    const Shape& x = c.shape(0);
    Shape stat = Shape::unknown_rank();
    if (x.rank_known()) {
      const auto r = static_cast<std::int64_t>(x.rank());
      const std::int64_t axis = norm_axis(c, c.i("axis"), r, "axis");
      const Shape norm(std::vector<Dim>(x.dims().begin() + axis, x.dims().end()));
      for (std::size_t i = 1; i < 3; ++i) {
        if (!c.has_input(i) || !c.shape(i).rank_known()) continue;
        const Shape& p = c.shape(i);
        bool ok = p.rank() <= norm.rank();
        for (std::size_t k = 1; ok && k <= p.rank(); ++k) {
          const Dim& pd = p.dims()[p.rank() - k];
          ok = pd.contains(1) || compatible(pd, norm.dims()[norm.rank() - k]);
        }
        if (!ok)
          c.fail(Errc::bad_op_inputs, c.input_name(i) + " [" + p.to_string() + "] does not fit the normalized dims [" +
                                          norm.to_string() + "] of input 0 (X) [" + x.to_string() + "] from axis " +
                                          std::to_string(axis));
      }
      std::vector<Dim> d = x.dims();
      for (std::size_t k = static_cast<std::size_t>(axis); k < d.size(); ++k) d[k] = Dim(1);
      stat = Shape(std::move(d));
    }
    return std::vector<TensorDesc>{c.input(0), {DataType::f32, stat}, {DataType::f32, stat}};
  };
  return s;
}

OpSchema pool(std::string name, std::string doc, bool is_max) {
  OpSchema s;
  s.name = std::move(name);
  s.doc = std::move(doc);
  s.inputs = {arg("X", "T")};
  s.outputs = {arg("Y", "T")};
  if (is_max) s.outputs.push_back(opt("Indices", "i64"));
  s.types = {{"T", is_max ? TypeSet::floats() | TypeSet{DataType::i8, DataType::u8} : TypeSet::floats()}};
  std::vector<AttrSpec> more{attr("ceil_mode", 0, int_in(0, 1))};
  if (is_max) {
    more.push_back(attr("storage_order", 0, int_in(0, 1)));
  } else {
    more.push_back(attr("count_include_pad", 0, int_in(0, 1)));
  }
  // NHWC (made by `ge::layout_nhwc` inside a conv chain): X and Y are [N, H, W, C].
  more.push_back(attr("layout", "NCHW", one_of({"NCHW", "NHWC"})));
  s.attrs = window_attr_specs(true, std::move(more));
  s.infer = [is_max](const InferContext& c) {
    const std::vector<std::int64_t> kernel = c.ints("kernel_shape");
    const std::size_t n = kernel.size();
    const bool nhwc = c.s("layout") == "NHWC";
    if (nhwc && n != 2)
      c.fail(Errc::bad_attribute, "layout NHWC needs a 2-D pool; kernel_shape is " + ints_text(kernel));
    if (nhwc && c.num_outputs() > 1)
      c.fail(Errc::bad_attribute, "layout NHWC has no Indices output");
    require_rank(c, 0, n + 2, n + 2);
    const WindowAttrs w = WindowAttrs::from(c, n);
    for (std::size_t i = 0; i < n; ++i)
      if (w.pads[i] >= w.kernel[i] || w.pads[i + n] >= w.kernel[i])
        c.fail(Errc::bad_attribute, "attribute 'pads' is " + ints_text(w.pads) + " for kernel " + ints_text(kernel) +
                                        "; expected each pad below its kernel extent");
    const Shape& x = c.shape(0);
    Shape xs = x.rank_known() ? x : unknown_dims(n + 2);
    if (nhwc) xs = nchw_of_nhwc(xs);
    std::vector<Dim> out{xs[0], xs[1]};
    for (std::size_t i = 0; i < n; ++i)
      out.push_back(window_out(c, xs[static_cast<std::ptrdiff_t>(i + 2)], Dim(kernel[i]), w, i, "input 0 (X)"));
    Shape y(std::move(out));
    if (nhwc) y = nhwc_of_nchw(y);
    std::vector<TensorDesc> res{{c.input(0).dtype, y}};
    if (is_max) res.push_back({DataType::i64, y});
    return res;
  };
  return s;
}

}  // namespace

void add_nn_ops(OpRegistry& r) {
  add_op(r, onnx_op(13), conv());
  add_op(r, internal_op(), fused_conv());
  add_op(r, onnx_op(13), conv_transpose());
  add_op(r, onnx_op(13), matmul());
  add_op(r, onnx_op(13), gemm());
  add_op(r, onnx_op(13), batch_norm());
  add_op(r, onnx_op(17), layer_norm());
  add_op(r, onnx_op(13), pool("MaxPool", "max over sliding windows (kernel, strides, pads, dilations, ceil_mode)", true));
  add_op(r, onnx_op(13), pool("AveragePool", "mean over sliding windows (count_include_pad, ceil_mode)", false));
  for (const char* name : {"GlobalAveragePool", "GlobalMaxPool"}) {
    OpSchema s;
    s.name = name;
    s.doc = s.name == "GlobalMaxPool" ? "max over all spatial dims: [N, C, 1, ...]" : "mean over all spatial dims: [N, C, 1, ...]";
    s.inputs = {arg("X", "T")};
    s.outputs = {arg("Y", "T")};
    s.types = {{"T", TypeSet::floats()}};
    s.infer = [](const InferContext& c) {
      require_rank(c, 0, 3, static_cast<std::size_t>(-1));
      const Shape& x = c.shape(0);
      if (!x.rank_known()) return std::vector<TensorDesc>{c.input(0)};
      std::vector<Dim> d{x[0], x[1]};
      d.resize(x.rank(), Dim(1));
      return std::vector<TensorDesc>{{c.input(0).dtype, Shape(std::move(d))}};
    };
    add_op(r, onnx_op(13), std::move(s));
  }
}

}  // namespace ge::ops
