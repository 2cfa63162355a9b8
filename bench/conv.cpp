// bench/conv: the CPU conv kernel on every distinct conv layer shape of ResNet-50 (batch 1
// and 8) and a few of MobileNetV2 (depthwise included), each compiled through the
// single-op path (`ge::compile_op`, constant weights packed at compile time) and run as
// the runtime runs it (`Kernel::run` on a oneTBB arena of T threads); then ResNet-50 and
// MobileNetV2 end to end (`ge::compile` + `ge::Session`) at batch 1 and 8.
//
//   ge_bench_conv [layers|dw|dense|models|all (default)] [threads (default 2)] [peak GFLOP/s per core]
//   GE_BENCH_LAYERS=256x14/3,512x7 ge_bench_conv layers   # only those layer shapes
//   GE_BENCH_NHWC=1 ge_bench_conv layers   # the NHWC FusedConv kernels (ge::layout_nhwc's)
//   GE_BENCH_COLD=1 ge_bench_conv layers   # caches flushed before each run (weights from memory)
//   GE_BENCH_BF16=1 ge_bench_conv layers   # the kernels of Precision::bf16 (%peak: of the f32 FMA peak)
//   ge_bench_conv peaks     # this core's f32 FMA, bf16 and int8 dot-product peaks, side by side
//   ge_bench_conv dense     # DenseNet-121's growth, bottleneck and transition convs
//   ge_bench_conv dw        # depthwise 3x3/5x5/7x7, strides 1/2, dilation 2; grouped (RegNetX, ResNeXt)
//   ge_bench_conv shapes 16x112:8/1,8x112:24/3s2g8   # any layers: <Cin>x<H>:<Cout>/<k>[s<stride>][g<group>][d<dil>]
//   ge_bench_conv pwdw 24x65:144/3,16x130:96/3s2      # expand + depthwise, fused and as two convs
//
// "cpu ms" is the calling thread's CPU time (minimum over the repetitions): with one
// thread it is the kernel's time without the moments other processes held the core, the
// steadiest figure on a shared machine.
//
// Peak per core: the figure given, else what a loop of independent vector FMAs reaches on
// one core at the widest ISA the kernels use (16 lanes with AVX-512F, 8 with AVX2+FMA;
// capped by GE_CPU_ISA), else 2 FMA pipes x lanes x 2 flops x the clock /proc/cpuinfo
// reports (often a VM host's base clock: both are printed). Times are the
// minimum over the repetitions (other processes share the cores), medians alongside.
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "peak.hpp"
#include "models/mobilenet_v2.hpp"
#include "models/resnet50.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using Ints = std::vector<std::int64_t>;

double cpu_mhz() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return std::atof(line.c_str() + colon + 1);
    }
  }
  return 0.0;
}

struct Layer {
  const char* model;
  std::int64_t c, h, co, k, s, group, count;  // count: how many times the model has it
  std::int64_t dil = 1;                       // dilation (both axes); pads dil * (k / 2)
};

// ResNet-50 v1.5 at 224x224: 53 convs in 20 distinct shapes.
const Layer kResNet[] = {
    {"r50", 3, 224, 64, 7, 2, 1, 1},       {"r50", 64, 56, 64, 1, 1, 1, 1},     {"r50", 64, 56, 64, 3, 1, 1, 3},
    {"r50", 64, 56, 256, 1, 1, 1, 4},      {"r50", 256, 56, 64, 1, 1, 1, 2},    {"r50", 256, 56, 128, 1, 1, 1, 1},
    {"r50", 128, 56, 128, 3, 2, 1, 1},     {"r50", 128, 28, 512, 1, 1, 1, 4},   {"r50", 256, 56, 512, 1, 2, 1, 1},
    {"r50", 512, 28, 128, 1, 1, 1, 3},     {"r50", 128, 28, 128, 3, 1, 1, 3},   {"r50", 512, 28, 256, 1, 1, 1, 1},
    {"r50", 256, 28, 256, 3, 2, 1, 1},     {"r50", 256, 14, 1024, 1, 1, 1, 6},  {"r50", 512, 28, 1024, 1, 2, 1, 1},
    {"r50", 1024, 14, 256, 1, 1, 1, 5},    {"r50", 256, 14, 256, 3, 1, 1, 5},   {"r50", 1024, 14, 512, 1, 1, 1, 1},
    {"r50", 512, 14, 512, 3, 2, 1, 1},     {"r50", 512, 7, 2048, 1, 1, 1, 3},   {"r50", 1024, 14, 2048, 1, 2, 1, 1},
    {"r50", 2048, 7, 512, 1, 1, 1, 2},     {"r50", 512, 7, 512, 3, 1, 1, 2},
};

