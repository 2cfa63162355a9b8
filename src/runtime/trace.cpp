// Chrome trace output and per-op profiles of traced runs. See include/ge/runtime/trace.hpp.
#include "ge/runtime/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "ge/compile/flops.hpp"
#include "ge/compile/plan.hpp"
#include "ge/core/detail/file_write.hpp"
#include "ge/core/error.hpp"

namespace ge {
namespace {

void json_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string number(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// `f32[1,64,56,56]`, or `-` for an omitted optional input.
std::string value_text(const Plan& plan, const RunTrace& run, std::int32_t v) {
  if (v < 0) return "-";
  const auto vi = static_cast<std::size_t>(v);
  std::string s(to_string(plan.values[vi].desc.dtype));
  s += '[';
  const std::vector<std::int64_t> d = run.value_dims(vi);
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + ']';
}

std::string values_text(const Plan& plan, const RunTrace& run, const std::vector<std::int32_t>& vs) {
  std::string s;
  for (std::size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + value_text(plan, run, vs[i]);
  return s;
}

// The FLOPs of step `s` at the run's real dims.
std::optional<double> flops_of(const Plan& plan, const RunTrace& run, std::size_t s) {
  const PlanStep& step = plan.steps[s];
  if (step.outputs.empty() || step.outputs[0] < 0) return std::nullopt;
  std::vector<std::vector<std::int64_t>> dims;
  dims.reserve(step.inputs.size() + 1);
  for (const std::int32_t v : step.inputs) dims.push_back(v < 0 ? std::vector<std::int64_t>{} : run.value_dims(static_cast<std::size_t>(v)));
  dims.push_back(run.value_dims(static_cast<std::size_t>(step.outputs[0])));
  const std::vector<std::span<const std::int64_t>> in(dims.begin(), dims.end() - 1);
  return op_flops(step.op, in, dims.back());
}

void check_run(const RunTrace& run, const char* where) {
  if (!run.plan) raise(Errc::invalid_argument, std::string("[ge.trace] ") + where + ": a trace without a plan");
  if (run.steps.size() != run.plan->steps.size())
    raise(Errc::invalid_argument, std::string("[ge.trace] ") + where + ": the trace has " +
                                      std::to_string(run.steps.size()) + " steps; its plan has " +
                                      std::to_string(run.plan->steps.size()));
}

constexpr int kStreamsPid = 1;
constexpr int kThreadsPid = 2;

// The Chrome trace JSON as it is written: events in order, times in microseconds from
// `t0` (the first run's start).
class TraceWriter {
 public:
  explicit TraceWriter(std::int64_t t0) : t0_(t0) {}

  // Process and track names: the streams (each with its engine) and the host threads.
  void tracks(std::span<const RunTrace> runs) {
    meta(kStreamsPid, 0, "process_name", "ge streams", 0);
    meta(kThreadsPid, 0, "process_name", "ge host threads", 1);
    meta(kStreamsPid, -1, "thread_name", "runs", -1);
    std::map<std::int32_t, bool> streams;  // stream -> host engine
    std::set<std::int32_t> threads;
    for (const RunTrace& r : runs) {
      for (std::size_t s = 0; s < r.steps.size(); ++s) {
        const std::int32_t st = r.plan->streams.stream[s];
        streams.emplace(st, st == r.plan->streams.host_stream);
        if (r.steps[s].thread >= 0) threads.insert(r.steps[s].thread);
      }
    }
    for (const auto& [st, host] : streams)
      meta(kStreamsPid, st, "thread_name", "stream " + std::to_string(st) + (host ? " (host engine)" : " (vector engine)"), st);
    for (const std::int32_t t : threads) meta(kThreadsPid, t, "thread_name", "host thread " + std::to_string(t), t);
  }

  // Run `ri` itself, above its steps on stream 0's track.
  void run(const RunTrace& r, std::size_t ri) {
    const Plan& p = *r.plan;
    std::string b = "\"ph\":\"X\",\"cat\":\"run\",\"pid\":" + std::to_string(kStreamsPid) +
                    ",\"tid\":-1,\"ts\":" + ts(r.start) + ",\"dur\":" + dur(r.start, r.end) + ",\"name\":";
    json_string(b, "run " + std::to_string(ri) + (p.gear >= 0 ? " (gear " + std::to_string(p.gear) + ")" : ""));
    b += ",\"args\":{\"inputs\":";
    std::string inputs;
    for (std::size_t i = 0; i < p.graph_inputs.size(); ++i) inputs += (i ? ", " : "") + value_text(p, r, p.graph_inputs[i]);
    json_string(b, inputs);
    event(b + "}");
  }

  // Step `s` of a run: a slice on its stream's track and one on its thread's.
  void step(const RunTrace& r, std::size_t s) {
    const Plan& p = *r.plan;
    const StepTiming& t = r.steps[s];
    const PlanStep& step = p.steps[s];
    const std::int32_t st = p.streams.stream[s];
    std::string args = ",\"args\":{\"op\":";
    json_string(args, step.op);
    args += ",\"step\":" + std::to_string(s) + ",\"stream\":" + std::to_string(st) +
            ",\"thread\":" + std::to_string(t.thread) + ",\"inputs\":";
    json_string(args, values_text(p, r, step.inputs));
    args += ",\"outputs\":";
    json_string(args, values_text(p, r, step.outputs));
    if (const auto f = flops_of(p, r, s)) {
      char g[32];
      std::snprintf(g, sizeof g, "%.6g", *f * 1e-9);
      args += ",\"gflop\":" + std::string(g);
      if (t.end > t.start) args += ",\"gflops_per_s\":" + number(*f / static_cast<double>(t.end - t.start), 2);
    }
    args += '}';
    std::string name;
    json_string(name, step.name);
    std::string cat;
    json_string(cat, step.op);
    const std::string slice = "\"ph\":\"X\",\"name\":" + name + ",\"cat\":" + cat + ",\"ts\":" + ts(t.start) +
                              ",\"dur\":" + dur(t.start, t.end) + args;
    event(slice + ",\"pid\":" + std::to_string(kStreamsPid) + ",\"tid\":" + std::to_string(st));
    if (t.thread >= 0) event(slice + ",\"pid\":" + std::to_string(kThreadsPid) + ",\"tid\":" + std::to_string(t.thread));
  }

  // Cross-stream event `e` of a run: the wait as a slice on the waiting stream, and an
  // arrow from the recording step to the waiting one.
  void cross_stream(const RunTrace& r, std::size_t e) {
    const Plan& p = *r.plan;
    const auto from = static_cast<std::size_t>(p.streams.events[e].from);
    const auto to = static_cast<std::size_t>(p.streams.events[e].to);
    const StepTiming& tf = r.steps[from];
    const StepTiming& tt = r.steps[to];
    const std::string to_stream = std::to_string(p.streams.stream[to]);
    std::string wait = "\"ph\":\"X\",\"cat\":\"event\",\"name\":\"wait event " + std::to_string(e) +
                       "\",\"pid\":" + std::to_string(kStreamsPid) + ",\"tid\":" + to_stream + ",\"ts\":" +
                       ts(tt.wait_start) + ",\"dur\":" + dur(tt.wait_start, tt.start) + ",\"args\":{\"recorded_by\":";
    json_string(wait, p.steps[from].name);
    wait += ",\"waited_by\":";
    json_string(wait, p.steps[to].name);
    event(wait + "}");
    const std::string id = std::to_string(flow_id_++);
    // The arrow starts inside the recording slice and ends at the waiting slice.
    const std::int64_t at = std::max(tf.start, tf.end - 1);
    event("\"ph\":\"s\",\"cat\":\"event\",\"name\":\"event " + std::to_string(e) + "\",\"id\":" + id +
          ",\"pid\":" + std::to_string(kStreamsPid) + ",\"tid\":" + std::to_string(p.streams.stream[from]) +
          ",\"ts\":" + ts(at));
    event("\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"event\",\"name\":\"event " + std::to_string(e) + "\",\"id\":" + id +
          ",\"pid\":" + std::to_string(kStreamsPid) + ",\"tid\":" + to_stream + ",\"ts\":" + ts(tt.start));
  }

  // The whole JSON text.
  std::string finish() { return out_ + "\n]}\n"; }

 private:
  std::string ts(std::int64_t ns) const { return number(static_cast<double>(ns - t0_) * 1e-3, 3); }
  std::string dur(std::int64_t a, std::int64_t b) const {
    return number(static_cast<double>(std::max<std::int64_t>(b - a, 0)) * 1e-3, 3);
  }
  void event(const std::string& body) {
    if (!first_) out_ += ",\n";
    first_ = false;
    out_ += '{' + body + '}';
  }
  // A metadata event naming process `pid` or its track `tid`, with its sort index unless -1.
  void meta(int pid, int tid, const char* what, const std::string& name, int sort) {
    std::string b = "\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"name\":\"" +
                    what + "\",\"args\":{\"name\":";
    json_string(b, name);
    event(b + "}");
    if (sort >= 0) {
      event("\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"name\":\"" +
            (std::string(what) == "process_name" ? "process_sort_index" : "thread_sort_index") +
            "\",\"args\":{\"sort_index\":" + std::to_string(sort) + "}");
    }
  }

  std::int64_t t0_;
  std::string out_ = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first_ = true;
  std::int64_t flow_id_ = 0;
};

}  // namespace

std::vector<std::int64_t> RunTrace::value_dims(std::size_t v) const {
  if (v < dims.size()) return dims[v];
  if (!plan || v >= plan->values.size()) return {};
  const Shape& s = plan->values[v].desc.shape;
  if (!s.is_static()) return {};
  return s.values();
}

std::string chrome_trace(std::span<const RunTrace> runs) {
  for (const RunTrace& r : runs) check_run(r, "chrome_trace");
  std::int64_t t0 = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) t0 = i == 0 ? runs[i].start : std::min(t0, runs[i].start);
  TraceWriter w(t0);
  w.tracks(runs);
  for (std::size_t ri = 0; ri < runs.size(); ++ri) {
    w.run(runs[ri], ri);
    for (std::size_t s = 0; s < runs[ri].steps.size(); ++s) w.step(runs[ri], s);
    for (std::size_t e = 0; e < runs[ri].plan->streams.events.size(); ++e) w.cross_stream(runs[ri], e);
  }
  return w.finish();
}

void write_chrome_trace(const std::filesystem::path& path, std::span<const RunTrace> runs) {
  const std::string text = chrome_trace(runs);
  if (const auto why = detail::write_file_atomically(path, text))
    raise(Errc::invalid_argument, "[ge.trace] cannot write the trace to '" + path.string() + "': " + *why);
}

void Profile::add(const RunTrace& run) {
  check_run(run, "Profile::add");
  const Plan& p = *run.plan;
  for (std::size_t s = 0; s < run.steps.size(); ++s) {
    const PlanStep& step = p.steps[s];
    const auto [it, fresh] = index_.try_emplace(step.name, nodes_.size());
    if (fresh) nodes_.emplace_back(step.name, Acc{.op = step.op, .kernel = step.kernel ? std::string(step.kernel->name()) : ""});
    Acc& a = nodes_[it->second].second;
    const std::int64_t ns = std::max<std::int64_t>(run.steps[s].end - run.steps[s].start, 0);
    ++a.calls;
    a.ns += ns;
    if (const auto f = flops_of(p, run, s)) {
      a.flops += *f;
      a.flops_ns += ns;
    }
  }
  ++runs_;
}

double Profile::total_ms() const noexcept {
  std::int64_t ns = 0;
  for (const auto& n : nodes_) ns += n.second.ns;
  return static_cast<double>(ns) * 1e-6;
}

Profile::Row Profile::row(const std::string& name, const Acc& a, double total_ns) {
  Row r;
  r.name = name;
  r.op = a.op;
  r.kernel = a.kernel;
  r.calls = a.calls;
  r.total_ms = static_cast<double>(a.ns) * 1e-6;
  r.mean_us = a.calls > 0 ? static_cast<double>(a.ns) * 1e-3 / static_cast<double>(a.calls) : 0;
  r.share = total_ns > 0 ? static_cast<double>(a.ns) / total_ns : 0;
  if (a.flops_ns > 0) r.gflops = a.flops / static_cast<double>(a.flops_ns);
  return r;
}

std::vector<Profile::Row> Profile::by_op() const {
  std::map<std::string, Acc> ops;
  for (const auto& [name, a] : nodes_) {
    Acc& o = ops[a.op];
    o.op = a.op;
    o.calls += a.calls;
    o.ns += a.ns;
    o.flops += a.flops;
    o.flops_ns += a.flops_ns;
  }
  const double total = total_ms() * 1e6;
  std::vector<Row> rows;
  for (const auto& [op, a] : ops) rows.push_back(row(op, a, total));
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.total_ms > y.total_ms; });
  return rows;
}

