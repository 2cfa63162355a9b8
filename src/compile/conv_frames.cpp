// conv_frames: the 3-D convs of video networks as 2-D convs. A conv whose kernel is one
// frame deep (depth 1, no depth pads: mc3's and R(2+1)D's 1 x k x k) is a 2-D conv of every
// frame: x [N, C, D, H, W] becomes the frames [N * D, C, H, W] (a Transpose of C and D,
// then a Reshape merging N and D). A conv whose kernel is one pixel wide (k x 1 x 1, no
// spatial pads or strides: R(2+1)D's temporal convs) is a 2-D conv of the temporal view
// [N, C, D, H * W], a free Reshape of the volume. A depth stride picks frames first (a
// Slice of the temporal view). Outputs go back to [N, M, D, OH, OW] only where something
// still reads the volume. The 2-D convs then take every 2-D mechanism: the layout pass's
// NHWC images, Winograd, the fused epilogues. Elementwise ops reading only such values (a
// block's ReLU, its residual Add) run on them too, in the form their first input has.
//
// Between frames and the temporal view the floats move (a Transpose of D and C), except
// on NHWC images: frames [N * D, H, W, C] and the view [N, D, H * W, C] are the same
// floats, and the layout pass runs such a pair of nodes as one Reshape (its `regroup`).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "compile/pass_work.hpp"
#include "ge/ops/registry.hpp"
#include "ops/window_attrs.hpp"

