// ge::plan_svg: the memory plan as SVG, read back from its data attributes and checked
// against the plan (every arena value once, no two live values overlapping, figures),
// on a tiny graph, a 500-node chain and the three example models; escaping; bad input.
#include "ge/compile/plan_svg.hpp"

#include <doctest/doctest.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../../examples/models/bert_encoder.hpp"
#include "../../examples/models/mobilenet_v2.hpp"
#include "../../examples/models/resnet50.hpp"
#include "ge/compile/compile.hpp"
#include "ge/compile/plan.hpp"
#include "ge/core/error.hpp"
#include "ge/graph/builder.hpp"
#include "support/expect_error.hpp"

namespace {

using Attrs = std::map<std::string, std::string>;
using ge::test::expect_error;

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

std::string unescape(const std::string& s) {
  static const std::pair<std::string_view, char> refs[] = {{"&amp;", '&'},  {"&lt;", '<'},    {"&gt;", '>'},
                                                           {"&quot;", '"'}, {"&apos;", '\''}, {"&#10;", '\n'},
                                                           {"&#13;", '\r'}, {"&#9;", '\t'}};
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    bool done = false;
    for (const auto& [ref, ch] : refs)
      if (s.compare(i, ref.size(), ref) == 0) {
        out += ch;
        i += ref.size();
        done = true;
        break;
      }
    if (!done) out += s[i++];
  }
  return out;
}

// The attributes of every start tag `<tag` whose text begins with `prefix`.
std::vector<Attrs> tags(const std::string& svg, const std::string& prefix) {
  std::vector<Attrs> out;
  for (std::size_t at = svg.find(prefix); at != std::string::npos; at = svg.find(prefix, at + 1)) {
    const std::size_t end = svg.find('>', at);
    REQUIRE(end != std::string::npos);
    const std::string text = svg.substr(at, end - at);
    // name="value" pairs: a name of letters, digits and '-', then =", then up to the next ".
    Attrs a;
    for (std::size_t eq = text.find("=\""); eq != std::string::npos; eq = text.find("=\"", eq + 1)) {
      std::size_t b = eq;
      while (b > 0 && (std::isalnum(static_cast<unsigned char>(text[b - 1])) || text[b - 1] == '-')) --b;
      const std::size_t close = text.find('"', eq + 2);
      REQUIRE(close != std::string::npos);
      if (b < eq) a[text.substr(b, eq - b)] = unescape(text.substr(eq + 2, close - eq - 2));
      eq = close;
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::int64_t num(const Attrs& a, const std::string& key) {
  const auto it = a.find(key);
  REQUIRE_MESSAGE(it != a.end(), "missing attribute " << key);
  return std::stoll(it->second);
}

// Reads the picture back and checks it against the plan.
void check_svg(const ge::Plan& plan, const std::string& svg) {
  REQUIRE(svg.rfind("<?xml", 0) == 0);
  REQUIRE(has(svg, "</svg>\n"));
  const auto roots = tags(svg, "<svg ");
  REQUIRE(roots.size() == 1);
  const Attrs& root = roots[0];
  CHECK(num(root, "data-arena-bytes") == plan.memory.arena_bytes);
  CHECK(num(root, "data-no-reuse-bytes") == plan.memory.no_reuse_bytes);
  CHECK(num(root, "data-lower-bound") == plan.memory.lower_bound);
  CHECK(std::stod(root.at("width")) <= 2000);  // bounded, whatever the model
  CHECK(std::stod(root.at("height")) <= 2000);
  // The heading's figures, in bytes.
  const auto figures = tags(svg, "<text class=\"figures\"");
  REQUIRE(figures.size() == 1);
  const std::string heading = svg.substr(svg.find("<text class=\"figures\""), 400);
  for (const std::int64_t b : {plan.memory.arena_bytes, plan.memory.no_reuse_bytes, plan.memory.lower_bound})
    if (b >= 1024) CHECK_MESSAGE(has(heading, "(" + std::to_string(b) + " bytes)"), heading);
  if (plan.memory.lower_bound > 0) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3f",
                  static_cast<double>(plan.memory.arena_bytes) / static_cast<double>(plan.memory.lower_bound));
    CHECK(has(heading, std::string("arena / lower bound ") + ratio));
  }
  const auto lower = tags(svg, "<line class=\"lower-bound\"");
  REQUIRE(lower.size() == 1);
  CHECK(num(lower[0], "data-bytes") == plan.memory.lower_bound);
  const auto live = tags(svg, "<polyline class=\"live\"");
  REQUIRE(live.size() == 1);
  CHECK(num(live[0], "data-peak") == plan.memory.lower_bound);  // the planner's count, redone

  // Every arena value exactly once, with its offset, bytes and lifetime.
  const auto rects = tags(svg, "<rect class=\"value\"");
  std::map<std::string, const Attrs*> by_name;
  for (const Attrs& r : rects) {
    const std::string& name = r.at("data-value");
    CHECK_MESSAGE(by_name.emplace(name, &r).second, "value drawn twice: " << name);
  }
  std::size_t arena_values = 0;
  for (const ge::PlanValue& v : plan.values) {
    if (v.storage != ge::Storage::arena) {
      CHECK_MESSAGE(by_name.count(v.name) == 0, "not an arena value, but drawn: " << v.name);
      continue;
    }
    ++arena_values;
    const auto it = by_name.find(v.name);
    REQUIRE_MESSAGE(it != by_name.end(), "arena value not drawn: " << v.name);
    const Attrs& r = *it->second;
    const ge::Lifetime& lt = plan.lifetimes[static_cast<std::size_t>(v.block)];
    CHECK(num(r, "data-offset") == v.offset);
    CHECK(num(r, "data-bytes") == v.bytes);
    CHECK(num(r, "data-first") == lt.first);
    CHECK(num(r, "data-last") == lt.last);
    CHECK(r.at("data-op") == plan.steps[static_cast<std::size_t>(v.producer)].op);
    CHECK(std::stod(r.at("width")) >= 1);
    CHECK(std::stod(r.at("height")) >= 1);
  }
  CHECK(rects.size() == arena_values);

  // Inside the arena; two values live at one step never overlap in memory, but for a
  // value that reuses the other's memory in place (at the one step they share).
  struct Box {
    std::string name, shares;
    std::int64_t offset, bytes, first, last;
  };
  std::vector<Box> boxes;
  for (const Attrs& r : rects)
    boxes.push_back({r.at("data-value"), r.count("data-shares") ? r.at("data-shares") : "", num(r, "data-offset"),
                     num(r, "data-bytes"), num(r, "data-first"), num(r, "data-last")});
  std::size_t shared = 0, overlapping = 0;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const Box& a = boxes[i];
    CHECK(a.offset >= 0);
    CHECK(a.offset + a.bytes <= plan.memory.arena_bytes);
    if (!a.shares.empty()) ++shared;
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      const Box& b = boxes[j];
      const bool in_time = a.first <= b.last && b.first <= a.last;
      const bool in_memory =
          a.bytes > 0 && b.bytes > 0 && a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
      if (!in_time || !in_memory) continue;
      ++overlapping;
      const bool in_place = a.shares == b.name || b.shares == a.name;
      CHECK_MESSAGE(in_place, a.name << " and " << b.name << " overlap");
    }
  }
  CHECK(overlapping <= shared);
  std::size_t granted = 0;
  for (const std::int32_t s : plan.memory.shares_with) granted += s >= 0 ? 1 : 0;
  CHECK(shared == granted);
}

