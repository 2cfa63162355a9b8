// Evaluating one node at compile time (see fold.hpp).
#include "compile/fold.hpp"

#include <algorithm>
#include <string>

#include "ge/compile/kernel.hpp"
#include "ge/ops/registry.hpp"

namespace ge::detail {

namespace {

std::int64_t element_count(const std::vector<std::int64_t>& dims) {
  std::int64_t count = 1;
  for (const std::int64_t d : dims) count *= d;
  return count;
}

}  // namespace

std::optional<Tensor> shape_constant(const Attributes& attrs, const Shape& shape) {
  if (!shape.rank_known()) return std::nullopt;
  const auto r = static_cast<std::int64_t>(shape.rank());
  const auto clampi = [r](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r); };
  const auto start = attrs.find("start");
  const auto end = attrs.find("end");
  const std::int64_t b = clampi(start != attrs.end() ? start->second.as_int() : 0);
  const std::int64_t e = end != attrs.end() ? clampi(end->second.as_int()) : r;
  std::vector<std::int64_t> v;
  for (std::int64_t i = b; i < e; ++i) {
    const Dim& d = shape.dims()[static_cast<std::size_t>(i)];
    if (!d.is_static()) return std::nullopt;
    v.push_back(d.value());
  }
  return Tensor::from<std::int64_t>({static_cast<std::int64_t>(v.size())}, v);
}

bool all_inputs_constant(std::span<const Tensor* const> constants, std::span<const TensorDesc> inputs) {
  bool any = false;
  for (std::size_t i = 0; i < constants.size(); ++i) {
    if (inputs[i].dtype == DataType::undefined && constants[i] == nullptr) continue;  // omitted
    if (constants[i] == nullptr || !constants[i]->has_data()) return false;
    any = true;
  }
  return any;
}

std::optional<std::vector<Tensor>> evaluate(const FoldNode& n) {
  try {
    const std::vector<TensorDesc> out = infer_outputs(n.schema, n.name, n.inputs, n.constants, n.attrs, n.outputs);
    // The worst case of every output, within the limit.
    std::int64_t total = 0;
    std::vector<std::vector<std::int64_t>> cap(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) {
      Shape s = out[k].shape;
      if (k < n.recorded.size() && compatible(s, n.recorded[k].shape)) s = merge(s, n.recorded[k].shape);
      if (!s.rank_known() || !s.is_bounded()) return std::nullopt;
      cap[k] = upper_bound(s).values();
      std::int64_t count = 1;
      for (const std::int64_t d : cap[k]) {
        if (d != 0 && count > max_fold_bytes / d) return std::nullopt;
        count *= d;
      }
      total += count * size_of(out[k].dtype);
      if (total > max_fold_bytes) return std::nullopt;
    }
    const Attributes attrs = n.schema.with_defaults(n.attrs);
    const InferContext context(n.schema, n.name, n.inputs, n.constants, attrs, n.outputs);
    const Engine engine = n.schema.engines.has(Engine::vector) ? Engine::vector : Engine::host;
    const KernelRequest request{context, out, engine};
    const auto impl = KernelRegistry::global().select(request);
    if (!impl) return std::nullopt;
    const auto kernel = impl->make(request);

    std::vector<TensorView> in_views(n.inputs.size());
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const Tensor* t = n.constants[i];
      if (t == nullptr) continue;  // an omitted optional input: null data, undefined type
      in_views[i] = TensorView{const_cast<std::byte*>(t->bytes().data()), t->dtype(), t->dims()};
    }
    std::vector<std::vector<std::byte>> buffers(out.size());
    std::vector<std::vector<std::int64_t>> dims = cap;
    for (std::size_t k = 0; k < out.size(); ++k)
      buffers[k].resize(static_cast<std::size_t>(element_count(cap[k]) * size_of(out[k].dtype)));
    if (kernel->data_dependent()) {
      bool overflow = false;
      kernel->run_dynamic(in_views, [&](std::size_t k, std::span<const std::int64_t> d) -> void* {
        dims.at(k).assign(d.begin(), d.end());
        if (element_count(dims[k]) * size_of(out[k].dtype) > static_cast<std::int64_t>(buffers[k].size())) {
          overflow = true;  // more than the inferred bound: leave the node to run time
          buffers[k].resize(static_cast<std::size_t>(element_count(dims[k]) * size_of(out[k].dtype)));
        }
        return buffers[k].data();
      });
      if (overflow) return std::nullopt;
    } else {
      for (const TensorDesc& d : out)
        if (!d.shape.is_static()) return std::nullopt;
      std::vector<TensorView> out_views;
      for (std::size_t k = 0; k < out.size(); ++k) out_views.push_back(TensorView{buffers[k].data(), out[k].dtype, dims[k]});
      kernel->run(in_views, out_views);
    }
    std::vector<Tensor> result;
    for (std::size_t k = 0; k < out.size(); ++k) {
      buffers[k].resize(static_cast<std::size_t>(element_count(dims[k]) * size_of(out[k].dtype)));
      result.emplace_back(out[k].dtype, dims[k], std::move(buffers[k]));
    }
    return result;
  } catch (const Error&) {
    return std::nullopt;  // left for run time, where the same failure is reported
  }
}

}  // namespace ge::detail
