// conv_frames: a 3-D conv whose kernel is one frame deep (depth 1, depth stride 1, no depth
// pads: the spatial convs of video networks, mc3's and R(2+1)D's 1 x k x k) is a 2-D conv
// of every frame. x [N, C, D, H, W] becomes the frames [N * D, C, H, W] (a Transpose of C
// and D, then a Reshape merging N and D), the conv runs as a 2-D Conv on them, and its
// output goes back to [N, M, D, OH, OW]. The 2-D conv then takes every 2-D mechanism: the
// layout pass's NHWC images, Winograd, the fused epilogues. Elementwise ops reading only
// such frames (a block's ReLU, its residual Add) run on the frames too, so that a chain of
// these convs stays in frames and only its ends move data (fold_transposes then merges
// those Transposes with the layout pass's into one each).
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

// The 2-D attributes of a Conv over [N, C, D, H, W] whose kernel is one frame deep, or
// nullopt: constant f32 weights [M, C / group, 1, kh, kw], explicit pads none on depth,
// depth stride 1.
std::optional<Attributes> frame_conv_attrs(const Work& w, const WNode& n) {
  if (!n.alive || n.op != "Conv" || n.outputs.size() != 1 || n.inputs.size() < 2 || n.inputs.size() > 3) return std::nullopt;
  if (!is_volume(w, n.inputs[0]) || !is_volume(w, n.outputs[0])) return std::nullopt;
  const Tensor* k = w.constant(n.inputs[1]);
  if (k == nullptr || k->dtype() != DataType::f32 || k->dims().size() != 5 || k->dims()[2] != 1) return std::nullopt;
  const ops::WindowAttrs a = ops::WindowAttrs::from(OpRegistry::global().find(n.op).with_defaults(n.attrs), 3);
  if (a.auto_pad != ops::AutoPad::notset || a.strides[0] != 1 || a.pads[0] != 0 || a.pads[3] != 0) return std::nullopt;
  if (a.kernel[0] != 0 && a.kernel[0] != 1) return std::nullopt;
  Attributes out;
  out.insert_or_assign("kernel_shape", std::vector<std::int64_t>{k->dims()[3], k->dims()[4]});
  out.insert_or_assign("strides", std::vector<std::int64_t>{a.strides[1], a.strides[2]});
  out.insert_or_assign("dilations", std::vector<std::int64_t>{a.dilations[1], a.dilations[2]});
  out.insert_or_assign("pads", std::vector<std::int64_t>{a.pads[1], a.pads[2], a.pads[4], a.pads[5]});
  const auto group = attr_of(n, "group");
  out.insert_or_assign("group", group ? group->as_int() : std::int64_t{1});
  return out;
}

// Elementwise ops that run on frames as on the volume (one output, no broadcasting).
bool frame_elementwise(const WNode& n) {
  static const std::unordered_set<std::string_view> unary = {"Relu", "Sigmoid", "LeakyRelu", "HardSigmoid",
                                                             "HardSwish", "Clip", "Tanh", "Elu"};
  static const std::unordered_set<std::string_view> binary = {"Add", "Mul", "Sub"};
  if (!n.alive || n.outputs.size() != 1 || n.inputs.empty()) return false;
  return unary.contains(n.op) || (binary.contains(n.op) && n.inputs.size() == 2);
}

class Frames {
 public:
  Frames(Work& w, PassStats& s) : w_(w), s_(s) {}

  // The frames of volume v: its Transpose and Reshape, made once.
  // (Descriptions and names are copied: new values and nodes move the vectors.)
  ValueId of(ValueId v) {
    if (const auto it = frames_.find(v); it != frames_.end()) return it->second;
    const TensorDesc d = w_.desc(v);
    const Shape& x = d.shape;
    const TensorDesc moved{d.dtype, Shape{x[0], x[2], x[1], x[3], x[4]}};
    const std::string name = w_.values[v].name;
    const ValueId t = w_.add_value(name + ".frames_t", moved);
    add_node(name + ".to_nchw_frames", "Transpose", {v}, {t},
             Attributes{{"perm", std::vector<std::int64_t>{0, 2, 1, 3, 4}}});
    const ValueId f = reshaped(t, {-1, x[1].value(), x[3].value(), x[4].value()},
                               TensorDesc{d.dtype, Shape{x[0] * x[2], x[1], x[3], x[4]}});
    frames_[v] = f;
    return f;
  }

