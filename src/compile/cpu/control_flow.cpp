// CPU kernel of If (Loop and Scan: loops.cpp). Each subgraph becomes a Program
// (program.hpp) when the kernel is made; the kernels are data-dependent: an If's outputs
// are its branch's, a Loop's stack what the iterations give. A constant `cond` makes an
// If that holds only the branch it takes.
#include <algorithm>
#include <cstring>
#include <optional>

#include "compile/cpu/lower.hpp"
#include "compile/cpu/program.hpp"

namespace ge::cpu_lower {

std::string where(const KernelRequest& r, std::string_view attr) {
  return std::string(attr) + " of node '" + std::string(r.context.node()) + "'";
}

std::vector<TensorDesc> input_descs(const KernelRequest& r, std::size_t from, std::size_t to) {
  std::vector<TensorDesc> d;
  for (std::size_t i = from; i < to; ++i) d.push_back(r.context.input(i));
  return d;
}

// Each output of `got` written where `allocate` says.
void hand_out(std::span<const Tensor> got, std::size_t first, Allocate allocate) {
  for (std::size_t k = 0; k < got.size(); ++k) {
    void* p = allocate(first + k, got[k].dims());
    if (!got[k].bytes().empty()) std::memcpy(p, got[k].bytes().data(), got[k].bytes().size());
  }
}

bool truth(const TensorView& v, std::string_view what) {
  if (count_of(v.dims) != 1)
    fail(Errc::bad_op_inputs, what, "cond has " + std::to_string(count_of(v.dims)) + " elements; expected one");
  if (v.dtype == DataType::boolean) return *static_cast<const std::uint8_t*>(v.data) != 0;
  return read_doubles(what, v).at(0) != 0;
}

namespace {

std::shared_ptr<const Kernel> make_if(const KernelRequest& r) {
  const InferContext& c = r.context;
  const std::vector<TensorDesc> captured = input_descs(r, 1, c.input_count());
  std::optional<bool> known;
  if (const Tensor* t = c.constant(0); t != nullptr && t->has_data() && t->element_count() == 1)
    known = t->to_doubles().at(0) != 0;
  std::shared_ptr<const Program> then_p, else_p;
  if (known != false)
    then_p = std::make_shared<Program>(c.attr("then_branch").graph_ref(), captured, r.precision, where(r, "then_branch"));
  if (known != true)
    else_p = std::make_shared<Program>(c.attr("else_branch").graph_ref(), captured, r.precision, where(r, "else_branch"));
  const std::size_t outputs = r.outputs.size();
  // The branch to run (a constant cond: the one held) and what it gives.
  const auto branch = [then_p, else_p, outputs](Views in) {
    const Program* p = then_p && else_p ? (truth(in[0], "If") ? then_p.get() : else_p.get())
                                        : (then_p ? then_p.get() : else_p.get());
    std::vector<Tensor> got = p->run(in.subspan(1));
    if (got.size() < outputs)
      fail(Errc::bad_model, "If", "the branch gave " + std::to_string(got.size()) + " outputs; expected " +
                                      std::to_string(outputs));
    got.resize(outputs);
    return got;
  };
  // Outputs of fixed dims (both branches give the same for these inputs, as a gear's plan
  // finds out): an ordinary step, its outputs in the plan's memory.
  if (std::all_of(r.outputs.begin(), r.outputs.end(), [](const TensorDesc& d) { return d.shape.is_static(); }))
    return make_kernel(known ? "cpu.if.constant.static" : "cpu.if.static", [branch](Views in, Views out) {
      const std::vector<Tensor> got = branch(in);
      for (std::size_t k = 0; k < got.size(); ++k) {
        if (!std::equal(got[k].dims().begin(), got[k].dims().end(), out[k].dims.begin(), out[k].dims.end()))
          fail(Errc::internal, "If", "the branch gave output " + std::to_string(k) + " dims other than inferred");
        if (!got[k].bytes().empty()) std::memcpy(out[k].data, got[k].bytes().data(), got[k].bytes().size());
      }
    });
  return make_dynamic_kernel(known ? "cpu.if.constant" : "cpu.if", [branch](Views in, Allocate allocate) {
    const std::vector<Tensor> got = branch(in);
    hand_out(got, 0, allocate);
  });
}

}  // namespace

void register_cpu_control_flow(KernelRegistry& r) {
  r.add({.op = "If", .name = "cpu.if", .make = make_if});
  register_cpu_loops(r);
}

}  // namespace ge::cpu_lower
