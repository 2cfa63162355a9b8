#include "ge/options/dynamic_config.hpp"

#include <algorithm>
#include <array>

#include "ge/core/error.hpp"
#include "ge/core/text.hpp"

namespace ge {

std::string_view to_string(ShapeMode mode) noexcept {
  switch (mode) {
    case ShapeMode::fixed: return "fixed";
    case ShapeMode::gears: return "gears";
    case ShapeMode::ranges: return "ranges";
  }
  return "fixed";
}

namespace {

std::string label(Option o) {
  const OptionInfo& i = option_info(o);
  return std::string(i.key) + " (" + std::string(i.name) + ")";
}


// "input 'data'" or "input 2" (positional).
std::string input_label(const InputShape& s, std::size_t i) {
  return s.named() ? "input " + quoted(s.entries()[i].name) : "input " + std::to_string(i) + " (by position)";
}

class Checker {
 public:
  Checker(const BuildOptions& o, const Target& t) : o_(o) {
    cfg_.target = t;
    if (o.input_shape()) cfg_.input_shape = *o.input_shape();
    cfg_.ac_parallel_enable = o.ac_parallel_enable().value_or(false);
    cfg_.hybrid = o.compile_hybrid_mode().value_or(false);
  }

  DynamicConfig run(const std::span<const ModelInput>* model) {
    pick_gear_option();
    if (cfg_.gear_option) {
      check_gears();
    } else {
      check_no_gears();
    }
    if (model) check_model(*model);
    check_parallel(model);
    check_hybrid();
    return std::move(cfg_);
  }

 private:
  [[nodiscard]] std::string shape_text() const { return quoted(o_.text(Option::input_shape).value_or("")); }
  [[nodiscard]] std::string gear_text() const { return quoted(o_.text(*cfg_.gear_option).value_or("")); }

  void pick_gear_option() {
    std::vector<Option> set;
    for (const Option g : {Option::dynamic_batch_size, Option::dynamic_image_size, Option::dynamic_dims})
      if (o_.contains(g)) set.push_back(g);
    if (set.size() > 1)
      raise(Errc::conflicting_options, "[ge.options] conflicting options: " + quoted(option_info(set[0]).key) + " and " +
                                           quoted(option_info(set[1]).key) +
                                           " are both set; expected at most one of DYNAMIC_BATCH_SIZE, "
                                           "DYNAMIC_IMAGE_SIZE and DYNAMIC_DIMS");
    if (!set.empty()) cfg_.gear_option = set[0];
  }

  [[nodiscard]] std::size_t gear_count() const {
    switch (*cfg_.gear_option) {
      case Option::dynamic_batch_size: return o_.dynamic_batch_size()->size();
      case Option::dynamic_image_size: return o_.dynamic_image_size()->size();
      default: return o_.dynamic_dims()->size();
    }
  }

