#include "ge/options/gear_list.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>

#include "ge/core/error.hpp"
#include "ge/shape/detail/parse.hpp"

namespace ge {

namespace {

struct Span {
  std::size_t begin, end;
};

std::vector<Span> split(std::string_view text, std::size_t begin, std::size_t end, char sep) {
  std::vector<Span> out;
  std::size_t start = begin;
  for (std::size_t i = begin; i <= end; ++i) {
    if (i != end && text[i] != sep) continue;
    out.push_back({start, i});
    start = i + 1;
  }
  return out;
}

std::string label(std::string_view key, std::string_view name) {
  return std::string(key) + " (" + std::string(name) + ")";
}

// One gear value: a decimal integer >= 1.
std::int64_t parse_value(std::string_view text, Span s, const std::string& opt) {
  std::size_t b = s.begin, e = s.end;
  detail::trim(text, b, e);
  const std::string what = opt + " gear value";
  const auto fail = [&](std::size_t pos, const std::string& why) {
    raise(Errc::bad_gear_value, "[ge.options] bad " + what + " in " + detail::quote_at(text, pos) + ": " +
                                    why + "; expected an integer >= 1");
  };
  if (b == e) fail(b, "it is empty");
  const std::string_view tok = text.substr(b, e - b);
  if (tok[0] == '-' || tok[0] == '+') fail(b, "'" + std::string(tok) + "' has a sign");
  const std::int64_t v = detail::parse_uint(text, b, e, what, "ge.options", Errc::bad_gear_value);
  if (v == 0) fail(b, "'" + std::string(tok) + "' is zero");
  // int64's largest value is also Dim::inf (unbounded): as a gear it would make an
  // unbounded "static" dim whose products never overflow.
  if (v == Dim::inf)
    raise(Errc::int_overflow, "[ge.options] bad " + what + " in " + detail::quote_at(text, b) + ": '" +
                                  std::string(tok) + "' is int64's largest value, which ge reads as unbounded; expected "
                                  "an integer >= 1 and below 9223372036854775807");
  return v;
}

void check_count(std::string_view text, std::size_t count, const std::string& opt) {
  if (count < 2)
    raise(Errc::bad_gear_count, "[ge.options] too few gears in " + opt + ": '" + std::string(text) + "' has " +
                                    std::to_string(count) + "; expected at least 2 gears");
}

// Throws duplicate_gear for the first gear (in written order) that repeats an earlier one.
template <class G, class Show>
void check_unique(std::string_view text, const std::vector<G>& gears, const std::string& opt, Show show) {
  std::vector<std::size_t> order(gears.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if constexpr (std::is_same_v<G, ImageGear>)
      return std::pair(gears[a].h, gears[a].w) < std::pair(gears[b].h, gears[b].w);
    else
      return gears[a] < gears[b];
  });
  // The sort is stable, so in each run of equal gears the first two indices are the
  // gear's first use and its first repeat; report the repeat that comes first.
  std::size_t worst = gears.size(), first = 0;
  for (std::size_t k = 1; k < order.size(); ++k) {
    const bool starts_repeat = gears[order[k]] == gears[order[k - 1]] &&
                               (k < 2 || !(gears[order[k - 1]] == gears[order[k - 2]]));
    if (starts_repeat && order[k] < worst) {
      worst = order[k];
      first = order[k - 1];
    }
  }
  if (worst == gears.size()) return;
  raise(Errc::duplicate_gear, "[ge.options] duplicate gear in " + opt + ": '" + std::string(text) + "': gear " +
                                  std::to_string(worst + 1) + " (" + show(gears[worst]) + ") repeats gear " +
                                  std::to_string(first + 1) + "; expected every gear once");
}

std::string join(const std::vector<std::int64_t>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out;
}

bool blank(std::string_view text) {
  std::size_t b = 0, e = text.size();
  detail::trim(text, b, e);
  return b == e;
}

bool blank(std::string_view text, Span s) { return blank(text.substr(s.begin, s.end - s.begin)); }

// The gears of a value: split at `sep`, tolerating one trailing separator (`1,2,4,`).
std::vector<Span> split_gears(std::string_view text, char sep) {
  auto spans = split(text, 0, text.size(), sep);
  if (spans.size() > 1 && blank(text, spans.back())) spans.pop_back();
  return spans;
}

}  // namespace

std::vector<std::int64_t> parse_batch_gears(std::string_view text) {
  const std::string opt = label("ge.dynamicBatchSize", "DYNAMIC_BATCH_SIZE");
  if (blank(text)) check_count(text, 0, opt);
  std::vector<std::int64_t> out;
  for (const Span s : split_gears(text, ',')) out.push_back(parse_value(text, s, opt));
  check_count(text, out.size(), opt);
  check_unique(text, out, opt, [](std::int64_t v) { return std::to_string(v); });
  return out;
}

std::vector<ImageGear> parse_image_gears(std::string_view text) {
  const std::string opt = label("ge.dynamicImageSize", "DYNAMIC_IMAGE_SIZE");
  if (blank(text)) check_count(text, 0, opt);
  std::vector<ImageGear> out;
  for (const Span g : split_gears(text, ';')) {
    const auto parts = split(text, g.begin, g.end, ',');
    if (parts.size() != 2)
      raise(Errc::bad_option_value,
            "[ge.options] bad " + opt + " gear in " + detail::quote_at(text, g.begin) + ": '" +
                std::string(text.substr(g.begin, g.end - g.begin)) + "' has " + std::to_string(parts.size()) +
                (parts.size() == 1 ? " value" : " values") + "; expected h,w per gear, gears separated by ';'");
    out.push_back({parse_value(text, parts[0], opt), parse_value(text, parts[1], opt)});
  }
  check_count(text, out.size(), opt);
  check_unique(text, out, opt,
               [](const ImageGear& g) { return std::to_string(g.h) + "," + std::to_string(g.w); });
  return out;
}

std::vector<std::vector<std::int64_t>> parse_dims_gears(std::string_view text) {
  const std::string opt = label("ge.dynamicDims", "DYNAMIC_DIMS");
  if (blank(text)) check_count(text, 0, opt);
  std::vector<std::vector<std::int64_t>> out;
  for (const Span g : split_gears(text, ';')) {
    std::vector<std::int64_t> gear;
    for (const Span s : split(text, g.begin, g.end, ',')) gear.push_back(parse_value(text, s, opt));
    if (!out.empty() && gear.size() != out.front().size())
      raise(Errc::gear_shape_mismatch,
            "[ge.options] bad " + opt + " gear in " + detail::quote_at(text, g.begin) + ": gear " +
                std::to_string(out.size() + 1) + " '" + join(gear) + "' has " + std::to_string(gear.size()) +
                " dims but gear 1 has " + std::to_string(out.front().size()) +
                "; expected the same number of dims in every gear");
    out.push_back(std::move(gear));
  }
  check_count(text, out.size(), opt);
  check_unique(text, out, opt, join);
  return out;
}

}  // namespace ge
