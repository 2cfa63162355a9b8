#include "ge/core/error.hpp"

namespace ge {

std::string_view to_string(Errc code) noexcept {
  switch (code) {
#define GE_ERRC_NAME(x) \
  case Errc::x:         \
    return #x;
    GE_ERRC_NAME(ok)
    GE_ERRC_NAME(internal)
    GE_ERRC_NAME(invalid_argument)
    GE_ERRC_NAME(unsupported)
    GE_ERRC_NAME(bad_dim_text)
    GE_ERRC_NAME(bad_dim_value)
    GE_ERRC_NAME(bad_range)
    GE_ERRC_NAME(int_overflow)
    GE_ERRC_NAME(bad_shape_text)
    GE_ERRC_NAME(incompatible_dims)
    GE_ERRC_NAME(incompatible_shapes)
    GE_ERRC_NAME(rank_mismatch)
    GE_ERRC_NAME(unknown_rank)
    GE_ERRC_NAME(not_static)
    GE_ERRC_NAME(unbounded)
    GE_ERRC_NAME(index_out_of_range)
    GE_ERRC_NAME(unknown_option)
    GE_ERRC_NAME(bad_option_value)
    GE_ERRC_NAME(bad_input_shape)
    GE_ERRC_NAME(duplicate_input)
    GE_ERRC_NAME(mixed_input_forms)
    GE_ERRC_NAME(unknown_input)
    GE_ERRC_NAME(missing_input_shape)
    GE_ERRC_NAME(conflicting_options)
    GE_ERRC_NAME(bad_gear_value)
    GE_ERRC_NAME(bad_gear_count)
    GE_ERRC_NAME(duplicate_gear)
    GE_ERRC_NAME(gear_shape_mismatch)
    GE_ERRC_NAME(bad_batch_dim)
    GE_ERRC_NAME(bad_image_dims)
    GE_ERRC_NAME(bad_input_format)
    GE_ERRC_NAME(missing_scalar_input)
    GE_ERRC_NAME(ranges_unsupported)
    GE_ERRC_NAME(bad_parallel_flag)
    GE_ERRC_NAME(unknown_target)
    GE_ERRC_NAME(gears_unsupported)
    GE_ERRC_NAME(ac_parallel_unsupported)
    GE_ERRC_NAME(bad_graph)
    GE_ERRC_NAME(duplicate_name)
    GE_ERRC_NAME(unknown_op)
    GE_ERRC_NAME(bad_attribute)
    GE_ERRC_NAME(bad_op_inputs)
    GE_ERRC_NAME(type_mismatch)
    GE_ERRC_NAME(engine_unsupported)
    GE_ERRC_NAME(no_kernel)
    GE_ERRC_NAME(const_mismatch)
    GE_ERRC_NAME(no_matching_gear)
    GE_ERRC_NAME(out_of_range)
    GE_ERRC_NAME(bad_tensor)
    GE_ERRC_NAME(out_of_memory)
    GE_ERRC_NAME(bad_model)
    GE_ERRC_NAME(unsupported_op)
    GE_ERRC_NAME(cancelled)
    GE_ERRC_NAME(missing_gears)
    GE_ERRC_NAME(padding_unsafe)
#undef GE_ERRC_NAME
  }
  return "unknown";
}

void raise(Errc code, const std::string& message) { throw Error(code, message); }

}  // namespace ge