  void check_gears() {
    const Option g = *cfg_.gear_option;
    const std::string gl = label(g);
    if (!o_.input_shape())
      raise(Errc::missing_input_shape, "[ge.options] " + gl + " " + gear_text() +
                                           " is set without ge.inputShape (INPUT_SHAPE); expected "
                                           "INPUT_SHAPE with -1 where the gears go");
    const Target& t = cfg_.target;
    if (!t.supports_gears)
      raise(Errc::gears_unsupported, "[ge.options] " + gl + " " + gear_text() + " on target " + quoted(t.name) + " (" +
                                         std::string(t.product) + "), which has no gears; expected no "
                                         "DYNAMIC_* option, or a target with gears");
    const std::size_t n = gear_count();
    if (n > t.max_gears)
      raise(Errc::bad_gear_count, "[ge.options] too many gears in " + gl + ": " + std::to_string(n) +
                                      " gears on target " + quoted(t.name) + "; expected 2 to " +
                                      std::to_string(t.max_gears) + " gears");
    const InputShape& s = cfg_.input_shape;
    for (std::size_t i = 0; i < s.entries().size() && !cfg_.hybrid; ++i) {
      const auto& dims = s.entries()[i].shape.dims();
      for (std::size_t d = 0; d < dims.size(); ++d)
        if (dims[d].is_range())
          raise(Errc::bad_input_shape, "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() + ": " +
                                           input_label(s, i) + " has the range " + quoted(dims[d].to_string()) +
                                           " at dim " + std::to_string(d) + ", but " + gl +
                                           " gives gears; expected fixed dims and -1s with gears (a range "
                                           "bounds the range plan of ge.compileHybridMode=1)");
    }
    if (slot_count() == 0)
      raise(Errc::gear_shape_mismatch, "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() +
                                           " has no -1 for the gears of " + gl +
                                           "; expected -1 where the gears go");
    for (std::size_t i = 0; i < s.entries().size(); ++i) {
      const auto& dims = s.entries()[i].shape.dims();
      for (std::size_t d = 0; d < dims.size(); ++d)
        if (dims[d].is_static() && dims[d].value() == 0)
          raise(Errc::bad_input_shape, "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() + ": " +
                                           input_label(s, i) + " has the dim 0 at dim " + std::to_string(d) + ", but " +
                                           gl + " gives gears; expected dims >= 1 and -1s with gears");
    }
    if (!s.named())
      raise(Errc::bad_input_shape, "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() +
                                       " gives its inputs by position, but " + gl +
                                       " gives gears, and with gears every input is named; expected "
                                       "name:dims;name:dims (the positional form is for ranges only)");
    cfg_.mode = ShapeMode::gears;
    switch (g) {
      case Option::dynamic_batch_size: check_batch(); break;
      case Option::dynamic_image_size: check_image(); break;
      default: check_dims(); break;
    }
    // Every gear value, of any gear option, is best kept within 1 to 2048.
    for (std::size_t k = 0; k < cfg_.gears.size(); ++k)
      for (const std::int64_t v : cfg_.gears[k])
        if (v > 2048) {
          cfg_.warnings.push_back(gl + " gear " + std::to_string(k + 1) + " has the value " + std::to_string(v) +
                                  ", above 2048; values from 1 to 2048 are recommended");
          break;
        }
  }

  void check_batch() {
    const InputShape& s = cfg_.input_shape;
    for (std::size_t i = 0; i < s.entries().size(); ++i) {
      const auto& dims = s.entries()[i].shape.dims();
      for (std::size_t d = 1; d < dims.size(); ++d)
        if (cfg_.gear_slot(dims[d]))
          raise(Errc::bad_batch_dim, "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() + ": " +
                                         input_label(s, i) + " has -1 at dim " + std::to_string(d) +
                                         ", but DYNAMIC_BATCH_SIZE fills only a -1 first dim (the batch); "
                                         "expected -1 only as the first dim, or DYNAMIC_DIMS");
    }
    cfg_.input_format = o_.input_format().value_or(Format::nchw);
    const auto& gears = *o_.dynamic_batch_size();
    for (const std::int64_t b : gears) cfg_.gears.push_back({b});
  }

