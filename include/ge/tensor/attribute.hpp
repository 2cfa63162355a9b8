#pragma once
/// \file
/// `ge::Attribute`: a typed node attribute (int, float, string, bool, lists of them, a
/// tensor, or a graph: the branches of If, the bodies of Loop and Scan), and
/// `ge::Attributes`, a node's attributes by name.
///
/// Integers convert to int, floating values to float, `{1, 2}` to a list of ints:
///
/// ```
/// ge::Attributes a{{"group", 32}, {"epsilon", 1e-5}, {"auto_pad", "SAME_UPPER"},
///                  {"kernel_shape", {3, 3}}, {"scales", std::vector<double>{1, 1, 2, 2}}};
/// std::int64_t g = a.at("group").as_int();
/// ```

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "ge/core/api.hpp"
#include "ge/tensor/tensor.hpp"

namespace ge {

class Graph;  // ge/graph/graph.hpp: a graph-valued attribute holds one, shared and immutable

/// A graph held by an attribute (If's `then_branch`, Loop's `body`).
using GraphRef = std::shared_ptr<const Graph>;

/// The kind of an attribute's value.
enum class AttrKind : std::uint8_t {
  integer, floating, string, boolean, integers, floats, strings, booleans, tensor, graph
};

/// The name of a kind: `int`, `float`, `string`, `bool`, `ints`, `floats`, `strings`,
/// `bools`, `tensor`, `graph`.
[[nodiscard]] GE_API std::string_view to_string(AttrKind k) noexcept;

/// One attribute value.
class GE_API Attribute {
 public:
  /// The stored alternatives, in `AttrKind` order.
  using Variant = std::variant<std::int64_t, double, std::string, bool, std::vector<std::int64_t>,
                               std::vector<double>, std::vector<std::string>, std::vector<bool>, Tensor, GraphRef>;

  /// The int 0.
  Attribute() = default;
  /// An int (any integer type but bool).
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  Attribute(I v) : v_(static_cast<std::int64_t>(v)) {}  // NOLINT: attributes read as values
  /// A float.
  template <class F>
    requires std::is_floating_point_v<F>
  Attribute(F v) : v_(static_cast<double>(v)) {}  // NOLINT
  /// A bool.
  Attribute(bool v) : v_(v) {}  // NOLINT
  /// A string.
  Attribute(const char* v) : v_(std::string(v)) {}  // NOLINT
  /// A string.
  Attribute(std::string v) : v_(std::move(v)) {}  // NOLINT
  /// A list of ints: `{1, 2}`.
  Attribute(std::initializer_list<std::int64_t> v) : v_(std::vector<std::int64_t>(v)) {}  // NOLINT
  /// A list of ints.
  Attribute(std::vector<std::int64_t> v) : v_(std::move(v)) {}  // NOLINT
  /// A list of floats.
  Attribute(std::vector<double> v) : v_(std::move(v)) {}  // NOLINT
  /// A list of strings.
  Attribute(std::vector<std::string> v) : v_(std::move(v)) {}  // NOLINT
  /// A list of bools.
  Attribute(std::vector<bool> v) : v_(std::move(v)) {}  // NOLINT
  /// A tensor.
  Attribute(Tensor v) : v_(std::move(v)) {}  // NOLINT
  /// A graph (a subgraph of a control-flow node). Throws `Errc::invalid_argument` when null.
  Attribute(GraphRef v);  // NOLINT

  /// The kind of the value held.
  [[nodiscard]] AttrKind kind() const noexcept { return static_cast<AttrKind>(v_.index()); }
  /// The variant itself.
  [[nodiscard]] const Variant& value() const noexcept { return v_; }

  /// The value of each kind. Each throws `Errc::bad_attribute` naming both kinds when
  /// the value is of another kind (`as_float` also takes an int).
  [[nodiscard]] std::int64_t as_int() const;
  [[nodiscard]] double as_float() const;
  [[nodiscard]] const std::string& as_string() const;
  [[nodiscard]] bool as_bool() const;
  [[nodiscard]] const std::vector<std::int64_t>& as_ints() const;
  [[nodiscard]] const std::vector<double>& as_floats() const;
  [[nodiscard]] const std::vector<std::string>& as_strings() const;
  [[nodiscard]] const std::vector<bool>& as_bools() const;
  [[nodiscard]] const Tensor& as_tensor() const;
  [[nodiscard]] const Graph& as_graph() const;
  /// The graph, shared.
  [[nodiscard]] const GraphRef& graph_ref() const;

  /// The text form: `3`, `0.5`, `"SAME_UPPER"`, `true`, `[1,2]`, `tensor f32[2,3]`, `graph`.
  [[nodiscard]] std::string to_string() const;

  /// Same kind and value; graphs are equal when they are the same graph object.
  friend bool operator==(const Attribute& a, const Attribute& b) noexcept { return a.v_ == b.v_; }

 private:
  Variant v_{std::int64_t{0}};
};

/// A node's attributes by name, in name order (so that text output is stable).
using Attributes = std::map<std::string, Attribute, std::less<>>;

}  // namespace ge
