// The Ascend IR names of single ops onto ge's (docs/acl.md, "Op names"). Each rule edits
// a GeCall made of the acl call as given: renames the op, moves attributes to ge's names
// and forms, drops inputs ge has no slot for, and reads images and filters in other
// layouts (NHWC, HWCN) through permutations that `run` (op.cpp) applies to the buffers.
#include "acl/op_map.hpp"

#include <algorithm>
#include <cstring>
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
  if (c.input_perms.size() > i) c.input_perms.erase(c.input_perms.begin() + static_cast<std::ptrdiff_t>(i));
  if (c.input_regroups.size() > i) c.input_regroups.erase(c.input_regroups.begin() + static_cast<std::ptrdiff_t>(i));
}

// The layout of a window op's images (x and y): NCHW or NHWC.
enum class Layout : std::uint8_t { nchw, nhwc };

const char* name_of(Layout l) { return l == Layout::nchw ? "NCHW" : "NHWC"; }

// The aclFormat of acl input `i` (ND when not given).
int format_of(std::span<const int> formats, std::size_t i) {
  return i < formats.size() ? formats[i] : static_cast<int>(ACL_FORMAT_ND);
}

// The layout of the images of a window op, as GE reads it: x's description when its
// format is NCHW or NHWC, else the attribute data_format, else the op's default
// (Ascend IR: NHWC for Conv2D, DepthwiseConv2D, MaxPool, AvgPool; NCHW for Pooling,
// MaxPoolV3, AvgPoolV2). data_format
// naming another layout than x's format is ACL_ERROR_FORMAT_NOT_MATCH, as is a
// data_format other than NCHW/NHWC or an x format that is no image layout.
Layout image_layout(GeCall& c, std::span<const int> formats, Layout fallback) {
  const auto attr = take(c, "data_format");
  std::optional<Layout> given;
  if (attr) {
    const std::string f = attr->as_string();
    require(f == "NCHW" || f == "NHWC", "[" + c.op_type + "] data_format '" + f + "'; expected NCHW or NHWC",
            ACL_ERROR_FORMAT_NOT_MATCH);
    given = f == "NCHW" ? Layout::nchw : Layout::nhwc;
  }
  const int x = format_of(formats, 0);
  std::optional<Layout> described;
  if (x == ACL_FORMAT_NCHW) described = Layout::nchw;
  else if (x == ACL_FORMAT_NHWC) described = Layout::nhwc;
  else
    require(x == ACL_FORMAT_ND || x == ACL_FORMAT_UNDEFINED,
            "[" + c.op_type + "] input 0 (x) has format " + std::to_string(x) + "; expected NCHW, NHWC or ND",
            ACL_ERROR_FORMAT_NOT_MATCH);
  if (described && given && *described != *given)
    throw CallError(ACL_ERROR_FORMAT_NOT_MATCH, std::string("[acl] [") + c.op_type + "] data_format is '" +
                                                    name_of(*given) + "' but input 0 (x) is described as " +
                                                    name_of(*described) + "; expected them to agree");
  return described ? *described : given ? *given : fallback;
}

// Reads ge input `j` through `perm` (ge dim i is acl dim perm[i]): its shape, its
// constant data and its format (NCHW: ge's layout for images and filters).
void permute_input(GeCall& c, std::size_t j, std::vector<std::int64_t> perm) {
  if (j >= c.inputs.size() || c.inputs[j].is_undefined()) return;
  ge::OpTensor& t = c.inputs[j];
  if (t.shape.rank_known()) {
    if (t.shape.rank() != perm.size())
      bad(c, ge::Errc::bad_op_inputs, "input " + std::to_string(c.slots[j]) + " has shape '" + t.shape.to_string() +
                                          "'; expected " + std::to_string(perm.size()) + " dims");
    std::vector<ge::Dim> dims;
    for (const std::int64_t p : perm) dims.push_back(t.shape[static_cast<std::ptrdiff_t>(p)]);
    t.shape = ge::Shape(std::move(dims));
  }
  if (t.constant) {
    const auto& from = *t.constant;
    std::vector<std::byte> bytes(from.bytes().size());
    transpose(from.bytes().data(), bytes.data(), from.dims(), perm, static_cast<std::size_t>(ge::size_of(t.dtype)));
    t.constant = ge::Tensor(t.dtype, permuted(from.dims(), perm), std::move(bytes));
  }
  t.format = ge::Format::nchw;
  if (c.input_perms.size() < c.inputs.size()) c.input_perms.resize(c.inputs.size());
  c.input_perms[j] = std::move(perm);
}

