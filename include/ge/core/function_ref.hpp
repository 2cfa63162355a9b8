#pragma once
/// \file
/// `ge::FunctionRef<R(Args...)>`: a non-owning reference to a callable, two pointers
/// wide, for hot call paths where `std::function`'s allocation and copies would cost.
/// The callable must outlive the reference.
///
/// ```
/// int calls = 0;
/// auto count = [&](int) { ++calls; };
/// ge::FunctionRef<void(int)> f = count;
/// f(1);
/// ```

#include <type_traits>
#include <utility>

namespace ge {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  /// Refers to `f`; `f` must outlive this reference.
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F&& f) noexcept  // NOLINT(google-explicit-constructor): converts like a function pointer
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace ge
