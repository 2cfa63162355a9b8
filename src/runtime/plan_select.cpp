// PlanSelector: the plan for real input dims. See include/ge/runtime/plan_select.hpp.
#include "ge/runtime/plan_select.hpp"

#include <charconv>
#include <string>

#include "ge/core/log.hpp"
#include "ge/core/text.hpp"
#include "runtime/session_impl.hpp"

namespace ge {

namespace {



std::span<const std::int64_t> dims_of(const std::vector<std::int64_t>& d) noexcept { return d; }
std::span<const std::int64_t> dims_of(const TensorView& t) noexcept { return t.dims.span(); }

// The cache key of a signature, written into `key` (whose memory is reused).
template <class D>
void dims_key(std::span<const D> dims, std::string& key) {
  key.clear();
  char digits[24];
  for (const D& x : dims) {
    key += '[';
    for (const std::int64_t v : dims_of(x)) {
      const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
      key.append(digits, end);
      key += ',';
    }
    key += ']';
  }
}

Shape shape_of(std::span<const std::int64_t> d) { return Shape(std::vector<Dim>(d.begin(), d.end())); }

// True when every dim of `d` lies in the dim of `s` at its place (no Shape made: a run's
// plan is found without allocating).
bool holds(const Shape& s, std::span<const std::int64_t> d) {
  if (!s.rank_known()) return true;
  if (s.rank() != d.size()) return false;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const Dim& x = s.dims()[i];
    if (!x.is_unknown() && (d[i] < x.lo() || d[i] > x.hi())) return false;
  }
  return true;
}

std::shared_ptr<const CompiledModel> checked(std::shared_ptr<const CompiledModel> m) {
  if (!m) raise(Errc::invalid_argument, "[ge.runtime] PlanSelector: null model");
  return m;
}

}  // namespace

PlanSelector::PlanSelector(std::shared_ptr<const CompiledModel> model, std::size_t cache, bool specialize_ranges)
    : model_(checked(std::move(model))),
      signature_plans_(cache ? cache : model_->settings().plan_cache),
      specialize_ranges_(specialize_ranges) {}


std::shared_ptr<const Plan> PlanSelector::select(std::span<const std::vector<std::int64_t>> dims) {
  return select_dims(dims);
}

std::shared_ptr<const Plan> PlanSelector::select(std::span<const TensorView> inputs) { return select_dims(inputs); }

template <class D>
std::shared_ptr<const Plan> PlanSelector::select_dims(std::span<const D> dims) {
  const CompiledModel& m = *model_;
  const auto& inputs = m.inputs();
  const auto fits = [&](const Plan& p) {
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (!holds(p.input_shapes[i], dims_of(dims[i]))) return false;
    return true;
  };
  if (dims.size() == inputs.size())
    for (const auto& p : m.plans()) {  // the gears first, then (hybrid mode) the range plan
      if (!fits(*p)) continue;
      if (!specialize_ranges_ || !p->works_out_dims()) return p;
      // A static plan for these dims instead, made at their first run while there is room.
      thread_local std::string scratch;  // its memory kept: a hit allocates nothing
      dims_key(dims, scratch);
      if (auto made = signature_plans_.find(scratch)) return made;
      const CacheStats stats = signature_plans_.stats();
      if (stats.size >= stats.capacity) return p;
      // A miss: the key copied first (making the plan may run anything on this thread).
      const std::string key = scratch;
      return signature_plans_.get_or_create(key, [&] {
        std::vector<Shape> shapes;
        for (const auto& d : dims) shapes.push_back(shape_of(dims_of(d)));
        log_message(LogLevel::info, [&] {
          std::string s;
          for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "; " : "") + inputs[i].name + ":" + dims_text(dims_of(dims[i]));
          return "[ge.runtime] making a static plan for the input dims " + s + " (the range plan works out shapes as it runs)";
        });
        return build_plan(m, std::move(shapes));
      });
    }
  // (The words of the errors below are made only for them: a run allocates nothing here.)
  const auto names = [&] {
    std::vector<std::string> n;
    for (const ModelIO& io : inputs) n.push_back(io.name);
    return n;
  };
  const auto given = [&] {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i)
      s += (i ? "; " : "") + inputs[i].name + ":" + dims_text(dims_of(dims[i]));
    return s;
  };
  detail::check_count(dims.size(), inputs.size(), "inputs", "", "the model");
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const Shape& s = inputs[i].shape;
    if (s.rank_known() && s.rank() != dims_of(dims[i]).size())
      raise(Errc::bad_tensor, "[ge.runtime] input " + quoted(inputs[i].name) + " has rank " + std::to_string(dims_of(dims[i]).size()) +
                                  " (dims " + dims_text(dims_of(dims[i])) + "); the model takes rank " + std::to_string(s.rank()) +
                                  " (" + s.to_string() + ")");
  }
  if (m.plans_per_signature()) {
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (!holds(inputs[i].shape, dims_of(dims[i])))
        raise(Errc::out_of_range, "[ge.runtime] input " + quoted(inputs[i].name) + " has dims " +
                                      dims_text(dims_of(dims[i])) + ", outside the compiled range " +
                                      inputs[i].shape.to_string());
    thread_local std::string scratch;  // as above: a hit allocates nothing
    dims_key(dims, scratch);
    return signature_plans_.get_or_create(scratch, [&] {
      const std::string key = scratch;  // making the plan may run anything on this thread
      std::vector<Shape> shapes;
      for (const auto& d : dims) shapes.push_back(shape_of(dims_of(d)));
      log_message(LogLevel::info, [&] { return "[ge.runtime] making the plan for new input dims " + given(); });
      auto plan = build_plan(m, std::move(shapes));
      scratch = key;  // the cache reads the key again when it stores the plan
      return plan;
    });
  }
  if (m.mode() == ShapeMode::gears) {
    std::string list;
    for (const auto& p : m.plans())
      list += (p->gear >= 0 ? "\n  gear " + std::to_string(p->gear) : std::string("\n  range plan")) + ": " +
              p->describe_inputs(names());
    raise(Errc::no_matching_gear, "[ge.runtime] the inputs " + given() + " match no gear; the gears are:" + list);
  }
  const std::string what = m.mode() == ShapeMode::ranges ? "the compiled ranges " : "the compiled shapes ";
  raise(Errc::out_of_range, "[ge.runtime] the inputs " + given() + " lie outside " + what +
                                (m.plans().empty() ? std::string() : m.plans().front()->describe_inputs(names())));
}

}  // namespace ge
