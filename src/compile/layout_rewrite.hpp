#pragma once
// Private to the layout pass (src/compile/layout.cpp): the rewrites that put the ops
// between a chain's convs on NHWC images (elementwise operands, global pools and
// reductions, slices, channel shuffles, regroups), and the naming helper they share.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compile/pass_work.hpp"

namespace ge::detail::layout_ops {

// Where NCHW axis a of a 4-D value sits in NHWC.
constexpr std::int64_t kNhwcAxis[4] = {0, 3, 1, 2};

struct Rewriter {
  Work& w;
  PassStats& s;
  std::unordered_set<std::string> node_names;

  Rewriter(Work& work, PassStats& stats) : w(work), s(stats) {
    for (const WNode& n : w.nodes) node_names.insert(n.name);
  }

  ValueId new_value(const std::string& base, TensorDesc desc) { return w.add_value(base, std::move(desc)); }

  std::string node_name(const std::string& base) {
    std::string name = base;
    for (std::size_t i = 1; node_names.contains(name); ++i) name = base + "." + std::to_string(i);
    node_names.insert(name);
    return name;
  }

  // `from` to `to` between NCHW and NHWC (`perm`); a Reshape where H and W are 1 (a pooled
  // image: the same floats in the same order), which costs nothing.
  void transpose(ValueId from, ValueId to, std::vector<std::int64_t> perm, const std::string& name) {
    const Shape& x = w.desc(from).shape;
    const bool to_nhwc = perm == std::vector<std::int64_t>{0, 2, 3, 1};
    const auto one = [&](std::size_t d) { return x[d].is_static() && x[d].value() == 1; };
    if (x.rank_known() && x.rank() == 4 && (to_nhwc ? one(2) && one(3) : one(1) && one(2))) {
      // (0 copies N, -1 is C)
      const ValueId shape = w.add_constant(name + ".shape",
                                           Tensor::from<std::int64_t>({4}, to_nhwc ? std::vector<std::int64_t>{0, 1, 1, -1}
                                                                                   : std::vector<std::int64_t>{0, -1, 1, 1}));
      w.nodes.push_back({node_name(name), "Reshape", {from, shape}, {to}, Attributes{}, true});
    } else {
      w.nodes.push_back({node_name(name), "Transpose", {from}, {to}, Attributes{{"perm", std::move(perm)}}, true});
    }
    ++s.nodes_added;
  }
};

// A channel shuffle's three nodes: the Reshape to groups (the member), the Transpose, the
// Reshape back; and the groups.
struct Shuffle {
  std::size_t mid = 0, tail = 0;
  std::int64_t groups = 0;
};

using NhwcTwins = std::unordered_map<ValueId, ValueId>;

// A regroup: a Reshape between images whose NHWC forms hold the same floats in the same
// order (channels kept, the pixels regrouped), alone or after or before a Transpose of
// axes 1 and 2 (conv_frames' frames [N * D, C, H, W] and temporal view [N, C, D, H * W]:
// on NHWC both [N, D, H * W, C]). On NHWC it is one Reshape, to `dims`; `tail` is the
// node after the member (the Transpose's Reshape or the Reshape's Transpose), or SIZE_MAX.
struct Regroup {
  std::size_t tail = SIZE_MAX;
  std::vector<std::int64_t> dims;
};
std::optional<Regroup> regroup_at(const Work& w, const Work::Readers& readers, std::size_t i);
void rewrite_regroup(Work& w, const Regroup& r, std::size_t i, const NhwcTwins& nhwc);

void rewrite_elementwise(Work& w, Rewriter& rw, const std::vector<std::size_t>& images, std::size_t i,
                         const NhwcTwins& nhwc, NhwcTwins& per_channel_nhwc);
// A mean (max, min, sum) over exactly H and W of an image: a global pool.
bool reduces_h_and_w(const Work& w, const WNode& n);
void rewrite_spatial_reduce(Work& w, Rewriter& rw, std::size_t i);
void rewrite_global_pool(Work& w, Rewriter& rw, std::size_t i);
void rewrite_slice(Work& w, std::size_t i, const NhwcTwins& nhwc);

// A Resize of an image (or of one pixel) that leaves N and C alone, by constants
// (`resizes_image`), and its rewrite: the constants permuted to NHWC's axes.
bool resizes_image(const Work& w, const WNode& n);
void rewrite_resize(Work& w, std::size_t i, const NhwcTwins& nhwc);
void rewrite_shuffle(Work& w, Rewriter& rw, const Shuffle& r, std::size_t i, const NhwcTwins& nhwc);

}  // namespace ge::detail::layout_ops
