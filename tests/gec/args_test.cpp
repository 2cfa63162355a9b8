#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "args.hpp"

namespace {
constexpr gec::Flag flags[] = {
    {"input_shape", true, "shapes"}, {"target", true, "target"}, {"help", false, "usage"}};

gec::Args parse(std::vector<std::string> v) { return gec::parse_args(v, flags); }

std::string usage_error(std::vector<std::string> v) {
  try {
    (void)parse(std::move(v));
  } catch (const gec::UsageError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("--key value and --key=value") {
  const auto a = parse({"--input_shape", "data:-1,3", "--target=atlas_a2"});
  CHECK(a.get("input_shape") == "data:-1,3");
  CHECK(a.get("target") == "atlas_a2");
  CHECK(!a.get("help"));
  CHECK(a.positionals.empty());
  CHECK(parse({"--target="}).get("target") == "");
  CHECK(parse({"--input_shape=a:1=2"}).get("input_shape") == "a:1=2");  // only the first '=' splits
}

TEST_CASE("values that start with one dash are values; '--' ends the flags") {
  CHECK(parse({"--input_shape", "-1,3"}).get("input_shape") == "-1,3");
  const auto a = parse({"x", "--", "--target", "-h"});
  CHECK(a.positionals == std::vector<std::string>{"x", "--target", "-h"});
  CHECK(parse({"-1"}).positionals == std::vector<std::string>{"-1"});
}

TEST_CASE("one spelling: underscores, as GE's options; dashes in a flag's name read as underscores") {
  CHECK(gec::flag_spelling("--plan-svg") == "--plan_svg");
  CHECK(gec::flag_spelling("--plan-svg=a-b.svg") == "--plan_svg=a-b.svg");  // the value is kept
  CHECK(gec::flag_spelling("--input_shape") == "--input_shape");
  const auto a = parse({"--input-shape", "data:-1,3", "--target=a-b"});
  CHECK(a.get("input_shape") == "data:-1,3");
  CHECK(a.get("target") == "a-b");
  CHECK(usage_error({"--input-shape", "x", "--input_shape", "y"}).find("given twice") != std::string::npos);
  CHECK(usage_error({"--input-shap", "x"}).find("unknown flag '--input-shap'") != std::string::npos);
}

TEST_CASE("switches") {
  CHECK(parse({"--help"}).has("help"));
  CHECK(parse({"-h"}).has("help"));
  CHECK(usage_error({"--help=1"}).find("takes no value") != std::string::npos);
}

TEST_CASE("bad command lines are UsageErrors that name the flag") {
  const std::string u = usage_error({"--input_shap", "x"});
  CHECK(u.find("unknown flag '--input_shap'") != std::string::npos);
  CHECK(u.find("did you mean '--input_shape'") != std::string::npos);
  CHECK(usage_error({"--input_shap=x"}).find("unknown flag '--input_shap'") != std::string::npos);
  CHECK(usage_error({"--verbose"}).find("did you mean") == std::string::npos);
  CHECK(usage_error({"--verbose"}).find("expected one of --input_shape --target --help") != std::string::npos);
  CHECK(usage_error({"--target"}).find("'--target' needs a value") != std::string::npos);
  CHECK(usage_error({"--target", "--help"}).find("needs a value") != std::string::npos);
  CHECK(usage_error({"--target", "a", "--target=b"}).find("given twice") != std::string::npos);
  CHECK(usage_error({"-x"}).find("no error") != std::string::npos);  // a positional: the command decides
}

TEST_CASE("describe_flags lists every flag with its help") {
  const std::string d = gec::describe_flags(flags);
  CHECK(d.find("--input_shape VALUE") != std::string::npos);
  CHECK(d.find("--help") != std::string::npos);
  CHECK(d.find("usage") != std::string::npos);
}
