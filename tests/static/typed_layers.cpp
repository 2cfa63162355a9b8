// Compile-time checks of typed matmul and conv2d on the shapes of real layers: compiling
// this file is passing it. Ranged batches, sequence lengths and image sizes propagate.
#include <type_traits>

#include "ge/shape/typed_conv2d.hpp"
#include "ge/shape/typed_matmul.hpp"
#include "ge/shape/typed_shape.hpp"

namespace {
using namespace ge::typed;
using std::is_same_v;

// ---- ResNet-50 (NCHW, OIHW) ----
// conv1: 7x7, stride 2, pad 3.
static_assert(conv2d(StaticShape<1, 3, 224, 224>{}, StaticShape<64, 3, 7, 7>{}, stride<2>, pad<3>) ==
              StaticShape<1, 64, 112, 112>{});
static_assert(is_same_v<conv2d_t<StaticShape<1, 3, 224, 224>, StaticShape<64, 3, 7, 7>, Stride<2>, Pad<3>>,
                        StaticShape<1, 64, 112, 112>>);
// A ranged batch 1~8 propagates through the stem, the blocks and the classifier.
using Batch = Ranged<1, 8>;
using Stem = conv2d_t<ShapeOf<Batch, Static<3>, Static<224>, Static<224>>, StaticShape<64, 3, 7, 7>, Stride<2>,
                      Pad<3>>;
static_assert(is_same_v<Stem, ShapeOf<Batch, Static<64>, Static<112>, Static<112>>>);
// The 3x3 stride 2 max pool has the window arithmetic of a depthwise conv.
using Pooled = conv2d_t<Stem, StaticShape<64, 1, 3, 3>, Stride<2>, Pad<1>, Groups<64>>;
static_assert(is_same_v<Pooled, ShapeOf<Batch, Static<64>, Static<56>, Static<56>>>);
// layer1 bottleneck: 1x1 reduce, 3x3, 1x1 expand; the residual add broadcasts equal shapes.
using L1a = conv2d_t<Pooled, StaticShape<64, 64, 1, 1>>;
using L1b = conv2d_t<L1a, StaticShape<64, 64, 3, 3>, Pad<1>>;
using L1c = conv2d_t<L1b, StaticShape<256, 64, 1, 1>>;
using Shortcut = conv2d_t<Pooled, StaticShape<256, 64, 1, 1>>;
static_assert(is_same_v<broadcast_t<L1c, Shortcut>, ShapeOf<Batch, Static<256>, Static<56>, Static<56>>>);
// layer2's first block halves H and W: 3x3 stride 2, and the 1x1 stride 2 downsample.
using L2b = conv2d_t<conv2d_t<L1c, StaticShape<128, 256, 1, 1>>, StaticShape<128, 128, 3, 3>, Stride<2>, Pad<1>>;
static_assert(is_same_v<L2b, ShapeOf<Batch, Static<128>, Static<28>, Static<28>>>);
static_assert(is_same_v<conv2d_t<L1c, StaticShape<512, 256, 1, 1>, Stride<2>>,
                        ShapeOf<Batch, Static<512>, Static<28>, Static<28>>>);
// The classifier: [N, 2048] @ [2048, 1000], plus the bias broadcast.
using Logits = matmul_t<ShapeOf<Batch, Static<2048>>, StaticShape<2048, 1000>>;
static_assert(is_same_v<Logits, ShapeOf<Batch, Static<1000>>>);
static_assert(is_same_v<broadcast_t<Logits, StaticShape<1000>>, Logits>);
static_assert(is_same_v<element_count_t<Logits>, Ranged<1000, 8000>>);

// ---- BERT-base: batch 1~8, sequence 1~512 ----
using B = Ranged<1, 8>;
using S = Ranged<1, 512>;
using Hidden = ShapeOf<B, S, Static<768>>;
static_assert(is_same_v<matmul_t<Hidden, StaticShape<768, 768>>, Hidden>);               // Q, K, V projections
static_assert(is_same_v<matmul_t<Hidden, StaticShape<768, 3072>>, ShapeOf<B, S, Static<3072>>>);  // FFN up
using Q = ShapeOf<B, Static<12>, S, Static<64>>;
using Kt = ShapeOf<B, Static<12>, Static<64>, S>;
using Scores = matmul_t<Q, Kt>;
static_assert(is_same_v<Scores, ShapeOf<B, Static<12>, S, S>>);
static_assert(is_same_v<broadcast_t<Scores, ShapeOf<B, Static<1>, Static<1>, S>>, Scores>);  // the mask add
static_assert(is_same_v<matmul_t<Scores, Q>, Q>);                                          // scores @ V
// A fixed sequence meets a ranged one: the batch dims of matmul broadcast.
static_assert(is_same_v<matmul_t<ShapeOf<Static<1>, Static<12>, Static<128>, Static<64>>, Kt>,
                        ShapeOf<B, Static<12>, Static<128>, S>>);

// ---- matmul's vector cases (numpy) ----
static_assert(is_same_v<matmul_t<StaticShape<64>, StaticShape<64, 10>>, StaticShape<10>>);
static_assert(is_same_v<matmul_t<StaticShape<7, 64>, StaticShape<64>>, StaticShape<7>>);
static_assert(is_same_v<matmul_t<StaticShape<64>, StaticShape<64>>, ShapeOf<>>);
static_assert(is_same_v<matmul_t<StaticShape<5, 1, 7, 64>, StaticShape<3, 64, 2>>, StaticShape<5, 3, 7, 2>>);
static_assert(is_same_v<matmul_t<ShapeOf<Static<7>, Ranged<16, 64>>, ShapeOf<Ranged<32, 128>, Static<2>>>,
                        StaticShape<7, 2>>);
static_assert(is_same_v<matmul_t<UnknownRank, StaticShape<64, 10>>, UnknownRank>);
static_assert(!can_matmul_v<StaticShape<7, 64>, StaticShape<65, 10>>);           // inner dims differ
static_assert(!can_matmul_v<StaticShape<2, 7, 64>, StaticShape<3, 64, 10>>);     // batch dims differ
static_assert(!can_matmul_v<ShapeOf<>, StaticShape<64, 10>>);                      // a scalar
static_assert(!can_matmul_v<ShapeOf<Static<7>, Ranged<1, 8>>, ShapeOf<Ranged<9, 16>, Static<2>>>);

// ---- MobileNetV2: depthwise 3x3 (groups = channels), stride 1 and 2 ----
static_assert(is_same_v<conv2d_t<ShapeOf<Batch, Static<32>, Static<112>, Static<112>>, StaticShape<32, 1, 3, 3>,
                                 Pad<1>, Groups<32>>,
                        ShapeOf<Batch, Static<32>, Static<112>, Static<112>>>);
static_assert(is_same_v<conv2d_t<StaticShape<1, 96, 112, 112>, StaticShape<96, 1, 3, 3>, Groups<96>, Stride<2>,
                                 Pad<1>>,
                        StaticShape<1, 96, 56, 56>>);
// ResNeXt: 32 groups of 4 channels.
static_assert(is_same_v<conv2d_t<StaticShape<1, 128, 56, 56>, StaticShape<128, 4, 3, 3>, Pad<1>, Groups<32>>,
                        StaticShape<1, 128, 56, 56>>);

// ---- DeepLab: a dilated 3x3 (dilation 2, pad 2) keeps the size ----
static_assert(is_same_v<conv2d_t<StaticShape<1, 512, 64, 64>, StaticShape<512, 512, 3, 3>, Dilation<2>, Pad<2>>,
                        StaticShape<1, 512, 64, 64>>);

// ---- A detector with ranged image sizes (INPUT_SHAPE 1,3,320~640,320~640) ----
using Img = ShapeOf<Static<1>, Static<3>, Ranged<320, 640>, Ranged<320, 640>>;
using Down2 = conv2d_t<Img, StaticShape<16, 3, 3, 3>, Stride<2>, Pad<1>>;
static_assert(is_same_v<Down2, ShapeOf<Static<1>, Static<16>, Ranged<160, 320>, Ranged<160, 320>>>);
static_assert(is_same_v<conv2d_t<Down2, StaticShape<32, 16, 3, 3>, Stride<2>, Pad<1>>,
                        ShapeOf<Static<1>, Static<32>, Ranged<80, 160>, Ranged<80, 160>>>);
// Asymmetric padding (top, left, bottom, right) and unbounded / unknown sizes.
static_assert(is_same_v<conv2d_t<StaticShape<1, 3, 224, 224>, StaticShape<8, 3, 3, 3>, Stride<2>, Pad<0, 0, 1, 1>>,
                        StaticShape<1, 8, 112, 112>>);
static_assert(is_same_v<conv2d_t<ShapeOf<Unknown, Static<3>, Ranged<100, inf>, Unknown>, StaticShape<8, 3, 3, 3>, Pad<1>>,
                        ShapeOf<Unknown, Static<8>, Ranged<100, inf>, Ranged<1, inf>>>);
// What conv2d rejects (each a compile error in conv2d_t): channels, groups, kernel size.
static_assert(!can_conv2d_v<StaticShape<1, 4, 56, 56>, StaticShape<8, 3, 3, 3>>);
static_assert(!can_conv2d_v<StaticShape<1, 96, 56, 56>, StaticShape<95, 1, 3, 3>, Groups<96>>);
static_assert(!can_conv2d_v<StaticShape<1, 3, 5, 5>, StaticShape<8, 3, 7, 7>>);
static_assert(can_conv2d_v<StaticShape<1, 3, 5, 5>, StaticShape<8, 3, 7, 7>, Pad<1>>);
static_assert(!can_conv2d_v<ShapeOf<Static<1>, Static<3>, Ranged<1, 4>, Static<5>>, StaticShape<8, 3, 7, 7>>);
static_assert(!can_conv2d_v<StaticShape<1, 3, 224>, StaticShape<8, 3, 3, 3>>);
}  // namespace