// A few MobileNetV2 layers: the stem, depthwise 3x3 at each resolution, and pointwise.
const Layer kMobileNet[] = {
    {"mbv2", 3, 224, 32, 3, 2, 1, 1},      {"mbv2", 32, 112, 32, 3, 1, 32, 1},   {"mbv2", 32, 112, 16, 1, 1, 1, 1},
    {"mbv2", 16, 112, 96, 1, 1, 1, 1},     {"mbv2", 96, 112, 96, 3, 2, 96, 1},   {"mbv2", 144, 56, 144, 3, 1, 144, 1},
    {"mbv2", 144, 56, 24, 1, 1, 1, 1},     {"mbv2", 24, 56, 144, 1, 1, 1, 1},    {"mbv2", 192, 28, 192, 3, 1, 192, 1},
    {"mbv2", 384, 14, 384, 3, 1, 384, 1},  {"mbv2", 576, 14, 576, 3, 2, 576, 1}, {"mbv2", 960, 7, 960, 3, 1, 960, 1},
    {"mbv2", 960, 7, 320, 1, 1, 1, 1},     {"mbv2", 320, 7, 1280, 1, 1, 1, 1},
};

// Depthwise convs beyond MobileNetV2's 3x3 (MobileNetV3, EfficientNet, MNASNet: 5x5 and
// 3x3 at strides 1 and 2; 7x7 as in ConvNeXt; DeepLabV3 on MobileNetV3: dilation 2), and
// grouped convs: RegNetX (3x3, group width 8..64) and ResNeXt-50 32x4d (groups 32).
const Layer kDepthwise[] = {
    {"mbv3", 72, 56, 72, 5, 2, 72, 1},       {"mbv3", 120, 28, 120, 5, 1, 120, 1},
    {"mbv3", 240, 28, 240, 3, 2, 240, 1},    {"mbv3", 200, 14, 200, 3, 1, 200, 1},
    {"mbv3", 480, 14, 480, 3, 1, 480, 1},    {"mbv3", 672, 14, 672, 5, 2, 672, 1},
    {"mbv3", 960, 7, 960, 5, 1, 960, 1},     {"effb0", 144, 56, 144, 5, 2, 144, 1},
    {"effb0", 240, 28, 240, 5, 1, 240, 1},   {"effb0", 480, 14, 480, 5, 1, 480, 1},
    {"effb0", 672, 14, 672, 5, 1, 672, 1},   {"effb0", 1152, 7, 1152, 5, 1, 1152, 1},
    {"mnas", 240, 28, 240, 5, 2, 240, 1},    {"mnas", 480, 14, 480, 5, 1, 480, 1},
    {"cnxt", 96, 56, 96, 7, 1, 96, 1},       {"cnxt", 384, 14, 384, 7, 1, 384, 1},
    {"cnxt", 768, 7, 768, 7, 1, 768, 1},     {"dlv3", 672, 28, 672, 5, 1, 672, 1, 2},
    {"dlv3", 960, 28, 960, 5, 1, 960, 1, 2}, {"dlv3", 480, 28, 480, 3, 1, 480, 1, 2},
    {"dlv3", 672, 14, 672, 5, 1, 672, 1, 2}, {"dlv3", 960, 14, 960, 5, 1, 960, 1, 2},
    {"dw", 144, 56, 144, 3, 1, 144, 1},      {"dw", 96, 112, 96, 3, 2, 96, 1},
    {"rgx", 56, 56, 56, 3, 1, 7, 1},         {"rgx", 152, 28, 152, 3, 1, 19, 1},
    {"rgx", 368, 14, 368, 3, 1, 46, 1},      {"rgx", 64, 56, 64, 3, 2, 8, 1},
    {"rgx", 240, 14, 240, 3, 1, 10, 1},      {"rgx", 528, 7, 528, 3, 1, 22, 1},
    {"rgx", 128, 28, 128, 3, 1, 8, 1},       {"rgx", 256, 14, 256, 3, 1, 16, 1},
    {"rgx", 512, 7, 512, 3, 1, 8, 1},        {"rnxt", 128, 56, 128, 3, 1, 32, 1},
    {"rnxt", 256, 56, 256, 3, 2, 32, 1},     {"rnxt", 256, 28, 256, 3, 1, 32, 1},
    {"rnxt", 512, 14, 512, 3, 1, 32, 1},     {"rnxt", 1024, 7, 1024, 3, 1, 32, 1},
};

