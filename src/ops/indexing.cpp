// Element-wise indexing (GatherElements, ScatterElements) and Size.
#include "common.hpp"

namespace ge::ops {

namespace {

// The checks GatherElements and ScatterElements share: indices of data's rank and axis
// in range (when the ranks are known).
void check_indexing(const InferContext& c) {
  const Shape& x = c.shape(0);
  const Shape& idx = c.shape(1);
  require_rank(c, 0, 1, static_cast<std::size_t>(-1));
  if (!x.rank_known()) return;
  norm_axis(c, c.i("axis"), static_cast<std::int64_t>(x.rank()), "axis");
  if (idx.rank_known() && idx.rank() != x.rank())
    c.fail(Errc::bad_op_inputs, "input 1 (indices) [" + idx.to_string() + "] has rank " + std::to_string(idx.rank()) +
                                    ", input 0 (data) [" + x.to_string() + "] rank " + std::to_string(x.rank()) +
                                    "; expected equal ranks");
}

OpSchema gather_elements() {
  OpSchema s;
  s.name = "GatherElements";
  s.doc = "y[i...] = data at indices[i...] along axis, the other coordinates i's own; y has indices' shape";
  s.inputs = {arg("data", "T"), arg("indices", "Tind")};
  s.outputs = {arg("output", "T")};
  s.types = {{"T", TypeSet::all()}, {"Tind", TypeSet::indices()}};
  s.attrs = {attr("axis", 0)};
  s.infer = [](const InferContext& c) {
    check_indexing(c);
    return std::vector<TensorDesc>{{c.input(0).dtype, c.shape(1)}};
  };
  return s;
}

OpSchema scatter_elements() {
  OpSchema s;
  s.name = "ScatterElements";
  s.doc = "data with updates written at indices along axis; reduction none (replace), add, mul, max or min";
  s.inputs = {arg("data", "T"), arg("indices", "Tind"), arg("updates", "T")};
  s.outputs = {arg("output", "T")};
  s.types = {{"T", TypeSet::all()}, {"Tind", TypeSet::indices()}};
  s.attrs = {attr("axis", 0), attr("reduction", "none", one_of({"none", "add", "mul", "max", "min"}))};
  s.infer = [](const InferContext& c) {
    check_indexing(c);
    const Shape& idx = c.shape(1);
    const Shape& upd = c.shape(2);
    if (idx.rank_known() && upd.rank_known()) {
      if (idx.rank() != upd.rank())
        c.fail(Errc::bad_op_inputs, "input 2 (updates) [" + upd.to_string() + "] and input 1 (indices) [" +
                                        idx.to_string() + "] differ in rank");
      for (std::size_t d = 0; d < idx.rank(); ++d)
        (void)merge_dims(c, idx.dims()[d], upd.dims()[d], "updates dim " + std::to_string(d));
    }
    return std::vector<TensorDesc>{{c.input(0).dtype, c.shape(0)}};
  };
  return s;
}

OpSchema size() {
  OpSchema s;
  s.name = "Size";
  s.doc = "the element count of the input, as an i64 scalar";
  s.inputs = {arg("data", "T")};
  s.outputs = {arg("size", "i64")};
  s.types = {{"T", TypeSet::all()}};
  s.infer = [](const InferContext&) { return std::vector<TensorDesc>{{DataType::i64, Shape{}}}; };
  return s;
}

}  // namespace

void add_indexing_ops(OpRegistry& r) {
  add_op(r, onnx_op(13), gather_elements());
  add_op(r, onnx_op(13), scatter_elements());
  add_op(r, onnx_op(13), size());
}

}  // namespace ge::ops
