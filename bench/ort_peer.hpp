#pragma once
// ONNX Runtime as a peer: bench/peers/ort_bench.js run by node in a child process, on
// the same ONNX file, its timings and peak RSS read from the JSON line it prints.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "processes.hpp"

namespace ge_bench {

// ONNX Runtime through bench/peers/ort_bench.js.
struct OrtPeer {
  std::string node;
  std::string script;
  std::string why_not;  // non-empty: not available
  std::string version;

  // The peer of the source tree at `source_dir`.
  static OrtPeer find(const std::filesystem::path& source_dir) {
    OrtPeer p;
    const std::filesystem::path peers = source_dir / "bench" / "peers";
    p.script = (peers / "ort_bench.js").string();
    p.node = which("node");
    if (p.node.empty()) p.node = which("nodejs");
    std::error_code ec;
    if (p.node.empty()) p.why_not = "node is not in PATH";
    else if (!std::filesystem::exists(peers / "node_modules" / "onnxruntime-node", ec)) p.why_not = "no " + (peers / "node_modules").string();
    else if (!std::filesystem::exists(p.script, ec)) p.why_not = "no " + p.script;
    return p;
  }
  [[nodiscard]] bool available() const { return why_not.empty(); }
};

struct OrtResult {
  bool ok = false;
  double p50 = 0, p90 = 0, mean = 0;
  int runs = 0;
  double rss_mib = 0;       // the script's own getrusage figure
  double wait4_rss_mib = 0; // ours, from wait4
  double baseline_rss_mib = 0;
};

// One measurement of `file` at `batch` (with `shapes` for its dynamic inputs) on
// `threads` intra-op threads; `ok` false, with the reason on stderr, when it failed.
// `extra`: more arguments for the script (--input name:FILE, --save-outputs FILE).
inline OrtResult run_ort(OrtPeer& peer, const std::filesystem::path& file, std::int64_t batch, int threads,
                         const std::vector<std::string>& shapes, int warmup, int runs, double seconds,
                         const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv{peer.node,    peer.script,       "--model",   file.string(),
                                "--batch",    std::to_string(batch), "--threads", std::to_string(threads),
                                "--warmup",   std::to_string(warmup), "--runs",   std::to_string(runs),
                                "--seconds",  std::to_string(seconds)};
  for (const auto& s : shapes) {
    argv.emplace_back("--shape");
    argv.push_back(s);
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  const Child c = spawn_measured(argv);
  OrtResult r;
  if (!c.ok()) {
    std::fprintf(stderr, "ORT run failed (%s); output: %s\n", file.string().c_str(), c.out.c_str());
    return r;
  }
  const auto p50 = json_number(c.out, "p50_ms"), p90 = json_number(c.out, "p90_ms"),
             mean = json_number(c.out, "mean_ms"), n = json_number(c.out, "runs"),
             rss = json_number(c.out, "peak_rss_mib"), base = json_number(c.out, "baseline_rss_mib");
  if (!p50 || !p90 || !mean || !n || !rss) {
    std::fprintf(stderr, "ORT printed no timings: %s\n", c.out.c_str());
    return r;
  }
  if (peer.version.empty()) peer.version = json_string(c.out, "ort_version");
  r.ok = true;
  r.p50 = *p50;
  r.p90 = *p90;
  r.mean = *mean;
  r.runs = static_cast<int>(*n);
  r.rss_mib = *rss;
  r.wait4_rss_mib = c.max_rss_mib;
  r.baseline_rss_mib = base.value_or(0);
  return r;
}

}  // namespace ge_bench
