#pragma once
// Private to src/runtime and src/acl: the checks of a caller's tensor views at ge's
// entries (Session::run, run_into and run_async; execute_op; the acl layer), in one set
// of words. Each bad view is a ge::Error naming it; the words that name a view are made
// only for a bad one, so that a good run allocates nothing here.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/core/function_ref.hpp"
#include "ge/core/tensor_view.hpp"
#include "ge/core/text.hpp"

namespace ge {
struct ModelIO;
struct NamedTensor;
}  // namespace ge

namespace ge::detail {

// Makes the words naming a view ("input 0 'x'", "[Add] output 1"), called for a bad one.
using ViewName = FunctionRef<std::string()>;

// The product of dims (the caller checked them).
std::int64_t element_count(std::span<const std::int64_t> d);

// The bytes view `v` describes: dims non-negative (bad_tensor), their product and byte
// size within int64 (int_overflow), no more than its buffer holds where the view knows
// that (bad_tensor).
std::int64_t view_bytes(const TensorView& v, ViewName which);

// view_bytes, and a buffer given where the view has elements (bad_tensor: null buffer).
// Exported, though not in include/ge: a shared libge_acl.so checks a program's buffers
// with it (tests/consumer/check_exports.cmake names it).
GE_API std::int64_t view_bytes_with_data(const TensorView& v, ViewName which);

// A buffer given for an output whose real bytes `need` are known only now (a run's
// dynamic output, a padded run's, a data-dependent op's) holds them (bad_tensor).
void check_holds(const TensorView& v, std::int64_t need, ViewName which);

// True when [a, a + na) and [b, b + nb) share a byte.
bool overlap(const void* a, std::int64_t na, const void* b, std::int64_t nb) noexcept;

// Output `o` (of `bytes` bytes) shares no byte with an input, except one that
// `in_place(i)` allows and that it is exactly, nor with an output before it (bad_tensor).
// `where` goes in front of the words ("[Add] "), `name` names input or output k.
void check_separate(std::span<const TensorView> inputs, std::span<const TensorView> outputs, std::size_t o,
                    std::int64_t bytes, FunctionRef<bool(std::size_t i)> in_place, std::string_view where,
                    FunctionRef<std::string(bool output, std::size_t k)> name);

// `given` tensors where `expected` are taken (bad_tensor): "<where>3 inputs given; <whose>
// takes 2".
void check_count(std::size_t given, std::size_t expected, const char* what, std::string_view where,
                 std::string_view whose);

// A run's inputs against the model's: count, type, dims, buffers.
void check_inputs(std::span<const TensorView> inputs, const std::vector<ModelIO>& mi);
// The caller's output buffers against the model's outputs: count, types, sizes, and no
// bytes shared with an input or another output.
void check_output_buffers(std::span<const TensorView> outputs, std::span<const TensorView> inputs,
                          const std::vector<ModelIO>& mi, const std::vector<ModelIO>& mo);
// The views of `named` in the order of the model's `io` (its inputs or outputs): each
// exactly once by name; `what` is "input" or "output".
std::vector<TensorView> by_name(std::span<const NamedTensor> named, const std::vector<ModelIO>& io, const char* what);

}  // namespace ge::detail
