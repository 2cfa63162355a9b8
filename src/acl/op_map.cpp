// The Ascend IR names of single ops onto ge's (docs/acl.md, "Op names"). Each rule edits
// a GeCall made of the acl call as given: renames the op, moves attributes to ge's names
// and forms, drops inputs ge has no slot for.
#include "acl/op_map.hpp"

#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "acl/acl_internal.hpp"
#include "ge/core/error.hpp"

namespace acl {

namespace {

[[noreturn]] void bad(const GeCall& c, ge::Errc code, const std::string& what) {
  ge::raise(code, "[ge.acl] [" + c.op_type + "] " + what);
}

// Removes attribute `name` and returns it (nullopt when absent).
std::optional<ge::Attribute> take(GeCall& c, const std::string& name) {
  const auto it = c.attrs.find(name);
  if (it == c.attrs.end()) return std::nullopt;
  ge::Attribute a = it->second;
  c.attrs.erase(it);
  return a;
}

// A flag given as a bool or an int.
bool flag_of(const ge::Attribute& a) { return a.kind() == ge::AttrKind::boolean ? a.as_bool() : a.as_int() != 0; }
bool take_flag(GeCall& c, const std::string& name, bool fallback) {
  const auto a = take(c, name);
  return a ? flag_of(*a) : fallback;
}
std::int64_t take_int(GeCall& c, const std::string& name, std::int64_t fallback) {
  const auto a = take(c, name);
  return a ? a->as_int() : fallback;
}
std::vector<std::int64_t> take_ints(GeCall& c, const std::string& name, std::vector<std::int64_t> fallback,
                                    std::size_t size) {
  const auto a = take(c, name);
  std::vector<std::int64_t> v = a ? a->as_ints() : std::move(fallback);
  if (v.size() != size)
    bad(c, ge::Errc::bad_attribute, "attribute '" + name + "' has " + std::to_string(v.size()) + " values; expected " +
                                        std::to_string(size));
  return v;
}
std::string take_string(GeCall& c, const std::string& name, std::string fallback) {
  const auto a = take(c, name);
  return a ? a->as_string() : std::move(fallback);
}

// Drops acl input `i` when it is given and unused (an unused optional input).
void drop_unused_input(GeCall& c, std::size_t i, const char* name) {
  if (c.inputs.size() <= i) return;
  if (!c.inputs[i].is_undefined())
    bad(c, ge::Errc::bad_op_inputs, std::string("input ") + std::to_string(i) + " (" + name +
                                        ") is given; ge has no such input, so it must be an unused optional input");
  c.inputs.erase(c.inputs.begin() + static_cast<std::ptrdiff_t>(i));
  c.slots.erase(c.slots.begin() + static_cast<std::ptrdiff_t>(i));
}

// The dims of NCHW windows: H and W of a 4-element list.
std::vector<std::int64_t> hw_of(const GeCall& c, const std::vector<std::int64_t>& v, const char* name) {
  if (v[0] != 1 || v[1] != 1)
    bad(c, ge::Errc::bad_attribute, std::string("attribute '") + name + "' has N or C values other than 1; expected [1,1,h,w]");
  return {v[2], v[3]};
}

void require_nchw(GeCall& c) {
  const std::string f = take_string(c, "data_format", "NCHW");
  require(f == "NCHW", "[" + c.op_type + "] data_format '" + f + "'; only NCHW windows are supported",
          ACL_ERROR_FORMAT_NOT_MATCH);
}

// SAME / VALID as ge's auto_pad.
std::string auto_pad_of(const GeCall& c, const std::string& padding) {
  if (padding == "SAME") return "SAME_UPPER";
  if (padding == "VALID") return "VALID";
  bad(c, ge::Errc::bad_attribute, "attribute 'padding' is '" + padding + "'; expected SAME or VALID");
}

void matmul(GeCall& c) {
  const bool ta = take_flag(c, "transpose_x1", false), tb = take_flag(c, "transpose_x2", false);
  if (take_int(c, "offset_x", 0) != 0) bad(c, ge::Errc::bad_attribute, "attribute 'offset_x' must be 0 (no quantisation)");
  drop_unused_input(c, 3, "offset_w");
  const bool bias = c.inputs.size() > 2 && !c.inputs[2].is_undefined();
  if (!ta && !tb && !bias) {
    if (c.inputs.size() > 2) drop_unused_input(c, 2, "bias");
    c.op_type = "MatMul";
    return;
  }
  c.op_type = "Gemm";
  c.attrs["transA"] = ta ? 1 : 0;
  c.attrs["transB"] = tb ? 1 : 0;
}

void batch_matmul(GeCall& c) {
  if (take_flag(c, "adj_x1", false) || take_flag(c, "adj_x2", false))
    bad(c, ge::Errc::bad_attribute, "adj_x1/adj_x2 true: ge's batched MatMul does not transpose its operands");
  if (take_int(c, "offset_x", 0) != 0) bad(c, ge::Errc::bad_attribute, "attribute 'offset_x' must be 0 (no quantisation)");
  drop_unused_input(c, 3, "offset_w");
  drop_unused_input(c, 2, "bias");
  c.op_type = "MatMul";
}

void conv2d(GeCall& c) {
  require_nchw(c);
  drop_unused_input(c, 3, "offset_w");
  if (take_int(c, "offset_x", 0) != 0) bad(c, ge::Errc::bad_attribute, "attribute 'offset_x' must be 0 (no quantisation)");
  const auto strides = take_ints(c, "strides", {}, 4);
  const auto pads = take_ints(c, "pads", {0, 0, 0, 0}, 4);  // top, bottom, left, right
  const auto dilations = take_ints(c, "dilations", {1, 1, 1, 1}, 4);
  const std::string padding = take_string(c, "padding", "");
  c.attrs["group"] = take_int(c, "groups", 1);
  c.attrs["strides"] = hw_of(c, strides, "strides");
  c.attrs["dilations"] = hw_of(c, dilations, "dilations");
  (void)take(c, "auto_pad");
  if (padding.empty() || padding == "CALCULATED") c.attrs["pads"] = std::vector<std::int64_t>{pads[0], pads[2], pads[1], pads[3]};
  else c.attrs["auto_pad"] = auto_pad_of(c, padding);
  c.op_type = "Conv";
}

void softmax(GeCall& c) {
  if (take_flag(c, "half_to_float", false)) bad(c, ge::Errc::bad_attribute, "half_to_float true is not supported");
  if (const auto axes = take(c, "axes")) {
    if (axes->as_ints().size() != 1)
      bad(c, ge::Errc::bad_attribute, "attribute 'axes' is " + axes->to_string() + "; ge's Softmax takes one axis");
    c.attrs["axis"] = axes->as_ints()[0];
  }
  c.op_type = "Softmax";
}

void cast(GeCall& c) {
  (void)take_flag(c, "truncate", false);
  if (const auto dst = take(c, "dst_type")) {
    c.attrs["to"] = dst->kind() == ge::AttrKind::string
                        ? dst->as_string()
                        : std::string(ge::to_string(to_ge_type(static_cast<int>(dst->as_int()))));
  }
}

void transpose(GeCall& c) {
  if (c.op_type == "Transpose" && c.inputs.size() == 2) {
    const ge::OpTensor& perm = c.inputs[1];
    if (!perm.constant)
      bad(c, ge::Errc::bad_op_inputs, "input 1 (perm) is not constant; ge's Transpose takes perm as an attribute");
    c.attrs["perm"] = perm.constant->to_int64s();
    c.inputs.pop_back();
    c.slots.pop_back();
  }
  c.op_type = "Transpose";
}

void reshape(GeCall& c) {
  if (take_int(c, "axis", 0) != 0 || take_int(c, "num_axes", -1) != -1)
    bad(c, ge::Errc::bad_attribute, "attributes axis/num_axes other than 0/-1 are not supported");
}

void concat(GeCall& c) {
  const std::int64_t n = take_int(c, "N", static_cast<std::int64_t>(c.inputs.size()));
  if (n != static_cast<std::int64_t>(c.inputs.size()))
    bad(c, ge::Errc::bad_op_inputs, "attribute N is " + std::to_string(n) + " but " + std::to_string(c.inputs.size()) +
                                        " inputs are given; expected equal");
  c.attrs["axis"] = take_int(c, "concat_dim", 0);
  c.op_type = "Concat";
}

void reduce(GeCall& c, const char* ge_op) {
  c.attrs["keepdims"] = take_flag(c, "keep_dims", false) ? 1 : 0;
  if (const auto axes = take(c, "axes")) c.attrs["axes"] = axes->as_ints();
  c.op_type = ge_op;
}

void pool(GeCall& c, bool is_max) {
  if (c.attrs.find("ksize") == c.attrs.end()) {  // ONNX-style attributes: as they are
    c.op_type = is_max ? "MaxPool" : "AveragePool";
    return;
  }
  require_nchw(c);
  c.attrs["kernel_shape"] = hw_of(c, take_ints(c, "ksize", {}, 4), "ksize");
  c.attrs["strides"] = hw_of(c, take_ints(c, "strides", {1, 1, 1, 1}, 4), "strides");
  c.attrs["auto_pad"] = auto_pad_of(c, take_string(c, "padding", "VALID"));
  if (!is_max) c.attrs["count_include_pad"] = take_flag(c, "exclusive", true) ? 0 : 1;
  c.op_type = is_max ? "MaxPool" : "AveragePool";
}

void pooling(GeCall& c) {
  require_nchw(c);
  const std::int64_t mode = take_int(c, "mode", 0);
  if (mode != 0 && mode != 1) bad(c, ge::Errc::bad_attribute, "attribute 'mode' is " + std::to_string(mode) + "; expected 0 (max) or 1 (average)");
  const bool global = take_flag(c, "global_pooling", false);
  const auto window = take_ints(c, "window", {1, 1}, 2);
  const auto stride = take_ints(c, "stride", {1, 1}, 2);
  const auto pad = take_ints(c, "pad", {0, 0, 0, 0}, 4);  // top, bottom, left, right
  const auto dilation = take_ints(c, "dilation", {1, 1, 1, 1}, 4);
  const std::int64_t ceil = take_int(c, "ceil_mode", 0);  // 0: ceil, 1: floor
  if (global) {
    c.attrs.clear();
    if (mode == 1) {
      c.op_type = "GlobalAveragePool";
    } else {
      c.op_type = "ReduceMax";
      c.attrs["axes"] = std::vector<std::int64_t>{2, 3};
      c.attrs["keepdims"] = 1;
    }
    return;
  }
  c.attrs["kernel_shape"] = window;
  c.attrs["strides"] = stride;
  c.attrs["pads"] = std::vector<std::int64_t>{pad[0], pad[2], pad[1], pad[3]};
  c.attrs["ceil_mode"] = ceil == 0 ? 1 : 0;
  if (mode == 0) c.attrs["dilations"] = hw_of(c, dilation, "dilation");
  else c.attrs["count_include_pad"] = 1;
  c.op_type = mode == 0 ? "MaxPool" : "AveragePool";
}

void layer_norm(GeCall& c) {
  require(c.outputs.size() <= 2, "[LayerNorm] " + std::to_string(c.outputs.size()) +
                                     " outputs; ge's LayerNormalization gives y and mean, not the variance",
          ACL_ERROR_OP_OUTPUT_NOT_MATCH);
  c.attrs["axis"] = take_int(c, "begin_norm_axis", 0);
  (void)take_int(c, "begin_params_axis", 0);  // gamma's and beta's dims say it
  const auto eps = take(c, "epsilon");
  c.attrs["epsilon"] = eps ? eps->as_float() : 1e-7;
  c.op_type = "LayerNormalization";
}

void gelu(GeCall& c) {
  if (c.attrs.find("approximate") == c.attrs.end()) c.attrs["approximate"] = "tanh";
}

using Rule = std::function<void(GeCall&)>;

const std::map<std::string, Rule, std::less<>>& rules() {
  static const std::map<std::string, Rule, std::less<>> table{
      {"RealDiv", [](GeCall& c) { c.op_type = "Div"; }},
      {"MatMul", matmul},
      {"MatMulV2", matmul},
      {"BatchMatMul", batch_matmul},
      {"BatchMatMulV2", batch_matmul},
      {"Conv2D", conv2d},
      {"Softmax", softmax},
      {"SoftmaxV2", softmax},
      {"Cast", cast},
      {"Transpose", transpose},
      {"TransposeD", transpose},
      {"Reshape", reshape},
      {"ConcatD", concat},
      {"ConcatV2D", concat},
      {"ReduceSumD", [](GeCall& c) { reduce(c, "ReduceSum"); }},
      {"ReduceMeanD", [](GeCall& c) { reduce(c, "ReduceMean"); }},
      {"MaxPool", [](GeCall& c) { pool(c, true); }},
      {"AvgPool", [](GeCall& c) { pool(c, false); }},
      {"Pooling", pooling},
      {"LayerNorm", layer_norm},
      {"Gelu", gelu},
  };
  return table;
}

}  // namespace

GeCall translate(std::string_view op_type, std::vector<ge::OpTensor> inputs, std::vector<ge::OpTensor> outputs,
                 const ge::Attributes& attrs) {
  GeCall c{std::string(op_type), std::move(inputs), {}, std::move(outputs), attrs};
  for (std::size_t i = 0; i < c.inputs.size(); ++i) c.slots.push_back(i);
  const auto it = rules().find(op_type);
  if (it != rules().end()) it->second(c);
  return c;
}

}  // namespace acl
