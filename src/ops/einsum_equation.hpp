#pragma once
// Private to the library: the Einsum equation (`"bij,bjk->bik"`, `"...ij,...jk"`), parsed
// once and shared by the schema's shape inference (src/ops/einsum.cpp) and the CPU
// lowering (src/compile/cpu/einsum.cpp), so both read an equation the same way.
//
// Rules (numpy's): labels are ASCII letters; each term may hold one ellipsis `...`
// standing for the dims its operand has beyond its letters, the ellipses of all operands
// broadcast together (right-aligned); blanks are ignored. With `->` the output is the
// labels listed, each at most once and each found in an input; without it the output is
// the ellipsis dims, then the labels used exactly once, in ASCII order. A label repeated
// within one term takes that operand's diagonal; labels not in the output are summed.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ge::ops {

/// A letter's label id: 'A'..'Z' are 0..25 and 'a'..'z' 26..51 (so ids sort like ASCII).
inline constexpr int kEinsumLetters = 52;
/// The token of an ellipsis in a parsed term.
inline constexpr int kEinsumEllipsis = -1;

/// A parsed equation: per term, letter ids with `kEinsumEllipsis` where `...` stands.
struct EinsumEquation {
  std::vector<std::vector<int>> inputs;  ///< one term per operand
  std::vector<int> output;               ///< the output term (made from the inputs when implicit)
  bool explicit_output = false;          ///< written with `->`
  bool has_ellipsis = false;             ///< some term holds `...`
};

/// Parses `text` into `eq`. Returns an empty string on success, else why it does not
/// parse (without the equation, which callers name in their message).
[[nodiscard]] std::string parse_einsum(std::string_view text, EinsumEquation& eq);

/// Labels per dim once the operand ranks are known: letters keep their ids, the ellipsis
/// dims get `kEinsumLetters + j` for j in [0, ellipsis_rank), right-aligned per operand.
struct EinsumLabels {
  std::vector<std::vector<int>> inputs;  ///< one label per dim of each operand
  std::vector<int> output;               ///< one label per output dim
  std::size_t ellipsis_rank = 0;         ///< dims the ellipsis stands for (the broadcast of all)
};

/// Fits `eq` to operands of `ranks`. Returns an empty string on success, else why not
/// (term count or a term's labels against its operand's rank).
[[nodiscard]] std::string resolve_einsum(const EinsumEquation& eq, std::span<const std::size_t> ranks,
                                         EinsumLabels& out);

/// A label as text: its letter, or `...[j]` for an ellipsis dim.
[[nodiscard]] std::string einsum_label_text(int label);

}  // namespace ge::ops
