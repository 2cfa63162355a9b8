#pragma once
/// \file
/// The typed face of the shape layer in one include: `Static<N>`, `Ranged<Lo, Hi>`,
/// `Unknown` (typed_dim.hpp), `ShapeOf<...>`, `UnknownRank` (typed_shape.hpp), the
/// output shapes of `matmul` (typed_matmul.hpp) and `conv2d` (typed_conv2d.hpp), and the
/// run-time `check` / `bind` of real shapes against typed ones (typed_check.hpp).
/// docs/shapes.md tells the whole model. Library code includes the header it uses.

#include "ge/shape/typed_check.hpp"
#include "ge/shape/typed_conv2d.hpp"
#include "ge/shape/typed_dim.hpp"
#include "ge/shape/typed_matmul.hpp"
#include "ge/shape/typed_shape.hpp"
