// The recurrent layers RNN, GRU and LSTM: X [S,N,I] (layout 1: [N,S,I]), W [D,G*H,I],
// R [D,G*H,H], optional B, sequence_lens, initial_h (LSTM: initial_c, P); every output
// optional: Y [S,D,N,H] ([N,S,D,H]), Y_h (LSTM: Y_c) [D,N,H] ([N,D,H]). G is the gate
// count (1, 3, 4), D the directions (2 when bidirectional).
#include <algorithm>
#include <cctype>

#include "common.hpp"

namespace ge::ops {

namespace {

constexpr const char* activation_names[] = {"Relu",       "Tanh",        "Sigmoid", "Affine",   "LeakyRelu", "ThresholdedRelu",
                                            "ScaledTanh", "HardSigmoid", "Elu",     "Softsign", "Softplus"};

bool known_activation(const std::string& name) {
  return std::any_of(std::begin(activation_names), std::end(activation_names), [&](const char* k) {
    const std::string_view kn(k);
    return kn.size() == name.size() && std::equal(kn.begin(), kn.end(), name.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  });
}

std::string activations_check(const Attribute& a) {
  for (const std::string& n : a.as_strings())
    if (!known_activation(n)) {
      std::string s = "activation names from Relu";
      for (std::size_t i = 1; i < std::size(activation_names); ++i) s += std::string(", ") + activation_names[i];
      return s + " (got '" + n + "')";
    }
  return {};
}

// The outputs of a layer with `gates` gates and `per_dir` activations per direction.
std::vector<TensorDesc> infer_recurrent(const InferContext& c, std::int64_t gates, std::size_t per_dir, bool lstm) {
  for (std::size_t i = 0; i < 3; ++i) require_rank(c, i, 3, 3);
  // The optional inputs by ONNX's ranks: B [dirs, 2 * gates * hidden], sequence_lens
  // [batch], initial_h (initial_c) [dirs, batch, hidden], P [dirs, 3 * hidden].
  constexpr std::size_t optional_ranks[] = {2, 1, 3, 3, 2};
  for (std::size_t i = 3; i < c.input_count() && i < 8; ++i)
    if (c.has_input(i)) require_rank(c, i, optional_ranks[i - 3], optional_ranks[i - 3]);
  const std::int64_t dirs = c.s("direction") == "bidirectional" ? 2 : 1;
  const bool batch_first = c.i("layout") == 1;
  const std::size_t names = c.has("activations") ? c.attr("activations").as_strings().size() : per_dir;
  if (names != per_dir && names != per_dir * static_cast<std::size_t>(dirs))
    c.fail(Errc::bad_attribute, "activations has " + std::to_string(names) + " names; expected " +
                                    std::to_string(per_dir) + " per direction for direction '" + c.s("direction") + "'");
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  const Shape& r = c.shape(2);
  Dim seq = Dim::unknown(), batch = Dim::unknown(), hidden = Dim::unknown();
  if (x.rank_known()) {
    seq = x.dims()[batch_first ? 1 : 0];
    batch = x.dims()[batch_first ? 0 : 1];
  }
  if (r.rank_known()) hidden = r.dims()[2];
  if (c.has("hidden_size")) hidden = merge_dims(c, hidden, Dim(c.i("hidden_size")), "hidden_size against R's last dim");
  const Dim gh = hidden.is_static() ? Dim(gates * hidden.lo()) : Dim::unknown();
  for (const Shape* s : {&w, &r})
    if (s->rank_known()) {
      (void)merge_dims(c, s->dims()[0], Dim(dirs), "W and R's first dim against the direction count");
      (void)merge_dims(c, s->dims()[1], gh, "W and R's second dim against gates * hidden_size");
    }
  if (x.rank_known() && w.rank_known()) (void)merge_dims(c, x.dims()[2], w.dims()[2], "X's input size against W's");
  if (c.has_input(3) && c.shape(3).rank_known())
    (void)merge_dims(c, c.shape(3).dims().back(), hidden.is_static() ? Dim(2 * gates * hidden.lo()) : Dim::unknown(),
                     "B's last dim against 2 * gates * hidden_size");
  const DataType t = c.input(0).dtype;
  const Shape y = batch_first ? Shape({batch, seq, Dim(dirs), hidden}) : Shape({seq, Dim(dirs), batch, hidden});
  const Shape state = batch_first ? Shape({batch, Dim(dirs), hidden}) : Shape({Dim(dirs), batch, hidden});
  std::vector<TensorDesc> out{{t, y}, {t, state}};
  if (lstm) out.push_back({t, state});
  return out;
}

OpSchema recurrent(const std::string& name, std::int64_t gates, std::size_t per_dir) {
  const bool lstm = name == "LSTM";
  std::vector<ArgSpec> in{arg("X", "T"), arg("W", "T"), arg("R", "T"), opt("B", "T"), opt("sequence_lens", "T1"),
                          opt("initial_h", "T")};
  std::vector<ArgSpec> out{opt("Y", "T"), opt("Y_h", "T")};
  if (lstm) {
    in.push_back(opt("initial_c", "T"));
    in.push_back(opt("P", "T"));
    out.push_back(opt("Y_c", "T"));
  }
  std::vector<AttrSpec> attrs{attr_opt("activation_alpha", AttrKind::floats),
                              attr_opt("activation_beta", AttrKind::floats),
                              attr_opt("activations", AttrKind::strings, activations_check),
                              attr_opt("clip", AttrKind::floating, float_at_least(0, true)),
                              attr("direction", std::string("forward"), one_of({"forward", "reverse", "bidirectional"})),
                              attr_opt("hidden_size", AttrKind::integer, int_in(1, max_attr)),
                              attr("layout", 0, int_in(0, 1))};
  if (name == "GRU") attrs.push_back(attr("linear_before_reset", 0, int_in(0, 1)));
  if (lstm) attrs.push_back(attr("input_forget", 0, int_in(0, 1)));
  const std::string doc = lstm ? "long short-term memory layer (gates i, o, f, c; peepholes P)"
                          : name == "GRU" ? "gated recurrent unit layer (gates z, r, h)"
                                          : "simple recurrent layer: H = f(X W^T + H R^T + Wb + Rb)";
  return schema(name, doc, std::move(in), std::move(out), {{"T", {DataType::f32, DataType::f64}}, {"T1", TypeSet::indices()}},
                std::move(attrs), [gates, per_dir, lstm](const InferContext& c) {
                  return infer_recurrent(c, gates, per_dir, lstm);
                });
}

}  // namespace

void add_recurrent_ops(OpRegistry& r) {
  add_op(r, onnx_op(14), recurrent("RNN", 1, 1));
  add_op(r, onnx_op(14), recurrent("GRU", 3, 2));
  add_op(r, onnx_op(14), recurrent("LSTM", 4, 3));
}

}  // namespace ge::ops
