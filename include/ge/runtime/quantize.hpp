#pragma once
/// \file
/// `ge::quantize_qdq`: post-training static quantization of an f32 graph into a QDQ graph
/// (QuantizeLinear/DequantizeLinear around the inputs of Conv, MatMul and Gemm), the form
/// ONNX Runtime's quantizer writes and ge's int8 passes read (`ge::quantize_products`;
/// `gec quantize`).
///
/// ```
/// ge::QuantizeOptions o;
/// o.calibration = {{image_0}, {image_1}};        // or none: `random_samples` seeded sets
/// ge::QuantizeReport report;
/// ge::Graph q = ge::quantize_qdq(ge::onnx::load("resnet50.onnx"), o, &report);
/// ge::onnx::save(q, "resnet50_qdq.onnx");
/// ```
///
/// Calibration: a copy of the graph whose outputs also hold the data input of every node
/// to quantize is compiled (`ge::compile`, the inputs fixed to each calibration set's
/// dims) and run (`ge::Session`) on every set; each value's range is its min and max over
/// all sets (non-finite values ignored), or with `CalibrationMethod::percentile` the
/// `percentile`-th percentile t of |x| over all its values, the range clipped to [-t, t].
///
/// The rewrite, node by node (a node is quantized when its op is in `op_types` and its
/// weight is a constant f32 tensor; else it is left as it is and the report says why):
/// - weight (Conv's input 1, any rank and group; MatMul's input 1 when 2-D; Gemm's input
///   1): int8, symmetric per output channel: scale_c = max|w_c| / 127 (1 for a zero
///   channel), q = clamp(rint(w / scale_c), -127, 127) (rint: half to even), zero point
///   int8 0 per channel; a `DequantizeLinear(w_q, scale, zp, axis)` feeds the op, axis 0
///   for Conv ([Cout, Cin/g, k...]) and Gemm with transB=1 ([N, K]), axis 1 for MatMul
///   ([K, N]) and Gemm with transB=0;
/// - bias (Conv's input 2; Gemm's input 2 when a 1-D constant of length N, alpha = beta
///   = 1): int32, scale_c = x_scale * w_scale_c, zero point int32 0, DequantizeLinear axis 0;
/// - the data input (input 0): per tensor u8, lo = min(0, range min), hi = max(0, range
///   max), scale = (hi - lo) / 255 (1 when hi == lo), zero point = clamp(rint(-lo /
///   scale), 0, 255), both rank 0; ONE `QuantizeLinear -> DequantizeLinear` pair per
///   value, read by every quantized node that reads it (other readers keep the f32 value).
/// Nothing else changes: node names are kept; new values and nodes get names derived
/// from the value they quantize (`<x>_quantized`, `<x>_QuantizeLinear`, `<w>_dq`, ...).
/// The graph saves at opset 13 or later (per-channel DequantizeLinear needs 13).

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/graph/graph.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge {

/// How an activation's range comes from its calibration values.
enum class CalibrationMethod : std::uint8_t {
  min_max,     ///< the smallest and largest value
  percentile,  ///< [-t, t] ∩ [min, max], t the `percentile`-th percentile of |x|
};

/// What `quantize_qdq` does.
struct QuantizeOptions {
  /// Calibration sets, each one tensor per graph input in input order, of the input's
  /// type and of dims the input allows. Empty: `random_samples` seeded sets.
  std::vector<std::vector<Tensor>> calibration{};
  /// Random sets made when `calibration` is empty (>= 1): float inputs standard normal,
  /// integer inputs uniform in [0, 100) (an input whose name holds "mask": all ones),
  /// bool inputs true; a ranged or unknown dim takes its lower bound (at least 1).
  std::size_t random_samples = 8;
  std::uint64_t seed = 0;  ///< of the random sets
  CalibrationMethod method = CalibrationMethod::min_max;
  double percentile = 99.999;  ///< with `CalibrationMethod::percentile`: in (0, 100]
  /// The op types to quantize: any of Conv, MatMul, Gemm.
  std::vector<std::string> op_types{"Conv", "MatMul", "Gemm"};
  int threads = 0;  ///< the calibration session's threads (0: every core)
};

/// What `quantize_qdq` did.
struct GE_API QuantizeReport {
  /// A node of a quantizable op type left in f32, and why.
  struct Skipped {
    std::string node;
    std::string op;
    std::string reason;
  };
  /// One quantized activation: its calibrated range and its u8 parameters.
  struct Activation {
    std::string value;
    float min = 0, max = 0;  ///< the range (after the percentile clip), before widening to 0
    float scale = 1;
    std::uint8_t zero_point = 0;
  };
  std::map<std::string, std::size_t, std::less<>> quantized;  ///< op type -> nodes quantized
  std::vector<Skipped> skipped;
  std::vector<Activation> activations;  ///< one per QuantizeLinear/DequantizeLinear pair
  std::size_t weights = 0;              ///< int8 weight tensors written
  std::size_t biases = 0;               ///< int32 bias tensors written
  std::size_t calibration_sets = 0;     ///< sets run
  bool random_calibration = false;      ///< the sets were made by `quantize_qdq`, of `QuantizeOptions::seed`
  std::uint64_t seed = 0;               ///< the random sets' seed
  std::string ranges;                   ///< how ranges were taken: `min-max`, `percentile 99.999 of |x|`

  /// The nodes quantized, over every op type.
  [[nodiscard]] std::size_t quantized_nodes() const noexcept;
  /// A few lines for people: counts per op type, activations, weights, each skip.
  [[nodiscard]] std::string to_string() const;
};

/// The QDQ graph of `f32_model` (see the file comment); `report`, when given, says what
/// was done. A graph with no node to quantize comes back unchanged (no calibration runs).
/// Throws `ge::Error`: `invalid_argument` for a bad option (percentile outside (0, 100],
/// `random_samples` 0, an op type other than Conv, MatMul, Gemm), `bad_tensor` for a
/// calibration set with the wrong count of tensors, a wrong type, dims the input does
/// not allow or no data, `unsupported` for random sets of an input whose type or rank
/// gives none (give calibration sets), and compile's and the session's errors.
[[nodiscard]] GE_API Graph quantize_qdq(const Graph& f32_model, const QuantizeOptions& options = {},
                                        QuantizeReport* report = nullptr);

}  // namespace ge
