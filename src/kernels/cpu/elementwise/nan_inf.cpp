// IsNaN and IsInf (see elementwise.hpp): one pass over f32 or f64 into bool.
#include <limits>

#include "kernels/cpu/elementwise/elementwise.hpp"

namespace ge::cpu {

namespace {

template <class T>
void float_test_typed(FloatTest test, bool negative, bool positive, const TensorView& x, const TensorView& y) {
  const T* px = x.as<const T>();
  auto* py = y.as<std::uint8_t>();
  constexpr T inf = std::numeric_limits<T>::infinity();
  parallel_for(x.elements(), 1 << 14, [&](std::int64_t b, std::int64_t e) {
    if (test == FloatTest::nan) {
      for (std::int64_t i = b; i < e; ++i) py[i] = static_cast<std::uint8_t>(px[i] != px[i]);
    } else {
      for (std::int64_t i = b; i < e; ++i)
        py[i] = static_cast<std::uint8_t>((negative && px[i] == -inf) || (positive && px[i] == inf));
    }
  });
}

}  // namespace

void float_test(FloatTest test, bool negative, bool positive, const TensorView& x, const TensorView& y) {
  const std::string_view name = test == FloatTest::nan ? "IsNaN" : "IsInf";
  check_dtype(name, "Y", y, DataType::boolean);
  check_data(name, "X", x);
  check_dims(name, "Y", y, x.dims);
  if (x.elements() == 0) return;
  switch (x.dtype) {
    case DataType::f32: return float_test_typed<float>(test, negative, positive, x, y);
    case DataType::f64: return float_test_typed<double>(test, negative, positive, x, y);
    default:
      fail(Errc::unsupported, name, "type '" + std::string(to_string(x.dtype)) + "' is not supported; expected f32 or f64");
  }
}

}  // namespace ge::cpu
