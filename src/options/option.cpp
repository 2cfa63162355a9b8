#include "ge/options/option.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "ge/core/error.hpp"

namespace ge {

namespace {

constexpr std::array<OptionInfo, option_count> table{{
    {Option::input_shape, "ge.inputShape", "INPUT_SHAPE", "input_shape",
     "the shape of each model input: name:dims;... or dims;... by position"},
    {Option::dynamic_batch_size, "ge.dynamicBatchSize", "DYNAMIC_BATCH_SIZE", "dynamic_batch_size",
     "batch-size gears, e.g. 1,2,4,8 (fill the -1 first dims of INPUT_SHAPE)"},
    {Option::dynamic_image_size, "ge.dynamicImageSize", "DYNAMIC_IMAGE_SIZE", "dynamic_image_size",
     "image-resolution gears h,w;h,w (fill the -1 H and W of INPUT_SHAPE)"},
    {Option::dynamic_dims, "ge.dynamicDims", "DYNAMIC_DIMS", "dynamic_dims",
     "gears for arbitrary dims d,d;d,d (fill the -1s of INPUT_SHAPE in order; ND)"},
    {Option::input_format, "ge.inputFormat", "INPUT_FORMAT", "input_format",
     "NCHW, NHWC or ND: says which dims are H and W"},
    {Option::ac_parallel_enable, "ac_parallel_enable", "AC_PARALLEL_ENABLE", "ac_parallel_enable",
     "1: host-engine ops run in parallel with vector-engine ops; 0 (default): not"},
    {Option::compile_hybrid_mode, "ge.compileHybridMode", "COMPILE_HYBRID_MODE", "compile_hybrid_mode",
     "1: with a DYNAMIC_* option, also a range plan that serves inputs matching no gear; 0 (default): not"},
    {Option::dynamic_node_type, "ge.dynamicNodeType", "DYNAMIC_NODE_TYPE", "dynamic_node_type",
     "GE's input kind with gears: 1 placeholder (what ge has), 0 dataset; accepted for GE's option sets"},
}};

// Lower-case letters and digits only: `ge.inputShape` and `--input-shape` both fold to
// letters that differ only where the words do.
std::string fold(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    if (c == '.' || c == '_' || c == '-') continue;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

std::size_t osa_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  // Three rows suffice for the optimal-string-alignment recurrence.
  std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

bool is_upper_case(std::string_view s) {
  bool upper = false;
  for (const char c : s) {
    if (c >= 'a' && c <= 'z') return false;
    if (c >= 'A' && c <= 'Z') upper = true;
  }
  return upper;
}

}  // namespace

std::span<const OptionInfo> options_table() noexcept { return table; }

const OptionInfo& option_info(Option id) noexcept { return table[static_cast<std::size_t>(id)]; }

const OptionInfo* lookup_option(std::string_view text) noexcept {
  for (const OptionInfo& o : table)
    if (o.key == text || o.name == text || o.flag == text) return &o;  // flag: ge::ir_option's spelling
  return nullptr;
}

std::size_t spelling_distance(std::string_view a, std::string_view b) noexcept {
  try {
    return osa_distance(fold(a), fold(b));
  } catch (...) {  // only std::bad_alloc; "far apart" is a safe answer
    return static_cast<std::size_t>(-1);
  }
}

std::optional<std::string_view> closest_spelling(std::string_view text,
                                                 std::span<const std::string_view> candidates,
                                                 std::size_t max_distance) noexcept {
  std::optional<std::string_view> best;
  std::size_t best_d = max_distance + 1;
  // A word so short that every candidate is "near" it suggests nothing useful.
  const std::size_t folded = fold(text).size();
  for (const std::string_view c : candidates) {
    const std::size_t d = spelling_distance(text, c);
    if (d < best_d && d < std::max<std::size_t>(folded, 1)) {
      best = c;
      best_d = d;
    }
  }
  return best;
}

const OptionInfo* nearest_option(std::string_view text) noexcept {
  std::array<std::string_view, option_count * 2> spellings{};
  for (std::size_t i = 0; i < option_count; ++i) {
    spellings[2 * i] = table[i].key;
    spellings[2 * i + 1] = table[i].name;  // folds like the flag: INPUT_SHAPE ~ input_shape
  }
  const auto best = closest_spelling(text, spellings);
  if (!best) return nullptr;
  for (const OptionInfo& o : table)
    if (o.key == *best || o.name == *best) return &o;
  return nullptr;
}

const OptionInfo& find_option(std::string_view text) {
  if (const OptionInfo* o = lookup_option(text)) return *o;
  std::string msg = "[ge.options] unknown option: '" + std::string(text) + "'; ";
  if (const OptionInfo* near = nearest_option(text))
    msg += "did you mean '" + std::string(is_upper_case(text) ? near->name : near->key) + "'? ";
  msg += "expected one of";
  for (const OptionInfo& o : table) msg += " " + std::string(o.key) + " (" + std::string(o.name) + "),";
  msg.pop_back();
  raise(Errc::unknown_option, msg);
}

}  // namespace ge