ge::OpTensor f32(const Ints& dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return ge::OpTensor{ge::DataType::f32, ge::Shape::parse(s)};
}

ge::TensorView view(const ge::Tensor& t) {
  return ge::TensorView{const_cast<std::byte*>(t.bytes().data()), t.dtype(), t.dims()};
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// The minimum CPU time of the calling thread over the last `time_it` (with one thread the
// caller runs all the work: that time leaves out the moments other processes held the core).
double g_min_cpu_ms = 0;

// GE_BENCH_COLD=1: before each timed run the caches are flushed (a pass over 256 MiB) and
// the layer's input read again, so that the weights come from memory as in a model at
// batch 1, where they are read once per run, and the input from the caches.
bool cold() {
  static const bool on = [] {
    const char* env = std::getenv("GE_BENCH_COLD");
    return env != nullptr && *env != 0 && *env != '0';
  }();
  return on;
}

void flush_caches() {
  static std::vector<float> junk(std::size_t{64} << 20, 1.0f);
  float sum = 0.0f;
  for (std::size_t i = 0; i < junk.size(); i += 16) {
    junk[i] += 1.0f;
    sum += junk[i];
  }
  if (sum == 0.0f) std::puts("");  // never: keeps the pass
}

// Runs `f` until `min_reps` and ~`budget_s` are both reached; returns {min, median} in ms.
std::pair<double, double> time_it(const std::function<void()>& f, int min_reps, double budget_s,
                                  const std::function<void()>& after_flush = {}) {
  f();  // warm-up
  std::vector<double> t;
  g_min_cpu_ms = 1e300;
  const auto start = clock_type::now();
  while (static_cast<int>(t.size()) < min_reps ||
         (std::chrono::duration<double>(clock_type::now() - start).count() < budget_s && t.size() < 200)) {
    if (cold()) {
      flush_caches();
      if (after_flush) after_flush();
    }
    const double c0 = thread_cpu_ms();
    const auto t0 = clock_type::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
    g_min_cpu_ms = std::min(g_min_cpu_ms, thread_cpu_ms() - c0);
  }
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2]};
}

// GE_BENCH_BF16=1: the kernels of `Precision::bf16` (bf16 weights and patches, f32 sums).
bool bf16_kernels() {
  const char* env = std::getenv("GE_BENCH_BF16");
  return env != nullptr && *env != 0 && *env != '0';
}

bool nhwc_images() {
  const char* env = std::getenv("GE_BENCH_NHWC");
  return env != nullptr && *env != 0 && *env != '0';
}

struct LayerResult {
  double flops, ms;
};