// Regroups ge input `j`'s dims (after its permutation) by `masks`: its shape and its
// constant data's dims (see GeCall::input_regroups).
void regroup_input(GeCall& c, std::size_t j, std::vector<std::uint64_t> masks) {
  if (j >= c.inputs.size() || c.inputs[j].is_undefined()) return;
  ge::OpTensor& t = c.inputs[j];
  if (t.shape.rank_known()) {
    std::vector<ge::Dim> dims;
    for (const std::uint64_t m : masks) {
      ge::Dim d(1);
      for (std::size_t k = 0; k < t.shape.rank(); ++k)
        if ((m >> k) & 1u) d = d * t.shape[static_cast<std::ptrdiff_t>(k)];
      dims.push_back(d);
    }
    t.shape = ge::Shape(std::move(dims));
  }
  if (t.constant) {
    const auto bytes = t.constant->bytes();
    t.constant = ge::Tensor(t.dtype, regrouped(t.constant->dims(), masks), std::vector<std::byte>(bytes.begin(), bytes.end()));
  }
  if (c.input_regroups.size() < c.inputs.size()) c.input_regroups.resize(c.inputs.size());
  c.input_regroups[j] = std::move(masks);
}

// Writes every output through `perm` (acl dim i is ge dim perm[i]): the descriptions
// given are read back into ge's layout.
void permute_outputs(GeCall& c, const std::vector<std::int64_t>& perm) {
  c.output_perms.assign(c.outputs.size(), perm);
  for (std::size_t o = 0; o < c.outputs.size(); ++o) {
    ge::OpTensor& t = c.outputs[o];
    if (t.is_undefined() || !t.shape.rank_known()) continue;
    if (t.shape.rank() != perm.size())
      bad(c, ge::Errc::bad_op_inputs, "output " + std::to_string(o) + " has shape '" + t.shape.to_string() +
                                          "'; expected " + std::to_string(perm.size()) + " dims");
    std::vector<ge::Dim> dims(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i)
      dims[static_cast<std::size_t>(perm[i])] = t.shape[static_cast<std::ptrdiff_t>(i)];
    t.shape = ge::Shape(std::move(dims));
    t.format = ge::Format::nchw;
  }
}

// An op on images in `layout` run by ge's NCHW kernel: NHWC images are transposed in
// (x: input 0) and out (every output). An output described NCHW or NHWC must be in
// `layout` (ACL_ERROR_FORMAT_NOT_MATCH).
void images_in(GeCall& c, Layout layout) {
  for (std::size_t o = 0; o < c.outputs.size(); ++o) {
    const ge::Format f = c.outputs[o].format;
    const bool other =
        (f == ge::Format::nchw && layout == Layout::nhwc) || (f == ge::Format::nhwc && layout == Layout::nchw);
    require(!other, "[" + c.op_type + "] output " + std::to_string(o) + " is described as " +
                        std::string(ge::to_string(f)) + " but the images are " + name_of(layout) +
                        "; expected the output in the images' layout",
            ACL_ERROR_FORMAT_NOT_MATCH);
  }
  if (layout == Layout::nchw) return;
  permute_input(c, 0, {0, 3, 1, 2});
  permute_outputs(c, {0, 2, 3, 1});
}

