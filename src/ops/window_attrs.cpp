#include "ops/window_attrs.hpp"

#include <algorithm>
#include <string>

#include "common.hpp"

namespace ge::ops {

namespace {

struct Reader {
  const Attributes& attrs;
  const InferContext* c;

  [[noreturn]] void fail(const std::string& what) const {
    if (c != nullptr) c->fail(Errc::bad_attribute, what);
    raise(Errc::bad_attribute, "[ge.ops] " + what);
  }
  std::vector<std::int64_t> ints(std::string_view name) const {
    const auto it = attrs.find(name);
    return it == attrs.end() || it->second.kind() != AttrKind::integers ? std::vector<std::int64_t>{}
                                                                        : it->second.as_ints();
  }
  // A list of `n` values (or none: `fill` repeated).
  std::vector<std::int64_t> list(std::string_view name, std::size_t n, std::int64_t fill, const char* what) const {
    std::vector<std::int64_t> v = ints(name);
    if (v.empty()) return std::vector<std::int64_t>(n, fill);
    if (v.size() != n)
      fail("attribute '" + std::string(name) + "' is " + ints_text(v) + " with " + std::to_string(v.size()) +
           " values; expected " + std::to_string(n) + " (" + what + ")");
    return v;
  }
};

AutoPad auto_pad_of(const Attributes& attrs) {
  const auto it = attrs.find("auto_pad");
  if (it == attrs.end() || it->second.kind() != AttrKind::string) return AutoPad::notset;
  const std::string& s = it->second.as_string();
  return s == "SAME_UPPER" ? AutoPad::same_upper : s == "SAME_LOWER" ? AutoPad::same_lower
                         : s == "VALID"        ? AutoPad::valid
                                               : AutoPad::notset;
}

}  // namespace

WindowAttrs WindowAttrs::from(const Attributes& attrs, std::size_t n, const InferContext* c) {
  const Reader r{attrs, c};
  WindowAttrs w;
  w.kernel = r.list("kernel_shape", n, 0, "one per spatial dim");
  w.strides = r.list("strides", n, 1, "one per spatial dim");
  w.dilations = r.list("dilations", n, 1, "one per spatial dim");
  w.pads = r.list("pads", 2 * n, 0, "begin and end of each spatial dim");
  w.auto_pad = auto_pad_of(attrs);
  const auto ceil = attrs.find("ceil_mode");
  w.ceil_mode = ceil != attrs.end() && ceil->second.kind() == AttrKind::integer && ceil->second.as_int() != 0;
  if (w.auto_pad != AutoPad::notset && std::any_of(w.pads.begin(), w.pads.end(), [](std::int64_t p) { return p != 0; }))
    r.fail("attribute 'pads' is " + ints_text(w.pads) + " with auto_pad " + attrs.at("auto_pad").as_string() +
           "; expected pads only with auto_pad NOTSET");
  return w;
}

bool WindowAttrs::unit() const noexcept {
  const auto all = [](const std::vector<std::int64_t>& v, std::int64_t x) {
    return std::all_of(v.begin(), v.end(), [x](std::int64_t e) { return e == x; });
  };
  return !same() && all(pads, 0) && all(strides, 1) && all(dilations, 1);
}

WindowAxis WindowAttrs::axis(std::size_t i) const noexcept {
  return {.pad_begin = pads[i], .pad_end = pads[i + rank()], .stride = strides[i], .dilation = dilations[i],
          .same = same(), .ceil_mode = ceil_mode};
}

std::pair<std::int64_t, std::int64_t> WindowAttrs::pads_at(std::size_t i, std::int64_t x, std::int64_t k) const {
  if (same()) return same_pads(x, k, axis(i), auto_pad == AutoPad::same_upper);
  return {pads[i], pads[i + rank()]};
}

}  // namespace ge::ops
