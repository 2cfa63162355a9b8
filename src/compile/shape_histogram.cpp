// ge::parse_shape_histogram: `name:dims[;name:dims...] COUNT` per line (choose_gears.hpp).

#include <charconv>
#include <string>

#include "ge/compile/choose_gears.hpp"
#include "ge/core/error.hpp"

namespace ge {
namespace {

bool blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

[[noreturn]] void bad_line(Errc code, std::size_t line, std::string_view text, const std::string& what) {
  raise(code, "[ge.gears] histogram line " + std::to_string(line) + " '" + std::string(text) + "': " + what);
}

ObservedShapes parse_line(std::string_view text, std::size_t line) {
  // The count is the last blank-separated word; the shapes are the rest.
  std::size_t cut = text.size();
  while (cut > 0 && !blank(text[cut - 1])) --cut;
  const std::string_view count_text = text.substr(cut);
  const std::string_view shapes_text = trim(text.substr(0, cut));
  if (shapes_text.empty())
    bad_line(Errc::invalid_argument, line, text, "expected 'name:dims[;name:dims...] COUNT', e.g. 'input_ids:3,128 120'");
  ObservedShapes out;
  const auto [end, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), out.count);
  if (ec != std::errc() || end != count_text.data() + count_text.size() || out.count < 1)
    bad_line(Errc::invalid_argument, line, text,
             "the count '" + std::string(count_text) + "' is not an integer >= 1; expected 'name:dims COUNT'");
  InputShape shapes;
  try {
    shapes = InputShape::parse(shapes_text);
  } catch (const Error& e) {
    bad_line(e.code(), line, text, e.what());
  }
  if (!shapes.named())
    bad_line(Errc::bad_input_shape, line, text, "the shapes are given by position; expected 'name:dims' for each input");
  for (const InputShapeEntry& e : shapes.entries())
    if (!e.shape.is_static())
      bad_line(Errc::bad_input_shape, line, text,
               "input '" + e.name + "' has dims '" + e.shape.to_string() + "'; expected the fixed dims that were seen");
  out.inputs = shapes.entries();
  return out;
}

}  // namespace

std::vector<ObservedShapes> parse_shape_histogram(std::string_view text) {
  std::vector<ObservedShapes> out;
  std::size_t line = 0;
  while (!text.empty()) {
    ++line;
    const std::size_t nl = text.find('\n');
    const std::string_view row = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (row.empty() || row.front() == '#') continue;
    out.push_back(parse_line(row, line));
  }
  if (out.empty())
    raise(Errc::invalid_argument,
          "[ge.gears] the histogram has no entry; expected lines 'name:dims[;name:dims...] COUNT', e.g. "
          "'input_ids:3,128 120'");
  return out;
}

}  // namespace ge
