// libFuzzer target for the options layer: option parsing, cross-option validation, gear
// enumeration, the "did you mean" lookup, and gec's JSON string escaping.
//
// Input: lines separated by '\n'.
//   line 0      a target name (unknown names fall back to the default target)
//   lines 1..6  the values of the options in `ge::Option` order; a line "!" leaves one unset
//   line 7      a word for ge::find_option (the misspelt-key path)
//   line 8      the model's inputs, written as INPUT_SHAPE text (named), for the model checks
// Any ge::Error is an accepted outcome; a crash, a sanitizer report or a broken invariant
// (checked below, __builtin_trap) is a finding.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ge/options.hpp"
#include "json.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

bool valid_utf8_without_controls(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20) return false;
    std::size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (c >= 0x80 && c < 0xC2) return false;
    if (i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

void fuzz_one(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '\n') {
      lines.push_back(text.substr(start, i - start));
      start = i + 1;
    }

  const ge::Target* target = &ge::default_target();
  for (const ge::Target& t : ge::targets())
    if (!lines.empty() && t.name == lines[0]) target = &t;

  ge::BuildOptions options;
  for (std::size_t k = 0; k < ge::option_count && k + 1 < lines.size(); ++k) {
    const std::string_view value = lines[k + 1];
    if (value == "!") continue;
    const auto id = static_cast<ge::Option>(k);
    const ge::BuildOptions before = options;
    try {
      options.set(id, value);
      check(options.text(id) == value);
      if (id == ge::Option::input_shape) {
        // The text form parses back to an equal value.
        const auto& s = *options.input_shape();
        check(ge::InputShape::parse(s.to_string()) == s);
      }
    } catch (const ge::Error&) {
      check(options == before);  // nothing half-applied
    }
  }

  if (lines.size() > 7) {
    try {
      const ge::OptionInfo& o = ge::find_option(lines[7]);
      check(o.key == lines[7] || o.name == lines[7] || o.flag == lines[7]);  // the flag: ge::ir_option's spelling
    } catch (const ge::Error& e) {
      check(e.code() == ge::Errc::unknown_option);
    }
  }

  std::vector<ge::ModelInput> model;
  bool with_model = false;
  if (lines.size() > 8) {
    try {
      const auto m = ge::InputShape::parse(lines[8]);
      for (const auto& e : m.entries()) model.push_back({e.name, e.shape});
      with_model = true;
    } catch (const ge::Error&) {
    }
  }

  const ge::BuildOptions before = options;
  try {
    const ge::DynamicConfig cfg = with_model ? ge::parse_dynamic_config(options, *target, model)
                                             : ge::parse_dynamic_config(options, *target);
    const auto gears = ge::enumerate_gears(cfg);
    if (cfg.mode == ge::ShapeMode::gears) {
      check(gears.size() == cfg.gears.size());
      check(gears.size() >= 2 && gears.size() <= target->max_gears);
      for (const ge::Gear& g : gears) {
        check(g.shapes.size() == cfg.input_shape.entries().size());
        for (const ge::Shape& s : g.shapes) check(s.is_static());
      }
    } else {
      check(gears.empty());
      if (cfg.mode == ge::ShapeMode::ranges) check(target->supports_ranges);
    }
    for (const std::string& w : cfg.warnings) check(!w.empty());
  } catch (const ge::Error&) {
  }
  check(options == before);  // validation never mutates

  const std::string quoted = gec::JsonWriter::quote(text);
  check(quoted.size() >= 2 && quoted.front() == '"' && quoted.back() == '"');
  check(valid_utf8_without_controls(quoted));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_one(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
