// CPU kernels of Tile (repeats captured when constant, else the kernel is data-dependent),
// DepthToSpace and SpaceToDepth (blocksize and mode read at compile time).
#include "compile/cpu/lower.hpp"
#include "kernels/cpu/movement/rearrange.hpp"

namespace ge::cpu_lower {

void register_cpu_rearrange(KernelRegistry& r) {
  r.add({.op = "Tile",
         .name = "cpu.tile",
         .make = [](const KernelRequest& req) {
           return make_shaped_kernel("cpu.tile", req, {1}, [](Views in, Views out) { cpu::tile(in[0], out[0]); });
         }});
  r.add({.op = "DepthToSpace",
         .name = "cpu.depth_to_space",
         .make = [](const KernelRequest& req) {
           const cpu::DepthToSpaceParams p{.block = req.context.i("blocksize"), .crd = req.context.s("mode") == "CRD"};
           return make_kernel("cpu.depth_to_space",
                              [p](Views in, Views out) { cpu::depth_to_space(p, in[0], out[0]); });
         }});
  r.add({.op = "SpaceToDepth",
         .name = "cpu.space_to_depth",
         .make = [](const KernelRequest& req) {
           const std::int64_t b = req.context.i("blocksize");
           return make_kernel("cpu.space_to_depth", [b](Views in, Views out) { cpu::space_to_depth(b, in[0], out[0]); });
         }});
}

}  // namespace ge::cpu_lower
