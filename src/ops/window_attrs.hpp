#pragma once
// The window attributes of Conv, FusedConv, ConvTranspose, MaxPool and AveragePool (ONNX's
// kernel_shape, strides, dilations, pads, auto_pad, ceil_mode), read once with their
// checks into one typed form: the ops' shape rules, the CPU lowerings and the layout pass
// all read them through it.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "ge/ops/schema.hpp"
#include "ge/shape/window.hpp"

namespace ge::ops {

enum class AutoPad : std::uint8_t { notset, same_upper, same_lower, valid };

struct WindowAttrs {
  std::vector<std::int64_t> kernel;     // kernel_shape; 0 per axis where not given
  std::vector<std::int64_t> strides;    // 1 per axis where not given
  std::vector<std::int64_t> dilations;  // 1 per axis where not given
  std::vector<std::int64_t> pads;       // begins, then ends; 0 where not given
  AutoPad auto_pad = AutoPad::notset;
  bool ceil_mode = false;

  // Reads them for `n` spatial axes from attributes with the schema's defaults in.
  // bad_attribute (through `c`'s node when given) when a list has the wrong length or
  // pads come with auto_pad other than NOTSET.
  static WindowAttrs from(const Attributes& attrs, std::size_t n, const InferContext* c = nullptr);
  static WindowAttrs from(const InferContext& c, std::size_t n) { return from(c.attrs(), n, &c); }

  [[nodiscard]] std::size_t rank() const noexcept { return strides.size(); }
  [[nodiscard]] bool same() const noexcept { return auto_pad == AutoPad::same_upper || auto_pad == AutoPad::same_lower; }
  // Explicit pads, all zero (or VALID), stride 1 and dilation 1 on every axis.
  [[nodiscard]] bool unit() const noexcept;
  // Axis i for the shape algebra's window rule.
  [[nodiscard]] WindowAxis axis(std::size_t i) const noexcept;
  // Axis i's pads (begin, end) for input extent x and kernel k: SAME's from x
  // (`ge::same_pads`), else the attribute's (none under VALID).
  [[nodiscard]] std::pair<std::int64_t, std::int64_t> pads_at(std::size_t i, std::int64_t x, std::int64_t k) const;
};

}  // namespace ge::ops
