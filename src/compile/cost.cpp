// CompiledModel::cost: which plan serves a set of input dims and what it will take, from
// a per-step model over the machine's measured speeds (see ge/compile/cost.hpp).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>

#include "ge/compile/compile.hpp"
#include "ge/compile/flops.hpp"
#include "ge/core/error.hpp"
#include "ge/core/text.hpp"

namespace ge {

namespace {

// The bytes of a value of a static plan (0 where its dims are not known).
std::int64_t value_bytes(const PlanValue& v) {
  if (!v.desc.shape.is_static()) return 0;
  std::int64_t n = size_of(v.desc.dtype);
  for (const std::int64_t d : v.desc.shape.values()) n *= d;
  return n;
}

// The plan that serves `dims` (a session's choice: an exact gear, padded to a gear, a
// range or fixed plan), filling the plan fields of `c`; null for a plan per signature.
const Plan* pick(const CompiledModel& m, std::span<const std::vector<std::int64_t>> dims,
                 const std::vector<Shape>& shapes, const CostOptions& options, ShapeCost& c) {
  const auto gear_plan = [&](std::int32_t g) -> const Plan* {
    for (const auto& p : m.plans())
      if (p->gear == g) return p.get();
    return nullptr;
  };
  const auto fits = [&](const std::vector<Shape>& plan_shapes) {
    for (std::size_t i = 0; i < shapes.size(); ++i)
      if (!relaxes(plan_shapes[i], shapes[i])) return false;
    return true;
  };
  if (const auto exact = m.gear_for(dims)) {
    c.plan = PlanKind::gear;
    c.gear = *exact;
    return gear_plan(*exact);
  }
  if (const auto up = options.pad_to_gear ? m.gear_for(dims, true) : std::nullopt) {
    const Plan* g = gear_plan(*up);
    std::string why;
    for (const GearPadding& p : m.padding()) {
      bool differs = false;
      for (const auto& [input, axis] : p.dims) differs = differs || dims[input][axis] != g->input_shapes[input].values()[axis];
      if (differs && !p.independent) why = p.reason;
    }
    if (!why.empty() && !m.hybrid())
      raise(Errc::padding_unsafe, "[ge.compile] cost: padding these dims to gear " + std::to_string(*up) +
                                      " would change the results: " + why);
    if (why.empty()) {
      c.plan = PlanKind::gear;
      c.gear = *up;
      std::int64_t real = 0, full = 0;
      for (std::size_t i = 0; i < dims.size(); ++i) {
        std::int64_t r = 1, f = 1;
        for (std::size_t k = 0; k < dims[i].size(); ++k) {
          r *= dims[i][k];
          f *= g->input_shapes[i].values()[k];
        }
        real += r;
        full += f;
      }
      c.padding_waste = full > 0 ? 1.0 - static_cast<double>(real) / static_cast<double>(full) : 0;
      return g;
    }
  }
  for (const auto& p : m.plans())
    if (p->gear < 0 && fits(p->input_shapes)) {
      if (options.specialize_ranges && p->works_out_dims()) {
        c.plan = PlanKind::signature;  // a static plan made at the first run of these dims
        c.plan_made = false;
        return nullptr;
      }
      c.plan = m.mode() == ShapeMode::fixed ? PlanKind::fixed : PlanKind::range;
      return p.get();
    }
  std::vector<Shape> hull_shapes;
  for (const ModelIO& io : m.inputs()) hull_shapes.push_back(io.shape);
  if (!m.plans_per_signature() || !fits(hull_shapes)) {
    std::string given, takes;
    for (std::size_t i = 0; i < dims.size(); ++i) given += (i ? "; " : "") + m.inputs()[i].name + ":" + dims_text(dims[i]);
    for (std::size_t i = 0; i < m.inputs().size(); ++i)
      takes += (i ? "; " : "") + m.inputs()[i].name + ":" + m.inputs()[i].shape.to_string();
    const bool geared = m.mode() == ShapeMode::gears;
    raise(geared ? Errc::no_matching_gear : Errc::out_of_range,
          "[ge.compile] cost: the inputs " + given + " match no gear and lie outside the model's " +
              (geared ? "gears" : "ranges") + "; it takes " + takes);
  }
  c.plan = PlanKind::signature;
  c.plan_made = false;
  return nullptr;
}

}  // namespace

double step_seconds(const Plan& plan, std::size_t s, const MachineSpeed& speed, bool learned) {
  if (!plan.static_shapes)
    raise(Errc::invalid_argument, "[ge.compile] step_seconds: the plan's dims are known only when it runs");
  const PlanStep& step = plan.steps.at(s);
  std::int64_t bytes = 0;
  for (const std::int32_t v : step.inputs)
    if (v >= 0) bytes += value_bytes(plan.values[static_cast<std::size_t>(v)]);
  for (const std::int32_t v : step.outputs)
    if (v >= 0) bytes += value_bytes(plan.values[static_cast<std::size_t>(v)]);
  const double flops = step_flops(plan, s).value_or(0);
  const double model = std::max(flops / (speed.gemm_gflops * 1e9), static_cast<double>(bytes) / (speed.stream_gbs * 1e9));
  return learned && step.kernel ? model * speed.scale(step.kernel->name()) : model;
}

double MachineSpeed::scale(std::string_view kernel) const {
  const auto it = kernels.find(kernel);
  if (it == kernels.end() || !(it->second.modelled_s > 0) || !(it->second.measured_s > 0)) return 1.0;
  return it->second.measured_s / it->second.modelled_s;
}

std::string MachineSpeed::to_text() const {
  std::string s = "gemm_gflops=" + std::to_string(gemm_gflops) + " stream_gbs=" + std::to_string(stream_gbs) +
                  " step_us=" + std::to_string(step_us) + " threads=" + std::to_string(threads);
  char buf[96];
  for (const auto& [name, k] : kernels) {
    std::snprintf(buf, sizeof buf, "=%.9g/%.9g/%lld", k.measured_s, k.modelled_s, static_cast<long long>(k.steps));
    s += " kernel." + name + buf;
  }
  return s;
}

MachineSpeed MachineSpeed::parse(std::string_view text) {
  MachineSpeed s;
  const auto field = [&](std::string_view key) {
    const std::string k = std::string(key) + "=";
    auto at = text.find(k);  // at the start of a token
    while (at != std::string_view::npos && at > 0 && text[at - 1] != ' ' && text[at - 1] != '\t' && text[at - 1] != '\n')
      at = text.find(k, at + 1);
    if (at == std::string_view::npos)
      raise(Errc::invalid_argument, "[ge.compile] machine speed '" + std::string(text) + "' has no " + std::string(key) +
                                        "; expected the text of MachineSpeed::to_text (gec calibrate)");
    const std::string_view rest = text.substr(at + k.size());
    const std::string number(rest.substr(0, rest.find_first_of(" \t\r\n")));
    double v = 0;
    try {
      std::size_t used = 0;
      v = std::stod(number, &used);
      if (used != number.size()) v = 0;
    } catch (const std::exception&) {
      v = 0;
    }
    if (!(v > 0) || v > 1e12)
      raise(Errc::invalid_argument, "[ge.compile] machine speed: " + std::string(key) + "='" + number +
                                        "'; expected a positive number");
    return v;
  };
  s.gemm_gflops = field("gemm_gflops");
  s.stream_gbs = field("stream_gbs");
  s.step_us = field("step_us");
  s.threads = static_cast<int>(field("threads"));
  // The learned kernels: ` kernel.<name>=<measured_s>/<modelled_s>/<steps>`.
  for (std::size_t at = text.find("kernel."); at != std::string_view::npos; at = text.find("kernel.", at + 1)) {
    if (at > 0 && text[at - 1] != ' ' && text[at - 1] != '\t') continue;
    const std::string_view rest = text.substr(at + 7);
    const std::string_view item = rest.substr(0, rest.find_first_of(" \t\r\n"));
    const auto eq = item.rfind('=');
    KernelTimes k;
    const std::string_view numbers = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    const char* p = numbers.data();
    const char* const end = p + numbers.size();
    const auto number = [&](auto& v, bool slash) {  // one finite, non-negative number, then '/' where one follows
      const auto r = std::from_chars(p, end, v);
      if (r.ec != std::errc() || !(v >= 0) || !(v <= std::numeric_limits<std::remove_reference_t<decltype(v)>>::max()))
        return false;
      p = r.ptr;
      if (!slash) return p == end;
      if (p == end || *p != '/') return false;
      ++p;
      return true;
    };
    if (eq == std::string_view::npos || eq == 0 || !number(k.measured_s, true) || !number(k.modelled_s, true) ||
        !number(k.steps, false))
      raise(Errc::invalid_argument, "[ge.compile] machine speed: 'kernel." + std::string(item) +
                                        "'; expected kernel.<name>=<measured_s>/<modelled_s>/<steps>");
    s.kernels[std::string(item.substr(0, eq))] = k;
  }
  return s;
}

ShapeCost CompiledModel::cost(std::span<const std::vector<std::int64_t>> dims, const MachineSpeed& speed,
                              const CostOptions& options) const {
  if (!(speed.gemm_gflops > 0) || !(speed.stream_gbs > 0) || !(speed.step_us >= 0))
    raise(Errc::invalid_argument, "[ge.compile] cost: the machine speed is not calibrated (" + speed.to_text() +
                                      "); expected ge::calibrate's figures");
  (void)gear_for(dims);  // checks the count and the ranks
  std::vector<Shape> shapes;
  for (const auto& d : dims) {
    for (const std::int64_t x : d)
      if (x < 0) raise(Errc::bad_tensor, "[ge.compile] cost: the dims " + dims_text(d) + " have a negative dim");
    shapes.emplace_back(std::vector<Dim>(d.begin(), d.end()));
  }
  ShapeCost c;
  const Plan* run = pick(*this, dims, shapes, options, c);

  // The step figures from a static plan at these dims: the one that runs, or one made now.
  std::shared_ptr<const Plan> made;
  const Plan* at = run;
  if (!run || !run->static_shapes) {
    const auto t0 = std::chrono::steady_clock::now();
    made = build_plan(*this, shapes);
    if (!run) c.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    at = made.get();
  }
  const Plan& ran = run ? *run : *made;
  c.steps = ran.steps.size();
  c.arena_bytes = ran.arena_bytes();
  for (const std::int32_t v : at->graph_inputs) c.io_bytes += value_bytes(at->values[static_cast<std::size_t>(v)]);
  for (const std::int32_t v : at->graph_outputs) c.io_bytes += value_bytes(at->values[static_cast<std::size_t>(v)]);
  c.total_bytes = c.arena_bytes + c.io_bytes;
  double seconds = 0;
  for (std::size_t s = 0; s < at->steps.size(); ++s) {
    c.flops += step_flops(*at, s).value_or(0);
    seconds += step_seconds(*at, s, speed);
  }
  seconds += static_cast<double>(std::max(c.steps, at->steps.size())) * speed.step_us * 1e-6;
  c.expected_ms = seconds * 1e3;
  return c;
}

}  // namespace ge
