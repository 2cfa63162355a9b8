#include "ge/options/gears.hpp"

#include "ge/core/error.hpp"

namespace ge {

std::vector<Gear> enumerate_gears(const DynamicConfig& config) {
  std::vector<Gear> out;
  if (config.mode != ShapeMode::gears || !config.gear_option) return out;
  const Option kind = *config.gear_option;
  const auto hw = hw_index(config.input_format);
  out.reserve(config.gears.size());
  for (std::size_t g = 0; g < config.gears.size(); ++g) {
    const std::vector<std::int64_t>& values = config.gears[g];
    Gear gear{g, values, {}};
    std::size_t next = 0;  // DYNAMIC_DIMS: the next value to place
    for (const InputShapeEntry& e : config.input_shape.entries()) {
      std::vector<Dim> dims = e.shape.dims();
      for (std::size_t d = 0; d < dims.size(); ++d) {
        if (!config.gear_slot(dims[d])) continue;
        std::int64_t v = 0;
        if (kind == Option::dynamic_batch_size) {
          v = values.at(0);
        } else if (kind == Option::dynamic_image_size) {
          if (!hw) raise(Errc::internal, "[ge.options] image gears without H and W in the config");
          v = static_cast<int>(d) == hw->h ? values.at(0) : values.at(1);
        } else {
          if (next >= values.size())
            raise(Errc::gear_shape_mismatch, "[ge.options] DYNAMIC_DIMS gear " + std::to_string(g + 1) + " has " +
                                                 std::to_string(values.size()) +
                                                 " dims, fewer than the -1s of INPUT_SHAPE; expected one per -1");
          v = values[next++];
        }
        dims[d] = Dim(v);
      }
      gear.shapes.emplace_back(std::move(dims));
    }
    out.push_back(std::move(gear));
  }
  return out;
}

}  // namespace ge