namespace ge::detail {

namespace {

// A 5-D f32 value with static C, D, H and W (N may be anything).
bool is_volume(const Work& w, ValueId v) {
  const TensorDesc& d = w.desc(v);
  if (d.dtype != DataType::f32 || !d.shape.rank_known() || d.shape.rank() != 5) return false;
  for (std::size_t i = 1; i < 5; ++i)
    if (!d.shape[i].is_static()) return false;
  return true;
}

// The two 2-D forms of a volume [N, C, D, H, W].
enum class Form : std::uint8_t {
  frames,    // [N * D, C, H, W]
  temporal,  // [N, C, D, H * W]
};

Shape form_shape(const Shape& x, Form f) {
  return f == Form::frames ? Shape{x[0] * x[2], x[1], x[3], x[4]} : Shape{x[0], x[1], x[2], x[3] * x[4]};
}

// A Conv over a volume to a volume with constant f32 weights [M, C / group, kd, kh, kw]
// and explicit pads: its weights and window.
struct Conv3 {
  const Tensor* weights;
  ops::WindowAttrs window;
};

std::optional<Conv3> conv3_of(const Work& w, const WNode& n) {
  if (!n.alive || n.op != "Conv" || n.outputs.size() != 1 || n.inputs.size() < 2 || n.inputs.size() > 3) return std::nullopt;
  if (!is_volume(w, n.inputs[0]) || !is_volume(w, n.outputs[0])) return std::nullopt;
  const Tensor* k = w.constant(n.inputs[1]);
  if (k == nullptr || k->dtype() != DataType::f32 || k->dims().size() != 5) return std::nullopt;
  const ops::WindowAttrs a = ops::WindowAttrs::from(OpRegistry::global().find(n.op).with_defaults(n.attrs), 3);
  if (a.auto_pad != ops::AutoPad::notset) return std::nullopt;
  return Conv3{k, a};
}

// Whether conv n (over a volume) ends at one frame from more: the stacked frames' case.
bool to_one_frame(const Work& w, const WNode& n) {
  return w.desc(n.outputs[0]).shape[2].value() == 1 && w.desc(n.inputs[0]).shape[2].value() > 1;
}

// The attributes of conv n as a 2-D conv of this window (its group kept).
Attributes attrs_2d(const WNode& n, std::vector<std::int64_t> kernel, std::vector<std::int64_t> strides,
                    std::vector<std::int64_t> dilations, std::vector<std::int64_t> pads) {
  const auto group = attr_of(n, "group");
  return Attributes{{"group", group ? group->as_int() : std::int64_t{1}},
                    {"kernel_shape", std::move(kernel)},
                    {"strides", std::move(strides)},
                    {"dilations", std::move(dilations)},
                    {"pads", std::move(pads)}};
}

// Its H and W window as a 2-D conv's (frames, stacked frames).
Attributes spatial_attrs(const WNode& n, const ops::WindowAttrs& a, const std::vector<std::int64_t>& kd) {
  return attrs_2d(n, {kd[3], kd[4]}, {a.strides[1], a.strides[2]}, {a.dilations[1], a.dilations[2]},
                  {a.pads[1], a.pads[2], a.pads[4], a.pads[5]});
}

// What a 3-D conv becomes: a 2-D conv (these attributes, the weights viewed as `kernel`)
// on a form of its input, after picking every `depth_step`-th frame.
struct FrameConv {
  Form form = Form::frames;
  Attributes attrs;
  std::vector<std::int64_t> kernel;
  std::int64_t depth_step = 1;
};

// A 3-D conv (`conv3_of`) whose kernel is one frame deep (kd 1, no depth pads: frames, any
// depth stride) or one pixel wide (kh = kw = 1, no spatial pads or strides: the temporal
// view), or nullopt.
std::optional<FrameConv> frame_conv(const Work& w, const WNode& n) {
  const auto conv = conv3_of(w, n);
  if (!conv) return std::nullopt;
  const ops::WindowAttrs& a = conv->window;
  const auto& kd = conv->weights->dims();
  if (kd[2] == 1 && a.pads[0] == 0 && a.pads[3] == 0)
    return FrameConv{Form::frames, spatial_attrs(n, a, kd), {kd[0], kd[1], kd[3], kd[4]}, a.strides[0]};
  if (kd[3] == 1 && kd[4] == 1 && a.strides[1] == 1 && a.strides[2] == 1 && a.pads[1] == 0 && a.pads[2] == 0 &&
      a.pads[4] == 0 && a.pads[5] == 0)
    return FrameConv{Form::temporal,
                     attrs_2d(n, {kd[2], 1}, {a.strides[0], 1}, {a.dilations[0], 1}, {a.pads[0], 0, a.pads[3], 0}),
                     {kd[0], kd[1], kd[2], 1}, 1};
  return std::nullopt;
}

// A 3-D conv to one frame (output depth 1) over D > 1 frames is a 2-D conv over the
// frames stacked as channels, [N, C * D, H, W] (a free Reshape of the volume): weights
// [M, C / group * D, kh, kw], frame d of channel c taking the depth tap that reads it (zero
// where none does; at least half the frames must be read). R3D's last stage starts so (8
// frames halved three times), and its 1x1x1 projection beside it.
struct StackedConv {
  Attributes attrs;
  Tensor weights;
};

std::optional<StackedConv> stacked_conv(const Work& w, const WNode& n) {
  const auto conv = conv3_of(w, n);
  if (!conv || !to_one_frame(w, n)) return std::nullopt;
  const ops::WindowAttrs& a = conv->window;
  const Tensor& k = *conv->weights;
  const auto& kd = k.dims();
  const std::int64_t depth = w.desc(n.inputs[0]).shape[2].value();
  std::vector<std::int64_t> tap(static_cast<std::size_t>(depth), -1);  // per frame: the tap reading it
  std::int64_t read = 0;
  for (std::int64_t t = 0; t < kd[2]; ++t) {
    const std::int64_t d = t * a.dilations[0] - a.pads[0];
    if (d >= 0 && d < depth) tap[static_cast<std::size_t>(d)] = t, ++read;
  }
  if (2 * read < depth) return std::nullopt;
  const std::int64_t plane = kd[3] * kd[4];
  std::vector<float> from(static_cast<std::size_t>(k.element_count()));
  std::memcpy(from.data(), k.bytes().data(), from.size() * sizeof(float));
  std::vector<float> to(static_cast<std::size_t>(kd[0] * kd[1] * depth * plane), 0.f);
  for (std::int64_t m = 0; m < kd[0]; ++m)
    for (std::int64_t c = 0; c < kd[1]; ++c)
      for (std::int64_t d = 0; d < depth; ++d) {
        const std::int64_t t = tap[static_cast<std::size_t>(d)];
        if (t < 0) continue;
        const auto src = from.begin() + ((m * kd[1] + c) * kd[2] + t) * plane;
        std::copy(src, src + plane, to.begin() + ((m * kd[1] + c) * depth + d) * plane);
      }
  return StackedConv{spatial_attrs(n, a, kd), Tensor::from<float>({kd[0], kd[1] * depth, kd[3], kd[4]}, to)};
}

// Elementwise ops that run on a form as on the volume (one output, no broadcasting).
bool frame_elementwise(const WNode& n) {
  static const std::unordered_set<std::string_view> unary = {"Relu", "Sigmoid", "LeakyRelu", "HardSigmoid",
                                                             "HardSwish", "Clip", "Tanh", "Elu"};
  static const std::unordered_set<std::string_view> binary = {"Add", "Mul", "Sub"};
  if (!n.alive || n.outputs.size() != 1 || n.inputs.empty()) return false;
  return unary.contains(n.op) || (binary.contains(n.op) && n.inputs.size() == 2);
}

// The forms of volumes, made once each. A volume made in a form (`make`) has that form as
// its own; the other comes from it, not from the volume.
// (Descriptions and names are copied: new values and nodes move the vectors.)
class Frames {
 public:
  Frames(Work& w, PassStats& s) : w_(w), s_(s) {}

