#include <doctest/doctest.h>

#include <string>

#include "json_read.hpp"
#include "json.hpp"

using gec::JsonValue;

namespace {

// The message of the JsonError that parsing `text` throws, or "" when it parses.
std::string error_of(std::string_view text) {
  try {
    (void)gec::parse_json(text, "f.json");
  } catch (const gec::JsonError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("values: objects keep their order, numbers know whether they are integers") {
  const JsonValue v = gec::parse_json(R"( {"op": "Add", "shape": [2, -3, 0], "f": 0.5, "e": 1e3, "t": true,
                                          "n": null, "nested": {"a": []}} )", "f.json");
  REQUIRE(v.kind() == JsonValue::Kind::object);
  REQUIRE(v.members().size() == 7);
  CHECK(v.members()[0].first == "op");
  CHECK(v.members()[6].first == "nested");
  CHECK(v.find("op")->text() == "Add");
  const auto& shape = v.find("shape")->items();
  REQUIRE(shape.size() == 3);
  CHECK(shape[1].is_integer());
  CHECK(shape[1].integer() == -3);
  CHECK_FALSE(v.find("f")->is_integer());
  CHECK(v.find("f")->number() == 0.5);
  CHECK_FALSE(v.find("e")->is_integer());  // an exponent makes a float, as in GE's files
  CHECK(v.find("e")->number() == 1000);
  CHECK(v.find("t")->boolean());
  CHECK(v.find("n")->kind() == JsonValue::Kind::null);
  CHECK(v.find("nested")->find("a")->items().empty());
  CHECK(v.find("missing") == nullptr);
  CHECK(v.find("shape")->kind_name() == "an array");
}

TEST_CASE("strings: escapes and \\u, surrogate pairs as UTF-8; what the writer writes reads back") {
  const JsonValue v = gec::parse_json(R"(["a\"b\\c\/\n\t", "\u00e9\u4e2d", "\ud83d\ude00"])", "f.json");
  CHECK(v.items()[0].text() == "a\"b\\c/\n\t");
  CHECK(v.items()[1].text() == "\xc3\xa9\xe4\xb8\xad");
  CHECK(v.items()[2].text() == "\xf0\x9f\x98\x80");
  const std::string odd = std::string("q\"\\\x01z", 5);
  CHECK(gec::parse_json(gec::JsonWriter::quote(odd), "f.json").text() == odd);
  CHECK(gec::parse_json("9223372036854775807", "f.json").integer() == 9223372036854775807);
  CHECK_FALSE(gec::parse_json("9223372036854775808", "f.json").is_integer());  // beyond int64: a number only
}

TEST_CASE("errors name the file, line and column") {
  CHECK(error_of("[1, 2,]") == "f.json:1:7: unexpected character ']'; expected a JSON value");
  CHECK(error_of("[\n  {\"a\": 1\n  \"b\": 2}]") == "f.json:3:3: expected ',' or '}'");
  CHECK(error_of("{\"a\": 1, \"a\": 2}") == "f.json:1:10: the key \"a\" appears twice in one object");
  CHECK(error_of("[1] x") == "f.json:1:5: unexpected text after the JSON value");
  CHECK(error_of("") == "f.json:1:1: the text ends; expected a JSON value");
  CHECK(error_of("[1, 2") == "f.json:1:6: the text ends inside an array; expected ',' or ']'");
  CHECK(error_of("\"abc") == "f.json:1:5: the text ends inside a string");
  CHECK(error_of("\"a\tb\"") == "f.json:1:3: a control character inside a string (write it as an escape)");
  CHECK(error_of("\"\\x\"") == "f.json:1:2: unknown escape '\\x'");
  CHECK(error_of("[tru]") == "f.json:1:2: unexpected text; expected a JSON value");
  CHECK(error_of("-") == "f.json:1:2: a '-' without digits");
  CHECK(error_of("1.") == "f.json:1:3: a '.' without digits after it");
  CHECK(error_of("{1: 2}") == "f.json:1:2: expected a key in quotes");
  CHECK(error_of(std::string(300, '[')) == "f.json:1:258: nesting deeper than 256");
}
