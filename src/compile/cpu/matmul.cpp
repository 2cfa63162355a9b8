// CPU kernels of the matrix products, f32: MatMul (numpy batching and broadcasting; a
// constant 2-D B is packed once in `make`) and Gemm (transA, transB, alpha, beta and the
// optional C resolved in `make`).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "compile/cpu/lower.hpp"
#include "compile/cpu/packed.hpp"
#include "compile/cpu/quant_attrs.hpp"
#include "kernels/cpu/sequence/attention.hpp"
#include "kernels/cpu/elementwise/elementwise.hpp"
#include "kernels/cpu/gemm/gemm.hpp"
#include "kernels/cpu/int8/int8.hpp"

namespace ge::cpu_lower {

namespace {

bool all_f32(const KernelRequest& r) {
  for (std::size_t i = 0; i < r.context.input_count(); ++i)
    if (r.context.has_input(i) && r.context.input(i).dtype != DataType::f32) return false;
  return true;
}

// Whether the request lets a constant B be packed in bf16 (the AMX kernels then run it
// when the CPU has them).
bool bf16(const KernelRequest& r) { return r.precision == Precision::bf16; }

std::shared_ptr<const Kernel> make_matmul(const KernelRequest& r) {
  const Tensor* b = r.context.constant(1);
  if (b != nullptr && b->dims().size() == 2) {
    auto packed = packed_part<cpu::PackedMatMulB>(r, 0, "cpu.matmul.packed_b",
                                                  [&] { return cpu::pack_matmul_b(view_of(*b), bf16(r)); });
    return make_packed_kernel(packed->bf16 ? "cpu.matmul.packed_b.bf16" : "cpu.matmul.packed_b", [packed](Views in, Views out) {
      cpu::matmul(in[0], *packed, out[0]);
    }, {1}, packed);
  }
  return make_kernel("cpu.matmul", [](Views in, Views out) {
    cpu::matmul(in[0], in[1], out[0]);
  });
}

// Gemm. With a constant 2-D B, no transA, and C absent or a constant that is one value
// or one value per column, the kernel is a MatMul by a packed B: B transposed (transB)
// and scaled by alpha once here, beta * C the epilogue's per-column bias. Otherwise the
// general product, which packs per run.
std::shared_ptr<const Kernel> make_gemm(const KernelRequest& req) {
  const InferContext& c = req.context;
  const cpu::GemmParams p{.alpha = static_cast<float>(c.f("alpha")),
                          .beta = static_cast<float>(c.f("beta")),
                          .trans_a = c.i("transA") != 0,
                          .trans_b = c.i("transB") != 0};
  const Tensor* b = c.constant(1);
  const Tensor* bias = c.has_input(2) ? c.constant(2) : nullptr;
  if (b != nullptr && b->dims().size() == 2 && !p.trans_a && (!c.has_input(2) || bias != nullptr)) {
    const std::int64_t k = p.trans_b ? b->dims()[1] : b->dims()[0];
    const std::int64_t n = p.trans_b ? b->dims()[0] : b->dims()[1];
    const std::int64_t c_count = bias ? bias->element_count() : 0;
    bool row = true;  // C is [], [1], [N] or [1, N]
    if (bias) {
      const auto& cd = bias->dims();
      for (std::size_t d = 0; d + 1 < cd.size(); ++d) row = row && cd[d] == 1;
      row = row && (c_count == 1 || (!cd.empty() && cd.back() == n));
    }
    if (row) {
      const char* name = "cpu.gemm.packed_b";
      auto packed = packed_part<cpu::PackedMatMulB>(req, 0, name, [&] {
        std::vector<float> kn(static_cast<std::size_t>(k * n));
        const float* src = view_of(*b).as<const float>();
        for (std::int64_t i = 0; i < k; ++i)
          for (std::int64_t j = 0; j < n; ++j)
            kn[static_cast<std::size_t>(i * n + j)] = p.alpha * (p.trans_b ? src[j * k + i] : src[i * n + j]);
        const std::int64_t kn_dims[] = {k, n};
        return cpu::pack_matmul_b(TensorView{kn.data(), DataType::f32, kn_dims}, bf16(req));
      });
      auto col_bias = std::make_shared<const std::vector<float>>(req.packed ? floats_from_part(*req.packed, 1, name) : [&] {
        std::vector<float> v;
        if (bias && p.beta != 0.0f) {
          const float* cd = view_of(*bias).as<const float>();
          v.resize(static_cast<std::size_t>(n));
          for (std::int64_t j = 0; j < n; ++j) v[static_cast<std::size_t>(j)] = p.beta * cd[c_count == 1 ? 0 : j];
        }
        return v;
      }());
      return make_packed_kernel(packed->bf16 ? "cpu.gemm.packed_b.bf16" : name, [packed, col_bias](Views in, Views out) {
        cpu::GemmEpilogue ep;
        ep.bias_n = col_bias->empty() ? nullptr : col_bias->data();
        cpu::matmul(in[0], *packed, out[0], ep);
      }, {1, 2}, packed, col_bias);
    }
  }
  return make_kernel("cpu.gemm", [p](Views in, Views out) {
    cpu::gemm(p, in[0], in[1], optional_input(in, 2), out[0]);
  });
}

// FusedMatMul's epilogue around `product(a, y, ep)`: the bias and Relu in the product's
// epilogue, Gelu as a vector map over the finished rows, and the residual in the epilogue
// where it has the output's dims (else added after, with broadcasting).
template <class Product>
void run_fused_matmul(Views in, Views out, std::int64_t n, const std::vector<float>& col_bias,
                      const cpu::PostOp& post, const Product& product) {
  const TensorView* residual = optional_input(in, 3);
  const bool fits = residual != nullptr && residual->dims.size() == out[0].dims.size() &&
                    std::equal(residual->dims.begin(), residual->dims.end(), out[0].dims.begin());
  cpu::GemmEpilogue ep;
  ep.bias_n = col_bias.empty() ? nullptr : col_bias.data();
  ep.post = post;
  if (fits && post.kind == cpu::Activation::none) {  // act(x + bias) + residual: in the epilogue only without act
    ep.residual = residual->as<const float>();
    ep.ld_residual = n;
  }
  if (residual == nullptr || ep.residual != nullptr) {
    product(in[0], out[0], ep);
    return;
  }
  if (fits) {
    product(in[0], out[0], ep);
    cpu::binary(cpu::BinaryOp::add, out[0], *residual, out[0]);
    return;
  }
  // A residual that broadcasts: the product first, into a buffer of its dims.
  std::vector<std::int64_t> dims(in[0].dims.begin(), in[0].dims.end() - 1);
  dims.push_back(n);
  std::vector<float> tmp(static_cast<std::size_t>(count_of(dims)));
  const TensorView t{tmp.data(), DataType::f32, dims};
  product(in[0], t, ep);
  cpu::binary(cpu::BinaryOp::add, t, *residual, out[0]);
}

// Whether a FusedMatMul's A is quantized (compile/qdq.cpp): the product then runs in int8.
bool quantized(const KernelRequest& r) { return r.context.f("x_scale") > 0.0; }

// FusedMatMul: A times a constant 2-D B packed once (in f32 or bf16, or in int8 when A is
// quantized), with its epilogue.
std::shared_ptr<const Kernel> make_fused_matmul(const KernelRequest& r) {
  const InferContext& c = r.context;
  const Tensor* b = c.constant(1);
  if (b == nullptr || b->dims().size() != 2 || (!b->has_data() && r.packed == nullptr))
    raise(Errc::no_kernel, "[cpu.fused_matmul] node '" + std::string(c.node()) + "': B must be a constant matrix");
  const Tensor* bias = c.has_input(2) ? c.constant(2) : nullptr;
  if (c.has_input(2) && bias == nullptr)
    raise(Errc::no_kernel, "[cpu.fused_matmul] node '" + std::string(c.node()) + "': the bias must be a constant");
  const bool int8 = quantized(r);
  const char* name = int8 ? "cpu.fused_matmul.int8" : "cpu.fused_matmul";
  auto col_bias = std::make_shared<const std::vector<float>>(r.packed ? floats_from_part(*r.packed, 1, name) : [&] {
    std::vector<float> v;
    if (bias != nullptr) {
      const float* pb = view_of(*bias).as<const float>();
      v.assign(pb, pb + bias->element_count());
    }
    return v;
  }());
  const std::string act = c.s("activation");
  cpu::PostOp post;
  if (act == "Relu") post.kind = cpu::Activation::relu;
  if (act == "Gelu") post.kind = cpu::Activation::gelu;
  if (act == "GeluTanh") post.kind = cpu::Activation::gelu_tanh;
  if (int8) {
    const cpu::QuantU8 qa = input_quant(c);
    auto packed = packed_part<cpu::PackedS8>(r, 0, name, [&] {
      const TensorView bv = view_of(*b);
      return cpu::pack_b_s8(bv.dims[0], bv.dims[1], bv.as<const float>(), bv.dims[1], false);
    });
    return make_packed_kernel(name, [packed, col_bias, post, qa](Views in, Views out) {
      run_fused_matmul(in, out, packed->n, *col_bias, post,
                       [&](const TensorView& a, const TensorView& y, const cpu::GemmEpilogue& ep) {
                         cpu::matmul_u8s8(a, qa, *packed, y, ep);
                       });
    }, {1, 2}, packed, col_bias);
  }
  auto packed = packed_part<cpu::PackedMatMulB>(r, 0, name, [&] { return cpu::pack_matmul_b(view_of(*b), bf16(r)); });
  return make_packed_kernel(packed->bf16 ? "cpu.fused_matmul.bf16" : name, [packed, col_bias, post](Views in, Views out) {
    run_fused_matmul(in, out, packed->n, *col_bias, post,
                     [&](const TensorView& a, const TensorView& y, const cpu::GemmEpilogue& ep) {
                       cpu::matmul(a, *packed, y, ep);
                     });
  }, {1, 2}, packed, col_bias);
}

std::shared_ptr<const Kernel> make_fused_attention(const KernelRequest& r) {
  const InferContext& c = r.context;
  const auto layout = [&](const char* name) {
    const std::string& l = c.s(name);
    return l == "sbd" ? cpu::Layout::sbd : l == "bhsd" ? cpu::Layout::bhsd : l == "bshd" ? cpu::Layout::bshd
                                                                                        : cpu::Layout::bsd;
  };
  const cpu::AttentionParams p{.scale = static_cast<float>(c.f("scale")),
                               .q = layout("q_layout"),
                               .k = layout("k_layout"),
                               .v = layout("v_layout"),
                               .out = layout("out_layout")};
  return make_kernel("cpu.fused_attention", [p](Views in, Views out) {
    cpu::attention(p, in[0], in[1], in[2], optional_input(in, 3), out[0]);
  });
}

}  // namespace

void register_cpu_matmul(KernelRegistry& r) {
  r.add({.op = "FusedAttention",
         .name = "cpu.fused_attention",
         .fits = all_f32,
         .make = make_fused_attention});
  r.add({.op = "FusedMatMul",
         .name = "cpu.fused_matmul",
         .fits = all_f32,
         .make = make_fused_matmul});
  r.add({.op = "MatMul",
         .name = "cpu.matmul",
         .fits = all_f32,
         .make = make_matmul});
  r.add({.op = "Gemm",
         .name = "cpu.gemm",
         .fits = all_f32,
         .make = make_gemm});
}

}  // namespace ge::cpu_lower
