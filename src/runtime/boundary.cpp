// The checks of a caller's tensors at a run's boundary (Session::run, run_async): the
// inputs against the model's, the output buffers (count, types, sizes, no shared bytes),
// and the name lookup of named runs. Each bad view is Errc::bad_tensor naming it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ge/core/error.hpp"
#include "ge/core/tensor_view.hpp"
#include "ge/options/option.hpp"
#include "runtime/session_impl.hpp"

namespace ge {

namespace detail {

std::string dims_text(std::span<const std::int64_t> d) {
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s;
}

std::int64_t element_count(std::span<const std::int64_t> d) {
  std::int64_t n = 1;
  for (const std::int64_t x : d) n *= x;
  return n;
}

}  // namespace detail

using detail::dims_text;

namespace {

std::string q(std::string_view s) { return "'" + std::string(s) + "'"; }


// True when [a, a + na) and [b, b + nb) share a byte.
bool overlap(const void* a, std::int64_t na, const void* b, std::int64_t nb) noexcept {
  if (a == nullptr || b == nullptr || na <= 0 || nb <= 0) return false;
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + static_cast<std::uintptr_t>(nb) && y < x + static_cast<std::uintptr_t>(na);
}

// The bytes a caller's view describes: its dims non-negative, their product and byte
// size within int64 (`int_overflow`, quoting the dims), and no more than its buffer
// holds when the view knows that (a span, or a capacity given).
// `which()` names the view (made only for a bad one).
template <class Which>
std::int64_t view_bytes(const TensorView& t, const Which& which) {
  for (const std::int64_t d : t.dims)
    if (d < 0) raise(Errc::bad_tensor, "[ge.runtime] " + which() + " has a negative dim in " + dims_text(t.dims));
  std::int64_t bytes = 0;
  try {
    bytes = checked_bytes(t.dims, t.dtype);
  } catch (const Error& e) {
    raise(e.code(), "[ge.runtime] " + which() + ": " + e.what());
  }
  if (t.capacity >= 0 && t.capacity < bytes)
    raise(Errc::bad_tensor, "[ge.runtime] " + which() + " with dims " + dims_text(t.dims) + " needs " +
                                std::to_string(bytes) + " bytes; its buffer holds " + std::to_string(t.capacity));
  return bytes;
}

}  // namespace

namespace detail {

// Checks the run's inputs against the model's: count, type, dims, buffers. The words
// naming an input are made only for a bad one: a good run allocates nothing here.
void check_inputs(std::span<const TensorView> inputs, const std::vector<ModelIO>& mi) {
  if (inputs.size() != mi.size())
    raise(Errc::bad_tensor, "[ge.runtime] " + std::to_string(inputs.size()) + " inputs given; the model takes " +
                                std::to_string(mi.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorView& t = inputs[i];
    const auto which = [&] { return "input " + std::to_string(i) + " " + q(mi[i].name); };
    if (t.dtype != mi[i].dtype)
      raise(Errc::bad_tensor, "[ge.runtime] " + which() + " is " + std::string(to_string(t.dtype)) +
                                  "; the model takes " + std::string(to_string(mi[i].dtype)));
    const std::int64_t bytes = view_bytes(t, which);
    if (t.data == nullptr && bytes > 0)
      raise(Errc::bad_tensor, "[ge.runtime] " + which() + " has no data (null buffer) for dims " + dims_text(t.dims));
  }
}

// Checks the caller's output buffers: count, types, sizes, and no bytes shared with an
// input or another output (outputs are written while inputs may still be read).
void check_output_buffers(std::span<const TensorView> outputs, std::span<const TensorView> inputs,
                          const std::vector<ModelIO>& mi, const std::vector<ModelIO>& mo) {
  if (outputs.size() != mo.size())
    raise(Errc::bad_tensor, "[ge.runtime] " + std::to_string(outputs.size()) + " output buffers given; the model has " +
                                std::to_string(mo.size()) + " outputs");
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o].dtype != mo[o].dtype)
      raise(Errc::bad_tensor, "[ge.runtime] output " + std::to_string(o) + " " + q(mo[o].name) + " buffer is " +
                                  std::string(to_string(outputs[o].dtype)) + "; the output is " +
                                  std::string(to_string(mo[o].dtype)));
    (void)view_bytes(outputs[o], [&] { return "output " + std::to_string(o) + " " + q(mo[o].name); });
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (overlap(outputs[o].data, outputs[o].bytes(), inputs[i].data, inputs[i].bytes()))
        raise(Errc::bad_tensor, "[ge.runtime] output " + std::to_string(o) + " " + q(mo[o].name) +
                                    " buffer overlaps input " + std::to_string(i) + " " + q(mi[i].name) +
                                    "; expected separate buffers");
    for (std::size_t p = 0; p < o; ++p)
      if (overlap(outputs[o].data, outputs[o].bytes(), outputs[p].data, outputs[p].bytes()))
        raise(Errc::bad_tensor, "[ge.runtime] output buffers " + std::to_string(p) + " and " + std::to_string(o) +
                                    " overlap; expected separate buffers");
  }
}


// The views of `named` in the order of the model's `io` (its inputs or outputs): each
// exactly once by name.
std::vector<TensorView> by_name(std::span<const NamedTensor> named, const std::vector<ModelIO>& io, const char* what) {
  std::vector<TensorView> views(io.size());
  std::vector<bool> given(io.size(), false);
  std::vector<std::string_view> names;
  for (const ModelIO& x : io) names.push_back(x.name);
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