// GE_BENCH_LAYERS="256x14,512x7/3" limits the layer tables to shapes "<Cin>x<H>" or
// "<Cin>x<H>/<k>" named there.
bool wanted(const Layer& l) {
  const char* env = std::getenv("GE_BENCH_LAYERS");
  if (env == nullptr || *env == 0) return true;
  const std::string list = std::string(",") + env + ",";
  const std::string a = std::to_string(l.c) + "x" + std::to_string(l.h);
  return list.find("," + a + ",") != std::string::npos ||
         list.find("," + a + "/" + std::to_string(l.k) + ",") != std::string::npos;
}

LayerResult bench_layer(const Layer& l, std::int64_t n, tbb::task_arena& arena, double peak) {
  if (!wanted(l)) return {0.0, 0.0};
  const std::int64_t pad = l.dil * (l.k / 2);
  const std::int64_t oh = (l.h + 2 * pad - l.dil * (l.k - 1) - 1) / l.s + 1;
  // GE_BENCH_NHWC=1: the FusedConv on NHWC images that ge::layout_nhwc makes.
  const bool nhwc = nhwc_images();
  const Ints xd = nhwc ? Ints{n, l.h, l.h, l.c} : Ints{n, l.c, l.h, l.h}, wd{l.co, l.c / l.group, l.k, l.k}, bd{l.co};
  const Ints yd = nhwc ? Ints{n, oh, oh, l.co} : Ints{n, l.co, oh, oh};
  const ge::Tensor w = ge::Tensor::random(ge::DataType::f32, wd, 2);
  const ge::Tensor b = ge::Tensor::random(ge::DataType::f32, bd, 3);
  const ge::Tensor x = ge::Tensor::random(ge::DataType::f32, xd, 1);
  ge::Tensor y = ge::Tensor::full(ge::DataType::f32, yd, 0.0);
  ge::Attributes attrs{{"strides", Ints{l.s, l.s}},
                       {"pads", Ints{pad, pad, pad, pad}},
                       {"group", l.group},
                       {"dilations", Ints{l.dil, l.dil}},
                       {"kernel_shape", Ints{l.k, l.k}}};
  if (nhwc) attrs.emplace("layout", "NHWC");
  std::shared_ptr<const ge::CompiledOp> op;
  try {
    ge::OpCompileRequest r{.op_type = nhwc ? "FusedConv" : "Conv",
                           .inputs = {f32(xd), ge::OpTensor::constant_of(w), ge::OpTensor::constant_of(b)},
                           .outputs = {f32(yd)},
                           .attrs = attrs};
    if (bf16_kernels()) r.precision = ge::Precision::bf16;
    op = ge::OpCompiler::global().compile(r);
  } catch (const ge::Error& e) {
    std::printf("| %-4s | %4lld | %4lld x%3lld | %4lld | %dx%d/%lld | no kernel: %s\n", l.model,
                static_cast<long long>(n), static_cast<long long>(l.c), static_cast<long long>(l.h),
                static_cast<long long>(l.co), static_cast<int>(l.k), static_cast<int>(l.k),
                static_cast<long long>(l.s), e.what());
    return {0.0, 0.0};
  }
  const ge::TensorView in[3] = {view(x), view(w), view(b)};
  const ge::TensorView out[1] = {view(y)};
  const double flops = 2.0 * static_cast<double>(n * l.co * oh * oh * (l.c / l.group) * l.k * l.k);
  std::pair<double, double> t;
  // Cold: the weights come from memory, the input from the caches (the layer before
  // wrote it), as in a model at batch 1.
  const auto touch_input = [&] {
    const auto bytes = x.bytes();
    float sum = 0.0f;
    for (std::size_t i = 0; i < bytes.size(); i += 64) sum += static_cast<float>(bytes[i]);
    if (sum < 0.0f) std::puts("");
  };
  arena.execute([&] { t = time_it([&] { op->kernel->run(in, out); }, 5, 0.25, touch_input); });
  const double gf = flops / (t.first * 1e-3) * 1e-9, gf50 = flops / (t.second * 1e-3) * 1e-9;
  std::printf("| %-5s | %4lld | %4lld x%3lld | %4lld | %dx%d/%lld%s | %4lld | %2lld | %-34s | %8.3f | %8.3f | %8.3f "
              "| %6.1f | %6.1f | %5.1f%% |\n",
              l.model, static_cast<long long>(n), static_cast<long long>(l.c), static_cast<long long>(l.h),
              static_cast<long long>(l.co), static_cast<int>(l.k), static_cast<int>(l.k), static_cast<long long>(l.s),
              l.dil > 1 ? "d2" : "  ",
              static_cast<long long>(l.group), static_cast<long long>(l.count), std::string(op->kernel->name()).c_str(),
              t.first, t.second, g_min_cpu_ms, gf, gf50, 100.0 * gf / peak);
  std::fflush(stdout);
  return {flops, t.first};
}

