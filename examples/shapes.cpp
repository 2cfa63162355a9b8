// The two faces of a shape, side by side: the runtime `ge::Shape` (parsed from option
// text, checked when the program runs) and the typed `ge::typed::ShapeOf<...>` (checked
// by the compiler), which convert into each other's terms and agree on the algebra.
#include <cstdio>
#include <string>
#include <type_traits>

#include "ge/ge.hpp"

namespace {
using namespace ge::typed;

// The typed face: a ResNet-50 stem over a batch of 1 to 8 images.
using Input = ShapeOf<Ranged<1, 8>, Static<3>, Static<224>, Static<224>>;
using Conv1 = conv2d_t<Input, StaticShape<64, 3, 7, 7>, Stride<2>, Pad<3>>;
static_assert(std::is_same_v<Conv1, ShapeOf<Ranged<1, 8>, Static<64>, Static<112>, Static<112>>>);
// The classifier, and a broadcast bias: checked before the program exists.
using Logits = matmul_t<ShapeOf<Ranged<1, 8>, Static<2048>>, StaticShape<2048, 1000>>;
static_assert(broadcast(Logits{}, StaticShape<1000>{}) == Logits{});
static_assert(element_count(Logits{}) == Ranged<1000, 8000>{});
// A mismatch is a compile error naming the API and the dims, e.g.
//   broadcast(StaticShape<3>{}, StaticShape<4>{});
//   error: static assertion failed: ge::typed::broadcast: static dims differ and neither is 1
static_assert(!can_broadcast_v<StaticShape<3>, StaticShape<4>>);

int failures = 0;
void agree(const char* what, const ge::Shape& typed, const ge::Shape& runtime) {
  const bool same = typed == runtime && typed.to_string() == runtime.to_string();
  failures += same ? 0 : 1;
  std::printf("  %-28s typed %-22s runtime %-22s %s\n", what, ("'" + typed.to_string() + "'").c_str(),
              ("'" + runtime.to_string() + "'").c_str(), same ? "agree" : "DIFFER");
}
}  // namespace

int main() {
  std::printf("runtime shapes, parsed from option text:\n");
  for (const char* text : {"1~8,3,224,224", "8~inf,3", "-1,3,-1", "-2", ""}) {
    const ge::Shape s = ge::Shape::parse(text);
    std::printf("  '%s': rank %s, elements %s\n", text,
                s.rank_known() ? std::to_string(s.rank()).c_str() : "unknown",
                ge::element_count(s).to_string().c_str());
  }

  std::printf("the two faces of the same algebra:\n");
  const ge::Shape input = ge::Shape::parse("1~8,3,224,224");
  agree("input", to_shape(Input{}), input);
  agree("broadcast(input, 3,1,1)", to_shape(broadcast(Input{}, StaticShape<3, 1, 1>{})),
        ge::broadcast(input, ge::Shape{3, 1, 1}));
  agree("merge(input, 4~16,-1,-1,-1)",
        to_shape(merge(Input{}, ShapeOf<Ranged<4, 16>, Unknown, Unknown, Unknown>{})),
        ge::merge(input, ge::Shape::parse("4~16,-1,-1,-1")));
  agree("merge(input, -2)", to_shape(merge(Input{}, UnknownRank{})), ge::merge(input, ge::Shape::unknown_rank()));
  std::printf("  element count: typed %s, runtime %s\n", to_dim(element_count(Input{})).to_string().c_str(),
              ge::element_count(input).to_string().c_str());
  std::printf("  conv1 (7x7, stride 2, pad 3): %s\n", to_shape(Conv1{}).to_string().c_str());
  std::printf("  classifier: %s\n", to_shape(Logits{}).to_string().c_str());

  std::printf("ranged dims are checked when the real shape is known:\n");
  check(Input{}, ge::Shape{4, 3, 224, 224});
  std::printf("  '4,3,224,224' fits '%s'\n", to_shape(Input{}).to_string().c_str());
  try {
    check(Input{}, ge::Shape{9, 3, 224, 224});
    std::printf("  a batch of 9 passed: wrong\n");
    ++failures;
  } catch (const ge::Error& e) {
    std::printf("  ge::Error (%s): %s\n", std::string(ge::to_string(e.code())).c_str(), e.what());
  }
  const ge::Shape bound = bind(Input{}, ge::Shape::parse("-1,3,224,224"));
  std::printf("  bind('-1,3,224,224') = '%s'\n", bound.to_string().c_str());
  return failures == 0 ? 0 : 1;
}
