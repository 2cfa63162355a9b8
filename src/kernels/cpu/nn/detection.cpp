// NonMaxSuppression (detection.hpp): per (batch, class), the candidates above the score
// threshold sorted once by score, then the greedy pass; each candidate is compared only
// with the boxes kept so far (at most max_per_class of them) whose x range can meet its
// own, a block of them at a time. Boxes of no area never overlap.
#include "kernels/cpu/nn/detection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace ge::cpu {

namespace {

struct Box {
  float y1, x1, y2, x2;  // sorted corners
};

Box box_at(const float* b, bool center) {
  if (center) {
    const float xc = b[0], yc = b[1], w = b[2] / 2, h = b[3] / 2;
    return {yc - h, xc - w, yc + h, xc + w};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

// Boxes kept, a column per corner (so that one candidate is compared with many at once),
// with their areas.
struct Columns {
  std::vector<float> y1, x1, y2, x2, area;
  void clear() {
    for (auto* v : {&y1, &x1, &y2, &x2, &area}) v->clear();
  }
  void push(const Box& b) {
    y1.push_back(b.y1);
    x1.push_back(b.x1);
    y2.push_back(b.y2);
    x2.push_back(b.x2);
    area.push_back((b.y2 - b.y1) * (b.x2 - b.x1));
  }
  // IoU(kept box, c) > threshold for any of them (c's area `area_c` > 0), in blocks.
  [[nodiscard]] bool any_overlaps(const Box& c, float area_c, float threshold) const {
    constexpr std::size_t block = 64;
    for (std::size_t i0 = 0; i0 < area.size(); i0 += block) {
      const std::size_t i1 = std::min(area.size(), i0 + block);
      int hit = 0;
      for (std::size_t i = i0; i < i1; ++i) {
        const float ih = std::max(0.0f, std::min(y2[i], c.y2) - std::max(y1[i], c.y1));
        const float iw = std::max(0.0f, std::min(x2[i], c.x2) - std::max(x1[i], c.x1));
        const float inter = ih * iw;
        const float uni = area[i] + area_c - inter;
        hit |= static_cast<int>(area[i] > 0) & static_cast<int>(uni > 0) & static_cast<int>(inter / uni > threshold);
      }
      if (hit != 0) return true;
    }
    return false;
  }
};

// The boxes kept so far, in buckets by their left edge over the candidates' span. With
// a threshold >= 0 a box overlaps a candidate only if their x ranges meet, so only the
// buckets from (candidate's left - the widest kept box) to its right are compared: the
// classes that batched NMS sets apart by offsets meet no other class's boxes.
class Kept {
 public:
  void reset(const std::vector<Box>& boxes, const std::vector<std::int64_t>& order) {
    count_ = 0;
    widest_ = 0;
    lo_ = std::numeric_limits<float>::max();
    float hi = std::numeric_limits<float>::lowest();
    for (const std::int64_t i : order) {
      lo_ = std::min(lo_, boxes[static_cast<std::size_t>(i)].x1);
      hi = std::max(hi, boxes[static_cast<std::size_t>(i)].x1);
    }
    const std::size_t n = std::clamp<std::size_t>(order.size() / 16, 1, 4096);
    if (buckets_.size() < n) buckets_.resize(n);
    for (std::size_t b = 0; b < n; ++b) buckets_[b].clear();
    used_ = n;
    scale_ = hi > lo_ && std::isfinite(hi - lo_) ? static_cast<float>(n) / (hi - lo_) : 0.0f;
  }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] bool any_overlaps(const Box& c, float threshold) const {
    const float area_c = (c.y2 - c.y1) * (c.x2 - c.x1);
    if (!(area_c > 0) || count_ == 0) return false;
    if (!(threshold >= 0)) {  // every box might overlap: compare them all
      for (std::size_t b = 0; b < used_; ++b)
        if (buckets_[b].any_overlaps(c, area_c, threshold)) return true;
      return false;
    }
    const std::size_t b1 = bucket(c.x2), b0 = bucket(c.x1 - widest_);
    for (std::size_t b = b0; b <= b1; ++b)
      if (buckets_[b].any_overlaps(c, area_c, threshold)) return true;
    return false;
  }
  void push(const Box& b) {
    buckets_[bucket(b.x1)].push(b);
    widest_ = std::max(widest_, b.x2 - b.x1);
    ++count_;
  }

 private:
  // The bucket of left edge x (clamped to the span; NaN to the first).
  [[nodiscard]] std::size_t bucket(float x) const {
    const float f = (x - lo_) * scale_;
    if (!(f > 0)) return 0;
    return f >= static_cast<float>(used_ - 1) ? used_ - 1 : static_cast<std::size_t>(f);
  }

  std::vector<Columns> buckets_;
  std::size_t used_ = 1, count_ = 0;
  float lo_ = 0, scale_ = 0, widest_ = 0;
};

}  // namespace

std::vector<std::int64_t> non_max_suppression(const NmsParams& p, const TensorView& boxes, const TensorView& scores) {
  constexpr std::string_view op = "NonMaxSuppression";
  check_dtype(op, "boxes", boxes, DataType::f32);
  check_dtype(op, "scores", scores, DataType::f32);
  if (boxes.rank() != 3 || boxes.dims[2] != 4 || scores.rank() != 3 || scores.dims[0] != boxes.dims[0] ||
      scores.dims[2] != boxes.dims[1])
    fail(Errc::bad_op_inputs, op, "boxes " + bracketed(boxes.dims) + " and scores " + bracketed(scores.dims) +
                                      "; expected [B, N, 4] and [B, C, N]");
  const std::int64_t nb = boxes.dims[0], n = boxes.dims[1], nc = scores.dims[1];
  std::vector<std::int64_t> out;
  if (p.max_per_class <= 0) return out;
  std::vector<Box> bx(static_cast<std::size_t>(n));
  std::vector<std::int64_t> order;
  Kept kept;
  for (std::int64_t b = 0; b < nb; ++b) {
    for (std::int64_t i = 0; i < n; ++i)
      bx[static_cast<std::size_t>(i)] = box_at(boxes.as<const float>() + (b * n + i) * 4, p.center_point_box);
    for (std::int64_t c = 0; c < nc; ++c) {
      const float* s = scores.as<const float>() + (b * nc + c) * n;
      order.clear();
      for (std::int64_t i = 0; i < n; ++i)
        if (!p.has_score_threshold || s[i] > p.score_threshold) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [s](std::int64_t l, std::int64_t r) { return s[l] > s[r]; });
      kept.reset(bx, order);
      for (const std::int64_t i : order) {
        if (static_cast<std::int64_t>(kept.size()) >= p.max_per_class) break;
        const Box& cand = bx[static_cast<std::size_t>(i)];
        if (kept.any_overlaps(cand, p.iou_threshold)) continue;
        kept.push(cand);
        out.insert(out.end(), {b, c, i});
      }
    }
  }
  return out;
}

}  // namespace ge::cpu
