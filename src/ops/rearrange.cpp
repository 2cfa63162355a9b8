// Elements moved to other places: Tile (repeats an input, read when constant),
// DepthToSpace (DCR or CRD) and SpaceToDepth.
#include "common.hpp"

namespace ge::ops {

namespace {

// d * k, an error naming the node and `what` where an end overflows int64.
Dim times(const InferContext& c, const Dim& d, std::int64_t k, const std::string& what) {
  try {
    return d * Dim(k);
  } catch (const Error&) {
    c.fail(Errc::int_overflow, what + " " + d.to_string() + " times " + std::to_string(k) + " overflows int64");
  }
}

OpSchema tile() {
  OpSchema s;
  s.name = "Tile";
  s.doc = "the input repeated repeats[d] times along each axis d";
  s.inputs = {arg("input", "T"), arg("repeats", "i64")};
  s.outputs = {arg("output", "T")};
  s.types = {{"T", TypeSet::all()}};
  s.infer = [](const InferContext& c) {
    const Shape& x = c.shape(0);
    const DataType t = c.input(0).dtype;
    require_rank(c, 1, 1, 1);
    const auto reps = const_ints(c, 1);
    if (!x.rank_known()) return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};
    if (!reps) return std::vector<TensorDesc>{{t, unknown_dims(x.rank())}};
    if (reps->size() != x.rank())
      c.fail(Errc::bad_op_inputs, "input 1 (repeats) " + ints_text(*reps) + " has " + std::to_string(reps->size()) +
                                      " values for input 0 [" + x.to_string() + "] of rank " +
                                      std::to_string(x.rank()));
    std::vector<Dim> out;
    for (std::size_t d = 0; d < x.rank(); ++d) {
      const std::int64_t k = (*reps)[d];
      if (k < 0) c.fail(Errc::bad_op_inputs, "input 1 (repeats) " + ints_text(*reps) + " has a negative value");
      out.push_back(times(c, x.dims()[d], k, "dim " + std::to_string(d)));
    }
    return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
  };
  return s;
}

// The [N, C, H, W] input of DepthToSpace and SpaceToDepth, and its blocksize.
std::int64_t nchw_block(const InferContext& c) {
  require_rank(c, 0, 4, 4);
  const std::int64_t b = c.i("blocksize");
  if (b > (std::int64_t{1} << 30))  // (its square is a channel count: it must fit int64)
    c.fail(Errc::bad_attribute, "blocksize " + std::to_string(b) + " is larger than 2^30");
  return b;
}

// d / k when d is a multiple of k (checked when static), else an error naming `what`.
Dim divided(const InferContext& c, const Dim& d, std::int64_t k, const std::string& what) {
  if (d.is_static() && d.value() % k != 0)
    c.fail(Errc::bad_op_inputs, what + " " + std::to_string(d.value()) + " is not a multiple of " + std::to_string(k));
  return div_floor(d, k);
}

// DepthToSpace or SpaceToDepth over an [N, C, H, W] input: `attrs` beside blocksize.
OpSchema nchw_op(std::string name, std::string doc, std::vector<AttrSpec> attrs, InferFn infer) {
  attrs.insert(attrs.begin(), attr_req("blocksize", AttrKind::integer, int_at_least(1)));
  return schema(std::move(name), std::move(doc), {arg("input", "T")}, {arg("output", "T")}, {{"T", TypeSet::all()}},
                std::move(attrs), std::move(infer));
}

std::vector<TensorDesc> infer_depth_to_space(const InferContext& c) {
  const std::int64_t b = nchw_block(c);
  const Shape& x = c.shape(0);
  const DataType t = c.input(0).dtype;
  if (!x.rank_known()) return {{t, unknown_dims(4)}};
  return {{t, Shape({x[0], divided(c, x[1], b * b, "channels"), times(c, x[2], b, "height"), times(c, x[3], b, "width")})}};
}

std::vector<TensorDesc> infer_space_to_depth(const InferContext& c) {
  const std::int64_t b = nchw_block(c);
  const Shape& x = c.shape(0);
  const DataType t = c.input(0).dtype;
  if (!x.rank_known()) return {{t, unknown_dims(4)}};
  return {{t, Shape({x[0], times(c, x[1], b * b, "channels"), divided(c, x[2], b, "height"),
                     divided(c, x[3], b, "width")})}};
}

}  // namespace

void add_rearrange_ops(OpRegistry& r) {
  add_op(r, onnx_op(13), tile());
  add_op(r, onnx_op(13),
         nchw_op("DepthToSpace",
                  "[N, C, H, W] -> [N, C / b^2, H * b, W * b]: channel blocks moved into space (DCR or CRD order)",
                  {attr("mode", "DCR", one_of({"DCR", "CRD"}))}, infer_depth_to_space));
  add_op(r, onnx_op(13),
         nchw_op("SpaceToDepth", "[N, C, H, W] -> [N, C * b^2, H / b, W / b]: b x b blocks of space moved into channels",
                 {}, infer_space_to_depth));
}

}  // namespace ge::ops
