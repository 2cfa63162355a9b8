// Tests of ge/runtime/trace.hpp: traced runs (timings consistent with the schedule,
// real dims of ranged plans), the Chrome trace parsed back (valid JSON, one slice per
// step per view, stream tracks, event waits and arrows), profiles, and bad input.
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ge/ge.hpp"
#include "ge/runtime/trace.hpp"
#include "support/expect_error.hpp"

namespace {

using ge::DataType;
using ge::TensorView;
using ge::test::expect_error;

// A small JSON reader: enough to check that the trace is well-formed and to read it back.
struct Json {
  std::variant<std::nullptr_t, bool, double, std::string, std::vector<Json>, std::map<std::string, Json>> v;
  [[nodiscard]] const std::map<std::string, Json>& object() const { return std::get<std::map<std::string, Json>>(v); }
  [[nodiscard]] const std::vector<Json>& array() const { return std::get<std::vector<Json>>(v); }
  [[nodiscard]] const std::string& str() const { return std::get<std::string>(v); }
  [[nodiscard]] double num() const { return std::get<double>(v); }
  [[nodiscard]] bool has(const std::string& k) const { return object().count(k) > 0; }
  [[nodiscard]] const Json& operator[](const std::string& k) const { return object().at(k); }
};

struct JsonReader {
  std::string_view s;
  std::size_t i = 0;
  void ws() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  void expect(char c) {
    ws();
    if (i >= s.size() || s[i] != c) throw std::runtime_error("json: expected '" + std::string(1, c) + "' at " + std::to_string(i));
    ++i;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') {
        ++i;
        if (i >= s.size()) break;
        const char e = s[i];
        if (e == 'u') {
          out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 4)), nullptr, 16));
          i += 4;
        } else {
          out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
        ++i;
      } else {
        if (static_cast<unsigned char>(s[i]) < 0x20) throw std::runtime_error("json: raw control character in a string");
        out += s[i++];
      }
    }
    expect('"');
    return out;
  }
  Json value() {
    ws();
    if (i >= s.size()) throw std::runtime_error("json: unexpected end");
    const char c = s[i];
    if (c == '{') {
      ++i;
      std::map<std::string, Json> m;
      ws();
      if (s[i] == '}') return ++i, Json{m};
      while (true) {
        std::string k = string();
        expect(':');
        m[k] = value();
        ws();
        if (s[i] == ',') { ++i; continue; }
        expect('}');
        return Json{m};
      }
    }
    if (c == '[') {
      ++i;
      std::vector<Json> a;
      ws();
      if (s[i] == ']') return ++i, Json{a};
      while (true) {
        a.push_back(value());
        ws();
        if (s[i] == ',') { ++i; continue; }
        expect(']');
        return Json{a};
      }
    }
    if (c == '"') return Json{string()};
    if (s.substr(i, 4) == "true") return i += 4, Json{true};
    if (s.substr(i, 5) == "false") return i += 5, Json{false};
    if (s.substr(i, 4) == "null") return i += 4, Json{nullptr};
    std::size_t used = 0;
    const double d = std::stod(std::string(s.substr(i, 64)), &used);
    if (used == 0) throw std::runtime_error("json: bad value at " + std::to_string(i));
    i += used;
    return Json{d};
  }
  static Json parse(std::string_view text) {
    JsonReader r{text};
    Json j = r.value();
    r.ws();
    if (r.i != text.size()) throw std::runtime_error("json: trailing text");
    return j;
  }
};

// Four parallel branches of Conv-like work (MatMuls) joined at the end: several streams.
ge::Graph branchy_net(std::string_view shape) {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, shape);
  std::vector<ge::Value> parts;
  for (int i = 0; i < 4; ++i) {
    const auto w = b.random_weights("w" + std::to_string(i), {16, 16}, static_cast<std::uint64_t>(i + 1));
    parts.push_back(x.matmul(w, "mm" + std::to_string(i)).relu().matmul(w).sigmoid());
  }
  b.output((parts[0] + parts[1]) * (parts[2] - parts[3]));
  return b.build();
}