// `ge_bench_conv shapes LIST`: layers given on the command line, "<Cin>x<H>:<Cout>/<k>"
// then optional "s<stride>", "g<group>" and "d<dilation>" (a depthwise conv: g equal to
// Cin and Cout), comma-separated; batch 1 and 8.
std::vector<Layer> parse_layers(const std::string& list) {
  std::vector<Layer> out;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string spec = list.substr(at, end - at);
    Layer l{"arg", 0, 0, 0, 1, 1, 1, 1};
    long long c = 0, h = 0, co = 0, k = 0;
    int used = 0;
    if (std::sscanf(spec.c_str(), "%lldx%lld:%lld/%lld%n", &c, &h, &co, &k, &used) != 4 || c < 1 || h < 1 || co < 1 ||
        k < 1)
      throw std::runtime_error("bad layer '" + spec + "': expected <Cin>x<H>:<Cout>/<k>[s<stride>][g<group>][d<dil>]");
    l.c = c, l.h = h, l.co = co, l.k = k;
    for (std::size_t i = static_cast<std::size_t>(used); i < spec.size();) {
      char* stop = nullptr;
      const long long v = std::strtoll(spec.c_str() + i + 1, &stop, 10);
      if (v < 1 || stop == spec.c_str() + i + 1) throw std::runtime_error("bad layer '" + spec + "'");
      if (spec[i] == 's') l.s = v;
      else if (spec[i] == 'g') l.group = v;
      else if (spec[i] == 'd') l.dil = v;
      else throw std::runtime_error("bad layer '" + spec + "': s, g or d expected after the kernel size");
      i = static_cast<std::size_t>(stop - spec.c_str());
    }
    out.push_back(l);
    at = end + 1;
  }
  return out;
}

