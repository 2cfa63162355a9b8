#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "json.hpp"

TEST_CASE("objects, arrays and scalars, compact, in the order written") {
  gec::JsonWriter j;
  j.begin_object()
      .key("s").value("x")
      .key("n").value(std::int64_t{-3})
      .key("u").value(std::uint64_t{18446744073709551615u})
      .key("t").value(true)
      .key("f").value(false)
      .key("z").null()
      .key("a").begin_array().value(1).begin_array().end_array().begin_object().end_object().value("y").end_array()
      .key("e").begin_object().end_object()
      .end_object();
  CHECK(j.str() == R"({"s":"x","n":-3,"u":18446744073709551615,"t":true,"f":false,"z":null,"a":[1,[],{},"y"],"e":{}})");
}

TEST_CASE("strings are escaped") {
  using gec::JsonWriter;
  CHECK(JsonWriter::quote("") == R"("")");
  CHECK(JsonWriter::quote(R"(a"b\c)") == R"("a\"b\\c")");
  CHECK(JsonWriter::quote("\n\t\r\b\f") == R"("\n\t\r\b\f")");
  CHECK(JsonWriter::quote(std::string("\x01\x1f\x7f", 3)) == R"("\u0001\u001f\u007f")");
  CHECK(JsonWriter::quote(std::string("a\0b", 3)) == R"("a\u0000b")");
  CHECK(JsonWriter::quote("/") == R"("/")");
}

TEST_CASE("valid UTF-8 passes through; invalid bytes become U+FFFD") {
  using gec::JsonWriter;
  CHECK(JsonWriter::quote("数据") == "\"数据\"");
  CHECK(JsonWriter::quote("\xF0\x9F\x98\x80") == "\"\xF0\x9F\x98\x80\"");  // 4 bytes
  CHECK(JsonWriter::quote("a\xFF" "b") == R"("a\ufffdb")");
  CHECK(JsonWriter::quote("\xC0\xAF") == R"("\ufffd\ufffd")");          // overlong
  CHECK(JsonWriter::quote("\xED\xA0\x80") == R"("\ufffd\ufffd\ufffd")");  // a surrogate
  CHECK(JsonWriter::quote("\xE6\x95") == R"("\ufffd\ufffd")");          // cut short
  CHECK(JsonWriter::quote("\xF4\x90\x80\x80") == R"("\ufffd\ufffd\ufffd\ufffd")");  // above U+10FFFF
}
