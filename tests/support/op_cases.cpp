#include "support/op_cases.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ge/graph/builder.hpp"
#include "support/op_cases/detail.hpp"
#include "support/reference/detail.hpp"

namespace ge::test {

Graph OpCase::graph() const {
  GraphBuilder b;
  std::vector<Value> vals;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k]) {
      vals.emplace_back();
    } else if (inputs[k]->constant) {
      vals.push_back(b.constant("c" + std::to_string(k), inputs[k]->tensor.to_tensor()));
    } else {
      Shape s;
      for (const std::int64_t d : inputs[k]->tensor.dims) s.push_back(Dim(d));
      vals.push_back(b.input("x" + std::to_string(k), inputs[k]->tensor.dtype, s));
    }
  }
  for (const Value& v : b.op_n(op, vals, attrs, outputs, "node")) b.output(v);
  return b.build();
}

std::vector<ref::RefTensor> OpCase::feeds() const {
  std::vector<ref::RefTensor> f;
  for (const auto& i : inputs)
    if (i && !i->constant) f.push_back(i->tensor);
  return f;
}

std::string OpCase::describe() const {
  std::string s = op + "(";
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (k > 0) s += ", ";
    if (!inputs[k])
      s += "none";
    else
      s += (inputs[k]->constant ? "const " : "") + inputs[k]->tensor.describe();
  }
  s += ")";
  if (!attrs.empty()) {
    s += " {";
    bool first = true;
    for (const auto& [name, value] : attrs) {
      s += (first ? "" : ", ") + name + "=" + value.to_string();
      first = false;
    }
    s += "}";
  }
  return s;
}

namespace cases {

std::int64_t Gen::integer(std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
}

double Gen::real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

Dims Gen::dims(std::int64_t rank_lo, std::int64_t rank_hi, std::int64_t lo, std::int64_t hi) {
  Dims d(static_cast<std::size_t>(integer(rank_lo, rank_hi)));
  for (auto& v : d) v = integer(lo, hi);
  return d;
}

Dims Gen::broadcastable(const Dims& d) {
  Dims out(d.begin() + integer(0, static_cast<std::int64_t>(d.size())), d.end());
  for (auto& v : out)
    if (integer(0, 3) == 0) v = 1;
  return out;
}

RefTensor Gen::f32(Dims d, double lo, double hi) {
  RefTensor t(DataType::f32, std::move(d));
  auto v = t.as<float>();
  for (auto& x : v) x = static_cast<float>(real(lo, hi));
  return t;
}

RefTensor Gen::ints(DataType type, Dims d, std::int64_t lo, std::int64_t hi) {
  RefTensor t(DataType::i64, std::move(d));
  for (auto& x : t.as<std::int64_t>()) x = integer(lo, hi);
  if (type == DataType::i64) return t;
  const auto v = t.to_int64s();
  RefTensor out(type, t.dims);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (type == DataType::f32)
      out.as<float>()[i] = static_cast<float>(v[i]);
    else if (type == DataType::i32)
      out.as<std::int32_t>()[i] = static_cast<std::int32_t>(v[i]);
    else if (type == DataType::f64)
      out.as<double>()[i] = static_cast<double>(v[i]);
    else if (type == DataType::u8 || type == DataType::u16 || type == DataType::u32 || type == DataType::u64 ||
             type == DataType::i8 || type == DataType::i16)
      ref::detail::set_i(out, static_cast<std::int64_t>(i), v[i]);
    else
      throw std::invalid_argument("Gen::ints of " + std::string(to_string(type)));
  }
  return out;
}

RefTensor Gen::bools(Dims d) {
  RefTensor t(DataType::boolean, std::move(d));
  for (auto& x : t.as<std::uint8_t>()) x = static_cast<std::uint8_t>(integer(0, 1));
  return t;
}

Dims Gen::permutation(std::size_t n) {
  Dims p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::int64_t>(i);
  std::shuffle(p.begin(), p.end(), rng_);
  return p;
}

OpCase make(std::string op, std::vector<std::optional<CaseInput>> inputs, Attributes attrs) {
  OpCase c;
  c.op = std::move(op);
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  return c;
}

namespace {
const GenTable& generators() {
  static const GenTable table = [] {
    GenTable t;
    add_elementwise_cases(t);
    add_elementwise_math_cases(t);
    add_nn_cases(t);
    add_shape_cases(t);
    add_reduce_cases(t);
    add_indexing_cases(t);
    add_rearrange_cases(t);
    add_loss_cases(t);
    add_one_hot_cases(t);
    add_selection_cases(t);
    add_recurrent_cases(t);
    add_optimizer_cases(t);
    add_nn_more_cases(t);
    add_spectral_cases(t);
    add_quantize_cases(t);
    add_detection_cases(t);
    add_resize_cases(t);
    return t;
  }();
  return table;
}
}  // namespace

}  // namespace cases

std::vector<OpCase> random_cases(std::string_view op, std::uint64_t seed) {
  const auto it = cases::generators().find(op);
  if (it == cases::generators().end()) return {};
  // One stream per op and seed (FNV-1a of the name), so that adding an op does not
  // change another's cases.
  std::uint64_t h = 0xcbf29ce484222325ull ^ seed;
  for (const char ch : op) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
  cases::Gen g(h);
  std::vector<OpCase> all = it->second(g);  // a generator may make cases of a sibling op too
  std::erase_if(all, [&](const OpCase& c) { return c.op != op; });
  return all;
}

std::vector<std::string> ops_with_cases() {
  std::vector<std::string> names;
  for (const auto& [name, gen] : cases::generators()) names.push_back(name);
  return names;
}

}  // namespace ge::test
