// Gears from the caller's side: build options for batch, image-size and dims gears over
// a graph's declared inputs (`ge::batch_gears`, `image_gears`, `dims_gears`), and the gear for real dims, exact or rounded up
// (`CompiledModel::gear_for`).
#include <limits>
#include <string>
#include <vector>

#include "ge/compile/compile.hpp"

namespace ge {

namespace {

// INPUT_SHAPE from the graph's declared inputs, and `option` set to `gears` written with
// `within` between a gear's values and `between` between gears.
BuildOptions graph_gears(const Graph& graph, Option option, std::span<const std::vector<std::int64_t>> gears,
                         const char* within, const char* between) {
  std::string shapes, list;
  for (const GraphInput& in : graph.inputs()) shapes += (shapes.empty() ? "" : ";") + in.name + ":" + in.shape.to_string();
  for (const std::vector<std::int64_t>& gear : gears) {
    if (!list.empty()) list += between;
    for (std::size_t k = 0; k < gear.size(); ++k) list += (k ? within : "") + std::to_string(gear[k]);
  }
  BuildOptions options;
  options.set(Option::input_shape, shapes);
  options.set(option, list);
  return options;
}

}  // namespace

BuildOptions batch_gears(const Graph& graph, std::span<const std::int64_t> sizes) {
  std::vector<std::vector<std::int64_t>> gears;
  for (const std::int64_t b : sizes) gears.push_back({b});
  return graph_gears(graph, Option::dynamic_batch_size, gears, "", ",");
}

BuildOptions image_gears(const Graph& graph, std::span<const std::vector<std::int64_t>> sizes) {
  BuildOptions options = graph_gears(graph, Option::dynamic_image_size, sizes, ",", ";");
  // DYNAMIC_IMAGE_SIZE needs INPUT_FORMAT: the inputs' declared layout.
  bool nhwc = false;
  for (const GraphInput& in : graph.inputs()) nhwc = nhwc || in.format == Format::nhwc;
  options.set(Option::input_format, nhwc ? "NHWC" : "NCHW");
  return options;
}

BuildOptions dims_gears(const Graph& graph, std::span<const std::vector<std::int64_t>> gears) {
  return graph_gears(graph, Option::dynamic_dims, gears, ",", ";");
}

std::optional<std::int32_t> CompiledModel::gear_for(std::span<const std::vector<std::int64_t>> dims,
                                                    bool round_up) const {
  if (dims.size() != inputs_.size())
    raise(Errc::bad_tensor, "[ge.compile] gear_for: " + std::to_string(dims.size()) + " inputs given; the model has " +
                                std::to_string(inputs_.size()));
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (inputs_[i].shape.rank_known() && inputs_[i].shape.rank() != dims[i].size())
      raise(Errc::bad_tensor, "[ge.compile] gear_for: input '" + inputs_[i].name + "' has rank " +
                                  std::to_string(dims[i].size()) + "; the model takes " + inputs_[i].shape.to_string());
  std::optional<std::int32_t> best;
  double best_elements = std::numeric_limits<double>::infinity();
  for (const auto& plan : plans_) {
    if (plan->gear < 0) continue;
    bool equal = true, covers = true;
    double elements = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const std::vector<std::int64_t> g = plan->input_shapes[i].values();
      double n = 1;
      for (std::size_t k = 0; k < g.size(); ++k) {
        equal = equal && g[k] == dims[i][k];
        covers = covers && g[k] >= dims[i][k];
        n *= static_cast<double>(g[k]);
      }
      elements += n;
    }
    if (equal) return plan->gear;
    if (round_up && covers && elements < best_elements) {
      best = plan->gear;
      best_elements = elements;
    }
  }
  return best;
}

}  // namespace ge
