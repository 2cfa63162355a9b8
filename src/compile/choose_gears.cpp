// ge::choose_gears (choose_gears.hpp): the observations read against the model's
// inputs, the dims that vary found, each candidate gear's work and arena from the plan
// build_plan makes for it, then the gears chosen (gear_select.cpp) and written as options.

#include <algorithm>
#include <map>
#include <string>

#include "gear_select.hpp"
#include "ge/compile/choose_gears.hpp"
#include "ge/compile/compile.hpp"
#include "ge/compile/flops.hpp"
#include "ge/core/error.hpp"

namespace ge {
namespace {

using Dims = std::vector<std::int64_t>;

struct Coord {
  std::size_t input = 0, dim = 0;
};

// The observations in the model's terms, and the dims that vary among them.
struct Space {
  std::vector<std::vector<Dims>> observed;  // per observation, the dims of every model input
  std::vector<std::int64_t> counts;         // per observation
  std::vector<Dims> base;                   // per input: its dims with every non-varying dim filled
  std::vector<Coord> coords;                // the varying dims, in input then dim order
  std::vector<std::size_t> group;           // per coord: its merged dim
  std::size_t dims = 0;                     // merged dims
};

std::string entry_text(const ObservedShapes& o) {
  std::string s;
  for (const InputShapeEntry& e : o.inputs) s += (s.empty() ? "" : ";") + e.name + ":" + e.shape.to_string();
  return s + " " + std::to_string(o.count);
}

[[noreturn]] void bad_entry(Errc code, std::size_t index, const ObservedShapes& o, const std::string& what) {
  raise(code, "[ge.gears] histogram entry " + std::to_string(index + 1) + " '" + entry_text(o) + "': " + what);
}

// The dims of every model input in observation `index`, checked against the model.
std::vector<Dims> read_observation(const CompiledModel& model, std::size_t index, const ObservedShapes& o) {
  const auto& inputs = model.inputs();
  std::vector<Dims> dims(inputs.size());
  std::vector<bool> seen(inputs.size(), false);
  if (o.count < 1) bad_entry(Errc::invalid_argument, index, o, "the count is below 1; expected a count >= 1");
  for (const InputShapeEntry& e : o.inputs) {
    const auto it = std::find_if(inputs.begin(), inputs.end(), [&](const ModelIO& m) { return m.name == e.name; });
    std::string names;
    for (const ModelIO& m : inputs) names += (names.empty() ? "'" : ", '") + m.name + "'";
    if (it == inputs.end())
      bad_entry(Errc::unknown_input, index, o, "the model has no input '" + e.name + "'; its inputs are " + names);
    const auto i = static_cast<std::size_t>(it - inputs.begin());
    const Shape& want = it->shape;
    if (seen[i]) bad_entry(Errc::bad_input_shape, index, o, "input '" + e.name + "' is written twice");
    seen[i] = true;
    if (!e.shape.is_static())
      bad_entry(Errc::bad_input_shape, index, o, "input '" + e.name + "' has dims that are not fixed");
    if (want.rank_known() && want.rank() != e.shape.rank())
      bad_entry(Errc::bad_input_shape, index, o,
                "input '" + e.name + "' has rank " + std::to_string(e.shape.rank()) + ", but the model's is " +
                    std::to_string(want.rank()) + " (" + want.to_string() + ")");
    for (std::size_t d = 0; d < e.shape.rank(); ++d) {
      const std::int64_t v = e.shape[d].lo();
      dims[i].push_back(v);
      if (!want.rank_known() || (v >= want[d].lo() && v <= want[d].hi())) continue;
      const std::string at = "input '" + e.name + "' dim " + std::to_string(d) + " is " + std::to_string(v);
      if (want[d].is_static())
        bad_entry(Errc::bad_input_shape, index, o, at + ", but the model fixes it at " + std::to_string(want[d].lo()));
      bad_entry(Errc::out_of_range, index, o,
                at + ", outside the model's range " + want[d].to_string() + " (" + want.to_string() + ")");
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (seen[i]) continue;
    if (!inputs[i].shape.is_static())
      bad_entry(Errc::bad_input_shape, index, o,
                "input '" + inputs[i].name + "' (" + inputs[i].shape.to_string() +
                    ") is not written, and its dims are not fixed; expected its observed dims");
    for (const Dim& d : inputs[i].shape.dims()) dims[i].push_back(d.lo());
  }
  return dims;
}

Space read_space(const CompiledModel& model, std::span<const ObservedShapes> histogram) {
  Space s;
  for (std::size_t k = 0; k < histogram.size(); ++k) {
    s.observed.push_back(read_observation(model, k, histogram[k]));
    s.counts.push_back(histogram[k].count);
  }
  s.base = s.observed.front();
  std::vector<Dims> columns;  // per varying coord, its value in every observation
  for (std::size_t i = 0; i < s.base.size(); ++i) {
    for (std::size_t d = 0; d < s.base[i].size(); ++d) {
      Dims column;
      for (const auto& o : s.observed) column.push_back(o[i][d]);
      if (std::all_of(column.begin(), column.end(), [&](std::int64_t v) { return v == column.front(); })) continue;
      const auto same = std::find(columns.begin(), columns.end(), column);
      s.group.push_back(same != columns.end() ? s.group[static_cast<std::size_t>(same - columns.begin())] : s.dims++);
      s.coords.push_back({i, d});
      columns.push_back(std::move(column));
    }
  }
  return s;
}

// The point of observation `k` in the merged dims.
detail::GearPoint point_of(const Space& s, std::size_t k) {
  detail::GearPoint p(s.dims, 0);
  for (std::size_t c = 0; c < s.coords.size(); ++c) p[s.group[c]] = s.observed[k][s.coords[c].input][s.coords[c].dim];
  return p;
}

std::vector<Shape> shapes_at(const Space& s, const detail::GearPoint& p) {
  std::vector<Dims> dims = s.base;
  for (std::size_t c = 0; c < s.coords.size(); ++c) dims[s.coords[c].input][s.coords[c].dim] = p[s.group[c]];
  std::vector<Shape> out;
  for (const Dims& d : dims) {
    std::vector<Dim> v;
    for (const std::int64_t x : d) v.push_back(Dim(x));
    out.emplace_back(std::move(v));
  }
  return out;
}

double elements(const std::vector<Shape>& shapes) {
  double n = 0;
  for (const Shape& s : shapes) {
    double e = 1;
    for (const Dim& d : s.dims()) e *= static_cast<double>(d.lo());
    n += e;
  }
  return n;
}

// The option, its gear values and INPUT_FORMAT for the varying dims of `s`.
struct OptionForm {
  Option option = Option::dynamic_dims;
  std::string format = "ND";
  std::vector<std::size_t> value_groups;  // the merged dim of each value of a gear
};

OptionForm option_form(const CompiledModel& model, const Space& s) {
  OptionForm f;
  const bool all_batch =
      std::all_of(s.coords.begin(), s.coords.end(), [](const Coord& c) { return c.dim == 0; });
  if (s.dims == 1 && all_batch) return {Option::dynamic_batch_size, "", {0}};
  bool nhwc = model.config().input_format == Format::nhwc;
  for (const ModelIO& m : model.inputs()) nhwc = nhwc || m.format == Format::nhwc;
  const std::size_t h = nhwc ? 1 : 2, w = nhwc ? 2 : 3;
  std::optional<std::size_t> gh, gw;
  bool image = true;
  for (std::size_t c = 0; c < s.coords.size() && image; ++c) {
    const Coord& k = s.coords[c];
    const bool pair_varies = std::count_if(s.coords.begin(), s.coords.end(),
                                           [&](const Coord& o) { return o.input == k.input; }) == 2;
    auto& g = k.dim == h ? gh : gw;
    image = s.base[k.input].size() == 4 && (k.dim == h || k.dim == w) && pair_varies && (!g || *g == s.group[c]);
    g = s.group[c];
  }
  if (image && gh && gw) return {Option::dynamic_image_size, nhwc ? "NHWC" : "NCHW", {*gh, *gw}};
  for (const std::size_t g : s.group) f.value_groups.push_back(g);
  return f;
}

std::string join(const Dims& v, char sep) {
  std::string out;
  for (const std::int64_t x : v) out += (out.empty() ? "" : std::string(1, sep)) + std::to_string(x);
  return out;
}

// INPUT_SHAPE for the gears: `-1` at the varying dims when there is a gear option.
std::string input_shape_text(const CompiledModel& model, const Space& s, const std::vector<Shape>& one_gear,
                             bool gear_option) {
  std::string out;
  for (std::size_t i = 0; i < model.inputs().size(); ++i) {
    Dims d;
    for (const Dim& x : one_gear[i].dims()) d.push_back(x.lo());
    if (gear_option)
      for (const Coord& c : s.coords)
        if (c.input == i) d[c.dim] = -1;
    out += (i == 0 ? "" : ";") + model.inputs()[i].name + ":" + join(d, ',');
  }
  return out;
}

// Every point needs a gear that holds it within the arena budget.
void check_arena(const CompiledModel& model, const detail::GearProblem& p, const Space& s) {
  if (!p.max_arena) return;
  for (const detail::WeightedPoint& w : p.points) {
    std::optional<std::int64_t> least;
    for (std::size_t c = 0; c < p.candidates.size(); ++c) {
      bool holds = true;
      for (std::size_t d = 0; d < w.at.size(); ++d) holds = holds && p.candidates[c][d] >= w.at[d];
      if (holds && (!least || p.arena[c] < *least)) least = p.arena[c];
    }
    if (least && *least <= *p.max_arena) continue;
    std::string text;
    const std::vector<Shape> shapes = shapes_at(s, w.at);
    for (std::size_t i = 0; i < shapes.size(); ++i) text += (i ? ";" : "") + model.inputs()[i].name + ":" + shapes[i].to_string();
    raise(Errc::invalid_argument, "[ge.gears] no gear set fits max_arena " + std::to_string(*p.max_arena) +
                                      " bytes: the observed shape '" + text + "' needs a gear whose arena is " +
                                      std::to_string(least.value_or(0)) + " bytes; expected a larger max_arena");
  }
}

void check_budget(const CompiledModel& model, std::span<const ObservedShapes> histogram, const GearBudget& budget) {
  if (histogram.empty())
    raise(Errc::invalid_argument, "[ge.gears] no observed shapes; expected at least one histogram entry");
  if (budget.max_gears == 0) raise(Errc::invalid_argument, "[ge.gears] max_gears is 0; expected at least 1 gear");
  const std::size_t target_max = model.config().target.max_gears;
  if (budget.max_gears > 1 && budget.max_gears > target_max)
    raise(Errc::bad_gear_count, "[ge.gears] max_gears is " + std::to_string(budget.max_gears) + ", but target '" +
                                    std::string(model.config().target.name) + "' allows at most " +
                                    std::to_string(target_max) + " gears");
  if (budget.max_arena && *budget.max_arena < 1)
    raise(Errc::invalid_argument,
          "[ge.gears] max_arena is " + std::to_string(*budget.max_arena) + "; expected a byte count >= 1");
  if (model.mode() != ShapeMode::ranges)
    raise(Errc::invalid_argument, "[ge.gears] the model was compiled in " + std::string(to_string(model.mode())) +
                                      " mode; expected one compiled with ranges or -1 where the shapes vary "
                                      "(INPUT_SHAPE such as 'x:1~64,128', without a gear option)");
}

}  // namespace

GearChoice choose_gears(const CompiledModel& model, std::span<const ObservedShapes> histogram,
                        const GearBudget& budget) {
  check_budget(model, histogram, budget);
  const Space s = read_space(model, histogram);
  detail::GearProblem problem;
  std::map<detail::GearPoint, std::size_t> index;
  for (std::size_t k = 0; k < s.observed.size(); ++k) {
    const auto [it, added] = index.emplace(point_of(s, k), problem.points.size());
    if (added) problem.points.push_back({it->first, 0});
    problem.points[it->second].weight += static_cast<double>(s.counts[k]);
  }
  // Each candidate's work and arena, from its plan.
  GearChoice out;
  std::vector<std::vector<Shape>> cand_shapes;
  bool complete = true;
  problem.candidates = detail::gear_candidates(problem.points, complete);
  for (const detail::GearPoint& p : problem.candidates) {
    cand_shapes.push_back(shapes_at(s, p));
    const auto plan = build_plan(model, cand_shapes.back());
    problem.work.push_back(plan_flops(*plan).value_or(0.0));
    problem.arena.push_back(plan->arena_bytes());
  }
  if (*std::max_element(problem.work.begin(), problem.work.end()) <= 0) {
    out.work_is_flops = false;  // no op whose FLOPs are modelled: count the input elements
    for (std::size_t c = 0; c < problem.candidates.size(); ++c) problem.work[c] = elements(cand_shapes[c]);
  }
  problem.max_arena = budget.max_arena;
  check_arena(model, problem, s);
  const detail::GearSelection sel = detail::select_gears(problem, budget.max_gears);

  const OptionForm form = option_form(model, s);
  Dims values_text;
  std::string option_text;
  for (const std::size_t c : sel.chosen) {
    ChosenGear g;
    for (const std::size_t v : form.value_groups) g.values.push_back(problem.candidates[c][v]);
    g.shapes = cand_shapes[c];
    g.flops = problem.work[c];
    g.arena_bytes = problem.arena[c];
    option_text += (option_text.empty() ? "" : form.option == Option::dynamic_batch_size ? "," : ";") + join(g.values, ',');
    out.gears.push_back(std::move(g));
  }
  for (std::size_t p = 0; p < problem.points.size(); ++p)
    out.gears[sel.served_by[p]].served += static_cast<std::int64_t>(problem.points[p].weight);
  const bool gear_option = out.gears.size() > 1;
  if (gear_option) {
    out.option = form.option;
    out.option_text = option_text;
    out.input_format = form.format;
  }
  out.input_shape = input_shape_text(model, s, out.gears.front().shapes, gear_option);
  out.varying_dims = s.dims;
  double total = 0;
  for (const auto& p : problem.points) total += p.weight;
  out.expected_work = sel.cost / total;
  out.own_size_work = sel.own_cost / total;
  out.waste_percent = out.own_size_work > 0 ? (out.expected_work / out.own_size_work - 1) * 100 : 0;
  out.optimal = sel.chain || (sel.exhaustive && complete && s.dims <= 2);
  return out;
}

}  // namespace ge
