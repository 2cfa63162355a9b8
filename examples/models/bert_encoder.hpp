#pragma once
/// \file
/// One BERT-style transformer encoder layer (post-norm), built in code with seeded
/// random weights: multi-head self-attention with an attention mask, then a GELU
/// feed-forward block, each with a residual connection and LayerNormalization.
/// Batch and sequence length are dims of the inputs, so both may be ranges:
///
/// ```
/// ge::Graph g = ge::models::bert_encoder("1~8", "1~128");   // output: 1~8,1~128,256
/// ```

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "common.hpp"

namespace ge::models {

/// The sizes of an encoder layer.
struct BertConfig {
  std::int64_t hidden = 256;
  std::int64_t heads = 4;
  std::int64_t ffn = 1024;
};

/// x.matmul(W) + bias with seeded weights named `<name>.weight` and `<name>.bias`.
inline Value dense(GraphBuilder& b, Value x, const std::string& name, std::int64_t in, std::int64_t out, Seeds& seed) {
  const Value w = b.random_weights(name + ".weight", {in, out}, seed());
  const Value bias = b.random_uniform(name + ".bias", {out}, seed(), -0.02, 0.02);
  return x.matmul(w, name) + bias;
}

/// One encoder layer. Inputs: `hidden_states` f32 [batch, seq, hidden] and
/// `attention_mask` i64 [batch, seq] (1: attend, 0: padding). Output [batch, seq, hidden].
inline Graph bert_encoder(std::string_view batch = "-1", std::string_view seq = "-1", BertConfig cfg = {},
                          std::uint64_t seed = 1) {
  GraphBuilder b;
  Seeds seeds{seed};
  const std::int64_t d = cfg.hidden, h = cfg.heads, dh = cfg.hidden / cfg.heads;
  const std::string bs = std::string(batch) + "," + std::string(seq);
  const Value x = b.input("hidden_states", DataType::f32, bs + "," + std::to_string(d));
  const Value mask = b.input("attention_mask", DataType::i64, bs);

  // [B, S, d] -> [B, h, S, dh] (or [B, h, dh, S] for the keys).
  const auto heads = [&](Value v, std::vector<std::int64_t> perm) { return v.reshape({0, 0, h, dh}).transpose(perm); };
  const Value q = heads(dense(b, x, "attention.query", d, d, seeds), {0, 2, 1, 3});
  const Value k = heads(dense(b, x, "attention.key", d, d, seeds), {0, 2, 3, 1});
  const Value v = heads(dense(b, x, "attention.value", d, d, seeds), {0, 2, 1, 3});

  // Padding positions get a large negative score: (1 - mask) * -10000, as [B, 1, 1, S].
  const Value bias = (1.0 - mask.cast(DataType::f32).unsqueeze({1, 2})) * -10000.0;
  const Value scores = q.matmul(k, "attention.scores") * (1.0 / std::sqrt(static_cast<double>(dh))) + bias;
  const Value context = scores.softmax(-1, "attention.softmax")
                            .matmul(v, "attention.context")
                            .transpose({0, 2, 1, 3})
                            .reshape({0, 0, d});
  const Value attn = dense(b, context, "attention.output", d, d, seeds);
  const Value h1 = (x + attn).layer_norm(b.random_uniform("attention.norm.scale", {d}, seeds(), 0.9, 1.1),
                                         b.random_uniform("attention.norm.bias", {d}, seeds(), -0.02, 0.02), -1, 1e-12,
                                         "attention.norm");

  const Value ff = dense(b, dense(b, h1, "ffn.intermediate", d, cfg.ffn, seeds).gelu(), "ffn.output", cfg.ffn, d, seeds);
  const Value out = (h1 + ff).layer_norm(b.random_uniform("output.norm.scale", {d}, seeds(), 0.9, 1.1),
                                         b.random_uniform("output.norm.bias", {d}, seeds(), -0.02, 0.02), -1, 1e-12,
                                         "output.norm");
  b.output(out);
  return b.build();
}

}  // namespace ge::models