std::vector<float> data(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.01f * static_cast<float>(i % 17) - 0.05f;
  return v;
}

}  // namespace

TEST_CASE("trace: off by default, and then nothing is recorded") {
  auto model = ge::compile(branchy_net("3,16"));
  ge::Session s(model);
  CHECK_FALSE(s.tracing());
  auto x = data(48);
  std::int64_t d[] = {3, 16};
  CHECK(s.run({TensorView{x.data(), DataType::f32, d}}).trace == nullptr);
}

TEST_CASE("trace: every step timed, in an order the schedule allows") {
  auto model = ge::compile(branchy_net("1~4,16"));
  const ge::Plan& plan = *model->plans()[0];
  REQUIRE(plan.streams.stream_count > 1);
  REQUIRE_FALSE(plan.streams.events.empty());
  ge::Session s(model, {.threads = 2, .trace = true, .specialize_ranges = false});  // the range plan itself
  CHECK(s.tracing());
  auto x = data(48);
  std::int64_t d[] = {3, 16};
  const ge::RunResult r = s.run({TensorView{x.data(), DataType::f32, d}});
  REQUIRE(r.trace);
  const ge::RunTrace& t = *r.trace;
  REQUIRE(t.plan.get() == &plan);
  REQUIRE(t.steps.size() == plan.steps.size());
  CHECK(t.end >= t.start);
  CHECK(t.wall_ms() >= 0);
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const ge::StepTiming& st = t.steps[i];
    CHECK(st.thread >= 0);
    CHECK(t.start <= st.wait_start);
    CHECK(st.wait_start <= st.start);
    CHECK(st.start <= st.end);
    CHECK(st.end <= t.end);
  }
  // A step that waits for an event starts after the step that records it has ended,
  // and a step starts after the previous step of its stream ended.
  for (const auto& e : plan.streams.events)
    CHECK(t.steps[static_cast<std::size_t>(e.from)].end <= t.steps[static_cast<std::size_t>(e.to)].start);
  std::map<std::int32_t, std::size_t> last;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const auto st = plan.streams.stream[i];
    if (last.count(st)) CHECK(t.steps[last[st]].end <= t.steps[i].start);
    last[st] = i;
  }
  // The range plan ran at the real dims: the graph input's dims are the run's.
  CHECK(t.value_dims(static_cast<std::size_t>(plan.graph_inputs[0])) == std::vector<std::int64_t>{3, 16});
  CHECK(t.value_dims(static_cast<std::size_t>(plan.graph_outputs[0])) == std::vector<std::int64_t>{3, 16});
}