std::vector<Profile::Row> Profile::top_nodes(std::size_t n) const {
  const double total = total_ms() * 1e6;
  std::vector<Row> rows;
  rows.reserve(nodes_.size());
  for (const auto& [name, a] : nodes_) rows.push_back(row(name, a, total));
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.total_ms > y.total_ms; });
  if (rows.size() > n) rows.resize(n);
  return rows;
}

std::string Profile::table(std::size_t n) const {
  const auto fit = [](const std::string& s, std::size_t w) {
    return s.size() <= w ? s : s.substr(0, w - 3) + "...";
  };
  // Node names (ONNX exports': `/encoder/layer.3/attention/self/MatMul_1`) differ at their
  // ends: one longer than 80 characters keeps its start and its end, the middle cut.
  const auto fit_name = [](const std::string& s, std::size_t w) {
    if (s.size() <= w) return s;
    const std::size_t head = (w - 3) / 3;
    return s.substr(0, head) + "..." + s.substr(s.size() - (w - 3 - head));
  };
  // The node column is as wide as the longest name shown (40 to 80 characters), so that
  // the names of one export's nodes (which differ in the middle: the layer) stay whole.
  const std::vector<Row> top = top_nodes(n);
  std::size_t name_w = 40;
  for (const Row& r : top) name_w = std::max(name_w, std::min<std::size_t>(r.name.size(), 80));
  const int nw = static_cast<int>(name_w);
  const auto line = [&](const Row& r, bool node) {
    char buf[512];
    const std::string g = r.gflops ? number(*r.gflops, 1) : "-";
    if (node) {
      std::snprintf(buf, sizeof buf, "%-*s %-18s %7lld %10.3f %10.1f %6.1f%% %8s  %s\n", nw,
                    fit_name(r.name, name_w).c_str(), fit(r.op, 18).c_str(), static_cast<long long>(r.calls),
                    r.total_ms, r.mean_us, r.share * 100, g.c_str(), r.kernel.c_str());
    } else {
      std::snprintf(buf, sizeof buf, "%-24s %7lld %10.3f %10.1f %6.1f%% %8s\n", fit(r.op, 24).c_str(),
                    static_cast<long long>(r.calls), r.total_ms, r.mean_us, r.share * 100, g.c_str());
    }
    return std::string(buf);
  };
  const double total = total_ms();
  std::string out = "kernel time: " + number(total, 3) + " ms over " + std::to_string(runs_) + " run(s)" +
                    (runs_ > 0 ? ", " + number(total / static_cast<double>(runs_), 3) + " ms per run" : "") + "\n\n";
  char head[256];
  std::snprintf(head, sizeof head, "%-24s %7s %10s %10s %7s %8s\n", "op type", "calls", "total ms", "mean us", "share",
                "GFLOP/s");
  out += head;
  for (const Row& r : by_op()) out += line(r, false);
  std::snprintf(head, sizeof head, "\n%-*s %-18s %7s %10s %10s %7s %8s  %s\n", nw,
                ("top " + std::to_string(n) + " nodes").c_str(), "op type", "calls", "total ms", "mean us", "share",
                "GFLOP/s", "kernel");
  out += head;
  for (const Row& r : top) out += line(r, true);
  return out;
}

}  // namespace ge
