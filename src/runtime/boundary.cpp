// The checks of a caller's tensors at ge's entries (boundary.hpp): the views' bytes and
// buffers, shared bytes, counts; a run's inputs against the model's, its output buffers,
// and the name lookup of named runs. Each bad view is Errc::bad_tensor naming it.
#include "runtime/boundary.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <range/v3/range/conversion.hpp>
#include <range/v3/view/transform.hpp>

#include "ge/compile/compile.hpp"
#include "ge/core/error.hpp"
#include "ge/options/option.hpp"
#include "ge/runtime/session.hpp"

namespace ge {

namespace views = ranges::views;

namespace detail {

std::int64_t element_count(std::span<const std::int64_t> d) {
  std::int64_t n = 1;
  for (const std::int64_t x : d) n *= x;
  return n;
}

std::int64_t view_bytes(const TensorView& v, ViewName which) {
  for (const std::int64_t d : v.dims)
    if (d < 0) raise(Errc::bad_tensor, "[ge.runtime] " + which() + " has a negative dim in " + dims_text(v.dims));
  std::int64_t bytes = 0;
  try {
    bytes = checked_bytes(v.dims, v.dtype);
  } catch (const Error& e) {
    raise(e.code(), "[ge.runtime] " + which() + ": " + e.what());
  }
  if (v.capacity >= 0 && v.capacity < bytes)
    raise(Errc::bad_tensor, "[ge.runtime] " + which() + " with dims " + dims_text(v.dims) + " needs " +
                                std::to_string(bytes) + " bytes; its buffer holds " + std::to_string(v.capacity));
  return bytes;
}

std::int64_t view_bytes_with_data(const TensorView& v, ViewName which) {
  const std::int64_t bytes = view_bytes(v, which);
  if (v.data == nullptr && bytes > 0)
    raise(Errc::bad_tensor, "[ge.runtime] " + which() + " has no data (null buffer) for dims " + dims_text(v.dims));
  return bytes;
}

void check_holds(const TensorView& v, std::int64_t need, ViewName which) {
  const std::int64_t have = v.data != nullptr ? v.bytes() : 0;
  if (have < need)
    raise(Errc::bad_tensor, "[ge.runtime] " + which() + " needs " + std::to_string(need) +
                                " bytes for its real dims; the buffer given holds " + std::to_string(have));
}

bool overlap(const void* a, std::int64_t na, const void* b, std::int64_t nb) noexcept {
  if (a == nullptr || b == nullptr || na <= 0 || nb <= 0) return false;
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + static_cast<std::uintptr_t>(nb) && y < x + static_cast<std::uintptr_t>(na);
}

void check_separate(std::span<const TensorView> inputs, std::span<const TensorView> outputs, std::size_t o,
                    std::int64_t bytes, FunctionRef<bool(std::size_t i)> in_place, std::string_view where,
                    FunctionRef<std::string(bool output, std::size_t k)> name) {
  const TensorView& v = outputs[o];
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!overlap(v.data, bytes, inputs[i].data, inputs[i].bytes())) continue;
    if (v.data == inputs[i].data && bytes == inputs[i].bytes() && in_place(i)) continue;
    raise(Errc::bad_tensor, "[ge.runtime] " + std::string(where) + name(true, o) + " overlaps " + name(false, i) +
                                "; expected separate buffers");
  }
  for (std::size_t p = 0; p < o; ++p)
    if (overlap(v.data, bytes, outputs[p].data, outputs[p].bytes()))
      raise(Errc::bad_tensor, "[ge.runtime] " + std::string(where) + name(true, p) + " and " + name(true, o) +
                                  " overlap; expected separate buffers");
}

void check_count(std::size_t given, std::size_t expected, const char* what, std::string_view where,
                 std::string_view whose) {
  if (given != expected)
    raise(Errc::bad_tensor, "[ge.runtime] " + std::string(where) + std::to_string(given) + " " + what + " given; " +
                                std::string(whose) + " takes " + std::to_string(expected));
}

void check_inputs(std::span<const TensorView> inputs, const std::vector<ModelIO>& mi) {
  check_count(inputs.size(), mi.size(), "inputs", "", "the model");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorView& t = inputs[i];
    const auto which = [&] { return "input " + std::to_string(i) + " " + quoted(mi[i].name); };
    if (t.dtype != mi[i].dtype)
      raise(Errc::bad_tensor, "[ge.runtime] " + which() + " is " + std::string(to_string(t.dtype)) +
                                  "; the model takes " + std::string(to_string(mi[i].dtype)));
    (void)view_bytes_with_data(t, which);
  }
}

void check_output_buffers(std::span<const TensorView> outputs, std::span<const TensorView> inputs,
                          const std::vector<ModelIO>& mi, const std::vector<ModelIO>& mo) {
  if (outputs.size() != mo.size())
    raise(Errc::bad_tensor, "[ge.runtime] " + std::to_string(outputs.size()) + " output buffers given; the model has " +
                                std::to_string(mo.size()) + " outputs");
  const auto name = [&](bool output, std::size_t k) {
    return output ? "output " + std::to_string(k) + " " + quoted(mo[k].name) + " buffer"
                  : "input " + std::to_string(k) + " " + quoted(mi[k].name);
  };
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o].dtype != mo[o].dtype)
      raise(Errc::bad_tensor, "[ge.runtime] " + name(true, o) + " is " + std::string(to_string(outputs[o].dtype)) +
                                  "; the output is " + std::string(to_string(mo[o].dtype)));
    const std::int64_t bytes = view_bytes(outputs[o], [&] { return name(true, o); });
    check_separate(inputs, outputs, o, bytes, [](std::size_t) { return false; }, "", name);
  }
}

std::vector<TensorView> by_name(std::span<const NamedTensor> named, const std::vector<ModelIO>& io, const char* what) {
  std::vector<TensorView> views(io.size());
  std::vector<bool> given(io.size(), false);
  const auto names = io | views::transform([](const ModelIO& x) { return std::string_view(x.name); }) |
                     ranges::to<std::vector>();
  const auto list = [&] {
    std::string s;
    for (const std::string_view n : names) s += (s.empty() ? "'" : ", '") + std::string(n) + "'";
    return s;
  };
  for (const NamedTensor& t : named) {
    const auto it = std::find(names.begin(), names.end(), t.name);
    if (it == names.end()) {
      std::string msg = std::string("no graph ") + what + " is named '" + std::string(t.name) + "'";
      if (const auto near = closest_spelling(t.name, names)) msg += "; did you mean '" + std::string(*near) + "'?";
      raise(Errc::bad_tensor, "[ge.runtime] " + msg + " (the model's " + what + "s: " + list() + ")");
    }
    const auto i = static_cast<std::size_t>(it - names.begin());
    if (given[i]) raise(Errc::bad_tensor, "[ge.runtime] " + std::string(what) + " '" + std::string(t.name) + "' is given twice");
    given[i] = true;
    views[i] = t.view;
  }
  for (std::size_t i = 0; i < io.size(); ++i)
    if (!given[i])
      raise(Errc::bad_tensor, "[ge.runtime] " + std::string(what) + " '" + io[i].name + "' is not given (the model's " +
                                  what + "s: " + list() + ")");
  return views;
}

}  // namespace detail

}  // namespace ge