TEST_CASE("trace: the Chrome trace reads back with a slice per step, tracks and event arrows") {
  auto model = ge::compile(branchy_net("3,16"));
  const ge::Plan& plan = *model->plans()[0];
  ge::Session s(model, {.threads = 2, .trace = true});
  auto x = data(48);
  std::int64_t d[] = {3, 16};
  std::vector<ge::RunTrace> runs;
  for (int i = 0; i < 2; ++i) runs.push_back(*s.run({TensorView{x.data(), DataType::f32, d}}).trace);

  const Json j = JsonReader::parse(ge::chrome_trace(runs));
  const auto& events = j["traceEvents"].array();
  std::map<int, std::map<std::string, int>> slices;  // pid -> step name -> count
  std::map<int, std::string> stream_names;
  int waits = 0, flow_starts = 0, flow_ends = 0, run_slices = 0;
  for (const Json& e : events) {
    const std::string ph = e["ph"].str();
    const int pid = static_cast<int>(e["pid"].num());
    if (ph == "M" && e["name"].str() == "thread_name" && pid == 1)
      stream_names[static_cast<int>(e["tid"].num())] = e["args"]["name"].str();
    if (ph == "X" && e.has("args") && e["args"].has("step")) {
      ++slices[pid][e["name"].str()];
      CHECK(e["dur"].num() >= 0);
      CHECK(e["ts"].num() >= 0);
      const auto step = static_cast<std::size_t>(e["args"]["step"].num());
      REQUIRE(step < plan.steps.size());
      CHECK(e["args"]["op"].str() == plan.steps[step].op);
      CHECK(e["cat"].str() == plan.steps[step].op);
      if (pid == 1) CHECK(static_cast<int>(e["tid"].num()) == plan.streams.stream[step]);
      if (plan.steps[step].op == "MatMul" && plan.steps[step].inputs.size() == 2) {
        CHECK(e["args"]["inputs"].str() == "f32[3,16], f32[16,16]");
        CHECK(e["args"]["gflop"].num() == doctest::Approx(2.0 * 3 * 16 * 16 * 1e-9));
      }
    }
    if (ph == "X" && e.has("cat") && e["cat"].str() == "event") ++waits;
    if (ph == "X" && e.has("cat") && e["cat"].str() == "run") ++run_slices;
    if (ph == "s") ++flow_starts;
    if (ph == "f") ++flow_ends;
  }
  CHECK(run_slices == 2);
  // Each step twice (two runs) on the streams view and on the host threads view.
  for (const int pid : {1, 2}) {
    REQUIRE(slices[pid].size() == plan.steps.size());
    for (const auto& [name, n] : slices[pid]) CHECK_MESSAGE(n == 2, name);
  }
  REQUIRE(stream_names.count(-1));  // the track of the runs themselves
  CHECK(stream_names[-1] == "runs");
  stream_names.erase(-1);
  CHECK(static_cast<int>(stream_names.size()) == plan.streams.stream_count);
  for (const auto& [tid, name] : stream_names) CHECK(name == "stream " + std::to_string(tid) + " (vector engine)");
  const int events_per_run = static_cast<int>(plan.streams.events.size());
  CHECK(waits == 2 * events_per_run);
  CHECK(flow_starts == 2 * events_per_run);
  CHECK(flow_ends == 2 * events_per_run);
}

TEST_CASE("trace: host-engine steps get a track of their own with AC_PARALLEL_ENABLE") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "1~8");
  b.output(x.nonzero("nz"));
  b.output(x.relu("r").sigmoid("s"));
  auto model = ge::compile(b.build(), {{"ac_parallel_enable", "1"}});
  ge::Session s(model, {.threads = 2, .trace = true});
  std::vector<float> v{1, 0, 2};
  std::int64_t d[] = {3};
  const auto r = s.run({TensorView{v.data(), DataType::f32, d}});
  const std::string text = ge::chrome_trace(std::span<const ge::RunTrace>(r.trace.get(), 1));
  CHECK(text.find("(host engine)") != std::string::npos);
  CHECK(text.find("(vector engine)") != std::string::npos);
  // The data-dependent output's real dims are in the trace.
  CHECK(text.find("i64[1,2]") != std::string::npos);
}

TEST_CASE("profile: per op type and per node, shares and GFLOP/s") {
  auto model = ge::compile(branchy_net("3,16"));
  const ge::Plan& plan = *model->plans()[0];
  ge::Session s(model, {.threads = 1, .trace = true});
  auto x = data(48);
  std::int64_t d[] = {3, 16};
  ge::Profile p;
  for (int i = 0; i < 3; ++i) p.add(*s.run({TensorView{x.data(), DataType::f32, d}}).trace);
  CHECK(p.runs() == 3);
  const auto ops = p.by_op();
  double share = 0;
  std::int64_t calls = 0;
  for (const auto& r : ops) {
    share += r.share;
    calls += r.calls;
    CHECK(r.name == r.op);
    CHECK(r.total_ms >= 0);
    if (r.op == "MatMul" || r.op == "FusedMatMul") {  // MatMul + Relu fuse
      CHECK(r.calls == 3 * 4);
      REQUIRE(r.gflops);
      CHECK(*r.gflops > 0);
    }
    if (r.op == "Relu") CHECK_FALSE(r.gflops);
  }
  CHECK(share == doctest::Approx(1.0));
  CHECK(calls == 3 * static_cast<std::int64_t>(plan.steps.size()));
  for (std::size_t i = 1; i < ops.size(); ++i) CHECK(ops[i - 1].total_ms >= ops[i].total_ms);
  const auto top = p.top_nodes(5);
  CHECK(top.size() == 5);
  for (const auto& r : top) CHECK(r.calls == 3);
  const std::string table = p.table(5);
  CHECK(table.find("MatMul") != std::string::npos);
  CHECK(table.find("top 5 nodes") != std::string::npos);
  CHECK(table.find("over 3 run(s)") != std::string::npos);
}