  void check_image() {
    const InputShape& s = cfg_.input_shape;
    if (!o_.input_format())
      raise(Errc::bad_input_format, "[ge.options] ge.dynamicImageSize (DYNAMIC_IMAGE_SIZE) " + gear_text() +
                                        " without ge.inputFormat (INPUT_FORMAT), which says which dims are H and W; "
                                        "expected INPUT_FORMAT NCHW or NHWC");
    const Format f = *o_.input_format();
    const auto hw = hw_index(f);
    if (!hw)
      raise(Errc::bad_input_format, "[ge.options] ge.inputFormat (INPUT_FORMAT) " +
                                        quoted(o_.text(Option::input_format).value_or("")) +
                                        " does not say which dims are H and W, which DYNAMIC_IMAGE_SIZE needs; "
                                        "expected NCHW or NHWC");
    const std::string where = std::string(to_string(f)) + " puts H at dim " + std::to_string(hw->h) +
                              " and W at dim " + std::to_string(hw->w);
    for (std::size_t i = 0; i < s.entries().size(); ++i) {
      const auto& dims = s.entries()[i].shape.dims();
      const bool any = std::any_of(dims.begin(), dims.end(), [&](const Dim& d) { return cfg_.gear_slot(d); });
      if (!any) continue;
      const auto fail = [&](const std::string& why) {
        raise(Errc::bad_image_dims, "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() + ": " +
                                        input_label(s, i) + " " + why +
                                        "; expected a 4-D shape with -1 at exactly H and W (" + where + ")");
      };
      if (dims.size() != 4) fail("has rank " + std::to_string(dims.size()) + " with a -1");
      for (std::size_t d = 0; d < 4; ++d) {
        const bool is_hw = static_cast<int>(d) == hw->h || static_cast<int>(d) == hw->w;
        if (is_hw && !cfg_.gear_slot(dims[d])) fail("has the fixed dim " + quoted(dims[d].to_string()) + " at dim " +
                                                    std::to_string(d) + ", which is H or W");
        if (!is_hw && cfg_.gear_slot(dims[d])) fail("has -1 at dim " + std::to_string(d) + ", which is not H or W");
      }
    }
    cfg_.input_format = f;
    for (const ImageGear& g : *o_.dynamic_image_size()) cfg_.gears.push_back({g.h, g.w});
  }

  void check_dims() {
    const Format f = o_.input_format().value_or(Format::nd);
    if (f != Format::nd)
      raise(Errc::bad_input_format, "[ge.options] ge.inputFormat (INPUT_FORMAT) " +
                                        quoted(o_.text(Option::input_format).value_or("")) +
                                        " with DYNAMIC_DIMS; expected ND (or no INPUT_FORMAT)");
    cfg_.input_format = f;
    const std::size_t unknowns = slot_count();
    const auto& gears = *o_.dynamic_dims();
    if (gears.front().size() != unknowns)
      raise(Errc::gear_shape_mismatch, "[ge.options] ge.dynamicDims (DYNAMIC_DIMS) " + gear_text() + " has " +
                                           std::to_string(gears.front().size()) + " dims per gear, but INPUT_SHAPE " +
                                           shape_text() + " has " + std::to_string(unknowns) +
                                           (unknowns == 1 ? " -1" : " -1s") +
                                           "; expected one dim per -1 in every gear");
    cfg_.gears = gears;
    if (gears.size() < 3 || gears.size() > 4)
      cfg_.warnings.push_back("DYNAMIC_DIMS has " + std::to_string(gears.size()) +
                              " gears; 3 to 4 gears are recommended");
  }

  // The dims the gears fill: the -1s (and, in hybrid mode, the lo~hi ranges).
  [[nodiscard]] std::size_t slot_count() const {
    std::size_t n = 0;
    for (const InputShapeEntry& e : cfg_.input_shape.entries())
      for (const Dim& d : e.shape.dims()) n += cfg_.gear_slot(d) ? 1 : 0;
    return n;
  }

