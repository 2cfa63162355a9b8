// SessionOptions::pad_to_gear: inputs that match no gear, padded to the smallest gear that
// holds them, run on its static plan, the outputs sliced back (see ge/compile/padding.hpp
// for which dims may be padded).
#include <cstring>
#include <string>
#include <vector>

#include "ge/core/error.hpp"
#include "runtime/session_impl.hpp"

namespace ge {

namespace {


std::int64_t count(const std::vector<std::int64_t>& d) { return detail::element_count(d); }

// Copies the box `box` (dims, from index 0 in every dim) from `src` (dims `sd`) to `dst`
// (dims `dd`), `size` bytes per element: row by row of the last dim, in ascending order,
// so that `dst` may be `src` itself when `dd` is no larger than `sd` in any dim (each row
// moves down, never past a row not yet read).
void copy_box(const std::byte* src, const std::vector<std::int64_t>& sd, std::byte* dst,
              const std::vector<std::int64_t>& dd, const std::vector<std::int64_t>& box, std::size_t size) {
  const std::size_t r = box.size();
  if (r == 0) {
    std::memmove(dst, src, size);
    return;
  }
  if (count(box) == 0) return;
  const auto row = static_cast<std::size_t>(box[r - 1]) * size;
  std::vector<std::int64_t> at(r, 0);
  while (true) {
    std::int64_t so = 0, d_o = 0;
    for (std::size_t k = 0; k + 1 < r; ++k) {
      so = so * sd[k] + at[k];
      d_o = d_o * dd[k] + at[k];
    }
    std::memmove(dst + static_cast<std::size_t>(d_o * dd[r - 1]) * size, src + static_cast<std::size_t>(so * sd[r - 1]) * size,
                 row);
    std::size_t k = r - 1;
    while (k > 0) {
      --k;
      if (++at[k] < box[k]) break;
      at[k] = 0;
      if (k == 0) return;
    }
    if (r == 1) return;
  }
}

// True when the inputs' dims are a gear's (found without allocating).
bool matches_gear(const CompiledModel& m, std::span<const TensorView> inputs) {
  for (const auto& p : m.plans()) {
    if (p->gear < 0) continue;
    bool same = true;
    for (std::size_t i = 0; same && i < inputs.size(); ++i) {
      const Shape& s = p->input_shapes[i];
      same = s.rank_known() && s.rank() == inputs[i].rank();
      for (std::size_t k = 0; same && k < inputs[i].rank(); ++k)
        same = s.dims()[k].is_static() && s.dims()[k].lo() == inputs[i].dims[k];
    }
    if (same) return true;
  }
  return false;
}

// Each output carries at most one padded value per axis.
void check_one_padded_axis(const CompiledModel& m, const std::vector<const GearPadding*>& padded) {
  for (std::size_t o = 0; o < m.outputs().size(); ++o)
    for (std::size_t a = 0; a < padded.size(); ++a)
      for (std::size_t b = a + 1; b < padded.size(); ++b)
        if (padded[a]->output_axis[o] >= 0 && padded[a]->output_axis[o] == padded[b]->output_axis[o])
          raise(Errc::padding_unsafe, "[ge.runtime] pad_to_gear: the output '" + m.outputs()[o].name +
                                          "' holds two padded dims on one axis; its real part cannot be sliced out");
}

}  // namespace

std::optional<RunResult> Session::Impl::run_padded(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                                                   bool caller_outputs, const std::atomic<bool>* cancel) {
  const CompiledModel& m = *model;
  if (matches_gear(m, inputs)) return std::nullopt;  // a gear of these dims runs as it is
  std::vector<std::vector<std::int64_t>> dims;
  for (const TensorView& t : inputs) dims.emplace_back(t.dims.begin(), t.dims.end());
  const auto gear = m.gear_for(dims, true);
  if (!gear) return std::nullopt;  // none holds them: the plan selector says so (or the range plan runs)
  const Plan* plan = nullptr;
  for (const auto& p : m.plans())
    if (p->gear == *gear) plan = p.get();
  std::vector<std::vector<std::int64_t>> gear_dims;
  for (const Shape& s : plan->input_shapes) gear_dims.push_back(s.values());

  // The gear values padded: every one whose dims differ; each must be independent.
  std::vector<const GearPadding*> padded;
  std::vector<std::int64_t> real, full;  // per padded value: the real size and the gear's
  for (const GearPadding& p : m.padding()) {
    bool differs = false;
    for (const auto& [input, axis] : p.dims) differs = differs || dims[input][axis] != gear_dims[input][axis];
    if (!differs) continue;
    if (!p.independent) {
      if (m.hybrid()) return std::nullopt;  // the range plan runs them unpadded
      std::string given;
      for (std::size_t i = 0; i < dims.size(); ++i) given += (i ? "; " : "") + m.inputs()[i].name + ":" + dims_text(dims[i]);
      raise(Errc::padding_unsafe, "[ge.runtime] pad_to_gear: the inputs " + given + " match no gear, and padding them to gear " +
                                      std::to_string(*gear) + " (" + plan->describe_inputs([&] {
                                        std::vector<std::string> n;
                                        for (const ModelIO& io : m.inputs()) n.push_back(io.name);
                                        return n;
                                      }()) + ") would change the results: " + p.reason);
    }
    const auto [input, axis] = p.dims.front();
    padded.push_back(&p);
    real.push_back(dims[input][axis]);
    full.push_back(gear_dims[input][axis]);
  }
  check_one_padded_axis(m, padded);

  // The padded inputs: zeros, the caller's data in the leading corner.
  std::vector<std::vector<std::byte>> buffers(inputs.size());
  std::vector<TensorView> views(inputs.begin(), inputs.end());
  std::int64_t real_elements = 0, gear_elements = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    real_elements += count(dims[i]);
    gear_elements += count(gear_dims[i]);
    if (dims[i] == gear_dims[i]) continue;
    const auto size = static_cast<std::size_t>(size_of(inputs[i].dtype));
    buffers[i].assign(static_cast<std::size_t>(count(gear_dims[i])) * size, std::byte{0});
    copy_box(static_cast<const std::byte*>(inputs[i].data), dims[i], buffers[i].data(), gear_dims[i], dims[i], size);
    views[i] = TensorView{buffers[i].data(), inputs[i].dtype, gear_dims[i]};
  }
  RunResult full_run;
  RunResult r;  // the outputs sliced back (the buffers' count and types were checked before padding)
  set_info(r, run_unguarded(views, {}, false, cancel, {&full_run, {}}));
  r.padding_waste = gear_elements > 0 ? 1.0 - static_cast<double>(real_elements) / static_cast<double>(gear_elements) : 0;
  for (std::size_t o = 0; o < full_run.outputs.size(); ++o) {
    const Output& y = full_run.outputs[o];
    std::vector<std::int64_t> d = y.dims;
    for (std::size_t k = 0; k < padded.size(); ++k)
      if (const std::int32_t axis = padded[k]->output_axis[o]; axis >= 0)
        d[static_cast<std::size_t>(axis)] = real[k] * padded[k]->output_factor[o];
    Output out = y;
    out.dims = d;
    const auto size = static_cast<std::size_t>(size_of(y.dtype));
    out.bytes = count(d) * static_cast<std::int64_t>(size);
    if (caller_outputs) {
      const TensorView& v = outputs[o];
      if (v.dtype != y.dtype || v.dims.size() != d.size() || !std::equal(d.begin(), d.end(), v.dims.begin()) ||
          (v.data == nullptr && out.bytes > 0) || (v.capacity >= 0 && v.capacity < out.bytes))
        raise(Errc::bad_tensor, "[ge.runtime] output " + std::to_string(o) + " ('" + y.name + "') is " +
                                    std::string(to_string(y.dtype)) + "[" + dims_text(d) +
                                    "] for these inputs; its buffer is not that");
      out.data = v.data;
      out.storage = nullptr;
    } else if (d != y.dims && y.storage == nullptr) {
      // Not a buffer this run allocated (an output that is an input or a constant): a copy.
      auto storage = std::shared_ptr<std::byte[]>(new std::byte[static_cast<std::size_t>(std::max<std::int64_t>(out.bytes, 1))]);
      out.data = storage.get();
      out.storage = std::shared_ptr<void>(storage, storage.get());
    }  // else sliced in place: the real part moves to the front of the run's own buffer
    if (out.data != y.data || d != y.dims)
      copy_box(static_cast<const std::byte*>(y.data), y.dims, static_cast<std::byte*>(out.data), d, d, size);
    r.outputs.push_back(std::move(out));
  }
  return r;
}

}  // namespace ge