TEST_CASE("trace: bad input is a clear error") {
  ge::Profile p;
  expect_error([&] { p.add(ge::RunTrace{}); }, ge::Errc::invalid_argument, "without a plan");
  auto model = ge::compile(branchy_net("3,16"));
  ge::RunTrace short_trace;
  short_trace.plan = model->plans()[0];
  short_trace.steps.resize(1);
  expect_error([&] { p.add(short_trace); }, ge::Errc::invalid_argument, "1 steps", "its plan has");
  expect_error([&] { (void)ge::chrome_trace(std::span<const ge::RunTrace>(&short_trace, 1)); },
               ge::Errc::invalid_argument, "chrome_trace");
  ge::Session s(model, {.trace = true});
  auto x = data(48);
  std::int64_t d[] = {3, 16};
  const auto r = s.run({TensorView{x.data(), DataType::f32, d}});
  const auto dir = std::filesystem::temp_directory_path() / "ge_trace_test_no_such_dir";
  std::filesystem::remove_all(dir);
  expect_error([&] { ge::write_chrome_trace(dir / "t.json", std::span<const ge::RunTrace>(r.trace.get(), 1)); },
               ge::Errc::invalid_argument, "cannot write", "t.json");
  // An empty list of runs is a valid, empty trace.
  CHECK(JsonReader::parse(ge::chrome_trace({}))["traceEvents"].array().size() == 5);  // track names only
}

TEST_CASE("profile: node names up to 80 characters whole; longer ones keep their distinct ends") {
  ge::GraphBuilder b;
  const auto x = b.input("x", DataType::f32, "4");
  const std::string stem = "/encoder/layer.11/attention/output/dense/";
  const auto y = b.op("Relu", {x}, {}, stem + "Relu_first");
  b.output(b.op("Sigmoid", {y}, {}, stem + "Sigmoid_second"));
  ge::Session s(ge::compile(b.build()), {.threads = 1, .trace = true});
  auto v = data(4);
  std::int64_t d[] = {4};
  ge::Profile p;
  p.add(*s.run({TensorView{v.data(), DataType::f32, d}}).trace);
  const std::string table = p.table(5);
  CHECK(table.find("Relu_first") != std::string::npos);
  CHECK(table.find("Sigmoid_second") != std::string::npos);
  // Up to 80 characters a name is shown whole (the column widens): the layer stays.
  CHECK(table.find(stem + "Relu_first") != std::string::npos);
  CHECK(table.find(stem + "Sigmoid_second") != std::string::npos);
  CHECK(table.find("...") == std::string::npos);
  // Longer ones keep their start and their end, the middle cut.
  ge::GraphBuilder b2;
  const auto x2 = b2.input("x", DataType::f32, "4");
  const std::string long_stem = "/model/encoder/transformer_blocks/layer.11/attention/output/dense/projection/";
  b2.output(b2.op("Relu", {x2}, {}, long_stem + "Relu_first"));
  ge::Session s2(ge::compile(b2.build()), {.threads = 1, .trace = true});
  ge::Profile p2;
  p2.add(*s2.run({TensorView{v.data(), DataType::f32, d}}).trace);
  const std::string table2 = p2.table(5);
  CHECK(table2.find("/model/encod") != std::string::npos);
  CHECK(table2.find("Relu_first") != std::string::npos);
  CHECK(table2.find("...") != std::string::npos);
}