  // COMPILE_HYBRID_MODE=1: gears, and a target with ranges for the plan that serves the rest.
  void check_hybrid() {
    if (o_.dynamic_node_type() == 0 && cfg_.hybrid)
      cfg_.warnings.push_back("ge.dynamicNodeType (DYNAMIC_NODE_TYPE) 0 asks for dataset inputs, which ge does not have: "
                              "its inputs are placeholders (1), as GE's hybrid mode needs");
    if (!cfg_.hybrid) return;
    const std::string hl = "ge.compileHybridMode (COMPILE_HYBRID_MODE) " + quoted(o_.text(Option::compile_hybrid_mode).value_or(""));
    if (!cfg_.gear_option)
      raise(Errc::missing_gears, "[ge.options] " + hl +
                                     " without gears: hybrid mode adds a range plan beside the gears' plans; expected "
                                     "one of ge.dynamicBatchSize, ge.dynamicImageSize, ge.dynamicDims (or no hybrid mode)");
    if (!cfg_.target.supports_ranges)
      raise(Errc::ranges_unsupported, "[ge.options] " + hl + " on target " + quoted(cfg_.target.name) + " (" +
                                          std::string(cfg_.target.product) +
                                          "), which has no shape ranges for the plan that serves inputs between the gears; "
                                          "expected ge.compileHybridMode=0 on this target");
    // Every gear value lies in the range given for its dim.
    const InputShape& s = cfg_.input_shape;
    for (std::size_t k = 0; k < cfg_.gears.size(); ++k) {
      std::size_t next = 0;
      for (std::size_t i = 0; i < s.entries().size(); ++i) {
        const auto& dims = s.entries()[i].shape.dims();
        for (std::size_t d = 0; d < dims.size(); ++d) {
          if (!cfg_.gear_slot(dims[d])) continue;
          const auto hw = hw_index(cfg_.input_format);
          const std::vector<std::int64_t>& g = cfg_.gears[k];
          std::int64_t v = g.at(0);
          if (*cfg_.gear_option == Option::dynamic_image_size) v = hw && static_cast<int>(d) == hw->w ? g.at(1) : g.at(0);
          if (*cfg_.gear_option == Option::dynamic_dims) v = g.at(next++);
          if (dims[d].is_range() && (v < dims[d].lo() || v > dims[d].hi()))
            raise(Errc::gear_shape_mismatch, "[ge.options] gear " + std::to_string(k + 1) + " puts " + std::to_string(v) +
                                                 " at dim " + std::to_string(d) + " of " + input_label(s, i) +
                                                 ", outside its range " + quoted(dims[d].to_string()) + " in ge.inputShape " +
                                                 shape_text() + "; expected every gear inside the ranges");
        }
      }
    }
  }

  void check_no_gears() {
    cfg_.input_format = o_.input_format().value_or(Format::nchw);
    const InputShape& s = cfg_.input_shape;
    for (std::size_t i = 0; i < s.entries().size(); ++i) {
      const auto& dims = s.entries()[i].shape.dims();
      for (std::size_t d = 0; d < dims.size(); ++d) {
        if (!dims[d].is_unknown() && !dims[d].is_range()) continue;  // a fixed dim
        cfg_.mode = ShapeMode::ranges;
        if (!cfg_.target.supports_ranges)
          raise(Errc::ranges_unsupported,
                "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() + ": " + input_label(s, i) + " has " +
                    quoted(dims[d].to_string()) + " at dim " + std::to_string(d) + ", a shape range, but target " +
                    quoted(cfg_.target.name) + " (" + std::string(cfg_.target.product) +
                    ") has no shape ranges; expected fixed dims, or -1s with a DYNAMIC_* gear option");
      }
    }
  }

