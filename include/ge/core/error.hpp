#pragma once
/// \file
/// `ge::Error`, the one exception type of the library, and `ge::Errc`, its codes.
///
/// Every bad input a user can give (option text, a graph, a tensor at run time)
/// is reported by throwing `ge::Error`. Its message follows one pattern:
/// `[ge.<area>] what failed: '<the user's text>'; expected ...`.
///
/// ```
/// try { ge::Shape::parse("3~1"); }
/// catch (const ge::Error& e) { assert(e.code() == ge::Errc::bad_range); }
/// ```

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ge/core/api.hpp"

namespace ge {

/// What went wrong. One value per distinct rule, so that callers and tests can tell
/// failures apart without parsing messages.
enum class Errc : std::uint16_t {
  // core
  ok = 0,
  internal,             ///< a broken invariant: a bug of ours
  invalid_argument,     ///< a bad argument of an API call not covered below
  unsupported,          ///< a feature this build or target does not have
  // shape text and algebra
  bad_dim_text,         ///< a dim is not a number, `-1`, or `lo~hi`
  bad_dim_value,        ///< a dim below -2 (or -2 where a dim is expected)
  bad_range,            ///< `lo~hi` with lo > hi, or a missing bound
  int_overflow,         ///< a number beyond int64
  bad_shape_text,       ///< shape text that is not a list of dims, `-2` or empty
  incompatible_dims,    ///< two dims that must be equal cannot be
  incompatible_shapes,  ///< two shapes that must describe the same tensor cannot
  rank_mismatch,        ///< shapes whose ranks differ where they must agree
  unknown_rank,         ///< an operation that needs the rank got unknown rank
  not_static,           ///< an operation that needs a fixed value got a range
  unbounded,            ///< an upper bound was asked of an unbounded dim
  index_out_of_range,   ///< a dim index outside the shape
  // options
  unknown_option,       ///< an option key that does not exist
  bad_option_value,     ///< an option value that does not parse
  bad_input_shape,      ///< INPUT_SHAPE text that breaks a rule
  duplicate_input,      ///< the same input named twice
  mixed_input_forms,    ///< named and positional INPUT_SHAPE entries together
  unknown_input,        ///< an input name the model does not have
  missing_input_shape,  ///< a gear option without INPUT_SHAPE
  conflicting_options,  ///< two gear options at once
  bad_gear_value,       ///< a gear value that is not an integer >= 1
  bad_gear_count,       ///< fewer than 2 gears, or more than the target allows
  duplicate_gear,       ///< the same gear twice
  gear_shape_mismatch,  ///< a gear that does not fit the `-1`s of INPUT_SHAPE
  bad_batch_dim,        ///< DYNAMIC_BATCH_SIZE with `-1` outside the first dim
  bad_image_dims,       ///< DYNAMIC_IMAGE_SIZE with `-1` outside H and W
  bad_input_format,     ///< INPUT_FORMAT that is not NCHW, NHWC or ND, or does not fit
  missing_scalar_input, ///< with gears, a scalar input not listed in INPUT_SHAPE
  ranges_unsupported,   ///< a shape range on a target that has none
  bad_parallel_flag,    ///< AC_PARALLEL_ENABLE other than 0 or 1
  unknown_target,       ///< a target name that does not exist
  gears_unsupported,    ///< a gear option on a target that has no gears
  ac_parallel_unsupported, ///< AC_PARALLEL_ENABLE=1 on a target that lacks it
  // graph, ops, compile, runtime
  bad_graph,            ///< a graph that does not validate
  duplicate_name,       ///< two graph entities with one name
  unknown_op,           ///< an op type with no schema
  bad_attribute,        ///< a missing, mistyped or out-of-range attribute
  bad_op_inputs,        ///< inputs an op cannot take (count, type, shape)
  type_mismatch,        ///< data types that must agree do not
  engine_unsupported,   ///< the chosen engine cannot run the op
  no_kernel,            ///< no kernel fits the request
  const_mismatch,       ///< constant data at execute differs from compile
  no_matching_gear,     ///< run-time inputs match no gear
  out_of_range,         ///< run-time shape outside the compiled ranges
  bad_tensor,           ///< a run-time tensor with a null buffer or wrong size
  out_of_memory,        ///< a device has no memory left for a request
  // model files
  bad_model,            ///< a model file that is malformed or hostile
  unsupported_op,       ///< a model op with no schema here
  // runtime, later
  cancelled,            ///< a run cancelled before it finished (`AsyncRun::cancel`)
  missing_gears,        ///< an option that needs gears (hybrid mode, padding) without them
  padding_unsafe,       ///< padding to a gear where it would change the results
};

/// The name of a code, e.g. `"bad_range"`.
[[nodiscard]] GE_API std::string_view to_string(Errc code) noexcept;

/// The library's exception: a code and a message.
class GE_API Error : public std::runtime_error {
 public:
  Error(Errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// The code of the rule that was broken.
  [[nodiscard]] Errc code() const noexcept { return code_; }

 private:
  Errc code_;
};

/// Throws `Error(code, message)`. Out of line, so that templates calling it stay small.
[[noreturn]] GE_API void raise(Errc code, const std::string& message);

}  // namespace ge
