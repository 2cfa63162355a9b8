#pragma once
/// \file
/// The recurrent layers RNN, GRU and LSTM (ONNX semantics): forward, reverse or both
/// directions, time-major or batch-major layout, per-entry sequence lengths, initial
/// states, LSTM peepholes, GRU's linear_before_reset, and the gate activations with their
/// alpha/beta parameters.
///
/// f32 runs on the GEMM (recurrent_gemm.cpp): X times W^T of every step and direction is
/// one product of [S*N, I] by the packed [I, D*G*H], then each step multiplies the batch's
/// states [N, H] by R^T (packed once: all gates of a direction in one product; GRU
/// without linear_before_reset in two, the reset gate between them), and the gate math
/// runs as vector passes over each entry's gates. f64 runs the
/// reference: the same recurrence in double, one dot product per gate row.
///
/// ```
/// ge::cpu::RnnParams p;
/// p.cell = ge::cpu::RnnCell::lstm;
/// p.hidden = 3;
/// p.activations = ge::cpu::rnn_activations(p.cell, 1, {}, {}, {});
/// ge::cpu::recurrent(p, inputs, outputs);  // X, W, R, B?, sequence_lens?, initial_h?, initial_c?, P?
/// auto w = ge::cpu::pack_rnn_w(p, inputs[1]);  // constant weights: once, at compile time
/// auto r = ge::cpu::pack_rnn_r(p, inputs[2]);
/// ge::cpu::recurrent(p, inputs, outputs, &w, &r);  // inputs 1 and 2 then never read
/// ```

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernels/cpu/common.hpp"
#include "kernels/cpu/gemm/gemm.hpp"

namespace ge::cpu {

enum class RnnCell : std::uint8_t { rnn, gru, lstm };

/// The activation functions RNN, GRU and LSTM take by name.
enum class RnnFn : std::uint8_t {
  relu, tanh, sigmoid, affine, leaky_relu, thresholded_relu, scaled_tanh, hard_sigmoid, elu, softsign, softplus
};

/// One activation with its parameters (defaults of the ONNX op of that name).
struct RnnActivation {
  RnnFn fn = RnnFn::tanh;
  double alpha = 0;
  double beta = 0;
};

/// What a recurrent layer computes.
struct RnnParams {
  RnnCell cell = RnnCell::rnn;
  std::int64_t hidden = 0;        ///< hidden_size
  int directions = 1;             ///< 2 for bidirectional
  bool reverse = false;           ///< direction "reverse" (one direction)
  bool batch_first = false;       ///< layout 1
  std::optional<double> clip{};   ///< gate inputs clipped to [-clip, clip]
  bool linear_before_reset = false;  ///< GRU
  bool input_forget = false;      ///< LSTM: the forget gate is 1 - the input gate
  std::vector<RnnActivation> activations{};  ///< per direction, `rnn_activation_count(cell)` each
};

/// Activations per direction: RNN 1 (f), GRU 2 (f, g), LSTM 3 (f, g, h).
[[nodiscard]] std::size_t rnn_activation_count(RnnCell cell) noexcept;

/// The function named `name` (ONNX spelling, any case); nullopt when unknown.
[[nodiscard]] std::optional<RnnFn> rnn_fn(std::string_view name);

/// The known activation names, for messages: "Relu, Tanh, ...".
[[nodiscard]] std::string rnn_fn_names();

/// The activations of `directions` directions from the attributes `activations`,
/// `activation_alpha` and `activation_beta` (empty: the defaults). Each function that
/// takes an alpha (beta) consumes the next one in order, or its default when the list is
/// exhausted. One direction's list serves both directions of a bidirectional layer.
/// Raises `Errc::bad_attribute` for an unknown name or a count that fits neither.
[[nodiscard]] std::vector<RnnActivation> rnn_activations(RnnCell cell, int directions,
                                                         const std::vector<std::string>& names,
                                                         const std::vector<double>& alphas,
                                                         const std::vector<double>& betas);

/// The value of an activation at x.
[[nodiscard]] double rnn_apply(const RnnActivation& a, double x) noexcept;

/// Runs the layer. Inputs (f32 or f64): X [S,N,I] ([N,S,I] batch-first), W [D,G*H,I],
/// R [D,G*H,H], B? [D,2*G*H], sequence_lens? (i32 or i64) [N], initial_h? [D,N,H]
/// ([N,D,H] batch-first), and for LSTM initial_c? like initial_h and P? [D,3*H]; an
/// omitted one has dtype undefined. Outputs, each written when given: Y [S,D,N,H]
/// ([N,S,D,H]; zero past an entry's length), Y_h and Y_c [D,N,H] ([N,D,H]). Raises
/// `Errc::type_mismatch`, `Errc::bad_op_inputs` (dims, a length outside [0, S]).
void recurrent(const RnnParams& p, std::span<const TensorView> in, std::span<const TensorView> out);

/// W (f32 [D, G*H, I]) of every direction as one GEMM B of [I, D*G*H]: column d*G*H + j
/// is row j of direction d. Raises `Errc::type_mismatch`, `Errc::bad_op_inputs` (dims
/// that do not fit `p`).
[[nodiscard]] PackedMatMulB pack_rnn_w(const RnnParams& p, const TensorView& w);

/// R (f32 [D, G*H, H]) as GEMM B blocks of H rows, per direction its gates' columns (GRU
/// without linear_before_reset: the update and reset gates, then the hidden gate, two
/// blocks), each block's columns rounded up to whole panels. Same errors as `pack_rnn_w`.
[[nodiscard]] PackedMatMulB pack_rnn_r(const RnnParams& p, const TensorView& r);

/// `recurrent` on f32 with W and R packed by `pack_rnn_w` and `pack_rnn_r` for `p`:
/// inputs 1 and 2 are not read (they may be empty views). Raises as `recurrent`, and
/// `Errc::bad_op_inputs` when X's input size does not fit the packed W.
void recurrent(const RnnParams& p, std::span<const TensorView> in, std::span<const TensorView> out,
               const PackedMatMulB& w, const PackedMatMulB& r);

/// The reference: the recurrence in double, one dot product per gate row (what f64
/// runs; f32 inputs are widened and the outputs rounded). Same operands and errors as
/// `recurrent`.
void recurrent_reference(const RnnParams& p, std::span<const TensorView> in, std::span<const TensorView> out);

}  // namespace ge::cpu
