#pragma once
// The fp32 FMA throughput of one core, measured rather than derived from a clock: a loop
// of independent vector FMAs (all in registers, no memory traffic) for about 0.2 s at the
// widest ISA the kernels use (AVX-512F: 16 lanes, AVX2+FMA: 8; capped by GE_CPU_ISA as
// the kernels are). The clock /proc/cpuinfo reports is often a VM host's base clock, and
// some cores run 512-bit FMAs at half the 256-bit rate: the loop sees both.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <utility>

namespace ge_bench {

typedef float peak_vf8 __attribute__((vector_size(32)));
typedef float peak_vf16 __attribute__((vector_size(64)));

template <class Vec, int N>
inline __attribute__((always_inline)) double fma_loop() {
  Vec acc[N];
  for (int i = 0; i < N; ++i) acc[i] = Vec{} + static_cast<float>(i) * 1e-3f;
  const Vec a = Vec{} + 0.999999f, b = Vec{} + 1e-7f;
  const auto t0 = std::chrono::steady_clock::now();
  std::int64_t iters = 0;
  double seconds = 0.0;
  do {
    for (int r = 0; r < 100000; ++r)
#pragma GCC unroll 24
      for (int i = 0; i < N; ++i) acc[i] = acc[i] * a + b;
    iters += 100000;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (seconds < 0.2);
  float sink = 0.0f;
  for (int i = 0; i < N; ++i) sink += acc[i][0];
  if (sink == 12345.0f) std::printf(" ");  // keeps the loop
  return static_cast<double>(iters) * N * static_cast<double>(sizeof(Vec) / sizeof(float)) * 2.0 / seconds * 1e-9;
}

// The bf16 dot-product throughput of one core (AVX512-BF16's `vdpbf16ps`: 16 lanes x 2
// products x 2 flops per instruction, f32 accumulation), the same way: 24 independent
// accumulators. 0 where the CPU lacks AVX512-BF16 or GE_CPU_ISA caps the kernels below
// AVX-512.
typedef short peak_vbf16 __attribute__((vector_size(64)));
__attribute__((target("avx512f,avx512bf16"))) inline double bf16_dot_loop() {
  constexpr int n = 24;
  peak_vf16 acc[n];
  for (int i = 0; i < n; ++i) acc[i] = peak_vf16{} + static_cast<float>(i) * 1e-3f;
  const peak_vbf16 a = peak_vbf16{} + static_cast<short>(0x3f80), b = peak_vbf16{} + static_cast<short>(0x3380);
  const auto t0 = std::chrono::steady_clock::now();
  std::int64_t iters = 0;
  double seconds = 0.0;
  do {
    for (int r = 0; r < 100000; ++r)
#pragma GCC unroll 24
      for (int i = 0; i < n; ++i) acc[i] = __builtin_ia32_dpbf16ps_v16sf(acc[i], a, b);
    iters += 100000;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (seconds < 0.2);
  float sink = 0.0f;
  for (int i = 0; i < n; ++i) sink += acc[i][0];
  if (sink == 12345.0f) std::printf(" ");  // keeps the loop
  return static_cast<double>(iters) * n * 64.0 / seconds * 1e-9;
}

inline double bf16_dot_peak() {
  const char* cap = std::getenv("GE_CPU_ISA");
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512bf16") || (cap != nullptr && std::string(cap) != "avx512")) return 0.0;
  return bf16_dot_loop();
}

// The int8 dot-product throughput of one core (AVX512-VNNI's `vpdpbusd`: 16 lanes x 4
// u8 x s8 products x 2 ops per instruction, i32 accumulation), the same way. 0 where the
// CPU lacks AVX512-VNNI or GE_CPU_ISA caps the kernels below AVX-512.
typedef int peak_vi16 __attribute__((vector_size(64)));
__attribute__((target("avx512f,avx512vnni"))) inline double int8_dot_loop() {
  constexpr int n = 24;
  peak_vi16 acc[n];
  for (int i = 0; i < n; ++i) acc[i] = peak_vi16{} + i;
  const peak_vi16 a = peak_vi16{} + 0x01020304, b = peak_vi16{} + 0x01ff01ff;
  const auto t0 = std::chrono::steady_clock::now();
  std::int64_t iters = 0;
  double seconds = 0.0;
  do {
    for (int r = 0; r < 100000; ++r)
#pragma GCC unroll 24
      for (int i = 0; i < n; ++i) acc[i] = __builtin_ia32_vpdpbusd_v16si(acc[i], a, b);
    iters += 100000;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (seconds < 0.2);
  int sink = 0;
  for (int i = 0; i < n; ++i) sink += acc[i][0];
  if (sink == 12345) std::printf(" ");  // keeps the loop
  return static_cast<double>(iters) * n * 128.0 / seconds * 1e-9;
}

inline double int8_dot_peak() {
  const char* cap = std::getenv("GE_CPU_ISA");
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512vnni") || (cap != nullptr && std::string(cap) != "avx512")) return 0.0;
  return int8_dot_loop();
}

// 24 of the 32 zmm registers; 12 of the 16 ymm ones (with the two operands).
__attribute__((target("avx512f,fma"))) inline double fma_peak_avx512() { return fma_loop<peak_vf16, 24>(); }
__attribute__((target("avx2,fma"))) inline double fma_peak_avx2() { return fma_loop<peak_vf8, 12>(); }

// The lanes of the widest ISA the kernels dispatch to: 16, 8 or 4 (no measurement then).
inline int kernel_lanes() {
  const char* cap = std::getenv("GE_CPU_ISA");
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && (cap == nullptr || std::string(cap) == "avx512")) return 16;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && (cap == nullptr || std::string(cap) != "baseline"))
    return 8;
  return 4;
}

// GFLOP/s of one core at `lanes` (16 or 8); 0 for other widths.
inline double measured_core_peak(int lanes) {
  return lanes == 16 ? fma_peak_avx512() : lanes == 8 ? fma_peak_avx2() : 0.0;
}

// The machine's peak: cores x the FMA loop's GFLOP/s per core (else FMA units x lanes x 2
// flops x clock), with how it was derived.
struct Peak {
  double gflops = 0;
  std::string derivation;
};

// The clock in GHz and where it came from: cpufreq's maximum, else /proc/cpuinfo's
// "cpu MHz" (the highest over the cores).
inline std::pair<double, std::string> clock_ghz() {
  if (std::ifstream f("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"); f) {
    double khz = 0;
    if (f >> khz && khz > 0) return {khz / 1e6, "cpufreq cpuinfo_max_freq"};
  }
  std::ifstream f("/proc/cpuinfo");
  double mhz = 0;
  for (std::string line; std::getline(f, line);)
    if (line.rfind("cpu MHz", 0) == 0)
      if (const auto colon = line.find(':'); colon != std::string::npos) mhz = std::max(mhz, std::atof(line.c_str() + colon + 1));
  if (mhz > 0) return {mhz / 1e3, "/proc/cpuinfo cpu MHz"};
  return {0, "unknown (no cpufreq, no cpu MHz)"};
}

inline std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("model name", 0) == 0)
      if (const auto colon = line.find(": "); colon != std::string::npos) return line.substr(colon + 2);
  return "unknown CPU";
}

