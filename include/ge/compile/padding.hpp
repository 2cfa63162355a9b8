#pragma once
/// \file
/// Padding to a gear, where it is safe: `ge::GearPadding`, the compile-time analysis of
/// each value of a model's gears (`CompiledModel::padding()`), read by
/// `SessionOptions::pad_to_gear`.
///
/// Inputs that match no gear but fit a larger one can run on that gear's static plan,
/// padded, with the outputs sliced back, only where padding cannot change the real part
/// of any output: along a dim no op mixes elements across (the batch of a CNN or of a
/// transformer; not a sequence axis that softmax or a reduction crosses). The compiler
/// proves this per gear value by following the dim through the graph specialised at two
/// sizes of it: each op must keep the dim's slices apart (element-wise ops, the batch of
/// convs, pools and normalisations, the rows of a MatMul, the axes a softmax or a
/// reduction does not cross, reshapes that keep it outermost, transposes), every value
/// folded for a plan must not depend on its size except as a shape, and every output must
/// carry it on one axis (or not depend on the padded inputs at all).
///
/// ```
/// auto model = ge::compile(g, {{"ge.inputShape", "x:-1,3,224,224"}, {"ge.dynamicBatchSize", "1,4,8"}});
/// for (const ge::GearPadding& p : model->padding())
///   std::printf("value %zu: %s\n", p.value, p.independent ? "padding is safe" : p.reason.c_str());
/// ```
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ge {

/// What padding along one value of the gears would do (an entry of `Gear::values`:
/// the batch of DYNAMIC_BATCH_SIZE, H or W of DYNAMIC_IMAGE_SIZE, one dim of DYNAMIC_DIMS).
struct GearPadding {
  std::size_t value = 0;  ///< the index in `Gear::values`
  /// The input dims this value fills: (graph input index, axis).
  std::vector<std::pair<std::size_t, std::size_t>> dims;
  /// True when no op mixes elements across these dims: a run padded along them gives
  /// the unpadded run's outputs in its leading slices.
  bool independent = false;
  /// Why not, naming the node: empty when `independent`.
  std::string reason;
  /// Per graph output, the axis that carries the value (-1: the output does not depend on
  /// the padded dims); its size is the value times `output_factor`.
  std::vector<std::int32_t> output_axis;
  std::vector<std::int64_t> output_factor;  ///< per graph output (1 where `output_axis` is -1)
};

}  // namespace ge
