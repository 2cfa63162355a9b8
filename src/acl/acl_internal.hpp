#pragma once
// The acl layer's private header: the definitions of the C API's opaque types, the
// conversions between them and ge's C++ types, and the guard that keeps C++ exceptions
// from crossing the C boundary. The single-op files (base, rt, attr, op, op_compiler)
// and the model files (mdl) build on it.
//
//   aclError aclFoo(aclTensorDesc* d) {
//     return acl::guard("aclFoo", [&] {
//       acl::require(d != nullptr, "desc is null");          // -> ACL_ERROR_INVALID_PARAM
//       const ge::OpTensor t = acl::to_op_tensor(*d, "desc");  // a ge::Error -> its aclError
//       return ACL_SUCCESS;
//     });
//   }

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "acl/acl.h"
#include "acl/op_map.hpp"
#include "ge/compile/op_compile.hpp"
#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"
#include "ge/core/format.hpp"
#include "ge/core/tensor_view.hpp"
#include "ge/tensor/attribute.hpp"
#include "ge/tensor/tensor.hpp"

/// A tensor description as the C API holds it: the caller's values verbatim, checked
/// when converted (`acl::to_op_tensor`).
struct aclTensorDesc {
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  std::vector<std::int64_t> dims;  ///< -1: unknown extent; exactly {-2}: unknown rank
  /// Empty, or one [lo, hi] per dim (hi -1: unbounded).
  std::vector<std::array<std::int64_t, 2>> ranges;
  std::optional<std::vector<std::byte>> constant;  ///< set by aclSetTensorConst
  aclMemType placement = ACL_MEMTYPE_DEVICE;
  // Kept for GE's setters and getters (src/acl/desc_more.cpp); a packed storage format
  // makes the description unusable on the CPU (to_op_tensor: ACL_ERROR_FORMAT_NOT_MATCH).
  std::string name;
  std::optional<aclFormat> origin_format, storage_format;
  std::optional<std::vector<std::int64_t>> origin_dims, storage_dims;
  std::string dynamic_input;
  std::vector<std::array<std::int64_t, 2>> value_range;
};

/// Memory of the caller's: an address and its size in bytes. Never owned.
struct aclDataBuffer {
  void* data = nullptr;
  std::size_t size = 0;
};

/// Single-op attributes: ge's attributes by name, converted as they are set.
struct aclopAttr {
  ge::Attributes attrs;
};

/// An op found once for fixed descriptions (aclopCreateHandle), run by aclopExecWithHandle.
struct aclopHandle {
  std::shared_ptr<const ge::CompiledOp> op;
  acl::GeCall call;                               ///< the call in ge's terms
  std::vector<std::vector<std::int64_t>> dims;    ///< the real dims of each acl input
  int num_inputs = 0;
  int num_outputs = 0;
  /// Set instead of `op` for a handle of the acl layer's own (aclblasCreateHandleFor*):
  /// runs the call on the buffers (counts already checked) and the stream.
  std::function<void(const aclDataBuffer* const* inputs, aclDataBuffer* const* outputs, aclrtStream stream)> direct{};
};

namespace acl {

/// The error of a rule of the C API itself (a null pointer, a bad count, an enum value
/// out of range), carrying its aclError directly (a `ge::Error` is mapped by
/// `to_acl_error` instead). Thrown by `require`, caught by `guard`.
class CallError : public std::exception {
 public:
  CallError(aclError code, std::string message) : code_(code), message_(std::move(message)) {}
  [[nodiscard]] aclError code() const noexcept { return code_; }
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

