// Random cases of GatherND, ScatterND, Compress, ReverseSequence and Unique.
#include <string>

#include "support/op_cases/detail.hpp"

namespace ge::test::cases {

namespace {

// Index tuples of length k for data dims [from, from + k), `count` of them as dims
// `lead` + [k], values in [-dim, dim).
RefTensor tuples(Gen& g, const Dims& data, std::size_t from, std::int64_t k, Dims lead) {
  lead.push_back(k);
  RefTensor t(DataType::i64, lead);
  for (std::int64_t i = 0; i < t.elements(); ++i) {
    const std::int64_t dim = data[from + static_cast<std::size_t>(i % k)];
    t.as<std::int64_t>()[static_cast<std::size_t>(i)] = g.integer(-dim, dim - 1);
  }
  return t;
}

std::vector<OpCase> gather_nd_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int n = 0; n < 4; ++n) {
    const Dims d = g.dims(2, 4, 1, 4);
    const std::int64_t b = n < 2 ? 0 : 1;
    const std::int64_t k = g.integer(1, static_cast<std::int64_t>(d.size()) - b);
    Dims lead(d.begin(), d.begin() + b);
    for (std::int64_t i = g.integer(0, 2); i > 0; --i) lead.push_back(g.integer(1, 3));
    // With batch dims the tuples index the dims after them.
    RefTensor idx = tuples(g, d, static_cast<std::size_t>(b), k, lead);
    RefTensor x = n % 2 == 0 ? g.f32(d) : g.ints(DataType::i32, d, -9, 9);
    v.push_back(make("GatherND", {in(x), in(idx)}, {{"batch_dims", b}}));
  }
  return v;
}

std::vector<OpCase> scatter_nd_cases(Gen& g) {
  std::vector<OpCase> v;
  for (const char* red : {"none", "add", "mul", "max", "min"}) {
    const Dims d = g.dims(1, 3, 1, 4);
    const std::int64_t k = g.integer(1, static_cast<std::int64_t>(d.size()));
    // `none` with distinct tuples only (duplicates make the order of writes matter).
    const std::int64_t count = std::string(red) == "none" ? 1 : g.integer(1, 4);
    RefTensor idx = tuples(g, d, 0, k, {count});
    Dims ud{count};
    ud.insert(ud.end(), d.begin() + k, d.end());
    OpCase c = make("ScatterND", {in(g.f32(d)), in(idx), in(g.f32(ud))}, {{"reduction", std::string(red)}});
    c.rtol = c.atol = 1e-5;
    v.push_back(c);
  }
  return v;
}

std::vector<OpCase> compress_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int n = 0; n < 3; ++n) {
    const Dims d = g.dims(1, 3, 1, 5);
    const auto r = static_cast<std::int64_t>(d.size());
    const std::int64_t axis = g.integer(-r, r - 1);
    std::int64_t all = 1;
    for (const std::int64_t e : d) all *= e;
    const std::int64_t len = n == 2 ? all : d[static_cast<std::size_t>(axis < 0 ? axis + r : axis)];
    Attributes a;
    if (n < 2) a.emplace("axis", axis);
    v.push_back(make("Compress", {in(g.f32(d)), cst(g.bools({g.integer(0, len)}))}, a));
  }
  return v;
}

std::vector<OpCase> reverse_sequence_cases(Gen& g) {
  std::vector<OpCase> v;
  for (const std::int64_t time : {0, 1}) {
    const Dims d = g.dims(2, 4, 1, 5);
    const std::int64_t steps = d[static_cast<std::size_t>(time)], batch = d[static_cast<std::size_t>(1 - time)];
    v.push_back(make("ReverseSequence", {in(g.f32(d)), in(g.ints(DataType::i64, {batch}, 0, steps))},
                     {{"time_axis", time}, {"batch_axis", 1 - time}}));
  }
  return v;
}

std::vector<OpCase> unique_cases(Gen& g) {
  std::vector<OpCase> v;
  for (int n = 0; n < 4; ++n) {
    const Dims d = g.dims(1, 3, 1, 5);
    const auto r = static_cast<std::int64_t>(d.size());
    Attributes a{{"sorted", std::int64_t{n % 2}}};
    if (n >= 2) a.emplace("axis", g.integer(-r, r - 1));
    OpCase c = make("Unique", {in(g.ints(n == 1 ? DataType::i64 : DataType::f32, d, 0, 2))}, a);
    c.outputs = 4;
    v.push_back(c);
  }
  return v;
}

}  // namespace

void add_selection_cases(GenTable& t) {
  t["GatherND"] = gather_nd_cases;
  t["ScatterND"] = scatter_nd_cases;
  t["Compress"] = compress_cases;
  t["ReverseSequence"] = reverse_sequence_cases;
  t["Unique"] = unique_cases;
}

}  // namespace ge::test::cases
