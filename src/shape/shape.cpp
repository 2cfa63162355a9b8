#include "ge/shape/shape.hpp"

#include <algorithm>

#include "ge/shape/detail/parse.hpp"

namespace ge {

namespace {
[[noreturn]] void no_rank(const char* what) {
  raise(Errc::unknown_rank, std::string("[ge.shape] ") + what +
                                " of a shape of unknown rank ('-2'); expected a known rank");
}
std::string q(const Shape& s) { return "'" + s.to_string() + "'"; }
}  // namespace

Shape Shape::parse(std::string_view text) {
  std::size_t begin = 0, end = text.size();
  detail::trim(text, begin, end);
  if (begin == end) return Shape{};
  if (text.substr(begin, end - begin) == "-2") return unknown_rank();
  Shape s;
  std::size_t start = begin;
  for (std::size_t i = begin; i <= end; ++i) {
    if (i == end || text[i] == ',') {
      s.dims_.push_back(detail::parse_dim(text, start, i));
      start = i + 1;
    }
  }
  return s;
}

std::size_t Shape::rank() const {
  if (!rank_known_) no_rank("the rank");
  return dims_.size();
}

const Dim& Shape::operator[](std::ptrdiff_t i) const {
  if (!rank_known_) no_rank("a dim");
  const auto n = static_cast<std::ptrdiff_t>(dims_.size());
  const auto j = i < 0 ? i + n : i;
  if (j < 0 || j >= n)
    raise(Errc::index_out_of_range, "[ge.shape] dim index " + std::to_string(i) +
                                        " is outside shape " + q(*this) + " of rank " +
                                        std::to_string(n));
  return dims_[static_cast<std::size_t>(j)];
}

void Shape::set(std::ptrdiff_t i, Dim d) {
  const Dim& slot = (*this)[i];
  const_cast<Dim&>(slot) = d;  // NOLINT: the slot is ours; operator[] only validated it
}

void Shape::push_back(Dim d) {
  if (!rank_known_) no_rank("push_back");
  dims_.push_back(d);
}

bool Shape::is_static() const noexcept {
  return rank_known_ && std::all_of(dims_.begin(), dims_.end(), [](const Dim& d) { return d.is_static(); });
}

bool Shape::is_bounded() const noexcept {
  return rank_known_ && std::all_of(dims_.begin(), dims_.end(), [](const Dim& d) { return d.is_bounded(); });
}

std::string Shape::to_string() const {
  if (!rank_known_) return "-2";
  std::string out;
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ',';
    out += dims_[i].to_string();
  }
  return out;
}

std::vector<std::int64_t> Shape::values() const {
  if (!is_static())
    raise(Errc::not_static, "[ge.shape] shape " + q(*this) +
                                " has no single value; expected fixed dims only");
  std::vector<std::int64_t> out;
  out.reserve(dims_.size());
  for (const Dim& d : dims_) out.push_back(d.lo());
  return out;
}

bool compatible(const Shape& a, const Shape& b) noexcept {
  if (!a.rank_known() || !b.rank_known()) return true;
  if (a.dims().size() != b.dims().size()) return false;
  return std::equal(a.dims().begin(), a.dims().end(), b.dims().begin(),
                    [](const Dim& x, const Dim& y) { return compatible(x, y); });
}

Shape merge(const Shape& a, const Shape& b) {
  if (!a.rank_known()) return b;
  if (!b.rank_known()) return a;
  if (a.dims().size() != b.dims().size())
    raise(Errc::rank_mismatch, "[ge.shape] cannot merge shapes " + q(a) + " and " + q(b) +
                                   ": rank " + std::to_string(a.dims().size()) + " vs " +
                                   std::to_string(b.dims().size()) + "; expected equal ranks");
  std::vector<Dim> out;
  out.reserve(a.dims().size());
  for (std::size_t i = 0; i < a.dims().size(); ++i) {
    if (!compatible(a.dims()[i], b.dims()[i]))
      raise(Errc::incompatible_shapes,
            "[ge.shape] cannot merge shapes " + q(a) + " and " + q(b) + ": dim " +
                std::to_string(i) + " is '" + a.dims()[i].to_string() + "' vs '" +
                b.dims()[i].to_string() + "'; expected dims with a value in common");
    out.push_back(merge(a.dims()[i], b.dims()[i]));
  }
  return Shape(std::move(out));
}

