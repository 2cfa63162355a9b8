// `gec gears`: reads build options from flags, checks them against a target with
// ge::parse_dynamic_config, and prints the result and every gear's input shapes as one
// line of JSON on stdout. Warnings go to stderr as `gec: warning: ...`.
//
//   $ gec gears --input_shape "data:-1,3,416,416" --dynamic_batch_size "1,2" --input_format NHWC
//   {"mode":"gears","option":"dynamic_batch_size","inputs":["data"],"gears":[{"data":[1,3,416,416]},{"data":[2,3,416,416]}]}
//   $ gec gears --input_shape "data:1~10,32,208,208"
//   {"mode":"ranges","inputs":["data"],"shapes":{"data":"1~10,32,208,208"}}

#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "ge/core/format.hpp"
#include "ge/options/build_options.hpp"
#include "ge/options/dynamic_config.hpp"
#include "ge/options/gears.hpp"
#include "ge/options/option.hpp"
#include "ge/options/target.hpp"
#include "json.hpp"

namespace gec {

namespace {

// One flag per option (its `flag` spelling), then --target and --help.
std::vector<Flag> gears_flags() {
  std::vector<Flag> flags;
  for (const ge::OptionInfo& o : ge::options_table()) flags.push_back({o.flag, true, o.summary});
  flags.push_back({"target", true, "the target product (default: cpu); see the list below"});
  flags.push_back({"inputs", true, "the model's input names in index order, e.g. data,B (checks names, scalars, positions)"});
  flags.push_back({"help", false, "print this help and exit"});
  return flags;
}

std::string gears_usage(const std::vector<Flag>& flags) {
  std::string out =
      "usage: gec gears [--input_shape TEXT] [--dynamic_batch_size|--dynamic_image_size|--dynamic_dims TEXT]\n"
      "                 [--input_format NCHW|NHWC|ND] [--inputs NAME,NAME,...] [--target NAME]\n"
      "                 [--ac_parallel_enable 0|1]\n"
      "\n"
      "Checks build options for dynamic inputs against a target and prints one JSON object:\n"
      "the mode (fixed, gears or ranges: ge::ShapeMode's names, as gec compile prints them), in\n"
      "gears mode the option that made the gears (dynamic_batch_size, dynamic_image_size or\n"
      "dynamic_dims), the inputs, and per gear the shape of every input; in ranges mode,\n"
      "\"shapes\" gives each input's shape in the option text form.\n"
      "Flags take --flag VALUE or --flag=VALUE.\n"
      "\n"
      "gec gears --model M.onnx --from_histogram FILE --max_gears K ... chooses the gears from\n"
      "the shapes a service saw instead ('gec gears --from_histogram FILE --help').\n"
      "\n"
      "flags:\n" +
      describe_flags(flags) +
      "\ntargets:\n";
  for (const ge::Target& t : ge::targets()) {
    std::string name = "  " + std::string(t.name);
    name.resize(std::max<std::size_t>(name.size(), 22), ' ');
    out += name + std::string(t.product) + " (max " + std::to_string(t.max_gears) + " gears" +
           (t.supports_ranges ? "" : ", no ranges") + (t.supports_ac_parallel ? "" : ", no ac_parallel") + ")\n";
  }
  out +=
      "\nexample:\n"
      "  gec gears --input_format NHWC --input_shape data:-1,3,416,416 --dynamic_batch_size 1,2,4,8\n"
      "  {\"mode\":\"gears\",\"option\":\"dynamic_batch_size\",\"inputs\":[\"data\"],\"gears\":[{\"data\":[1,3,416,416]},{\"data\":[2,3,416,416]},...]}\n"
      "\nexit status: 0 valid, 2 bad flags or bad option values\n";
  return out;
}

// The option whose gears these are (its flag spelling), or empty.
std::string gear_option_name(const ge::DynamicConfig& cfg) {
  if (cfg.mode != ge::ShapeMode::gears || !cfg.gear_option) return {};
  for (const ge::OptionInfo& o : ge::options_table())
    if (o.id == *cfg.gear_option) return std::string(o.flag);
  return {};
}

void write_shape(JsonWriter& j, const ge::Shape& s) {
  j.begin_array();
  for (const ge::Dim& d : s.dims()) j.value(d.lo());
  j.end_array();
}

}  // namespace

int run_gears(std::span<const std::string> args) {
  for (const std::string& arg : args)  // the other form: gears chosen from traffic
    if (arg == "--") break;
    else if (const std::string f = flag_spelling(arg); f == "--from_histogram" || f.starts_with("--from_histogram="))
      return run_gears_from_histogram(args);
  const std::vector<Flag> flags = gears_flags();
  const Args a = parse_args(args, flags);
  if (a.has("help")) {
    std::fputs(gears_usage(flags).c_str(), stdout);
    return 0;
  }
  if (!a.positionals.empty())
    throw UsageError("unexpected argument '" + a.positionals.front() + "'; gears takes only flags");

  ge::BuildOptions options;
  for (const auto& [name, value] : a.values)
    for (const ge::OptionInfo& o : ge::options_table())
      if (o.flag == name) options.set(o.id, value);
  const ge::Target& target = ge::find_target(a.get("target").value_or("cpu"));
  // --inputs: the model's input names in index order; their shapes are not known here.
  std::vector<ge::ModelInput> model;
  if (const auto names = a.get("inputs")) {
    std::size_t start = 0;
    for (std::size_t i = 0; i <= names->size(); ++i) {
      if (i != names->size() && (*names)[i] != ',') continue;
      std::string name = names->substr(start, i - start);
      if (name.empty())
        throw UsageError("--inputs '" + *names + "' has an empty name at position " + std::to_string(start + 1) +
                         "; expected NAME,NAME,...");
      model.push_back({std::move(name), ge::Shape::unknown_rank(), false});
      start = i + 1;
    }
  }
  const ge::DynamicConfig cfg =
      a.has("inputs") ? ge::parse_dynamic_config(options, target, model) : ge::parse_dynamic_config(options, target);
  for (const std::string& w : cfg.warnings) std::fprintf(stderr, "gec: warning: %s\n", w.c_str());

  // The name of each INPUT_SHAPE entry: its own, else the model's input at its position,
  // else its position.
  const auto& entries = cfg.input_shape.entries();
  std::vector<std::string> names;
  for (std::size_t i = 0; i < entries.size(); ++i)
    names.push_back(cfg.input_shape.named() ? entries[i].name
                                            : i < model.size() ? model[i].name : std::to_string(i));

  JsonWriter j;
  j.begin_object();
  j.key("mode").value(std::string(ge::to_string(cfg.mode)));
  if (const std::string option = gear_option_name(cfg); !option.empty()) j.key("option").value(option);
  j.key("inputs").begin_array();
  if (!model.empty()) {
    for (const ge::ModelInput& m : model) j.value(m.name);
  } else {
    for (const std::string& n : names) j.value(n);
  }
  j.end_array();
  if (cfg.mode == ge::ShapeMode::ranges) {
    j.key("shapes").begin_object();
    for (std::size_t i = 0; i < entries.size(); ++i) j.key(names[i]).value(entries[i].shape.to_string());
    j.end_object();
  } else {
    j.key("gears").begin_array();
    if (cfg.mode == ge::ShapeMode::fixed) {
      j.begin_object();
      for (std::size_t i = 0; i < entries.size(); ++i) {
        j.key(names[i]);
        write_shape(j, entries[i].shape);
      }
      j.end_object();
    }
    for (const ge::Gear& g : ge::enumerate_gears(cfg)) {
      j.begin_object();
      for (std::size_t i = 0; i < g.shapes.size(); ++i) {
        j.key(names[i]);
        write_shape(j, g.shapes[i]);
      }
      j.end_object();
    }
    j.end_array();
  }
  j.end_object();
  std::printf("%s\n", j.str().c_str());
  return 0;
}

}  // namespace gec