  ValueId in(ValueId v, Form f) { return f == Form::frames ? frames_of(v) : temporal_of(v); }

  // The frames of volume v: from its temporal view (a Transpose of C and D), else from the
  // volume (a Transpose of C and D); a Reshape alone where D is 1.
  ValueId frames_of(ValueId v) {
    if (const auto it = frames_.find(v); it != frames_.end()) return it->second;
    const TensorDesc d = w_.desc(v);
    const Shape& x = d.shape;
    const std::string name = w_.values[v].name;
    const std::vector<std::int64_t> dims{-1, x[1].value(), x[3].value(), x[4].value()};
    const TensorDesc out{d.dtype, form_shape(x, Form::frames)};
    const auto t = temporal_.find(v);
    ValueId from = t != temporal_.end() ? t->second : v;
    if (x[2].value() != 1) {
      const bool view = t != temporal_.end();
      const TensorDesc moved{d.dtype, view ? Shape{x[0], x[2], x[1], x[3] * x[4]} : Shape{x[0], x[2], x[1], x[3], x[4]}};
      const ValueId m = w_.add_value(name + ".frames_t", moved);
      add_node(name + ".to_nchw_frames", "Transpose", {from}, {m},
               Attributes{{"perm", view ? std::vector<std::int64_t>{0, 2, 1, 3} : std::vector<std::int64_t>{0, 2, 1, 3, 4}}});
      from = m;
    }
    return frames_[v] = reshaped(from, dims, out);
  }

  // The temporal view of volume v: from its frames (a Transpose of D and C; a Reshape
  // where D is 1), else a Reshape of the volume.
  ValueId temporal_of(ValueId v) {
    if (const auto it = temporal_.find(v); it != temporal_.end()) return it->second;
    const TensorDesc d = w_.desc(v);
    const Shape& x = d.shape;
    const std::int64_t c = x[1].value(), depth = x[2].value(), pixels = x[3].value() * x[4].value();
    const TensorDesc out{d.dtype, form_shape(x, Form::temporal)};
    const auto f = frames_.find(v);
    if (f == frames_.end() || depth == 1)
      return temporal_[v] = reshaped(f == frames_.end() ? v : f->second, {-1, c, depth, pixels}, out);
    const ValueId m = reshaped(f->second, {-1, depth, c, pixels}, TensorDesc{d.dtype, Shape{x[0], x[2], x[1], x[3] * x[4]}});
    const ValueId t = w_.add_value(w_.values[v].name + ".temporal", out);
    add_node(std::string(w_.values[v].name) + ".to_nchw_temporal", "Transpose", {m}, {t},
             Attributes{{"perm", std::vector<std::int64_t>{0, 2, 1, 3}}});
    return temporal_[v] = t;
  }

  // `x` in form `f` makes volume v (which keeps its id, so its other readers stay as they
  // are): from frames a Reshape splitting N and D and a Transpose back (a Reshape alone
  // where D is 1), from the temporal view a Reshape; dropped at the end where nothing
  // else reads v.
  void make(ValueId v, ValueId x, Form f) {
    const TensorDesc d = w_.desc(v);
    const Shape& y = d.shape;
    const std::int64_t c = y[1].value(), depth = y[2].value(), h = y[3].value(), wd = y[4].value();
    const std::string name = w_.values[v].name;
    if (f == Form::temporal || depth == 1) {
      const ValueId shape = w_.add_constant(name + ".volume", Tensor::from<std::int64_t>({5}, {-1, c, depth, h, wd}));
      add_node(name + ".to_volume", "Reshape", {x, shape}, {v}, Attributes{});
      back_.push_back({SIZE_MAX, w_.nodes.size() - 1, v});
    } else {
      const ValueId t = reshaped(x, {-1, depth, c, h, wd}, TensorDesc{d.dtype, Shape{y[0], y[2], y[1], y[3], y[4]}});
      back_.push_back({w_.nodes.size() - 1, w_.nodes.size(), v});  // (the Reshape, then the Transpose)
      add_node(name + ".to_ncdhw", "Transpose", {t}, {v}, Attributes{{"perm", std::vector<std::int64_t>{0, 2, 1, 3, 4}}});
    }
    (f == Form::frames ? frames_ : temporal_)[v] = x;
    own_[v] = f;
  }

