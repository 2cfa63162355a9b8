#pragma once
// Private: the dim algebra of ge/shape/dim.hpp as plain functions of two dims, the form
// the typed face's `detail::apply` takes (an operator or an overload set cannot be a
// template argument). Each is a call: the two faces share the code, not a copy of it.

#include "ge/shape/dim.hpp"

namespace ge::typed::detail {

/// `ge::merge(a, b)` does not throw.
constexpr bool can_merge(const Dim& a, const Dim& b) noexcept { return ge::compatible(a, b); }
/// `ge::broadcast(a, b)` does not throw.
constexpr bool can_broadcast(const Dim& a, const Dim& b) noexcept { return ge::broadcastable(a, b); }
/// `ge::merge`.
constexpr Dim merge(const Dim& a, const Dim& b) { return ge::merge(a, b); }
/// `ge::broadcast`.
constexpr Dim broadcast(const Dim& a, const Dim& b) { return ge::broadcast(a, b); }
/// `a * b`: finite dims whose product leaves int64 reach
/// `ge::detail::dim_overflows_int64`, which is not constexpr: that name is the
/// compile error.
constexpr Dim mul(const Dim& a, const Dim& b) { return a * b; }
/// `a + b`, alike.
constexpr Dim add(const Dim& a, const Dim& b) { return a + b; }

}  // namespace ge::typed::detail