// How far apart the first two CPUs this process may run on are: the one-way latency of a
// cache line handed back and forth between two threads pinned to them (the best of three
// rounds of 4000 round trips; -1 with fewer than two CPUs or where pinning fails). On a
// 2-vCPU VM it tells where the host put the vCPUs at that moment: 20-40 ns when they
// share a core complex's L3, 150-200 ns when they sit on two (seen on the Zen 4 VM, which
// moves between the two every few seconds to minutes). A kernel whose threads read what
// the other thread just wrote pays the far figure per cache line: whole models ran 1.2x
// (ORT on RegNetX-800MF) to 1.7x (ge on MNASNet-0.5 at batch 1) slower there, ge and ORT
// alike but not equally (docs/bench.md, "The VM's two speeds").
inline double core_to_core_ns() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1.0;
  int cpus[2] = {-1, -1}, found = 0;
  for (int c = 0; c < CPU_SETSIZE && found < 2; ++c)
    if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
  if (found < 2) return -1.0;
  alignas(64) std::atomic<int> flag{0};
  std::atomic<bool> pinned_ok{true};
  const auto pin = [&](int cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) pinned_ok = false;
  };
  constexpr int trips = 4000;
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    flag = 0;
    double ns = 0.0;
    std::thread echo([&] {
      pin(cpus[1]);
      for (int i = 0; i < 200 + trips; ++i) {
        while (flag.load(std::memory_order_acquire) != 2 * i + 1) {
          if (!pinned_ok) return;
        }
        flag.store(2 * i + 2, std::memory_order_release);
      }
    });
    std::thread serve([&] {
      pin(cpus[0]);
      constexpr int warm = 200;  // (the echo thread starting and pinning itself: not timed)
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < warm + trips && pinned_ok; ++i) {
        if (i == warm) t0 = std::chrono::steady_clock::now();
        flag.store(2 * i + 1, std::memory_order_release);
        while (flag.load(std::memory_order_acquire) != 2 * i + 2) {
          if (!pinned_ok) return;
        }
      }
      ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / trips / 2.0;
    });
    serve.join();
    echo.join();
    if (!pinned_ok) return -1.0;
    best = std::min(best, ns);
  }
  return best;
}

// "near" or "far" (over 100 ns) for a measurement between two probes, "mixed" where they
// disagree, "" without a probe.
inline std::string cores_apart(double before, double after) {
  if (before < 0.0 || after < 0.0) return "";
  const bool far0 = before > 100.0, far1 = after > 100.0;
  return far0 != far1 ? "mixed" : far0 ? "far" : "near";
}

inline Peak machine_peak(int cores) {
  const int lanes = kernel_lanes();
  const std::string isa = lanes == 16 ? "AVX-512F: 16 fp32 lanes" : lanes == 8 ? "AVX2+FMA: 8 fp32 lanes" : "no AVX2+FMA: 4 lanes";
  constexpr int fma_units = 2;  // two FMA pipes per core on x86-64 server cores of this class
  const auto [ghz, clock_src] = clock_ghz();
  const double nominal = cores * fma_units * lanes * 2 * ghz;
  const double measured = cores * measured_core_peak(lanes);
  Peak p;
  p.gflops = measured > 0.0 ? measured : nominal;
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "peak = %.1f GFLOP/s fp32 = %d cores (threads used) x %.1f measured by an FMA loop (%s); from the "
                "clock: %d FMA units (assumed) x %d lanes x 2 flops x %.3f GHz (%s) = %.1f  [%s]",
                p.gflops, cores, measured / cores, isa.c_str(), fma_units, lanes, ghz, clock_src.c_str(), nominal,
                cpu_model().c_str());
  p.derivation = buf;
  return p;
}

}  // namespace ge_bench