  // Volume v's frames stacked as channels, [N, C * D, H, W]: a Reshape.
  ValueId stacked_of(ValueId v) {
    if (const auto it = stacked_.find(v); it != stacked_.end()) return it->second;
    const TensorDesc d = w_.desc(v);
    const Shape& x = d.shape;
    const std::int64_t c = x[1].value() * x[2].value();
    return stacked_[v] = reshaped(v, {-1, c, x[3].value(), x[4].value()}, TensorDesc{d.dtype, Shape{x[0], Dim(c), x[3], x[4]}});
  }

  [[nodiscard]] bool has(ValueId v) const { return own_.contains(v); }
  [[nodiscard]] Form own(ValueId v) const { return own_.at(v); }

  // The volume picked from v's frames every `step` (a Slice of v's temporal view), made a
  // volume of its own.
  ValueId picked(ValueId v, std::int64_t step) {
    const TensorDesc d = w_.desc(v);
    const Shape& x = d.shape;
    const std::int64_t depth = (x[2].value() + step - 1) / step;
    const std::string name = w_.values[v].name + ".step" + std::to_string(step);
    const ValueId t = temporal_of(v);
    const auto constant = [&](const char* what, std::int64_t value) {
      return w_.add_constant(name + what, Tensor::from<std::int64_t>({1}, {value}));
    };
    const ValueId starts = constant(".starts", 0), ends = constant(".ends", x[2].value()), axes = constant(".axes", 2),
                  steps = constant(".steps", step);
    const Shape picked_shape{x[0], x[1], Dim(depth), x[3], x[4]};
    const ValueId s = w_.add_value(name + ".temporal", TensorDesc{d.dtype, form_shape(picked_shape, Form::temporal)});
    add_node(name + ".slice", "Slice", {t, starts, ends, axes, steps}, {s}, Attributes{});
    const ValueId volume = w_.add_value(name, TensorDesc{d.dtype, picked_shape});
    make(volume, s, Form::temporal);
    return volume;
  }

  // The volumes nobody reads outside these forms lose their way back.
  void drop_unread() {
    const Work::Readers readers = w_.readers();
    for (const Back& b : back_) {
      if (readers.count[b.volume] != 0 || w_.is_output(b.volume)) continue;
      for (const std::size_t i : {b.last, b.first}) {
        if (i == SIZE_MAX) continue;
        w_.nodes[i].alive = false;
        ++s_.nodes_removed;
      }
    }
  }

 private:
  struct Back {
    std::size_t first, last;  // the node before the one making the volume (or SIZE_MAX), and that one
    ValueId volume;
  };

  ValueId reshaped(ValueId from, std::vector<std::int64_t> dims, TensorDesc desc) {
    const std::string base = w_.values[from].name;
    const auto rank = static_cast<std::int64_t>(dims.size());
    const ValueId shape = w_.add_constant(base + ".shape", Tensor::from<std::int64_t>({rank}, dims));
    const ValueId out = w_.add_value(base + ".r", std::move(desc));
    add_node(base + ".reshape", "Reshape", {from, shape}, {out}, Attributes{});
    return out;
  }

  void add_node(const std::string& name, const char* op, std::vector<ValueId> in, std::vector<ValueId> out,
                Attributes attrs) {
    w_.nodes.push_back({name, op, std::move(in), std::move(out), std::move(attrs), true});
    ++s_.nodes_added;
  }

