// trim_conv_taps: a Conv whose outer taps only ever read its zero padding becomes a Conv
// with a smaller kernel. DeepLab's atrous convs (dilation 12, 24, 36 over a 14x14 or
// 28x28 map) are the common case: at dilation 36 on 14x14 only the centre tap ever lands
// in the image, so the 3x3 conv is a 1x1 conv at a ninth of the work, run by the
// pointwise kernel. Exact: the dropped taps only ever multiplied zeros.
#include <cstring>

#include "compile/pass_work.hpp"
#include "ge/shape/window.hpp"

namespace ge::detail {

namespace {

std::vector<std::int64_t> ints_or(const WNode& n, std::string_view name, std::size_t count, std::int64_t fill) {
  const auto a = attr_of(n, name);
  if (!a) return std::vector<std::int64_t>(count, fill);
  std::vector<std::int64_t> v = a->as_ints();
  if (v.empty()) v.assign(count, fill);
  return v;
}

// The taps [lo, hi] of one axis that read the image for some output index (input extent
// at most `in`; the live set only grows with the extent, so the upper bound decides).
// False when the axis's numbers are not a conv's or no tap is live.
bool live_taps(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dilation, std::int64_t pad_begin,
               std::int64_t pad_end, std::int64_t& lo, std::int64_t& hi) {
  if (k < 1 || stride < 1 || dilation < 1 || pad_begin < 0 || pad_end < 0 || in < 1) return false;
  if (in > (std::int64_t{1} << 40) || k > (std::int64_t{1} << 20) || dilation > (std::int64_t{1} << 20)) return false;
  const std::int64_t out =
      window_out(in, k, {.pad_begin = pad_begin, .pad_end = pad_end, .stride = stride, .dilation = dilation});
  if (out < 1) return false;
  lo = -1;
  for (std::int64_t t = 0; t < k; ++t) {
    // Output indices whose tap t reads index 0 .. in - 1: ceil((pb - t d) / s) ... floor((in - 1 + pb - t d) / s).
    const std::int64_t first_num = pad_begin - t * dilation, last_num = in - 1 + pad_begin - t * dilation;
    if (last_num < 0) continue;
    const std::int64_t first = first_num <= 0 ? 0 : (first_num + stride - 1) / stride;
    const std::int64_t last = std::min(last_num / stride, out - 1);
    if (first > last) continue;
    if (lo < 0) lo = t;
    hi = t;
  }
  return lo >= 0;
}

// Copies the box [lo[a], hi[a]] of every spatial axis of the weight [O, I, k...].
Tensor weight_box(const Tensor& w, const std::vector<std::int64_t>& lo, const std::vector<std::int64_t>& hi) {
  const std::vector<std::int64_t>& dims = w.dims();
  const std::size_t rank = dims.size(), spatial = rank - 2;
  std::vector<std::int64_t> out_dims(dims.begin(), dims.begin() + 2);
  for (std::size_t a = 0; a < spatial; ++a) out_dims.push_back(hi[a] - lo[a] + 1);
  const auto esize = static_cast<std::size_t>(size_of(w.dtype()));
  std::int64_t out_count = 1;
  for (const std::int64_t d : out_dims) out_count *= d;
  std::vector<std::byte> bytes(static_cast<std::size_t>(out_count) * esize);
  const std::span<const std::byte> src = w.bytes();
  std::vector<std::int64_t> idx(rank, 0);  // over out_dims
  for (std::int64_t o = 0; o < out_count; ++o) {
    std::int64_t s = 0;
    for (std::size_t a = 0; a < rank; ++a) s = s * dims[a] + idx[a] + (a >= 2 ? lo[a - 2] : 0);
    std::memcpy(bytes.data() + static_cast<std::size_t>(o) * esize, src.data() + static_cast<std::size_t>(s) * esize,
                esize);
    for (std::size_t a = rank; a-- > 0;) {
      if (++idx[a] < out_dims[a]) break;
      idx[a] = 0;
    }
  }
  return Tensor(w.dtype(), std::move(out_dims), std::move(bytes));
}

}  // namespace

void trim_conv_taps(Work& w, PassStats& s) {
  for (const std::size_t i : w.order) {
    WNode& n = w.nodes[i];
    if (!n.alive || n.op != "Conv" || n.inputs.size() < 2 || n.outputs.size() != 1) continue;
    if (const auto pad = attr_of(n, "auto_pad"); pad && pad->as_string() != "NOTSET") continue;
    const Tensor* wt = w.constant(n.inputs[1]);
    const Shape& x = w.desc(n.inputs[0]).shape;
    if (wt == nullptr || wt->dims().size() < 3 || !x.rank_known() || x.rank() != wt->dims().size()) continue;
    const std::size_t spatial = wt->dims().size() - 2;
    const std::vector<std::int64_t> kernel(wt->dims().begin() + 2, wt->dims().end());
    const auto strides = ints_or(n, "strides", spatial, 1);
    auto dilations = ints_or(n, "dilations", spatial, 1);
    auto pads = ints_or(n, "pads", 2 * spatial, 0);
    if (strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial) continue;
    if (const auto ks = attr_of(n, "kernel_shape"); ks && !ks->as_ints().empty() && ks->as_ints() != kernel) continue;
    std::vector<std::int64_t> lo(spatial), hi(spatial);
    bool ok = true, trims = false;
    for (std::size_t a = 0; a < spatial && ok; ++a) {
      const Dim& d = x[a + 2];
      ok = d.is_bounded() &&
           live_taps(d.hi(), kernel[a], strides[a], dilations[a], pads[a], pads[a + spatial], lo[a], hi[a]);
      // Trimmed pads stay >= 0 (a negative pad would crop, which the kernels do not take).
      ok = ok && pads[a] - lo[a] * dilations[a] >= 0 && pads[a + spatial] - (kernel[a] - 1 - hi[a]) * dilations[a] >= 0;
      trims = trims || (ok && (lo[a] > 0 || hi[a] < kernel[a] - 1));
    }
    if (!ok || !trims) continue;
    std::vector<std::int64_t> new_kernel(spatial);
    for (std::size_t a = 0; a < spatial; ++a) {
      pads[a] -= lo[a] * dilations[a];
      pads[a + spatial] -= (kernel[a] - 1 - hi[a]) * dilations[a];
      new_kernel[a] = hi[a] - lo[a] + 1;
      if (new_kernel[a] == 1) dilations[a] = 1;  // one tap: the dilation means nothing, the pointwise kernels fit
    }
    n.inputs[1] = w.add_constant(n.name + ".weight.trimmed", weight_box(*wt, lo, hi));
    n.attrs.insert_or_assign("kernel_shape", new_kernel);
    n.attrs.insert_or_assign("pads", pads);
    n.attrs.insert_or_assign("dilations", dilations);
    ++s.constants_added;
  }
}

}  // namespace ge::detail
