#include "ge/options/input_shape.hpp"

#include <algorithm>

#include "ge/core/error.hpp"
#include "ge/shape/detail/parse.hpp"

namespace ge {

namespace {

constexpr std::string_view opt = "ge.inputShape (INPUT_SHAPE)";
constexpr std::string_view expected = "; expected name:dims;name:dims or dims;dims by position";

[[noreturn]] void fail(Errc code, std::string_view text, std::size_t pos, const std::string& why) {
  raise(code, "[ge.options] bad " + std::string(opt) + " " + detail::quote_at(text, pos) + ": " + why +
                  std::string(expected));
}

// Parses the dims in text[begin, end), reporting errors against the whole text.
Shape parse_entry_shape(std::string_view text, std::size_t begin, std::size_t end) {
  detail::trim(text, begin, end);
  if (begin == end) return Shape{};
  if (text.substr(begin, end - begin) == "-2")
    fail(Errc::bad_input_shape, text, begin,
         "unknown rank '-2' is not accepted here; give the rank, with -1 for each unknown dim");
  std::vector<Dim> dims;
  std::size_t start = begin;
  for (std::size_t i = begin; i <= end; ++i) {
    if (i != end && text[i] != ',') continue;
    Dim d;
    try {
      d = detail::parse_dim(text, start, i);
    } catch (const Error& e) {
      // Same code and detail, but said of the option.
      std::string_view inner = e.what();
      constexpr std::string_view shape_prefix = "[ge.shape] ";
      if (inner.substr(0, shape_prefix.size()) == shape_prefix) inner.remove_prefix(shape_prefix.size());
      raise(e.code(), "[ge.options] " + std::string(opt) + ": " + std::string(inner));
    }
    // int64's largest value is also Dim::inf: written as a number it would make a
    // "fixed" dim that is unbounded (its products never overflow). `inf` says unbounded.
    if (d.lo() == Dim::inf || (d.hi() == Dim::inf && d.kind() != Dim::Kind::unknown &&
                               text.substr(start, i - start).find("inf") == std::string_view::npos))
      raise(Errc::int_overflow, "[ge.options] " + std::string(opt) + ": dim " + detail::quote_at(text, start) +
                                    " holds 9223372036854775807, int64's largest value, which ge reads as unbounded; "
                                    "expected a dim below it (write 'inf' for an unbounded range end)");
    dims.push_back(d);
    start = i + 1;
  }
  return Shape(std::move(dims));
}

}  // namespace

InputShape InputShape::parse(std::string_view text) {
  std::size_t tb = 0, te = text.size();
  detail::trim(text, tb, te);
  if (tb == te) fail(Errc::bad_input_shape, text, 0, "it is empty");
  if (text[te - 1] == ';') fail(Errc::bad_input_shape, text, te - 1, "a trailing ';' ends it");
  InputShape out;
  bool first = true;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i != text.size() && text[i] != ';') continue;
    const std::size_t b = start, e = i;
    start = i + 1;
    const std::string_view entry = text.substr(b, e - b);
    const auto colon = entry.rfind(':');
    const bool named = colon != std::string_view::npos;
    if (first) {
      out.named_ = named;
      first = false;
    } else if (named != out.named_) {
      fail(Errc::mixed_input_forms, text, b,
           "entry '" + std::string(entry) + "' is " + (named ? "named" : "positional") +
               " but the first entry is " + (out.named_ ? "named" : "positional") +
               "; name every input or none");
    }
    InputShapeEntry item;
    std::size_t db = b;
    if (named) {
      std::size_t nb = b, ne = b + colon;
      detail::trim(text, nb, ne);
      if (nb == ne) fail(Errc::bad_input_shape, text, b + colon, "an input name is empty");
      item.name = std::string(text.substr(nb, ne - nb));
      const auto bad = item.name.find_first_of(",~");
      if (bad != std::string::npos)
        fail(Errc::bad_input_shape, text, nb + bad,
             "input name '" + item.name + "' holds '" + item.name[bad] +
                 "' (a missing ';' between inputs?)");
      if (out.find(item.name) != nullptr)
        fail(Errc::duplicate_input, text, nb, "input '" + item.name + "' is given twice");
      db = b + colon + 1;
    }
    item.shape = parse_entry_shape(text, db, e);
    out.entries_.push_back(std::move(item));
  }
  return out;
}

const InputShapeEntry* InputShape::find(std::string_view name) const noexcept {
  if (!named_) return nullptr;
  for (const InputShapeEntry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

std::size_t InputShape::unknown_dim_count() const noexcept {
  std::size_t n = 0;
  for (const InputShapeEntry& e : entries_)
    n += static_cast<std::size_t>(std::count_if(e.shape.dims().begin(), e.shape.dims().end(),
                                                [](const Dim& d) { return d.is_unknown(); }));
  return n;
}

bool InputShape::has_range() const noexcept {
  return std::any_of(entries_.begin(), entries_.end(), [](const InputShapeEntry& e) {
    return std::any_of(e.shape.dims().begin(), e.shape.dims().end(), [](const Dim& d) { return d.is_range(); });
  });
}

std::string InputShape::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (i) out += ';';
    if (named_) out += entries_[i].name + ':';
    out += entries_[i].shape.to_string();
  }
  return out;
}

}  // namespace ge
