// CPU kernels of Loop and Scan: the body's Program (program.hpp) run once per iteration
// or per slice, the carried values (Loop) or states (Scan) handed from one run to the
// next, the scan outputs stacked at the end.
#include <algorithm>
#include <cstring>
#include <limits>

#include "compile/cpu/lower.hpp"
#include "compile/cpu/program.hpp"

namespace ge::cpu_lower {

namespace {

// Per-iteration values stacked into one output at `axis` (reversed: the last first).
// `empty`: the output's dims when there were no iterations.
void stack(std::string_view op, const std::vector<Tensor>& parts, std::int64_t axis, bool reversed,
           const Shape& empty, std::size_t output, Allocate allocate) {
  if (parts.empty()) {  // `empty`: one iteration's shape; the stack has 0 of them at `axis`
    std::vector<std::int64_t> dims;
    if (empty.rank_known())
      for (const Dim& d : empty.dims()) dims.push_back(d.is_static() ? d.lo() : 0);
    const auto rank = static_cast<std::int64_t>(dims.size());
    const std::int64_t a = std::clamp<std::int64_t>(axis < 0 ? axis + rank + 1 : axis, 0, rank);
    dims.insert(dims.begin() + a, 0);
    (void)allocate(output, dims);
    return;
  }
  const std::vector<std::int64_t>& each = parts[0].dims();
  for (const Tensor& t : parts)
    if (t.dims() != each || t.dtype() != parts[0].dtype())
      fail(Errc::bad_op_inputs, op, "scan output " + std::to_string(output) + " is " + to_string(t.desc()) +
                                        " in one iteration and " + to_string(parts[0].desc()) +
                                        " in another; expected one type and shape");
  const auto rank = static_cast<std::int64_t>(each.size());
  const std::int64_t a = axis < 0 ? axis + rank + 1 : axis;
  if (a < 0 || a > rank) fail(Errc::bad_attribute, op, "scan output axis " + std::to_string(axis) + " is out of range");
  std::vector<std::int64_t> dims = each;
  dims.insert(dims.begin() + a, static_cast<std::int64_t>(parts.size()));
  auto* out = static_cast<std::byte*>(allocate(output, dims));
  std::int64_t outer = 1;
  for (std::int64_t d = 0; d < a; ++d) outer *= each[static_cast<std::size_t>(d)];
  const std::size_t block = outer == 0 ? 0 : parts[0].bytes().size() / static_cast<std::size_t>(outer);
  const std::size_t n = parts.size();
  for (std::size_t t = 0; t < n; ++t) {
    const Tensor& src = parts[reversed ? n - 1 - t : t];
    for (std::int64_t o = 0; o < outer; ++o)
      std::memcpy(out + (static_cast<std::size_t>(o) * n + t) * block, src.bytes().data() + static_cast<std::size_t>(o) * block,
                  block);
  }
}

std::shared_ptr<const Kernel> make_loop(const KernelRequest& r) {
  const InferContext& c = r.context;
  const auto captured = static_cast<std::size_t>(c.i("captured"));
  const std::size_t n = c.input_count() - 2 - captured;
  if (!c.has_input(0) && !c.has_input(1))
    fail(Errc::bad_model, "Loop", "node '" + std::string(c.node()) + "' has neither M nor cond: it would never end");
  std::vector<TensorDesc> ins{{DataType::i64, Shape{}}, {DataType::boolean, Shape{}}};
  for (std::size_t k = 0; k < n; ++k) ins.push_back(r.outputs[k]);  // the carried values' fixed point
  for (const TensorDesc& d : input_descs(r, 2 + n, c.input_count())) ins.push_back(d);
  auto body = std::make_shared<const Program>(c.attr("body").graph_ref(), ins, r.precision, where(r, "body"));
  std::vector<Shape> scan_shapes;  // one iteration's (the outputs' dims after the first)
  for (std::size_t k = n; k < r.outputs.size(); ++k) {
    const Shape& s = r.outputs[k].shape;
    scan_shapes.push_back(s.rank_known() && s.rank() > 0 ? Shape(std::vector<Dim>(s.dims().begin() + 1, s.dims().end()))
                                                         : Shape::unknown_rank());
  }
  return make_dynamic_kernel("cpu.loop", [body, n, scan_shapes](Views in, Allocate allocate) {
    const TensorView* m = optional_input(in, 0);
    const TensorView* cond = optional_input(in, 1);
    const std::int64_t trips = m != nullptr ? read_ints("Loop", *m).at(0) : std::numeric_limits<std::int64_t>::max();
    bool go = cond == nullptr || truth(*cond, "Loop");
    std::vector<Tensor> carried;
    std::vector<TensorView> args(in.size());
    for (std::size_t k = 0; k < in.size(); ++k) args[k] = in[k];
    std::vector<std::vector<Tensor>> scans(scan_shapes.size());
    for (std::int64_t i = 0; i < trips && go; ++i) {
      const Tensor iteration = Tensor::scalar<std::int64_t>(i);
      const Tensor keep = Tensor::scalar<bool>(go);
      args[0] = view_of(iteration);
      args[1] = view_of(keep);
      std::vector<Tensor> out = body->run(args);
      if (out.size() < 1 + n + scans.size())
        fail(Errc::bad_model, "Loop", "body gave " + std::to_string(out.size()) + " outputs; expected " +
                                          std::to_string(1 + n + scans.size()));
      if (cond != nullptr) go = truth(view_of(out[0]), "Loop");
      for (std::size_t k = 0; k < scans.size(); ++k) scans[k].push_back(std::move(out[1 + n + k]));
      carried.assign(std::make_move_iterator(out.begin() + 1), std::make_move_iterator(out.begin() + 1 + static_cast<std::ptrdiff_t>(n)));
      for (std::size_t k = 0; k < n; ++k) args[2 + k] = view_of(carried[k]);
    }
    for (std::size_t k = 0; k < n; ++k) {
      const TensorView& v = args[2 + k];
      void* p = allocate(k, v.dims.span());
      const auto bytes = static_cast<std::size_t>(count_of(v.dims) * size_of(v.dtype));
      if (bytes > 0) std::memcpy(p, v.data, bytes);
    }
    std::vector<TensorDesc> each;  // no iterations: the scan outputs' dims from the body's inference
    if (!scans.empty() && scans[0].empty()) {
      const Tensor iteration = Tensor::scalar<std::int64_t>(0);
      const Tensor keep = Tensor::scalar<bool>(false);
      args[0] = view_of(iteration);
      args[1] = view_of(keep);
      each = body->output_descs(args);
    }
    for (std::size_t k = 0; k < scans.size(); ++k)
      stack("Loop", scans[k], 0, false, each.empty() ? scan_shapes[k] : each[1 + n + k].shape, n + k, allocate);
  });
}

// Slice `index` of `x` along `axis`, as a tensor of its own.
Tensor slice(const TensorView& x, std::int64_t axis, std::int64_t index) {
  std::vector<std::int64_t> dims(x.dims.begin(), x.dims.end());
  std::int64_t outer = 1;
  for (std::int64_t d = 0; d < axis; ++d) outer *= dims[static_cast<std::size_t>(d)];
  const std::int64_t len = dims[static_cast<std::size_t>(axis)];
  const auto inner = static_cast<std::size_t>(count_of(dims) / std::max<std::int64_t>(outer * len, 1) * size_of(x.dtype));
  dims.erase(dims.begin() + axis);
  std::vector<std::byte> bytes(static_cast<std::size_t>(outer) * inner);
  const auto* src = static_cast<const std::byte*>(x.data);
  for (std::int64_t o = 0; o < outer; ++o)
    std::memcpy(bytes.data() + static_cast<std::size_t>(o) * inner,
                src + (static_cast<std::size_t>(o * len + index)) * inner, inner);
  return Tensor(x.dtype, std::move(dims), std::move(bytes));
}

struct ScanSetup {
  std::size_t states = 0, scans = 0, captured = 0;
  std::vector<std::int64_t> in_axes, in_reversed, out_axes, out_reversed;
  std::vector<Shape> empty;  // scan outputs' shapes for no iterations
};

std::vector<std::int64_t> list_or(const InferContext& c, std::string_view name, std::size_t count) {
  std::vector<std::int64_t> v = c.ints(name);
  if (v.empty()) v.assign(count, 0);
  if (v.size() != count)
    fail(Errc::bad_attribute, "Scan", "attribute '" + std::string(name) + "' has " + std::to_string(v.size()) +
                                          " values; expected " + std::to_string(count));
  return v;
}

void run_scan(const Program& body, const ScanSetup& s, Views in, Allocate allocate) {
  std::vector<std::int64_t> axes(s.scans);
  std::int64_t length = -1;
  for (std::size_t j = 0; j < s.scans; ++j) {
    const TensorView& x = in[s.states + j];
    const std::int64_t a = resolve_axis("Scan", s.in_axes[j], x.rank());
    axes[j] = a;
    const std::int64_t l = x.dims[static_cast<std::size_t>(a)];
    if (length >= 0 && l != length)
      fail(Errc::bad_op_inputs, "Scan", "scan inputs have sequence lengths " + std::to_string(length) + " and " +
                                            std::to_string(l) + "; expected one");
    length = l;
  }
  std::vector<TensorView> args(in.begin(), in.end());
  std::vector<Tensor> states, slices(s.scans);
  std::vector<std::vector<Tensor>> scans(s.out_axes.size());
  for (std::int64_t t = 0; t < length; ++t) {
    for (std::size_t j = 0; j < s.scans; ++j) {
      slices[j] = slice(in[s.states + j], axes[j], s.in_reversed[j] != 0 ? length - 1 - t : t);
      args[s.states + j] = view_of(slices[j]);
    }
    std::vector<Tensor> out = body.run(args);
    if (out.size() < s.states + scans.size())
      fail(Errc::bad_model, "Scan", "body gave " + std::to_string(out.size()) + " outputs; expected " +
                                        std::to_string(s.states + scans.size()));
    for (std::size_t k = 0; k < scans.size(); ++k) scans[k].push_back(std::move(out[s.states + k]));
    states.assign(std::make_move_iterator(out.begin()), std::make_move_iterator(out.begin() + static_cast<std::ptrdiff_t>(s.states)));
    for (std::size_t k = 0; k < s.states; ++k) args[k] = view_of(states[k]);
  }
  for (std::size_t k = 0; k < s.states; ++k) {
    const TensorView& v = args[k];
    void* p = allocate(k, v.dims.span());
    const auto bytes = static_cast<std::size_t>(count_of(v.dims) * size_of(v.dtype));
    if (bytes > 0) std::memcpy(p, v.data, bytes);
  }
  for (std::size_t k = 0; k < scans.size(); ++k)
    stack("Scan", scans[k], s.out_axes[k], s.out_reversed[k] != 0, s.empty[k], s.states + k, allocate);
}

std::shared_ptr<const Kernel> make_scan(const KernelRequest& r) {
  const InferContext& c = r.context;
  auto s = std::make_shared<ScanSetup>();
  s->captured = static_cast<std::size_t>(c.i("captured"));
  s->scans = static_cast<std::size_t>(c.i("num_scan_inputs"));
  s->states = c.input_count() - s->scans - s->captured;
  s->in_axes = list_or(c, "scan_input_axes", s->scans);
  s->in_reversed = list_or(c, "scan_input_directions", s->scans);
  const std::size_t outs = r.outputs.size() - s->states;
  s->out_axes = list_or(c, "scan_output_axes", outs);
  s->out_reversed = list_or(c, "scan_output_directions", outs);
  std::vector<TensorDesc> ins;
  for (std::size_t k = 0; k < s->states; ++k) ins.push_back(r.outputs[k]);  // the states' fixed point
  for (std::size_t j = 0; j < s->scans; ++j) {
    const TensorDesc& x = c.input(s->states + j);
    if (!x.shape.rank_known()) {
      ins.push_back({x.dtype, Shape::unknown_rank()});
      continue;
    }
    std::vector<Dim> dims = x.shape.dims();
    dims.erase(dims.begin() + resolve_axis("Scan", s->in_axes[j], dims.size()));
    ins.push_back({x.dtype, Shape(std::move(dims))});
  }
  for (const TensorDesc& d : input_descs(r, s->states + s->scans, c.input_count())) ins.push_back(d);
  for (std::size_t k = s->states; k < r.outputs.size(); ++k) {  // one iteration's shape: the output's less its axis
    const Shape& o = r.outputs[k].shape;
    if (!o.rank_known() || o.rank() == 0) {
      s->empty.push_back(Shape::unknown_rank());
      continue;
    }
    std::vector<Dim> dims = o.dims();
    const std::int64_t axis = s->out_axes[k - s->states];
    const auto rank = static_cast<std::int64_t>(dims.size());
    dims.erase(dims.begin() + std::clamp<std::int64_t>(axis < 0 ? axis + rank : axis, 0, rank - 1));
    s->empty.push_back(Shape(std::move(dims)));
  }
  auto body = std::make_shared<const Program>(c.attr("body").graph_ref(), ins, r.precision, where(r, "body"));
  return make_dynamic_kernel("cpu.scan", [body, s](Views in, Allocate allocate) { run_scan(*body, *s, in, allocate); });
}

}  // namespace

void register_cpu_loops(KernelRegistry& r) {
  r.add({.op = "Loop", .name = "cpu.loop", .make = make_loop});
  r.add({.op = "Scan", .name = "cpu.scan", .make = make_scan});
}

}  // namespace ge::cpu_lower