const ge::Plan& first_plan(const std::shared_ptr<const ge::CompiledModel>& m) {
  REQUIRE(!m->plans().empty());
  return *m->plans().front();
}

}  // namespace

TEST_CASE("plan_svg: a tiny graph, every arena value once, in-place reuse marked") {
  ge::GraphBuilder b;
  auto x = b.input("x", ge::DataType::f32, "4,256");
  auto h = x.sigmoid("s1");
  auto r = h.relu("r1");        // may reuse s1's memory in place
  auto t = (r + h).tanh("t1");  // h lives until the add
  b.output(t.relu("out"));
  const auto m = ge::compile(b.build());
  const ge::Plan& p = first_plan(m);
  REQUIRE(p.memory.arena_bytes > 0);
  const std::string svg = ge::plan_svg(p);
  check_svg(p, svg);
  CHECK(has(svg, ">memory plan</text>"));  // the default heading: no gear
  CHECK(has(svg, "data-op=\"Sigmoid\""));
  CHECK(has(svg, "producer op (values, bytes)"));
  CHECK(has(svg, "<title>"));
  CHECK(has(svg, "made by step 0 &apos;s1&apos; (Sigmoid)"));

  const std::string titled = ge::plan_svg(p, {.title = "tiny & <small>", .width = 800, .height = 300});
  check_svg(p, titled);
  CHECK(has(titled, ">tiny &amp; &lt;small&gt;</text>"));
  CHECK(has(titled, "width=\"800\""));
}

