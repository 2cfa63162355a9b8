// What is known of shape tensors that did not fold (see shape_values.hpp).
#include "compile/shape_values.hpp"

#include <algorithm>
#include <cstdint>

namespace ge::detail {

namespace {

// The elements of a value: recorded, or an i64/i32 constant's (at most rank 1).
std::optional<ShapeValue> elements_of(const Work& w, ValueId v, const ShapeValues& known) {
  if (const auto it = known.tensors.find(v); it != known.tensors.end()) return it->second;
  const Tensor* t = w.constant(v);
  if (t == nullptr || (t->dtype() != DataType::i64 && t->dtype() != DataType::i32) || t->dims().size() > 1 ||
      t->element_count() > 64)
    return std::nullopt;
  ShapeValue s;
  s.scalar = t->dims().empty();
  for (const std::int64_t e : t->to_int64s()) s.elements.push_back({e, Dim(), {}});
  return s;
}

std::optional<ShapeValue> evaluate_node(const Work& w, const WNode& n, const ShapeValues& known) {
  if (n.outputs.size() != 1 || n.inputs.empty() || n.inputs[0] == no_value) return std::nullopt;
  if (n.op == "Shape") {
    const Shape& s = w.desc(n.inputs[0]).shape;
    if (!s.rank_known()) return std::nullopt;
    const auto r = static_cast<std::int64_t>(s.rank());
    const auto at = [&](const char* name, std::int64_t fallback) {
      const auto a = attr_of(n, name);
      const std::int64_t v = a ? a->as_int() : fallback;
      return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r);
    };
    ShapeValue out;
    for (std::int64_t i = at("start", 0); i < at("end", r); ++i) {
      const Dim& d = s[static_cast<std::size_t>(i)];
      out.elements.push_back({d.is_static() ? std::optional<std::int64_t>(d.value()) : std::nullopt, d,
                              known.origin_of(n.inputs[0], static_cast<std::size_t>(i))});
    }
    return out;
  }
  if (n.op == "Cast") {
    const auto to = attr_of(n, "to");
    if (!to || w.desc(n.outputs[0]).dtype != DataType::i64) return std::nullopt;
    return elements_of(w, n.inputs[0], known);
  }
  const auto data = elements_of(w, n.inputs[0], known);
  if (!data) return std::nullopt;
  if (n.op == "Gather") {
    const auto axis = attr_of(n, "axis");
    const Tensor* idx = n.inputs.size() == 2 ? w.constant(n.inputs[1]) : nullptr;
    if ((axis && axis->as_int() != 0) || data->scalar || idx == nullptr || idx->dims().size() > 1) return std::nullopt;
    ShapeValue out;
    out.scalar = idx->dims().empty();
    const auto size = static_cast<std::int64_t>(data->elements.size());
    for (std::int64_t i : idx->to_int64s()) {
      if (i < -size || i >= size) return std::nullopt;
      out.elements.push_back(data->elements[static_cast<std::size_t>(i < 0 ? i + size : i)]);
    }
    return out;
  }
  if (n.op == "Unsqueeze") {
    if (!data->scalar) return std::nullopt;  // a scalar to [1]: axes [0] or [-1]
    std::vector<std::int64_t> axes;
    if (n.inputs.size() > 1 && n.inputs[1] != no_value) {
      const Tensor* t = w.constant(n.inputs[1]);
      if (t == nullptr) return std::nullopt;
      axes = t->to_int64s();
    } else if (const auto a = attr_of(n, "axes")) {
      axes = a->as_ints();
    }
    if (axes.size() != 1 || (axes[0] != 0 && axes[0] != -1)) return std::nullopt;
    ShapeValue out = *data;
    out.scalar = false;
    return out;
  }
  if (n.op == "Slice") {
    // One run of a vector at constant bounds (axes [0], steps [1] where given): torch's
    // Shape(x)[0:2] in front of an interpolation to a size.
    if (data->scalar || n.inputs.size() < 3) return std::nullopt;
    const auto one = [&](std::size_t k) -> std::optional<std::int64_t> {
      const Tensor* t = k < n.inputs.size() && n.inputs[k] != no_value ? w.constant(n.inputs[k]) : nullptr;
      if (t == nullptr || t->element_count() != 1 || (t->dtype() != DataType::i64 && t->dtype() != DataType::i32))
        return std::nullopt;
      return t->to_int64s()[0];
    };
    const auto begin = one(1), end = one(2);
    const bool axes_ok = n.inputs.size() < 4 || n.inputs[3] == no_value || (one(3) && (*one(3) == 0 || *one(3) == -1));
    const bool steps_ok = n.inputs.size() < 5 || n.inputs[4] == no_value || (one(4) && *one(4) == 1);
    if (!begin || !end || !axes_ok || !steps_ok) return std::nullopt;
    const auto size = static_cast<std::int64_t>(data->elements.size());
    const auto clamp = [size](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + size : v, 0, size); };
    ShapeValue out;
    for (std::int64_t i = clamp(*begin); i < clamp(*end); ++i)
      out.elements.push_back(data->elements[static_cast<std::size_t>(i)]);
    return out;
  }
  if (n.op == "Concat") {
    const auto axis = attr_of(n, "axis");
    if (!axis || (axis->as_int() != 0 && axis->as_int() != -1)) return std::nullopt;
    ShapeValue out;
    for (const ValueId v : n.inputs) {
      const auto part = elements_of(w, v, known);
      if (!part || part->scalar) return std::nullopt;
      out.elements.insert(out.elements.end(), part->elements.begin(), part->elements.end());
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace

DimOrigin ShapeValues::origin_of(ValueId v, std::size_t axis) const {
  if (const auto it = origins.find(v); it != origins.end() && axis < it->second.size() && it->second[axis].known())
    return it->second[axis];
  return {static_cast<std::int64_t>(v), static_cast<std::int64_t>(axis)};
}

std::optional<Tensor> shape_value(const Work& w, const WNode& n, ShapeValues& known) {
  if (n.op == "Transpose" && n.inputs.size() == 1 && n.outputs.size() == 1) {
    // The dims move with the permutation, and so do their origins.
    const auto it = known.origins.find(n.inputs[0]);
    const auto perm = attr_of(n, "perm");
    if (it == known.origins.end() || !perm) return std::nullopt;
    std::vector<DimOrigin> out;
    for (const std::int64_t p : perm->as_ints()) {
      if (p < 0 || p >= static_cast<std::int64_t>(it->second.size())) return std::nullopt;
      out.push_back(it->second[static_cast<std::size_t>(p)]);
    }
    known.origins[n.outputs[0]] = std::move(out);
    return std::nullopt;
  }
  if (n.op != "Shape" && n.op != "Gather" && n.op != "Unsqueeze" && n.op != "Concat" && n.op != "Cast" &&
      n.op != "Slice")
    return std::nullopt;
  if (n.op != "Shape" && w.desc(n.outputs.empty() ? no_value : n.outputs[0]).dtype != DataType::i64)
    return std::nullopt;
  const auto value = evaluate_node(w, n, known);
  if (!value) return std::nullopt;
  std::vector<std::int64_t> v;
  for (const ShapeElement& e : value->elements) {
    if (!e.value) {
      known.tensors[n.outputs[0]] = *value;
      return std::nullopt;
    }
    v.push_back(*e.value);
  }
  if (value->scalar) return Tensor::from<std::int64_t>({}, v);
  return Tensor::from<std::int64_t>({static_cast<std::int64_t>(v.size())}, v);
}

std::optional<Shape> reshape_dims(const Work& w, const WNode& n, ShapeValues& known) {
  if (n.op != "Reshape" || n.inputs.size() != 2 || n.outputs.size() != 1) return std::nullopt;
  const auto it = known.tensors.find(n.inputs[1]);
  if (it == known.tensors.end() || it->second.scalar) return std::nullopt;
  const Shape& x = w.desc(n.inputs[0]).shape;
  const auto allow = attr_of(n, "allowzero");
  const bool allowzero = allow && allow->as_int() != 0;
  std::vector<Dim> dims;
  std::vector<DimOrigin> origins;
  std::int64_t minus = -1;
  for (std::size_t k = 0; k < it->second.elements.size(); ++k) {
    const ShapeElement& e = it->second.elements[k];
    if (!e.value) {
      dims.push_back(e.dim);
      origins.push_back(e.origin);
    } else if (*e.value == 0 && !allowzero) {
      if (!x.rank_known() || k >= x.rank()) return std::nullopt;
      dims.push_back(x[k]);
      origins.push_back(known.origin_of(n.inputs[0], k));
    } else if (*e.value == -1) {
      if (minus >= 0) return std::nullopt;
      minus = static_cast<std::int64_t>(k);
      dims.emplace_back();
      origins.emplace_back();
    } else if (*e.value < 0) {
      return std::nullopt;
    } else {
      dims.emplace_back(*e.value);
      origins.emplace_back();
    }
  }
  if (minus >= 0) {
    // What is left: the input's elements over the others', where that is known: static
    // dims multiply, and a dim that is not static cancels the input's dim of the same
    // origin (the batch carried through: [N, 2, 58, 28, 28] to [N, -1, 28, 28]).
    if (!x.rank_known()) return std::nullopt;
    std::vector<bool> used(x.rank(), false);
    std::int64_t rest = 1;
    for (std::size_t k = 0; k < dims.size(); ++k) {
      if (static_cast<std::int64_t>(k) == minus) continue;
      if (dims[k].is_static()) {
        rest *= dims[k].value();
        continue;
      }
      std::size_t j = 0;
      while (j < x.rank() && (used[j] || x[j].is_static() || !origins[k].known() ||
                              !(known.origin_of(n.inputs[0], j) == origins[k])))
        ++j;
      if (j == x.rank()) return std::nullopt;
      used[j] = true;
    }
    std::int64_t total = 1;
    for (std::size_t j = 0; j < x.rank(); ++j) {
      if (used[j]) continue;
      if (!x[j].is_static()) return std::nullopt;
      total *= x[j].value();
    }
    if (rest == 0 || total % rest != 0) return std::nullopt;
    dims[static_cast<std::size_t>(minus)] = Dim(total / rest);
  }
  known.origins[n.outputs[0]] = origins;
  return Shape(std::move(dims));
}

std::optional<Tensor> resize_scales(const Work& w, const WNode& n, const ShapeValues& known) {
  if (n.op != "Resize" || n.inputs.size() != 4 || n.outputs.size() != 1 || attr_of(n, "axes")) return std::nullopt;
  const auto it = known.tensors.find(n.inputs[3]);
  if (it == known.tensors.end() || it->second.scalar) return std::nullopt;
  if (n.inputs[2] != no_value) {  // (scales, if given, must be empty: sizes are given)
    const Tensor* scales = w.constant(n.inputs[2]);
    if (scales == nullptr || scales->element_count() != 0) return std::nullopt;
  }
  if (const auto coord = attr_of(n, "coordinate_transformation_mode");
      coord && coord->as_string() == "tf_crop_and_resize")
    return std::nullopt;  // (its roi is read by the output's extents)
  const Shape& x = w.desc(n.inputs[0]).shape;
  const std::vector<ShapeElement>& sizes = it->second.elements;
  if (!x.rank_known() || x.rank() != sizes.size()) return std::nullopt;
  std::vector<float> scales;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const ShapeElement& e = sizes[k];
    if (!e.value) {  // X's own dim k, by its origin: kept
      if (x[k].is_static() || !e.origin.known() || !(e.origin == known.origin_of(n.inputs[0], k))) return std::nullopt;
      scales.push_back(1.0f);
      continue;
    }
    // A static size: a whole multiple of X's static dim (the scale exact in a float)
    if (!x[k].is_static() || x[k].value() < 1 || *e.value < x[k].value() || *e.value % x[k].value() != 0 ||
        *e.value / x[k].value() > (std::int64_t{1} << 24))
      return std::nullopt;
    scales.push_back(static_cast<float>(*e.value / x[k].value()));
  }
  return Tensor::from<float>({static_cast<std::int64_t>(scales.size())}, scales);
}

}  // namespace ge::detail
