#include "ge/options/build_options.hpp"

#include <array>

#include "ge/core/error.hpp"
#include "ge/options/dynamic_config.hpp"
#include "ge/shape/detail/parse.hpp"

namespace ge {

namespace {

std::string_view trimmed(std::string_view text) {
  std::size_t b = 0, e = text.size();
  detail::trim(text, b, e);
  return text.substr(b, e - b);
}

Format parse_input_format(std::string_view text) {
  const std::string_view t = trimmed(text);
  if (const auto f = parse_format(t); f && *f != Format::undefined) return *f;
  static constexpr std::array<std::string_view, 3> names{"NCHW", "NHWC", "ND"};
  std::string msg = "[ge.options] bad ge.inputFormat (INPUT_FORMAT): '" + std::string(text) + "'; ";
  if (const auto near = closest_spelling(t, names, 1)) msg += "did you mean '" + std::string(*near) + "'? ";
  raise(Errc::bad_input_format, msg + "expected NCHW, NHWC or ND (upper case)");
}

bool parse_parallel_flag(std::string_view text) {
  const std::string_view t = trimmed(text);
  if (t == "1") return true;
  if (t == "0") return false;
  raise(Errc::bad_parallel_flag, "[ge.options] bad ac_parallel_enable (AC_PARALLEL_ENABLE): '" +
                                     std::string(text) + "'; expected 0 or 1");
}

// A 0-or-1 option other than AC_PARALLEL_ENABLE.
bool parse_switch(Option o, std::string_view text) {
  const std::string_view t = trimmed(text);
  if (t == "1") return true;
  if (t == "0") return false;
  const OptionInfo& info = option_info(o);
  raise(Errc::bad_option_value, "[ge.options] bad " + std::string(info.key) + " (" + std::string(info.name) + "): '" +
                                    std::string(text) + "'; expected 0 or 1");
}

}  // namespace

BuildOptions::BuildOptions(std::initializer_list<std::pair<std::string_view, std::string_view>> items) {
  for (const auto& [key, value] : items) set(key, value);
}

BuildOptions& BuildOptions::set(std::string_view key, std::string_view value) {
  return set(find_option(key).id, value);
}

BuildOptions& BuildOptions::set(Option option, std::string_view value) {
  // Everything that can throw happens before the first member changes; the moves below
  // do not throw, so a failed set leaves the options as they were.
  std::string text(value);
  switch (option) {
    case Option::input_shape: {
      InputShape v = InputShape::parse(value);
      input_shape_ = std::move(v);
      break;
    }
    case Option::dynamic_batch_size: {
      std::vector<std::int64_t> v = parse_batch_gears(value);
      batch_ = std::move(v);
      break;
    }
    case Option::dynamic_image_size: {
      std::vector<ImageGear> v = parse_image_gears(value);
      image_ = std::move(v);
      break;
    }
    case Option::dynamic_dims: {
      std::vector<std::vector<std::int64_t>> v = parse_dims_gears(value);
      dims_ = std::move(v);
      break;
    }
    case Option::input_format: format_ = parse_input_format(value); break;
    case Option::ac_parallel_enable: ac_parallel_ = parse_parallel_flag(value); break;
    case Option::compile_hybrid_mode: hybrid_ = parse_switch(option, value); break;
    case Option::dynamic_node_type: node_type_ = parse_switch(option, value) ? 1 : 0; break;
  }
  texts_[static_cast<std::size_t>(option)] = std::move(text);
  return *this;
}

bool BuildOptions::unset(Option option) noexcept {
  auto& slot = texts_[static_cast<std::size_t>(option)];
  if (!slot) return false;
  slot.reset();
  switch (option) {
    case Option::input_shape: input_shape_.reset(); break;
    case Option::dynamic_batch_size: batch_.reset(); break;
    case Option::dynamic_image_size: image_.reset(); break;
    case Option::dynamic_dims: dims_.reset(); break;
    case Option::input_format: format_.reset(); break;
    case Option::ac_parallel_enable: ac_parallel_.reset(); break;
    case Option::compile_hybrid_mode: hybrid_.reset(); break;
    case Option::dynamic_node_type: node_type_.reset(); break;
  }
  return true;
}

bool BuildOptions::contains(Option option) const noexcept {
  return texts_[static_cast<std::size_t>(option)].has_value();
}

std::optional<std::string_view> BuildOptions::text(Option option) const noexcept {
  const auto& slot = texts_[static_cast<std::size_t>(option)];
  if (!slot) return std::nullopt;
  return std::string_view(*slot);
}

bool BuildOptions::empty() const noexcept {
  for (const auto& t : texts_)
    if (t) return false;
  return true;
}

std::vector<std::pair<std::string_view, std::string_view>> BuildOptions::items() const {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const OptionInfo& o : options_table())
    if (const auto t = text(o.id)) out.emplace_back(o.key, *t);
  return out;
}

void BuildOptions::validate(const Target& target) const { (void)parse_dynamic_config(*this, target); }

}  // namespace ge