 private:
  aclError code_;
  std::string message_;
};

/// Throws `CallError(code, "[acl] " + message)` unless `ok`.
void require(bool ok, const std::string& message, aclError code = ACL_ERROR_INVALID_PARAM);
/// Throws `CallError(ACL_ERROR_UNINITIALIZE)` unless aclInit has run (and no aclFinalize since).
void require_initialized(std::string_view api);
/// Whether aclInit has run (and no aclFinalize since).
[[nodiscard]] bool initialized() noexcept;

/// The single-op compiler of the acl layer (its cache: aclopSetMaxOpQueueNum; emptied by
/// aclFinalize).
[[nodiscard]] ge::OpCompiler& op_compiler();
/// Destroys every stream and the device's references (aclFinalize).
void release_runtime() noexcept;
/// Throws CallError ACL_ERROR_INVALID_PARAM unless `stream` is null (the default stream)
/// or a stream aclrtCreateStream made and aclrtDestroyStream has not destroyed.
void require_stream(aclrtStream stream, std::string_view api);
/// Calls the exception callbacks (aclrtSetExceptionInfoCallback, aclrtExceptionInfoCallbackRegister)
/// for a task that failed with `code` on `stream` (null: the default stream), before the
/// failing call returns `code` (src/acl/rt_report.cpp).
void report_task_failure(aclrtStream stream, aclError code) noexcept;

/// The aclError for a ge error code (docs/acl.md has the table).
[[nodiscard]] aclError to_acl_error(ge::Errc code) noexcept;
/// Records the message of a failed call for aclGetRecentErrMsg (this thread).
void record_error(std::string_view api, std::string_view message) noexcept;
/// The code of this thread's last failed call (`current_exception_error` sets it;
/// aclrtPeekAtLastError reads it, aclrtGetLastError reads and clears it).
[[nodiscard]] aclError& last_error_code() noexcept;
/// The aclError of the exception being handled (call inside a catch block): CallError's
/// code, ge::Error's `to_acl_error`, std::bad_alloc ACL_ERROR_BAD_ALLOC, anything else
/// ACL_ERROR_FAILURE. Records its message.
[[nodiscard]] aclError current_exception_error(std::string_view api) noexcept;

/// Runs `body` (returning aclError) and turns any exception into its aclError: no C++
/// exception crosses the C boundary.
template <class Body>
aclError guard(std::string_view api, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return current_exception_error(api);
  }
}
/// For calls that return a value: `body()`, or `on_error` when it throws (recorded).
template <class T, class Body>
T guard_value(std::string_view api, T on_error, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    (void)current_exception_error(api);
    return on_error;
  }
}
/// Runs `body`, the work of a task on `stream` (a kernel), and rethrows what it throws.
/// A failure of the work itself (a ge::Error from the kernel, no memory) is first told to
/// the exception callbacks (`report_task_failure`); a CallError, a rule of the C API the
/// call broke (a buffer too small), is the call's error only.
template <class Body>
decltype(auto) run_task(std::string_view api, aclrtStream stream, Body&& body) {
  try {
    return body();
  } catch (const CallError&) {
    throw;
  } catch (...) {
    report_task_failure(stream, current_exception_error(api));
    throw;
  }
}

/// The value of an enum parameter a C caller passed, read without reading the enum
/// (C allows any int there; in C++ a value outside the enumerators' range is undefined
/// behaviour to load). The API functions check enum parameters through it.
template <class E>
[[nodiscard]] int raw(const E& e) noexcept {
  static_assert(sizeof(E) == sizeof(int), "acl enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

/// ge's type for an acl type (an aclDataType value). Throws CallError:
/// ACL_ERROR_UNSUPPORTED_DATA_TYPE for ACL_STRING and the complex types,
/// ACL_ERROR_INVALID_PARAM for values that are none.
[[nodiscard]] ge::DataType to_ge_type(int t);
/// Whether `t` is an aclDataType value (string and complex ones included).
[[nodiscard]] bool is_acl_type(int t) noexcept;
/// Whether `f` is an aclFormat value.
[[nodiscard]] bool is_acl_format(int f) noexcept;
/// The acl type of a ge type.
[[nodiscard]] aclDataType to_acl_type(ge::DataType t) noexcept;
/// ge's format: NCHW, NHWC, ND, UNDEFINED as themselves, the other plain layouts (NC,
/// NCL, HWCN, NCDHW, NDHWC) as ND; the packed device layouts (NC1HWC0, FRACTAL_*) throw
/// CallError ACL_ERROR_FORMAT_NOT_MATCH.
[[nodiscard]] ge::Format to_ge_format(int f);
/// The shape a description means: -1 dims with their ranges, {-2} unknown rank.
[[nodiscard]] ge::Shape to_shape(const aclTensorDesc& d);
/// The single-op tensor of a description (type, shape, format, constant data);
/// (ACL_DT_UNDEFINED, no dims, ACL_FORMAT_UNDEFINED) is `OpTensor::undefined()`.
/// `which` names it in errors ("input 1").
[[nodiscard]] ge::OpTensor to_op_tensor(const aclTensorDesc& d, const std::string& which);
/// `{dtype, shape}` of a description (`to_op_tensor` without format and data).
[[nodiscard]] ge::TensorDesc to_tensor_desc(const aclTensorDesc& d, const std::string& which);
/// The static dims of a description that carries real dims (no -1, not {-2}), as a run
/// needs them; CallError ACL_ERROR_INVALID_PARAM otherwise.
[[nodiscard]] std::vector<std::int64_t> static_dims(const aclTensorDesc& d, const std::string& which);
/// Rewrites `d`'s dims (and ranges: for a ranged dim -1 and its [lo, hi]; {-2} for
/// unknown rank) from a ge shape; type and format stay.
void set_shape(aclTensorDesc& d, const ge::Shape& shape);

/// The `count` descriptions at `descs` (null allowed only with count 0; no null entry;
/// count >= 0), each converted with `to_op_tensor`; `what` is "input" or "output".
[[nodiscard]] std::vector<ge::OpTensor> to_op_tensors(int count, const aclTensorDesc* const* descs,
                                                      const char* what);
/// The attributes of `attr` (empty for null).
[[nodiscard]] const ge::Attributes& attributes_of(const aclopAttr* attr) noexcept;

/// A view of a data buffer as a tensor of `dtype` and `dims` (its capacity: the buffer's
/// size). A null buffer: CallError ACL_ERROR_INVALID_PARAM naming `which`.
[[nodiscard]] ge::TensorView view_of(const aclDataBuffer* b, ge::DataType dtype, std::span<const std::int64_t> dims,
                                     const std::string& which);

}  // namespace acl
