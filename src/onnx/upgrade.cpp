// Models of an opset below the importer's lowest (`min_opset`) are brought up to it by
// onnx's own version converter (libonnx), which knows each op's changes between opsets
// (Upsample to Resize, Slice's attributes to inputs, BatchNormalization's spatial, ...).
// What it cannot convert is refused with its own reason, which names the op and opsets.
#include "onnx/upgrade.hpp"

#include <exception>
#include <string>

#if defined(GE_ONNX_VERSION_CONVERTER)
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>
#endif

namespace ge::onnx::detail {

namespace {

// The converter's assertion text without its source position ("file:line: func:
// Assertion `cond` failed: ").
std::string converter_reason(const std::string& what) {
  const std::string marker = "failed: ";
  const auto at = what.find(marker);
  std::string s = at == std::string::npos ? what : what.substr(at + marker.size());
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s.substr(0, 300);
}

}  // namespace

void upgrade_opset(::onnx::ModelProto& m, std::int64_t version) {
  const std::string from = "the model uses opset " + std::to_string(version) + " of the default domain; ge reads opsets " +
                           std::to_string(min_opset) + " to " + std::to_string(max_opset);
  if (version < 1) fail(Errc::bad_model, from + " (an opset below 1 does not exist)");
#if defined(GE_ONNX_VERSION_CONVERTER)
  // Some adapters (Gemm 6 to 7's broadcast) need the inputs' shapes: onnx's shape
  // inference records them first. A model it cannot infer is converted without them.
  try {
    ::onnx::shape_inference::InferShapes(m);
  } catch (const std::exception&) {
  }
  ::onnx::ModelProto up;
  try {
    up = ::onnx::version_conversion::ConvertVersion(m, static_cast<int>(min_opset));
  } catch (const std::exception& e) {
    fail(Errc::unsupported_op, from + ", and onnx's version converter cannot bring it to opset " +
                                   std::to_string(min_opset) + ": " + converter_reason(e.what()));
  }
  m.Swap(&up);
#else
  (void)m;
  fail(Errc::unsupported_op, from + " (this build has no onnx version converter to upgrade older opsets)");
#endif
}

}  // namespace ge::onnx::detail