// `ge_bench_conv pwdw LIST`: MobileNet's expand (1x1, C -> E) then depthwise (k x k,
// stride s), both with SiLU (GE_BENCH_ACT=Relu: MNASNet's), as one FusedPointwiseDepthwise
// and as two FusedConvs (the expanded image written and read back), at batch 1 and 8; LIST
// as `shapes`' with <Cout> the expanded channels E and <k>, s the depthwise conv's.
void bench_pointwise_depthwise(const std::vector<Layer>& layers, int threads) {
  tbb::task_arena arena(threads);
  const char* act_env = std::getenv("GE_BENCH_ACT");
  const std::string act = act_env != nullptr && *act_env != 0 ? act_env : "Silu";
  std::printf("| N    | C x H      | E    | k/s | fused ms | pw ms  | dw ms  | pw+dw ms | fused / (pw+dw) |\n"
              "|------|------------|------|-----|----------|--------|--------|----------|-----------------|\n");
  for (const std::int64_t n : {1, 8})
    for (const Layer& l : layers) {
      const std::int64_t pad = l.k / 2, oh = (l.h + 2 * pad - l.k) / l.s + 1;
      const Ints xd{n, l.h, l.h, l.c}, md{n, l.h, l.h, l.co}, yd{n, oh, oh, l.co};
      const ge::Tensor w1 = ge::Tensor::random(ge::DataType::f32, {l.co, l.c, 1, 1}, 2);
      const ge::Tensor b1 = ge::Tensor::random(ge::DataType::f32, {l.co}, 3);
      const ge::Tensor w2 = ge::Tensor::random(ge::DataType::f32, {l.co, 1, l.k, l.k}, 4);
      const ge::Tensor b2 = ge::Tensor::random(ge::DataType::f32, {l.co}, 5);
      const ge::Tensor x = ge::Tensor::random(ge::DataType::f32, xd, 1);
      ge::Tensor mid = ge::Tensor::full(ge::DataType::f32, md, 0.0), y = ge::Tensor::full(ge::DataType::f32, yd, 0.0);
      const ge::Attributes dw_attrs{{"strides", Ints{l.s, l.s}}, {"pads", Ints{pad, pad, pad, pad}}, {"group", l.co},
                                    {"kernel_shape", Ints{l.k, l.k}}, {"layout", "NHWC"}, {"activation", act}};
      ge::Attributes fused_attrs = dw_attrs;
      fused_attrs.emplace("pointwise_activation", act);
      const auto compile = [](const char* op, std::vector<ge::OpTensor> in, const Ints& out, ge::Attributes a) {
        return ge::OpCompiler::global().compile(
            ge::OpCompileRequest{.op_type = op, .inputs = std::move(in), .outputs = {f32(out)}, .attrs = std::move(a)});
      };
      const auto fused = compile("FusedPointwiseDepthwise",
                                 {f32(xd), ge::OpTensor::constant_of(w1), ge::OpTensor::constant_of(b1),
                                  ge::OpTensor::constant_of(w2), ge::OpTensor::constant_of(b2)},
                                 yd, fused_attrs);
      const auto pw = compile("FusedConv", {f32(xd), ge::OpTensor::constant_of(w1), ge::OpTensor::constant_of(b1)}, md,
                              {{"layout", "NHWC"}, {"activation", act}});
      const auto dw = compile("FusedConv", {f32(md), ge::OpTensor::constant_of(w2), ge::OpTensor::constant_of(b2)}, yd,
                              dw_attrs);
      const ge::TensorView fin[5] = {view(x), view(w1), view(b1), view(w2), view(b2)};
      const ge::TensorView pin[3] = {view(x), view(w1), view(b1)}, din[3] = {view(mid), view(w2), view(b2)};
      const ge::TensorView yo[1] = {view(y)}, mo[1] = {view(mid)};
      std::pair<double, double> tf, tp, td;
      arena.execute([&] {
        tf = time_it([&] { fused->kernel->run(fin, yo); }, 5, 0.25);
        tp = time_it([&] { pw->kernel->run(pin, mo); }, 5, 0.25);
        td = time_it([&] { dw->kernel->run(din, yo); }, 5, 0.25);
      });
      std::printf("| %4lld | %4lld x%4lld | %4lld | %lld/%lld | %8.3f | %6.3f | %6.3f | %8.3f | %15.2f |\n",
                  static_cast<long long>(n), static_cast<long long>(l.c), static_cast<long long>(l.h),
                  static_cast<long long>(l.co), static_cast<long long>(l.k), static_cast<long long>(l.s), tf.first,
                  tp.first, td.first, tp.first + td.first, tf.first / (tp.first + td.first));
      std::fflush(stdout);
    }
}

void table_header() {
  std::printf("| net   | N    | Cin x H    | Cout | k/s     | grp  | x  | kernel                             "
              "|  min ms  |  p50 ms  |  cpu ms  | GFLOP/s | p50 GF/s | %%peak |\n");
  std::printf("|-------|------|------------|------|---------|------|----|------------------------------------"
              "|----------|----------|----------|--------|--------|--------|\n");
}

