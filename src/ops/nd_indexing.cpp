// Indexing by tuples of indices: GatherND (batch_dims) and ScatterND (reduction none,
// add, mul, max, min). The last dim of indices is the tuple's length k.
#include "common.hpp"

namespace ge::ops {

namespace {

// Checks data and indices (ranks, batch dims, k); returns k when static.
std::optional<std::int64_t> tuple_length(const InferContext& c, std::int64_t batch_dims) {
  require_rank(c, 0, 1, static_cast<std::size_t>(-1));
  require_rank(c, 1, 1, static_cast<std::size_t>(-1));
  const Shape& x = c.shape(0);
  const Shape& idx = c.shape(1);
  if (batch_dims < 0) c.fail(Errc::bad_attribute, "attribute 'batch_dims' is " + std::to_string(batch_dims) + "; expected >= 0");
  if (!x.rank_known() || !idx.rank_known()) return std::nullopt;
  const auto r = static_cast<std::int64_t>(x.rank()), q = static_cast<std::int64_t>(idx.rank());
  if (batch_dims >= std::min(r, q))
    c.fail(Errc::bad_attribute, "attribute 'batch_dims' is " + std::to_string(batch_dims) + " for data [" +
                                    x.to_string() + "] and indices [" + idx.to_string() + "]; expected below both ranks");
  for (std::int64_t d = 0; d < batch_dims; ++d)
    (void)merge_dims(c, x[static_cast<std::size_t>(d)], idx[static_cast<std::size_t>(d)], "batch dim " + std::to_string(d));
  const Dim& last = idx[static_cast<std::size_t>(q - 1)];
  if (!last.is_static()) return std::nullopt;
  const std::int64_t k = last.value();
  if (k < 1 || k > r - batch_dims)
    c.fail(Errc::bad_op_inputs, "input 1 (indices) [" + idx.to_string() + "] ends in " + std::to_string(k) +
                                    "; expected a tuple length in [1, " + std::to_string(r - batch_dims) + "] for data [" +
                                    x.to_string() + "]");
  return k;
}

OpSchema gather_nd() {
  return schema("GatherND", "y[i...] = data[batch..., indices[batch..., i..., :], ...]: a slice per index tuple",
                {arg("data", "T"), arg("indices", "i64")}, {arg("output", "T")}, {{"T", TypeSet::all()}},
                {attr("batch_dims", 0)}, [](const InferContext& c) {
                  const std::int64_t b = c.i("batch_dims");
                  const auto k = tuple_length(c, b);
                  const DataType t = c.input(0).dtype;
                  if (!k) return std::vector<TensorDesc>{{t, Shape::unknown_rank()}};
                  const Shape& x = c.shape(0);
                  const Shape& idx = c.shape(1);
                  std::vector<Dim> out(idx.dims().begin(), idx.dims().end() - 1);
                  for (std::size_t d = static_cast<std::size_t>(b + *k); d < x.rank(); ++d) out.push_back(x[d]);
                  return std::vector<TensorDesc>{{t, Shape(std::move(out))}};
                });
}

OpSchema scatter_nd() {
  return schema("ScatterND", "data with updates written at each index tuple of indices; reduction none, add, mul, max or min",
                {arg("data", "T"), arg("indices", "i64"), arg("updates", "T")}, {arg("output", "T")},
                {{"T", TypeSet::all()}}, {attr("reduction", "none", one_of({"none", "add", "mul", "max", "min"}))},
                [](const InferContext& c) {
                  const auto k = tuple_length(c, 0);
                  const Shape& x = c.shape(0);
                  const Shape& idx = c.shape(1);
                  const Shape& upd = c.shape(2);
                  if (k && upd.rank_known()) {
                    std::vector<Dim> want(idx.dims().begin(), idx.dims().end() - 1);
                    for (std::size_t d = static_cast<std::size_t>(*k); d < x.rank(); ++d) want.push_back(x[d]);
                    if (want.size() != upd.rank())
                      c.fail(Errc::bad_op_inputs, "input 2 (updates) [" + upd.to_string() + "] has rank " +
                                                      std::to_string(upd.rank()) + "; expected " +
                                                      std::to_string(want.size()));
                    for (std::size_t d = 0; d < want.size(); ++d)
                      (void)merge_dims(c, want[d], upd[d], "updates dim " + std::to_string(d));
                  }
                  return std::vector<TensorDesc>{{c.input(0).dtype, x}};
                });
}

}  // namespace

void add_nd_indexing_ops(OpRegistry& r) {
  add_op(r, onnx_op(13), gather_nd());
  add_op(r, onnx_op(13), scatter_nd());
}

}  // namespace ge::ops
