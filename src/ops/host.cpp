// Host-engine ops, whose output shape (or cost) depends on the data: NonZero, TopK, ArgMax, ArgMin.
// Their output extents are ranges bounded by what the input allows.
#include "common.hpp"

namespace ge::ops {

void add_host_ops(OpRegistry& r) {
  {
    OpSchema s;
    s.name = "NonZero";
    s.doc = "indices of the non-zero elements: [rank, count], count known only from the data";
    s.inputs = {arg("X", "T")};
    s.outputs = {arg("Y", "i64")};
    s.types = {{"T", TypeSet::all()}};
    s.engines = engines(Engine::host);
    s.infer = [](const InferContext& c) {
      const Shape& x = c.shape(0);
      const Dim rank = x.rank_known() ? Dim(static_cast<std::int64_t>(x.rank())) : Dim::unknown();
      const Dim n = element_count(x);
      return std::vector<TensorDesc>{{DataType::i64, Shape{rank, Dim::interval(0, n.hi())}}};
    };
    add_op(r, onnx_op(13), std::move(s));
  }
  {
    OpSchema s;
    s.name = "TopK";
    s.doc = "the k largest (or smallest) entries along axis and their indices; k is a 1-element i64 tensor";
    s.inputs = {arg("X", "T"), arg("K", "i64")};
    s.outputs = {arg("Values", "T"), arg("Indices", "i64")};
    s.types = {{"T", TypeSet::numeric()}};
    s.attrs = {attr("axis", -1), attr("largest", 1, int_in(0, 1)), attr("sorted", 1, int_in(0, 1))};
    s.engines = engines(Engine::host);
    s.infer = [](const InferContext& c) {
      const Shape& x = c.shape(0);
      require_rank(c, 0, 1, static_cast<std::size_t>(-1));
      require_rank(c, 1, 0, 1);
      if (c.shape(1).rank_known() && !element_count(c.shape(1)).contains(1))
        c.fail(Errc::bad_op_inputs, "input 1 (K) has shape [" + c.shape(1).to_string() + "]; expected one element");
      if (!x.rank_known())
        return std::vector<TensorDesc>{{c.input(0).dtype, x}, {DataType::i64, x}};
      const std::int64_t axis = norm_axis(c, c.i("axis"), static_cast<std::int64_t>(x.rank()), "axis");
      const Dim& d = x[axis];
      Dim k = Dim::interval(0, d.hi());
      if (const auto v = const_ints(c, 1)) {
        const std::int64_t kv = v->at(0);
        if (kv < 0 || kv > d.hi())
          c.fail(Errc::bad_op_inputs, "input 1 (K) is " + std::to_string(kv) + " but dim " + std::to_string(axis) +
                                          " of input 0 [" + x.to_string() + "] is " + d.to_string() +
                                          "; expected 0 <= K <= the dim");
        k = Dim(kv);
      }
      std::vector<Dim> out = x.dims();
      out[static_cast<std::size_t>(axis)] = k;
      Shape y(std::move(out));
      return std::vector<TensorDesc>{{c.input(0).dtype, y}, {DataType::i64, y}};
    };
    add_op(r, onnx_op(13), std::move(s));
  }
  for (const char* name : {"ArgMax", "ArgMin"}) {
    OpSchema s;
    s.name = name;
    s.doc = std::string("the index of the ") + (std::string_view(name) == "ArgMax" ? "largest" : "smallest") +
            " entry along axis (i64)";
    s.inputs = {arg("data", "T")};
    s.outputs = {arg("reduced", "i64")};
    s.types = {{"T", TypeSet::numeric()}};
    s.attrs = {attr("axis", 0), attr("keepdims", 1, int_in(0, 1)), attr("select_last_index", 0, int_in(0, 1))};
    s.engines = engines(Engine::host);
    s.infer = [](const InferContext& c) {
      const Shape& x = c.shape(0);
      require_rank(c, 0, 1, static_cast<std::size_t>(-1));
      if (!x.rank_known()) return std::vector<TensorDesc>{{DataType::i64, x}};
      const std::int64_t axis = norm_axis(c, c.i("axis"), static_cast<std::int64_t>(x.rank()), "axis");
      std::vector<Dim> out;
      for (std::size_t i = 0; i < x.rank(); ++i) {
        if (static_cast<std::int64_t>(i) != axis) out.push_back(x.dims()[i]);
        else if (c.i("keepdims") != 0) out.emplace_back(1);
      }
      return std::vector<TensorDesc>{{DataType::i64, Shape(std::move(out))}};
    };
    add_op(r, onnx_op(13), std::move(s));
  }
}

}  // namespace ge::ops