TEST_CASE("plan_svg: names are escaped for XML, whatever bytes they hold") {
  ge::GraphBuilder b;
  auto x = b.input("in", ge::DataType::f32, "2,64");
  const std::string odd = std::string("a<b>&\"c'\nd\x01") + "\xff" + "\xc3\xa9";  // control, bad UTF-8, é
  auto y = x.sigmoid(odd).tanh("t");
  b.output(y.sigmoid("o"));
  const auto m = ge::compile(b.build());
  const ge::Plan& p = first_plan(m);
  const std::string svg = ge::plan_svg(p);  // not check_svg: the name does not read back byte for byte
  std::size_t arena_values = 0;
  for (const ge::PlanValue& v : p.values) arena_values += v.storage == ge::Storage::arena ? 1 : 0;
  CHECK(tags(svg, "<rect class=\"value\"").size() == arena_values);
  std::string name;
  for (const ge::PlanValue& v : p.values)
    if (v.producer >= 0 && p.steps[static_cast<std::size_t>(v.producer)].name == odd) name = v.name;
  REQUIRE(!name.empty());
  CHECK(has(svg, "a&lt;b&gt;&amp;&quot;c&apos;&#10;d\xEF\xBF\xBD\xEF\xBF\xBD\xC3\xA9"));
  CHECK_FALSE(has(svg, "\x01"));
  CHECK_FALSE(has(svg, "\xff"));
}

TEST_CASE("plan_svg: a 500-step chain stays bounded and readable") {
  ge::GraphBuilder b;
  auto x = b.input("x", ge::DataType::f32, "1,32,16,16");
  auto skip = x.sigmoid();
  auto y = skip;
  for (int i = 0; i < 166; ++i) {
    y = y.tanh().sigmoid();
    y = y + skip;  // the skip value lives across the whole chain
  }
  b.output(y);
  const auto m = ge::compile(b.build());
  const ge::Plan& p = first_plan(m);
  REQUIRE(p.steps.size() >= 499);
  const std::string svg = ge::plan_svg(p);
  check_svg(p, svg);
  const auto root = tags(svg, "<svg ")[0];
  CHECK(std::stod(root.at("width")) <= 1900);
  CHECK(std::stod(root.at("height")) <= 1000);
  CHECK(svg.size() < 2'000'000);
}

TEST_CASE("plan_svg: ResNet-50, MobileNetV2 and BERT plans read back exactly") {
  struct Model {
    std::string name;
    ge::Graph graph;
    ge::BuildOptions options;
  };
  std::vector<Model> models;
  models.push_back({"resnet50",
                    ge::models::resnet50("-1,3,64,64"),
                    {{"ge.inputShape", "data:-1,3,64,64"}, {"ge.dynamicBatchSize", "1,2"}}});
  models.push_back({"mobilenet_v2", ge::models::mobilenet_v2("1~2,3,64,64"), {}});
  models.push_back(
      {"bert_encoder",
       ge::models::bert_encoder("-1", "16"),
       {{"ge.inputShape", "hidden_states:-1,16,256;attention_mask:-1,16"}, {"ge.dynamicBatchSize", "1,2"}}});
  for (const Model& model : models) {
    INFO(model.name);
    const auto m = ge::compile(model.graph, model.options);
    for (const auto& p : m->plans()) {
      INFO("gear " << p->gear);
      const std::string svg = ge::plan_svg(*p, {.title = model.name});
      check_svg(*p, svg);
      CHECK(has(svg, ">" + model.name + "</text>"));
    }
  }
}

TEST_CASE("plan_svg: a FusedConv producer says what it fused") {
  const auto m = ge::compile(ge::models::resnet50("1,3,32,32"));
  const std::string svg = ge::plan_svg(first_plan(m));
  CHECK(has(svg, "data-op=\"FusedConv\""));
  CHECK(has(svg, "(FusedConv: Conv+Relu)"));
  CHECK(has(svg, "(FusedConv: Conv+Add+Relu)"));
  // The legend tells the fused kinds apart, each with its colour.
  const auto swatches = tags(svg, "<rect class=\"swatch\"");
  std::map<std::string, std::string> fill;
  for (const Attrs& s : swatches) fill[s.at("data-kind")] = s.at("fill");
  REQUIRE(fill.count("FusedConv: Conv+Relu") == 1);
  REQUIRE(fill.count("FusedConv: Conv+Add+Relu") == 1);
  CHECK(fill["FusedConv: Conv+Relu"] != fill["FusedConv: Conv+Add+Relu"]);
  for (const Attrs& r : tags(svg, "<rect class=\"value\"")) CHECK(r.at("fill") == fill.at(r.at("data-kind")));
}