// ge's own (ONNX) ops on images read them as NCHW ([N, C, spatial...]) unless their
// attribute `layout` says NHWC: an image described NHWC is then
// ACL_ERROR_FORMAT_NOT_MATCH, never read as NCHW.
void require_onnx_layout(const GeCall& c, std::span<const int> formats) {
  if (const auto it = c.attrs.find("layout"); it != c.attrs.end() && it->second.kind() == ge::AttrKind::string &&
                                              it->second.as_string() == "NHWC")
    return;
  const auto described_nhwc = [](const ge::OpTensor& t) { return t.format == ge::Format::nhwc; };
  const bool nhwc = format_of(formats, 0) == ACL_FORMAT_NHWC ||
                    std::any_of(c.outputs.begin(), c.outputs.end(), described_nhwc);
  require(!nhwc, "[" + c.op_type + "] an image is described as NHWC; ge's " + c.op_type +
                     " takes NCHW images (the Ascend IR ops Conv2D, MaxPool, AvgPool take NHWC)",
          ACL_ERROR_FORMAT_NOT_MATCH);
}

// The ops of ge's own (ONNX) that pass through under their names and read images as
// NCHW: checked by require_onnx_layout.
bool is_onnx_image_op(std::string_view op) {
  for (const std::string_view o : {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "GlobalAveragePool",
                                   "GlobalMaxPool", "GlobalLpPool", "BatchNormalization", "InstanceNormalization", "LRN",
                                   "DepthToSpace", "SpaceToDepth", "MaxUnpool", "MaxRoiPool", "RoiAlign"})
    if (o == op) return true;
  return false;
}

// H and W of a 4-element list in `layout` ([1,1,h,w] or [1,h,w,1]); N and C must be 1.
std::vector<std::int64_t> hw_of(const GeCall& c, const std::vector<std::int64_t>& v, const char* name,
                                Layout layout = Layout::nchw) {
  const bool nchw = layout == Layout::nchw;
  const std::int64_t n = v[0], ch = nchw ? v[1] : v[3];
  if (n != 1 || ch != 1)
    bad(c, ge::Errc::bad_attribute, std::string("attribute '") + name + "' has N or C values other than 1; expected " +
                                        (nchw ? "[1,1,h,w] (data_format NCHW)" : "[1,h,w,1] (data_format NHWC)"));
  return nchw ? std::vector<std::int64_t>{v[2], v[3]} : std::vector<std::int64_t>{v[1], v[2]};
}

