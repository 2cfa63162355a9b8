// The Einsum equation parser and the fitting of its terms to operand ranks (see
// einsum_equation.hpp for the rules).
#include "einsum_equation.hpp"

#include <algorithm>
#include <array>

namespace ge::ops {

namespace {

int letter_id(char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return 26 + (ch - 'a');
  return -2;
}

char id_letter(int id) { return id < 26 ? static_cast<char>('A' + id) : static_cast<char>('a' + (id - 26)); }

// Parses one term (no commas or arrow in it). Empty string on success.
std::string parse_term(std::string_view term, std::vector<int>& out, bool& has_ellipsis) {
  bool seen = false;
  for (std::size_t i = 0; i < term.size();) {
    const char ch = term[i];
    if (ch == '.') {
      if (term.substr(i, 3) != "...") return "a '.' that is not part of '...' in term '" + std::string(term) + "'";
      if (seen) return "two ellipses in term '" + std::string(term) + "'";
      seen = true;
      out.push_back(kEinsumEllipsis);
      i += 3;
      continue;
    }
    const int id = letter_id(ch);
    if (id < 0) return "character '" + std::string(1, ch) + "' in term '" + std::string(term) + "' is not a letter";
    out.push_back(id);
    ++i;
  }
  has_ellipsis = has_ellipsis || seen;
  return {};
}

// The implicit output: the ellipsis (when any term has one), then the letters used
// exactly once over all inputs, in ASCII order.
std::vector<int> implicit_output(const EinsumEquation& eq) {
  std::array<int, kEinsumLetters> uses{};
  for (const auto& term : eq.inputs)
    for (const int id : term)
      if (id >= 0) ++uses[static_cast<std::size_t>(id)];
  std::vector<int> out;
  if (eq.has_ellipsis) out.push_back(kEinsumEllipsis);
  for (int id = 0; id < kEinsumLetters; ++id)
    if (uses[static_cast<std::size_t>(id)] == 1) out.push_back(id);
  return out;
}

}  // namespace

std::string parse_einsum(std::string_view text, EinsumEquation& eq) {
  eq = {};
  std::string s;
  for (const char ch : text)
    if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') s.push_back(ch);
  if (s.empty()) return "it is empty";
  const std::size_t arrow = s.find("->");
  if (arrow != std::string::npos && s.find("->", arrow + 2) != std::string::npos) return "it has two '->'";
  const std::string lhs = s.substr(0, arrow);
  for (const char ch : lhs)
    if (ch == '-' || ch == '>') return "a stray '" + std::string(1, ch) + "' (the output follows one '->')";
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = lhs.find(',', begin);
    eq.inputs.emplace_back();
    if (std::string why = parse_term(std::string_view(lhs).substr(begin, comma - begin), eq.inputs.back(), eq.has_ellipsis);
        !why.empty())
      return why;
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (arrow == std::string::npos) {
    eq.output = implicit_output(eq);
    return {};
  }
  eq.explicit_output = true;
  const std::string rhs = s.substr(arrow + 2);
  if (rhs.find(',') != std::string::npos) return "the output term '" + rhs + "' holds a ','";
  bool out_ellipsis = false;
  if (std::string why = parse_term(rhs, eq.output, out_ellipsis); !why.empty()) return why;
  std::array<bool, kEinsumLetters> in_inputs{}, in_output{};
  for (const auto& term : eq.inputs)
    for (const int id : term)
      if (id >= 0) in_inputs[static_cast<std::size_t>(id)] = true;
  for (const int id : eq.output) {
    if (id < 0) continue;
    const auto u = static_cast<std::size_t>(id);
    if (in_output[u]) return "label '" + std::string(1, id_letter(id)) + "' appears twice in the output";
    if (!in_inputs[u]) return "output label '" + std::string(1, id_letter(id)) + "' is in no input term";
    in_output[u] = true;
  }
  return {};
}

std::string resolve_einsum(const EinsumEquation& eq, std::span<const std::size_t> ranks, EinsumLabels& out) {
  out = {};
  if (ranks.size() != eq.inputs.size())
    return "it has " + std::to_string(eq.inputs.size()) + " input term(s) but the op has " +
           std::to_string(ranks.size()) + " input(s)";
  // The dims each operand's ellipsis stands for.
  std::vector<std::size_t> extra(ranks.size(), 0);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const auto& term = eq.inputs[i];
    const bool ell = std::find(term.begin(), term.end(), kEinsumEllipsis) != term.end();
    const std::size_t letters = term.size() - (ell ? 1 : 0);
    if (ell ? ranks[i] < letters : ranks[i] != letters)
      return "term " + std::to_string(i) + " has " + std::to_string(letters) + " label(s)" + (ell ? " and '...'" : "") +
             " but input " + std::to_string(i) + " has rank " + std::to_string(ranks[i]);
    extra[i] = ell ? ranks[i] - letters : 0;
    out.ellipsis_rank = std::max(out.ellipsis_rank, extra[i]);
  }
  const auto e = static_cast<int>(out.ellipsis_rank);
  const auto expand = [e](const std::vector<int>& term, std::size_t dims, std::vector<int>& labels) {
    for (const int id : term) {
      if (id != kEinsumEllipsis) {
        labels.push_back(id);
        continue;
      }
      for (int j = e - static_cast<int>(dims); j < e; ++j) labels.push_back(kEinsumLetters + j);
    }
  };
  out.inputs.resize(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) expand(eq.inputs[i], extra[i], out.inputs[i]);
  const bool out_ellipsis = std::find(eq.output.begin(), eq.output.end(), kEinsumEllipsis) != eq.output.end();
  if (e > 0 && !out_ellipsis)
    return "the inputs' '...' stands for " + std::to_string(e) +
           " dim(s) but the output term has no '...' to put them in";
  expand(eq.output, out.ellipsis_rank, out.output);
  return {};
}

std::string einsum_label_text(int label) {
  if (label >= 0 && label < kEinsumLetters) return std::string(1, id_letter(label));
  return "...[" + std::to_string(label - kEinsumLetters) + "]";
}

}  // namespace ge::ops
