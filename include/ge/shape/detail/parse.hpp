#pragma once
// Private: the dim parser shared by `Dim::parse`, `Shape::parse` and the option parsers,
// which report errors against the whole text they were given.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ge/core/api.hpp"
#include "ge/core/error.hpp"
#include "ge/shape/dim.hpp"

namespace ge::detail {

/// Parses the dim in `text[begin, end)`; errors quote all of `text` and give the
/// 1-based position of the offending character within it.
GE_API Dim parse_dim(std::string_view text, std::size_t begin, std::size_t end);

/// Parses a plain non-negative decimal integer in `text[begin, end)` (no sign, no
/// blanks). Throws `bad_dim_text`/`int_overflow` as `parse_dim` does, with `what` naming
/// the thing parsed (e.g. "dim", "gear value") and `area` the message prefix.
GE_API std::int64_t parse_uint(std::string_view text, std::size_t begin, std::size_t end, std::string_view what,
                               std::string_view area = "ge.shape", Errc bad_text = Errc::bad_dim_text);

/// `[begin, end)` with blanks (space, tab) trimmed from both ends.
GE_API void trim(std::string_view text, std::size_t& begin, std::size_t& end) noexcept;

/// "'<text>' at position <pos+1>"-style context for messages.
GE_API std::string quote_at(std::string_view text, std::size_t pos);

}  // namespace ge::detail