// Conv2D's filter (input 1) read as ge's OIHW from its described format: NCHW
// ([out, in/groups, h, w]) as it is, NHWC ([out, h, w, in]), HWCN ([h, w, in, out]); ND
// only with NCHW images (as OIHW). Anything else is ACL_ERROR_FORMAT_NOT_MATCH.
void filter_in(GeCall& c, std::span<const int> formats, Layout layout) {
  const int f = format_of(formats, 1);
  if (f == ACL_FORMAT_NCHW || ((f == ACL_FORMAT_ND || f == ACL_FORMAT_UNDEFINED) && layout == Layout::nchw)) {
    if (c.inputs.size() > 1 && !c.inputs[1].is_undefined()) c.inputs[1].format = ge::Format::nchw;
    return;
  }
  if (f == ACL_FORMAT_NHWC) return permute_input(c, 1, {0, 3, 1, 2});
  if (f == ACL_FORMAT_HWCN) return permute_input(c, 1, {3, 2, 0, 1});
  throw CallError(ACL_ERROR_FORMAT_NOT_MATCH,
                  "[acl] [" + c.op_type + "] input 1 (filter) has format " + std::to_string(f) +
                      (f == ACL_FORMAT_ND || f == ACL_FORMAT_UNDEFINED
                           ? " (ND) with NHWC images; describe the filter as HWCN, NHWC or NCHW"
                           : "; expected HWCN, NHWC or NCHW"));
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

// The window of Ascend's convs (Conv2D, DepthwiseConv2D) as ge's Conv attributes: no
// quantisation (offset_w unused, offset_x 0), strides and dilations in the images' order,
// explicit pads (top, bottom, left, right) or SAME/VALID padding.
void conv_window(GeCall& c, Layout layout) {
  drop_unused_input(c, 3, "offset_w");
  if (take_int(c, "offset_x", 0) != 0) bad(c, ge::Errc::bad_attribute, "attribute 'offset_x' must be 0 (no quantisation)");
  const auto strides = take_ints(c, "strides", {}, 4);
  const auto pads = take_ints(c, "pads", {0, 0, 0, 0}, 4);  // top, bottom, left, right
  const auto dilations = take_ints(c, "dilations", {1, 1, 1, 1}, 4);
  const std::string padding = take_string(c, "padding", "");
  c.attrs["strides"] = hw_of(c, strides, "strides", layout);
  c.attrs["dilations"] = hw_of(c, dilations, "dilations", layout);
  if (padding.empty() || padding == "CALCULATED") c.attrs["pads"] = std::vector<std::int64_t>{pads[0], pads[2], pads[1], pads[3]};
  else c.attrs["auto_pad"] = auto_pad_of(c, padding);
}

void conv2d(GeCall& c, std::span<const int> formats) {
  const Layout layout = image_layout(c, formats, Layout::nhwc);
  (void)take(c, "auto_pad");  // Ascend's `padding` says it (conv_window)
  conv_window(c, layout);
  c.attrs["group"] = take_int(c, "groups", 1);
  images_in(c, layout);
  filter_in(c, formats, layout);
  c.op_type = "Conv";
}

// DepthwiseConv2D: ge's Conv with one group per input channel. The filter is HWCN
// ([h, w, C, K], K outputs per channel; output channel c*K + k), read as OIHW
// [C*K, 1, h, w]; x's channels must be known (they are the groups).
void depthwise_conv2d(GeCall& c, std::span<const int> formats) {
  const Layout layout = image_layout(c, formats, Layout::nhwc);
  conv_window(c, layout);
  if (c.inputs.empty() || !c.inputs[0].shape.rank_known() || c.inputs[0].shape.rank() != 4)
    bad(c, ge::Errc::bad_op_inputs, "input 0 (x) needs 4 dims, known at compile time");
  const ge::Dim& ch = c.inputs[0].shape[layout == Layout::nhwc ? 3 : 1];
  if (!ch.is_static())
    bad(c, ge::Errc::bad_op_inputs, "input 0 (x) has channels " + ch.to_string() + "; expected them known (they are the groups)");
  const int f = format_of(formats, 1);
  require(f == ACL_FORMAT_HWCN, "[" + c.op_type + "] input 1 (filter) has format " + std::to_string(f) +
                                    "; expected HWCN ([h, w, in_channels, channel_multiplier])",
          ACL_ERROR_FORMAT_NOT_MATCH);
  c.attrs["group"] = ch.value();
  images_in(c, layout);
  permute_input(c, 1, {2, 3, 0, 1});             // [C, K, h, w]
  regroup_input(c, 1, {0b11, 0, 0b100, 0b1000});  // [C*K, 1, h, w]
  c.op_type = "Conv";
}

// BiasAdd: y = x + bias along x's channel axis, the last one (data_format NHWC or NDHWC,
// Ascend IR's default) or axis 1 (NCHW, NCDHW): ge's Add, the bias [C] read as
// [C, 1, ...] for channels first.
void bias_add(GeCall& c, std::span<const int> formats) {
  const auto attr = take(c, "data_format");
  std::optional<bool> last;
  if (attr) {
    const std::string f = attr->as_string();
    require(f == "NHWC" || f == "NCHW" || f == "NDHWC" || f == "NCDHW",
            "[BiasAdd] data_format '" + f + "'; expected NHWC, NCHW, NDHWC or NCDHW", ACL_ERROR_FORMAT_NOT_MATCH);
    last = f == "NHWC" || f == "NDHWC";
  }
  const int x = format_of(formats, 0);
  std::optional<bool> described;
  if (x == ACL_FORMAT_NHWC || x == ACL_FORMAT_NDHWC) described = true;
  else if (x == ACL_FORMAT_NCHW || x == ACL_FORMAT_NCDHW || x == ACL_FORMAT_NC || x == ACL_FORMAT_NCL) described = false;
  require(!(described && last && *described != *last),
          "[BiasAdd] data_format puts the channels " + std::string(last && *last ? "last" : "first") +
              " but input 0 (x) is described with them " + (described && *described ? "last" : "first"),
          ACL_ERROR_FORMAT_NOT_MATCH);
  const bool channels_last = described ? *described : last ? *last : true;
  if (c.inputs.size() != 2) bad(c, ge::Errc::bad_op_inputs, "expected 2 inputs (x, bias)");
  const ge::Shape& xs = c.inputs[0].shape;
  const ge::Shape& bs = c.inputs[1].shape;
  if (!bs.rank_known() || bs.rank() != 1) bad(c, ge::Errc::bad_op_inputs, "input 1 (bias) needs 1 dim");
  if (!xs.rank_known() || xs.rank() < 2) bad(c, ge::Errc::bad_op_inputs, "input 0 (x) needs 2 or more dims, known at compile time");
  const ge::Dim& ch = xs[channels_last ? static_cast<std::ptrdiff_t>(xs.rank() - 1) : 1];
  if (!ge::compatible(ch, bs[0]))
    bad(c, ge::Errc::bad_op_inputs, "input 1 (bias) has " + bs[0].to_string() + " values for x's " + ch.to_string() +
                                        " channels; expected equal");
  if (!channels_last) regroup_input(c, 1, [&] {
    std::vector<std::uint64_t> masks(xs.rank() - 1, 0);
    masks[0] = 1;
    return masks;
  }());
  c.op_type = "Add";
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

void pool(GeCall& c, bool is_max, std::span<const int> formats) {
  if (c.attrs.find("ksize") == c.attrs.end()) {  // ONNX-style attributes: as they are (NCHW)
    c.op_type = is_max ? "MaxPool" : "AveragePool";
    require_onnx_layout(c, formats);
    return;
  }
  const Layout layout = image_layout(c, formats, Layout::nhwc);
  c.attrs["kernel_shape"] = hw_of(c, take_ints(c, "ksize", {}, 4), "ksize", layout);
  c.attrs["strides"] = hw_of(c, take_ints(c, "strides", {1, 1, 1, 1}, 4), "strides", layout);
  images_in(c, layout);
  c.attrs["auto_pad"] = auto_pad_of(c, take_string(c, "padding", "VALID"));
  if (!is_max) c.attrs["count_include_pad"] = take_flag(c, "exclusive", true) ? 0 : 1;
  c.op_type = is_max ? "MaxPool" : "AveragePool";
}

// MaxPoolV3, AvgPoolV2: images NCHW unless said otherwise (Ascend IR's default);
// padding_mode SAME/VALID/CALCULATED (explicit pads [top, bottom, left, right]);
// ceil_mode; global_pooling over H and W; AvgPoolV2's exclusive (default true) and
// divisor_override (0 only).
void pool_v2(GeCall& c, bool is_max, std::span<const int> formats) {
  const Layout layout = image_layout(c, formats, Layout::nchw);
  const auto ksize = take_ints(c, "ksize", {}, 4);
  const auto strides = take_ints(c, "strides", {1, 1, 1, 1}, 4);
  const std::string mode = take_string(c, "padding_mode", "CALCULATED");
  const auto pads = take_ints(c, "pads", {0, 0, 0, 0}, 4);  // top, bottom, left, right
  const bool global = take_flag(c, "global_pooling", false);
  const bool ceil = take_flag(c, "ceil_mode", false);
  const bool exclusive = is_max || take_flag(c, "exclusive", true);
  if (!is_max && take_int(c, "divisor_override", 0) != 0)
    bad(c, ge::Errc::bad_attribute, "attribute 'divisor_override' other than 0 is not supported");
  images_in(c, layout);
  if (global) {
    c.op_type = is_max ? "GlobalMaxPool" : "GlobalAveragePool";
    return;
  }
  c.attrs["kernel_shape"] = hw_of(c, ksize, "ksize", layout);
  c.attrs["strides"] = hw_of(c, strides, "strides", layout);
  if (mode == "CALCULATED") c.attrs["pads"] = std::vector<std::int64_t>{pads[0], pads[2], pads[1], pads[3]};
  else if (mode == "SAME" || mode == "VALID") c.attrs["auto_pad"] = auto_pad_of(c, mode);
  else bad(c, ge::Errc::bad_attribute, "attribute 'padding_mode' is '" + mode + "'; expected SAME, VALID or CALCULATED");
  c.attrs["ceil_mode"] = ceil ? 1 : 0;
  if (!is_max) c.attrs["count_include_pad"] = exclusive ? 0 : 1;
  c.op_type = is_max ? "MaxPool" : "AveragePool";
}

void pooling(GeCall& c, std::span<const int> formats) {
  images_in(c, image_layout(c, formats, Layout::nchw));
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

using Rule = std::function<void(GeCall&, std::span<const int>)>;
// A rule that reads no formats.
template <class F>
Rule plain(F f) {
  return [f](GeCall& c, std::span<const int>) { f(c); };
}

const std::map<std::string, Rule, std::less<>>& rules() {
  static const std::map<std::string, Rule, std::less<>> table{
      {"RealDiv", plain([](GeCall& c) { c.op_type = "Div"; })},
      {"MatMul", plain(matmul)},
      {"MatMulV2", plain(matmul)},
      {"BatchMatMul", plain(batch_matmul)},
      {"BatchMatMulV2", plain(batch_matmul)},
      {"Conv2D", conv2d},
      {"DepthwiseConv2D", depthwise_conv2d},
      {"BiasAdd", bias_add},
      {"Softmax", plain(softmax)},
      {"SoftmaxV2", plain(softmax)},
      {"Cast", plain(cast)},
      {"Transpose", plain(transpose)},
      {"TransposeD", plain(transpose)},
      {"Reshape", plain(reshape)},
      {"ConcatD", plain(concat)},
      {"ConcatV2D", plain(concat)},
      {"ReduceSumD", plain([](GeCall& c) { reduce(c, "ReduceSum"); })},
      {"ReduceMeanD", plain([](GeCall& c) { reduce(c, "ReduceMean"); })},
      {"MaxPool", [](GeCall& c, std::span<const int> f) { pool(c, true, f); }},
      {"AvgPool", [](GeCall& c, std::span<const int> f) { pool(c, false, f); }},
      {"Pooling", pooling},
      {"MaxPoolV3", [](GeCall& c, std::span<const int> f) { pool_v2(c, true, f); }},
      {"AvgPoolV2", [](GeCall& c, std::span<const int> f) { pool_v2(c, false, f); }},
      {"LayerNorm", plain(layer_norm)},
      {"Gelu", plain(gelu)},
  };
  return table;
}

}  // namespace

GeCall translate(std::string_view op_type, std::vector<ge::OpTensor> inputs, std::vector<ge::OpTensor> outputs,
                 const ge::Attributes& attrs, std::span<const int> input_formats) {
  GeCall c{std::string(op_type), std::move(inputs), {}, std::move(outputs), attrs, {}, {}, {}};
  for (std::size_t i = 0; i < c.inputs.size(); ++i) c.slots.push_back(i);
  const auto it = rules().find(op_type);
  if (it != rules().end()) it->second(c, input_formats);
  else if (is_onnx_image_op(c.op_type)) require_onnx_layout(c, input_formats);
  return c;
}

}  // namespace acl