TEST_CASE("plan_svg: bad options and inconsistent plans are clear errors") {
  ge::GraphBuilder b;
  auto x = b.input("x", ge::DataType::f32, "4,256");
  b.output(x.sigmoid("s").tanh("t").sigmoid("u"));
  const auto m = ge::compile(b.build());
  const ge::Plan& good = first_plan(m);
  const auto fails = [](const ge::Plan& p, const ge::PlanSvgOptions& o, std::string_view part) {
    expect_error([&] { (void)ge::plan_svg(p, o); }, ge::Errc::invalid_argument, part, "[ge.compile] plan_svg: ");
  };
  fails(good, {.width = -5}, "width -5; expected 0 (automatic) or 480 to 16384 pixels");
  fails(good, {.width = 100}, "width 100");
  fails(good, {.width = 20000}, "width 20000");
  fails(good, {.height = -1}, "height -1");

  std::size_t arena = 0;
  while (arena < good.values.size() && good.values[arena].storage != ge::Storage::arena) ++arena;
  REQUIRE(arena < good.values.size());
  const std::string name = good.values[arena].name;
  {
    ge::Plan p = good;
    p.values[arena].block = 99;
    fails(p, {}, "arena value '" + name + "' has block 99");
  }
  {
    ge::Plan p = good;
    p.values[arena].offset = p.memory.arena_bytes;
    p.values[arena].bytes = 64;
    fails(p, {},
          "arena value '" + name + "' has 64 bytes at offset " + std::to_string(p.memory.arena_bytes) +
              "; expected them inside the arena");
  }
  {
    ge::Plan p = good;
    p.lifetimes[static_cast<std::size_t>(p.values[arena].block)].last = 40;
    fails(p, {}, "lives from step");
  }
  {
    ge::Plan p = good;
    std::size_t other = arena + 1;
    while (other < p.values.size() && p.values[other].storage != ge::Storage::arena) ++other;
    REQUIRE(other < p.values.size());
    p.values[other].block = p.values[arena].block;
    fails(p, {}, "expected one block per arena value");
  }
  {
    ge::Plan p = good;
    p.values[arena].producer = 17;
    fails(p, {}, "is made by step 17");
  }
}

TEST_CASE("plan_svg: a plan without arena values is an empty plot") {
  ge::GraphBuilder b;
  auto x = b.input("x", ge::DataType::f32, "3,4");
  b.output(x.relu("r"));
  const auto m = ge::compile(b.build());
  const ge::Plan& p = first_plan(m);
  REQUIRE(p.memory.arena_bytes == 0);
  const std::string svg = ge::plan_svg(p);
  check_svg(p, svg);
  CHECK(has(svg, "no values in the arena"));
  CHECK(has(svg, "arena / lower bound -"));
}

TEST_CASE("plan_svg: where the arena exceeds the bound, the step is marked") {
  ge::GraphBuilder b;
  auto x = b.input("x", ge::DataType::f32, "4,256");
  b.output(x.sigmoid("s").tanh("t").sigmoid("u").relu("out"));
  const auto m = ge::compile(b.build());
  const ge::Plan& good = first_plan(m);
  CHECK(good.memory.arena_bytes == good.memory.lower_bound);
  CHECK_FALSE(has(ge::plan_svg(good), "class=\"excess\""));

  // The same plan with every arena value stacked on the one before (no reuse at all).
  ge::Plan stacked = good;
  std::int64_t top = 0;
  for (ge::PlanValue& v : stacked.values) {
    if (v.storage != ge::Storage::arena) continue;
    v.offset = top;
    stacked.memory.offsets[static_cast<std::size_t>(v.block)] = top;
    stacked.memory.shares_with[static_cast<std::size_t>(v.block)] = -1;
    top += v.bytes;
  }
  stacked.memory.arena_bytes = top;
  REQUIRE(top == 3 * 4096);  // s, t, u; 4096 bytes each
  const std::string svg = ge::plan_svg(stacked);
  const auto marks = tags(svg, "<rect class=\"excess\"");
  REQUIRE(marks.size() == 1);
  // u (steps 2-3) reaches the top at 12288; at step 3 only u itself is live.
  CHECK(marks[0].at("data-step") == "3");
  CHECK(marks[0].at("data-excess-bytes") == std::to_string(top - good.memory.lower_bound));
  CHECK(marks[0].at("data-live-bytes") == "4096");
  CHECK(has(svg, "gaps at step 3"));
  CHECK(has(svg, "the arena exceeds the lower bound by 8 KiB (8192 bytes): at step 3"));
}