// DenseNet-121's convs at batch 1 and 8: its growth convs (3x3, 128 -> 32) at each
// resolution, the bottlenecks (1x1 to 128) from the narrowest and widest inputs of each
// dense block, and the transitions (1x1 halving the channels). `ge_bench_conv dense`.
const Layer kDenseNet[] = {
    {"dn121", 128, 56, 32, 3, 1, 1, 6},    {"dn121", 128, 28, 32, 3, 1, 1, 12},  {"dn121", 128, 14, 32, 3, 1, 1, 24},
    {"dn121", 128, 7, 32, 3, 1, 1, 16},    {"dn121", 64, 56, 128, 1, 1, 1, 1},   {"dn121", 224, 56, 128, 1, 1, 1, 1},
    {"dn121", 128, 28, 128, 1, 1, 1, 1},   {"dn121", 480, 28, 128, 1, 1, 1, 1},  {"dn121", 256, 14, 128, 1, 1, 1, 1},
    {"dn121", 992, 14, 128, 1, 1, 1, 1},   {"dn121", 512, 7, 128, 1, 1, 1, 1},   {"dn121", 992, 7, 128, 1, 1, 1, 1},
    {"dn121", 256, 56, 128, 1, 1, 1, 1},   {"dn121", 512, 28, 256, 1, 1, 1, 1},  {"dn121", 1024, 14, 512, 1, 1, 1, 1},
};

void bench_densenet(int threads, double peak) {
  tbb::task_arena arena(threads);
  table_header();
  for (const std::int64_t n : {1, 8})
    for (const Layer& l : kDenseNet) (void)bench_layer(l, n, arena, peak);
}

// The depthwise and grouped table (`ge_bench_conv dw`). On a shared machine compare the
// p50 columns of runs made back to back.
void bench_depthwise(int threads, double peak) {
  tbb::task_arena arena(threads);
  table_header();
  for (const std::int64_t n : {1, 8})
    for (const Layer& l : kDepthwise) (void)bench_layer(l, n, arena, peak);
}

void bench_layers(int threads, double peak) {
  tbb::task_arena arena(threads);
  table_header();
  for (const std::int64_t n : {1, 8}) {
    double total_ms = 0, total_flops = 0;
    for (const Layer& l : kResNet) {
      const LayerResult r = bench_layer(l, n, arena, peak);
      total_ms += r.ms * static_cast<double>(l.count);
      total_flops += r.flops * static_cast<double>(l.count);
    }
    std::printf("ResNet-50 convs, batch %lld: %.2f GFLOP in %.2f ms (sum of per-layer minima x count): %.1f GFLOP/s, "
                "%.1f%% of peak\n",
                static_cast<long long>(n), total_flops * 1e-9, total_ms, total_flops / (total_ms * 1e-3) * 1e-9,
                100.0 * total_flops / (total_ms * 1e-3) * 1e-9 / peak);
  }
  for (const std::int64_t n : {1, 8})
    for (const Layer& l : kMobileNet) (void)bench_layer(l, n, arena, peak);
}