  Work& w_;
  PassStats& s_;
  std::unordered_map<ValueId, ValueId> frames_, temporal_, stacked_;
  std::unordered_map<ValueId, Form> own_;
  std::vector<Back> back_;
};

// Two volumes that are sure to be one shape (no broadcast between them).
bool same_volume(const Work& w, ValueId a, ValueId b) {
  const Shape& x = w.desc(a).shape;
  const Shape& y = w.desc(b).shape;
  if (!(x[0] == y[0]) || (!x[0].is_static() && x[0].lo() <= 1)) return false;
  for (std::size_t i = 1; i < 5; ++i)
    if (x[i].value() != y[i].value()) return false;
  return true;
}

// Node i (a 3-D conv) as a 2-D conv (`attrs`, weights `k2`) on `fx`, a form of its input,
// its output in form `form`.
void rewrite_conv(Work& w, Frames& frames, std::size_t i, ValueId fx, ValueId k2, const Attributes& attrs, Form form) {
  const ValueId y = w.nodes[i].outputs[0];
  const Shape ys = w.desc(y).shape;
  const ValueId fy = w.add_value(w.values[y].name + (form == Form::frames ? ".frames" : ".temporal"),
                                 TensorDesc{DataType::f32, form_shape(ys, form)});
  WNode& n = w.nodes[i];
  n.inputs[0] = fx;
  n.inputs[1] = k2;
  n.outputs[0] = fy;
  n.attrs = attrs;
  frames.make(y, fy, form);
}

// Node i (a 3-D conv) as the 2-D conv `c` on a form of its input: where it picks frames
// by a depth stride, only from a form (or to one frame: a Reshape), not from a volume
// (a Transpose both ways that the 3-D conv does without) unless another conv of frames
// reads that volume (`formed`).
bool frame_conv_on(Work& w, Frames& frames, std::size_t i, const FrameConv& c,
                   const std::unordered_map<ValueId, Form>& formed) {
  const ValueId x = w.nodes[i].inputs[0];
  const std::int64_t depth = w.desc(x).shape[2].value();
  if (c.depth_step > 1 && !frames.has(x) && depth > c.depth_step) {
    const auto f = formed.find(x);
    if (f == formed.end()) return false;
    frames.in(x, f->second);  // (made now for the conv reading x later: the frames picked come from that form)
  }
  const ValueId fx = c.depth_step == 1 ? frames.in(x, c.form) : frames.frames_of(frames.picked(x, c.depth_step));
  const Tensor& k = *w.constant(w.nodes[i].inputs[1]);
  const ValueId k2 = w.add_constant(w.values[w.nodes[i].inputs[1]].name + ".frames",
                                    Tensor::view(k.dtype(), c.kernel, k.bytes(), std::make_shared<Tensor>(k)));
  rewrite_conv(w, frames, i, fx, k2, c.attrs, c.form);
  return true;
}

// Node i (elementwise) on the form its first input has, if every input has a form.
void rewrite_elementwise(Work& w, Frames& frames, std::size_t i) {
  const WNode& n = w.nodes[i];
  if (!frame_elementwise(n) || !is_volume(w, n.outputs[0])) return;
  // (a unary op's output is its input's shape; two operands must be one shape for sure)
  const bool unary = n.inputs.size() == 1 || n.op == "Clip";
  bool all = frames.has(n.inputs[0]) && (unary || same_volume(w, n.inputs[0], n.outputs[0]));
  for (std::size_t k = 1; all && k < n.inputs.size(); ++k) {
    const ValueId v = n.inputs[k];
    if (v == no_value) continue;
    if (w.constant(v) != nullptr && w.constant(v)->element_count() == 1 && n.op == "Clip") continue;  // (bounds)
    all = frames.has(v) && same_volume(w, v, n.outputs[0]);
  }
  if (!all) return;
  const Form f = frames.own(n.inputs[0]);
  const ValueId y = n.outputs[0];
  std::vector<ValueId> ins = n.inputs;
  for (ValueId& v : ins)
    if (v != no_value && frames.has(v)) v = frames.in(v, f);
  const Shape ys = w.desc(y).shape;
  const ValueId fy = w.add_value(w.values[y].name + (f == Form::frames ? ".frames" : ".temporal"),
                                 TensorDesc{DataType::f32, form_shape(ys, f)});
  WNode& m = w.nodes[i];
  m.inputs = std::move(ins);
  m.outputs[0] = fy;
  frames.make(y, fy, f);
}

}  // namespace

void conv_frames(Work& w, PassStats& s) {
  Frames frames(w, s);
  const std::vector<std::size_t> order = w.order;  // (nodes are appended below)
  std::unordered_map<ValueId, Form> formed;  // volumes a conv will read in a form, and that form
  for (const std::size_t i : order) {
    const WNode& n = w.nodes[i];
    const auto c = frame_conv(w, n);
    if (c && (c->form == Form::temporal || c->depth_step == 1) && !to_one_frame(w, n))
      formed.emplace(n.inputs[0], c->form);
  }
  for (const std::size_t i : order) {
    const WNode& n = w.nodes[i];
    if (n.alive && n.op == "Conv" && !n.inputs.empty() && !frames.has(n.inputs[0])) {
      if (auto c = stacked_conv(w, n)) {
        const ValueId k2 = w.add_constant(w.values[n.inputs[1]].name + ".stacked", std::move(c->weights));
        rewrite_conv(w, frames, i, frames.stacked_of(w.nodes[i].inputs[0]), k2, c->attrs, Form::frames);
        continue;
      }
    }
    if (const auto c = frame_conv(w, w.nodes[i]); c && frame_conv_on(w, frames, i, *c, formed)) continue;
    rewrite_elementwise(w, frames, i);
  }
  frames.drop_unread();
}

}  // namespace ge::detail