  // Frames `f` make volume v (which keeps its id, so its other readers stay as they are):
  // a Reshape splitting N and D, a Transpose back, dropped at the end where nothing else
  // reads v.
  void make(ValueId v, ValueId f) {
    const TensorDesc d = w_.desc(v);
    const Shape& y = d.shape;
    const ValueId t = reshaped(f, {-1, y[2].value(), y[1].value(), y[3].value(), y[4].value()},
                               TensorDesc{d.dtype, Shape{y[0], y[2], y[1], y[3], y[4]}});
    back_.push_back({w_.nodes.size() - 1, w_.nodes.size(), v});
    add_node(std::string(w_.values[v].name) + ".to_ncdhw", "Transpose", {t}, {v},
             Attributes{{"perm", std::vector<std::int64_t>{0, 2, 1, 3, 4}}});
    frames_[v] = f;
  }

  [[nodiscard]] bool has(ValueId v) const { return frames_.contains(v); }

  // The volumes nobody reads outside frames lose their way back.
  void drop_unread() {
    const Work::Readers readers = w_.readers();
    for (const Back& b : back_) {
      if (readers.count[b.volume] != 0 || w_.is_output(b.volume)) continue;
      w_.nodes[b.reshape].alive = false;
      w_.nodes[b.transpose].alive = false;
      s_.nodes_removed += 2;
    }
  }

 private:
  struct Back {
    std::size_t reshape, transpose;
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
  std::unordered_map<ValueId, ValueId> frames_;
  std::vector<Back> back_;
};

// Two frames of volumes that are sure to be one shape (no broadcast between them).
bool same_volume(const Work& w, ValueId a, ValueId b) {
  const Shape& x = w.desc(a).shape;
  const Shape& y = w.desc(b).shape;
  if (!(x[0] == y[0]) || (!x[0].is_static() && x[0].lo() <= 1)) return false;
  for (std::size_t i = 1; i < 5; ++i)
    if (x[i].value() != y[i].value()) return false;
  return true;
}

}  // namespace

void conv_frames(Work& w, PassStats& s) {
  Frames frames(w, s);
  const std::vector<std::size_t> order = w.order;  // (nodes are appended below)
  for (const std::size_t i : order) {
    if (const auto attrs = frame_conv_attrs(w, w.nodes[i])) {
      const ValueId x = w.nodes[i].inputs[0], y = w.nodes[i].outputs[0];
      const ValueId fx = frames.of(x);
      const Tensor& k = *w.constant(w.nodes[i].inputs[1]);
      const auto& kd = k.dims();
      const ValueId k2 = w.add_constant(w.values[w.nodes[i].inputs[1]].name + ".frames",
                                        Tensor::view(k.dtype(), {kd[0], kd[1], kd[3], kd[4]}, k.bytes(),
                                                     std::make_shared<Tensor>(k)));
      const Shape ys = w.desc(y).shape;
      const ValueId fy = w.add_value(w.values[y].name + ".frames",
                                          TensorDesc{DataType::f32, Shape{ys[0] * ys[2], ys[1], ys[3], ys[4]}});
      WNode& n = w.nodes[i];
      n.inputs[0] = fx;
      n.inputs[1] = k2;
      n.outputs[0] = fy;
      n.attrs = *attrs;
      frames.make(y, fy);
      continue;
    }
    const WNode& n = w.nodes[i];
    if (!frame_elementwise(n) || !is_volume(w, n.outputs[0])) continue;
    // (a unary op's output is its input's shape; two operands must be one shape for sure)
    const bool unary = n.inputs.size() == 1 || n.op == "Clip";
    // (only volumes have frames)
    bool all = frames.has(n.inputs[0]) &&
               (unary || same_volume(w, n.inputs[0], n.outputs[0]));
    for (std::size_t k = 1; all && k < n.inputs.size(); ++k) {
      const ValueId v = n.inputs[k];
      if (v == no_value) continue;
      if (w.constant(v) != nullptr && w.constant(v)->element_count() == 1 && n.op == "Clip") continue;  // (bounds)
      all = frames.has(v) && same_volume(w, v, n.outputs[0]);
    }
    if (!all) continue;
    const ValueId y = n.outputs[0];
    std::vector<ValueId> ins = n.inputs;
    for (ValueId& v : ins)
      if (v != no_value && frames.has(v)) v = frames.of(v);
    const Shape ys = w.desc(y).shape;
    const ValueId fy = w.add_value(w.values[y].name + ".frames",
                                        TensorDesc{DataType::f32, Shape{ys[0] * ys[2], ys[1], ys[3], ys[4]}});
    WNode& m = w.nodes[i];
    m.inputs = std::move(ins);
    m.outputs[0] = fy;
    frames.make(y, fy);
  }
  frames.drop_unread();
}

}  // namespace ge::detail