bool relaxes(const Shape& a, const Shape& b) noexcept {
  if (!a.rank_known()) return true;
  if (!b.rank_known()) return false;
  if (a.dims().size() != b.dims().size()) return false;
  return std::equal(a.dims().begin(), a.dims().end(), b.dims().begin(),
                    [](const Dim& x, const Dim& y) { return relaxes(x, y); });
}

bool refines(const Shape& a, const Shape& b) noexcept { return relaxes(b, a); }

Shape broadcast(const Shape& a, const Shape& b) {
  if (!a.rank_known() || !b.rank_known()) return Shape::unknown_rank();
  const auto& x = a.dims();
  const auto& y = b.dims();
  const std::size_t n = std::max(x.size(), y.size());
  std::vector<Dim> out(n);
  for (std::size_t k = 0; k < n; ++k) {  // k counts from the right
    const std::size_t i = n - 1 - k;
    if (k >= x.size()) {
      out[i] = y[y.size() - 1 - k];
    } else if (k >= y.size()) {
      out[i] = x[x.size() - 1 - k];
    } else {
      const Dim& dx = x[x.size() - 1 - k];
      const Dim& dy = y[y.size() - 1 - k];
      try {
        out[i] = broadcast(dx, dy);
      } catch (const Error&) {
        raise(Errc::incompatible_shapes,
              "[ge.shape] cannot broadcast shapes " + q(a) + " and " + q(b) + ": dim " +
                  std::to_string(static_cast<std::ptrdiff_t>(i) - static_cast<std::ptrdiff_t>(n)) +
                  " (from the right) is '" + dx.to_string() + "' vs '" + dy.to_string() +
                  "'; expected equal dims or a 1");
      }
    }
  }
  return Shape(std::move(out));
}

Shape hull(const Shape& a, const Shape& b) {
  if (!a.rank_known() || !b.rank_known() || a.rank() != b.rank()) return Shape::unknown_rank();
  std::vector<Dim> dims;
  dims.reserve(a.rank());
  for (std::size_t i = 0; i < a.rank(); ++i) dims.push_back(hull(a.dims()[i], b.dims()[i]));
  return Shape(std::move(dims));
}

Dim element_count(const Shape& s) {
  if (!s.rank_known()) return Dim::unknown();
  Dim n(1);
  for (const Dim& d : s.dims()) n = n * d;
  return n;
}

Dim byte_size(const Shape& s, DataType t) { return element_count(s) * Dim(size_of(t)); }

Shape upper_bound(const Shape& s) {
  if (!s.rank_known()) no_rank("the upper bound");
  std::vector<Dim> out;
  out.reserve(s.dims().size());
  for (std::size_t i = 0; i < s.dims().size(); ++i) {
    const Dim& d = s.dims()[i];
    if (!d.is_bounded())
      raise(Errc::unbounded, "[ge.shape] shape " + q(s) + " has no upper bound: dim " +
                                 std::to_string(i) + " is '" + d.to_string() +
                                 "'; expected finite ranges");
    out.emplace_back(d.hi());
  }
  return Shape(std::move(out));
}

Shape lower_bound(const Shape& s) {
  if (!s.rank_known()) no_rank("the lower bound");
  std::vector<Dim> out;
  out.reserve(s.dims().size());
  for (const Dim& d : s.dims()) out.emplace_back(d.lo());
  return Shape(std::move(out));
}

}  // namespace ge