void bench_models(int threads) {
  struct Model {
    const char* name;
    std::function<ge::Graph(std::string_view)> build;
  };
  const Model models[] = {
      {"ResNet-50", [](std::string_view s) { return ge::models::resnet50(s); }},
      {"MobileNetV2", [](std::string_view s) { return ge::models::mobilenet_v2(s); }},
  };
  for (const Model& m : models) {
    for (const std::int64_t n : {1, 8}) {
      const std::string shape = std::to_string(n) + ",3,224,224";
      const auto model = ge::compile(m.build(shape), {{"ge.inputShape", "data:" + shape}});
      ge::Session session(model, {.threads = threads});
      const ge::Tensor x = ge::Tensor::random(ge::DataType::f32, Ints{n, 3, 224, 224}, 7);
      const ge::TensorView in = view(x);
      const auto t = time_it([&] { (void)session.run({in}); }, n == 1 ? 10 : 5, n == 1 ? 2.0 : 5.0);
      std::printf("%-11s batch %lld, %d threads: min %.1f ms, p50 %.1f ms, %.1f images/s (p50); caller's CPU time "
                  "min %.1f ms\n",
                  m.name, static_cast<long long>(n), threads, t.first, t.second,
                  static_cast<double>(n) * 1000.0 / t.second, g_min_cpu_ms);
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string what = argc > 1 ? argv[1] : "all";
    const int at = what == "shapes" || what == "pwdw" ? 3 : 2;  // (the layer list first)
    const int threads = argc > at ? std::max(1, std::atoi(argv[at])) : 2;
    const double mhz = cpu_mhz();
    const int lanes = ge_bench::kernel_lanes();
    const double nominal = 2.0 * lanes * 2.0 * mhz * 1e-3;  // 2 FMA pipes x lanes x 2 flops x clock
    const double measured = ge_bench::measured_core_peak(lanes);
    const double per_core = argc > at + 1 ? std::atof(argv[at + 1]) : measured > 0.0 ? measured : nominal;
    const double peak = per_core * threads;
    std::printf("bench/conv: %d threads; peak %.1f GFLOP/s = %d x %.1f per core (%s); an FMA loop measured %.1f per "
                "core, 2 FMA pipes x %d lanes (cpuid, GE_CPU_ISA) x 2 flops x %.0f MHz (/proc/cpuinfo) is %.1f\n\n",
                threads, peak, threads, per_core,
                argc > at + 1 ? "given" : measured > 0.0 ? "measured by the FMA loop" : "from the clock", measured, lanes, mhz,
                nominal);
    std::printf("CPU: %s; kernels' ISA: %d fp32 lanes (ge::cpu_isa: %s)\n\n", ge_bench::cpu_model().c_str(), lanes,
                std::string(ge::cpu_isa()).c_str());
    if (what == "peaks") {
      const double dot = ge_bench::bf16_dot_peak();
      if (dot > 0.0)
        std::printf("one core: f32 FMA %.1f GFLOP/s, bf16 dot product (vdpbf16ps) %.1f GFLOP/s: %.2fx\n", measured, dot,
                    dot / measured);
      else
        std::printf("one core: f32 FMA %.1f GFLOP/s; no AVX512-BF16 dot product here (or GE_CPU_ISA caps it)\n",
                    measured);
      const double int8 = ge_bench::int8_dot_peak();
      if (int8 > 0.0)
        std::printf("one core: int8 dot product (vpdpbusd, u8 x s8, 2 ops a product) %.1f GOP/s: %.2fx f32 FMA\n", int8,
                    int8 / measured);
      else
        std::printf("one core: no AVX512-VNNI int8 dot product here (or GE_CPU_ISA caps it)\n");
    }
    if (what == "shapes") {
      if (argc < 3) throw std::runtime_error("shapes: give the layers, e.g. 16x112:8/1,8x112:24/3s2");
      const std::vector<Layer> layers = parse_layers(argv[2]);
      tbb::task_arena arena(threads);
      table_header();
      for (const std::int64_t n : {1, 8})
        for (const Layer& l : layers) (void)bench_layer(l, n, arena, peak);
    }
    if (what == "pwdw") {
      if (argc < 3) throw std::runtime_error("pwdw: give the layers, e.g. 24x65:144/3,16x130:96/3s2");
      bench_pointwise_depthwise(parse_layers(argv[2]), threads);
    }
    if (what == "layers" || what == "all") bench_layers(threads, peak);
    if (what == "dw" || what == "all") bench_depthwise(threads, peak);
    if (what == "dense" || what == "all") bench_densenet(threads, peak);
    if (what == "models" || what == "all") bench_models(threads);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench/conv: %s\n", e.what());
    return 1;
  }
}
