// Message pieces (include/ge/core/text.hpp).
#include "ge/core/text.hpp"

namespace ge {

std::string quoted(std::string_view s) {
  std::string r;
  r.reserve(s.size() + 2);
  r += '\'';
  r += s;
  r += '\'';
  return r;
}

std::string dims_text(std::span<const std::int64_t> dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) s += ',';
    s += std::to_string(dims[i]);
  }
  return s;
}

}  // namespace ge
