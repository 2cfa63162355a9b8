#include "ge/tensor/attribute.hpp"

#include <cstdio>

namespace ge {

std::string_view to_string(AttrKind k) noexcept {
  switch (k) {
    case AttrKind::integer: return "int";
    case AttrKind::floating: return "float";
    case AttrKind::string: return "string";
    case AttrKind::boolean: return "bool";
    case AttrKind::integers: return "ints";
    case AttrKind::floats: return "floats";
    case AttrKind::strings: return "strings";
    case AttrKind::booleans: return "bools";
    case AttrKind::tensor: return "tensor";
    case AttrKind::graph: return "graph";
  }
  return "unknown";
}

namespace {
template <class T>
const T& get(const Attribute::Variant& v, AttrKind want) {
  if (const T* p = std::get_if<T>(&v)) return *p;
  raise(Errc::bad_attribute, "[ge.graph] attribute of kind '" +
                                 std::string(to_string(static_cast<AttrKind>(v.index()))) +
                                 "' read as '" + std::string(to_string(want)) + "'; expected a " +
                                 std::string(to_string(want)));
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

template <class T, class F>
std::string list(const std::vector<T>& v, F f) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + f(v[i]);
  return s + "]";
}
}  // namespace

std::int64_t Attribute::as_int() const { return get<std::int64_t>(v_, AttrKind::integer); }
double Attribute::as_float() const {
  if (const auto* p = std::get_if<std::int64_t>(&v_)) return static_cast<double>(*p);
  return get<double>(v_, AttrKind::floating);
}
const std::string& Attribute::as_string() const { return get<std::string>(v_, AttrKind::string); }
bool Attribute::as_bool() const { return get<bool>(v_, AttrKind::boolean); }
const std::vector<std::int64_t>& Attribute::as_ints() const {
  return get<std::vector<std::int64_t>>(v_, AttrKind::integers);
}
const std::vector<double>& Attribute::as_floats() const { return get<std::vector<double>>(v_, AttrKind::floats); }
const std::vector<std::string>& Attribute::as_strings() const {
  return get<std::vector<std::string>>(v_, AttrKind::strings);
}
const std::vector<bool>& Attribute::as_bools() const { return get<std::vector<bool>>(v_, AttrKind::booleans); }
const Tensor& Attribute::as_tensor() const { return get<Tensor>(v_, AttrKind::tensor); }
const GraphRef& Attribute::graph_ref() const { return get<GraphRef>(v_, AttrKind::graph); }
const Graph& Attribute::as_graph() const { return *graph_ref(); }

Attribute::Attribute(GraphRef v) : v_(std::move(v)) {
  if (!std::get<GraphRef>(v_)) raise(Errc::invalid_argument, "[ge.graph] a graph attribute needs a graph; got null");
}

std::string Attribute::to_string() const {
  switch (kind()) {
    case AttrKind::integer: return std::to_string(as_int());
    case AttrKind::floating: return number(as_float());
    case AttrKind::string: return "\"" + as_string() + "\"";
    case AttrKind::boolean: return as_bool() ? "true" : "false";
    case AttrKind::integers: return list(as_ints(), [](std::int64_t x) { return std::to_string(x); });
    case AttrKind::floats: return list(as_floats(), number);
    case AttrKind::strings: return list(as_strings(), [](const std::string& x) { return "\"" + x + "\""; });
    case AttrKind::booleans: {
      std::string s = "[";
      const auto& v = as_bools();
      for (std::size_t i = 0; i < v.size(); ++i) s += std::string(i ? "," : "") + (v[i] ? "true" : "false");
      return s + "]";
    }
    case AttrKind::tensor: return "tensor " + ge::to_string(as_tensor().desc());
    case AttrKind::graph: return "graph";
  }
  return "?";
}

}  // namespace ge
