#pragma once
/// \file
/// `ge::onnx`: reads ONNX models (opsets 11 to 20 of the default domain; older opsets
/// through onnx's version converter) into a `ge::Graph`, and writes a `ge::Graph` as an ONNX model. Built when the library is
/// configured with `GE_WITH_ONNX`, as the target `ge::onnx` (linking it defines the macro
/// `GE_WITH_ONNX` as 1; docs/embedding.md); this header does not include protobuf.
///
/// ```
/// ge::Graph g = ge::onnx::load("resnet50.onnx");
/// auto model = ge::compile(g, {{"ge.inputShape", "data:-1,3,224,224"}});
/// ge::onnx::save(g, "copy.onnx");   // for other runtimes (ONNX Runtime, ...)
/// ```
///
/// What the importer does:
/// - a model of an opset below 11 is first converted to opset 11 by onnx's version
///   converter (libonnx, after onnx's shape inference, which some of its adapters need);
/// - initializers and `Constant` nodes become constants (raw data, the typed fields, or
///   external data files relative to the model's directory, with offset and length);
///   graph inputs that are initializers are constants, not inputs;
/// - graph inputs keep their names and order; a `dim_value` is a fixed dim, a
///   `dim_param` or a missing value an unknown dim (`-1`), a missing shape unknown rank;
/// - each node maps to the op schema of the same name whose origin (`OpOrigin`) is its
///   domain (a user op that declares none: the default domain; ge's own ops, such as
///   `FusedConv`, never); attributes convert to `ge::Attribute`s; inputs that older
///   opsets passed as attributes (Squeeze and Unsqueeze axes, Split split before opset
///   13) become constant inputs; Cast's `to` its
///   type name; Softmax and LogSoftmax before opset 13 (which flatten to 2-D) keep
///   their meaning; from opset 18, the Reduce ops' `axes` input and Split's
///   `num_outputs` map as they are (the schemas take both spellings), Pad's `axes`
///   input (constant, with constant pads) becomes pads for every axis, Resize's
///   `antialias`=0 and `keep_aspect_ratio_policy`=stretch and Cast's `saturate` (float 8
///   only) are dropped; other new attributes and values are refused naming the opset;
/// - node outputs are declared with the schema's inferred descriptions, node by node in
///   an order where producers come first.
///
/// Errors, each a `ge::Error`:
/// - `bad_model`: bytes that are not a model, truncated data, a missing graph, data shorter
///   or longer than its shape, negative or overflowing dims, tensors over
///   `LoadOptions::max_tensor_bytes`, external data outside the model's directory,
///   names read but never produced, values produced twice, cycles (naming the nodes);
/// - `unsupported_op`: an opset above 20, an older one the version converter cannot bring
///   to 11 (with its reason, which names the op), or ONE error listing every op,
///   domain, attribute and data type of the model this build lacks (each with the first
///   node or value that uses it);
/// - the graph's and the schemas' own codes (`bad_op_inputs`, `bad_attribute`, ...) for a
///   node that breaks its op's rules, naming the node.
///
/// What the exporter writes (`save`, `save_bytes`): the default domain at the lowest of
/// opsets 13, 17 and 20 that has every op and attribute used (`save_opset`); graph inputs
/// in order with their element type and dims (a fixed dim as `dim_value`, a range or
/// unknown dim as `dim_param` `<input>_d<i>`, the ge shape text in the input's
/// `doc_string`; unknown rank: no shape); constants as initializers with raw data; the
/// nodes in topological order with their attributes (floats narrowed to ONNX's float32;
/// Cast's `to` as the ONNX type number; Reduce axes as the opset wants them); outputs
/// with their inferred types and dims. Which ops are ONNX ops, of which domain (the
/// training domain's optimizers are written in it), from which opset: their schemas'
/// `OpOrigin`. Refused with `unsupported_op`, listing each op type with its first node:
/// ops that are not ONNX ops, such as `FusedConv`, which the optimizer makes (save the
/// graph before `ge::compile`), and user ops that declare no ONNX origin.
/// A model over 2 GiB (protobuf's limit) is `unsupported`; a file that cannot be
/// written `invalid_argument`.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/graph/graph.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge::onnx {

/// The opsets of the default domain (`""` or `ai.onnx`) the importer reads; older ones
/// are converted to `min_opset` first.
inline constexpr std::int64_t min_opset = 11;
inline constexpr std::int64_t max_opset = 20;

/// Limits of a load.
struct LoadOptions {
  /// The most bytes one tensor (initializer, constant, external data) may declare.
  std::int64_t max_tensor_bytes = std::int64_t{4} << 30;
};

/// Reads the model file at `path`; external data is read relative to its directory.
/// The file is parsed as a stream and each tensor's data leaves the parsed message once
/// converted, so the weights are in memory about once, not three times.
[[nodiscard]] GE_API Graph load(const std::filesystem::path& path, const LoadOptions& options = {});
/// Reads a serialized model; `base_dir` is the directory of external data files (empty:
/// a model with external data is refused).
[[nodiscard]] GE_API Graph load_bytes(std::span<const std::byte> bytes, const std::filesystem::path& base_dir = {},
                                      const LoadOptions& options = {});

/// Reads a file holding one serialized ONNX TensorProto (as test data sets store inputs
/// and outputs). Same rules and errors as initializers.
[[nodiscard]] GE_API Tensor load_tensor(const std::filesystem::path& path, const LoadOptions& options = {});
/// Reads one serialized ONNX TensorProto.
[[nodiscard]] GE_API Tensor load_tensor_bytes(std::span<const std::byte> bytes,
                                              const std::filesystem::path& base_dir = {},
                                              const LoadOptions& options = {});

/// The opset of the default domain that `save` writes for `graph`: 13, 17
/// (LayerNormalization, HardSwish, Shape's start/end, Reshape's allowzero) or 20 (Gelu,
/// Split's num_outputs, ReduceMean/ReduceMax axes given as a tensor).
/// Throws `unsupported_op` as `save` does.
[[nodiscard]] GE_API std::int64_t save_opset(const Graph& graph);
/// The graph as a serialized ONNX ModelProto (see the file comment).
///
/// ```
/// auto bytes = ge::onnx::save_bytes(g);
/// ge::Graph back = ge::onnx::load_bytes(bytes);   // the same graph
/// ```
[[nodiscard]] GE_API std::vector<std::byte> save_bytes(const Graph& graph);
/// Writes the graph as an ONNX model file at `path` (replacing it). Throws as
/// `save_bytes`, and `invalid_argument` naming the path when it cannot be written.
GE_API void save(const Graph& graph, const std::filesystem::path& path);

}  // namespace ge::onnx