  void check_model(std::span<const ModelInput> model) {
    const InputShape& s = cfg_.input_shape;
    std::vector<bool> listed(model.size(), false);
    for (std::size_t i = 0; i < s.entries().size(); ++i) {
      const InputShapeEntry& e = s.entries()[i];
      std::size_t m = model.size();
      if (s.named()) {
        for (std::size_t k = 0; k < model.size(); ++k)
          if (model[k].name == e.name) m = k;
        if (m == model.size()) {
          std::vector<std::string_view> names;
          for (const ModelInput& mi : model) names.push_back(mi.name);
          std::string msg = "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() + " names the input " +
                            quoted(e.name) + ", which the model does not have; ";
          if (const auto near = closest_spelling(e.name, names)) msg += "did you mean " + quoted(*near) + "? ";
          msg += "expected one of:";
          for (const ModelInput& mi : model) msg += " " + quoted(mi.name);
          raise(Errc::unknown_input, msg);
        }
      } else if (i >= model.size()) {
        raise(Errc::unknown_input, "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() + " gives " +
                                       std::to_string(s.entries().size()) + " inputs by position, but the model has " +
                                       std::to_string(model.size()) + "; expected at most " +
                                       std::to_string(model.size()) + " entries");
      } else {
        m = i;
      }
      listed[m] = true;
      const Shape& declared = model[m].shape;
      if (!model[m].declared || !declared.rank_known()) continue;
      const auto mismatch = [&](const std::string& why) {
        raise(Errc::bad_input_shape, "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() + ": " +
                                         input_label(s, i) + " " + why + "; the model declares " +
                                         quoted(model[m].name) + " as " + quoted(declared.to_string()) +
                                         "; expected a shape that fits it");
      };
      if (declared.dims().size() != e.shape.dims().size())
        mismatch("has rank " + std::to_string(e.shape.dims().size()) + ", not " +
                 std::to_string(declared.dims().size()));
      for (std::size_t d = 0; d < declared.dims().size(); ++d)
        if (!compatible(declared.dims()[d], e.shape.dims()[d]))
          mismatch("has " + quoted(e.shape.dims()[d].to_string()) + " at dim " + std::to_string(d));
    }
    for (std::size_t k = 0; k < model.size(); ++k) {
      if (listed[k]) continue;
      if (!model[k].declared) {
        // Only the name is known: with gears it may be a scalar, which must be listed.
        if (cfg_.mode == ShapeMode::gears)
          raise(Errc::missing_scalar_input,
                "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() + " does not list the input " +
                    quoted(model[k].name) + "; with gears every scalar input must be listed, and its shape is not "
                    "known here; expected " + quoted(model[k].name + ":") + " (a scalar) or its dims among the entries");
        continue;
      }
      const Shape& declared = model[k].shape;
      if (!declared.is_static())
        raise(Errc::missing_input_shape,
              "[ge.options] the model's input " + quoted(model[k].name) + " has the non-fixed shape " +
                  quoted(declared.to_string()) + ", but ge.inputShape (INPUT_SHAPE) " +
                  (o_.input_shape() ? shape_text() + " does not list it" : std::string("is not set")) +
                  "; expected INPUT_SHAPE to give its shape");
      if (declared.is_scalar() && cfg_.mode == ShapeMode::gears)
        raise(Errc::missing_scalar_input,
              "[ge.options] ge.inputShape (INPUT_SHAPE) " + shape_text() + " does not list the scalar input " +
                  quoted(model[k].name) + "; with gears every scalar input must be listed; expected " +
                  quoted(model[k].name + ":") + " among the entries");
    }
  }

  void check_parallel(const std::span<const ModelInput>* model) {
    if (!cfg_.ac_parallel_enable) return;
    const Target& t = cfg_.target;
    if (!t.supports_ac_parallel)
      raise(Errc::ac_parallel_unsupported, "[ge.options] ac_parallel_enable (AC_PARALLEL_ENABLE) " +
                                               quoted(o_.text(Option::ac_parallel_enable).value_or("")) + " on target " +
                                               quoted(t.name) + " (" + std::string(t.product) +
                                               "), which does not support it; expected 0");
    const bool model_dynamic =
        model && std::any_of(model->begin(), model->end(), [](const ModelInput& m) { return !m.shape.is_static(); });
    const bool static_shapes =
        cfg_.mode == ShapeMode::gears || (cfg_.mode == ShapeMode::fixed && o_.input_shape() && !model_dynamic);
    if (static_shapes)
      cfg_.warnings.push_back("AC_PARALLEL_ENABLE=1 has an effect only on dynamic-shape graphs, but the shapes are " +
                              std::string(cfg_.mode == ShapeMode::gears ? "static gears" : "fixed"));
  }

  const BuildOptions& o_;
  DynamicConfig cfg_;
};

}  // namespace

DynamicConfig parse_dynamic_config(const BuildOptions& options, const Target& target) {
  return Checker(options, target).run(nullptr);
}

DynamicConfig parse_dynamic_config(const BuildOptions& options, const Target& target,
                                   std::span<const ModelInput> model_inputs) {
  return Checker(options, target).run(&model_inputs);
}

}  // namespace ge
