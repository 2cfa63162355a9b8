#pragma once
// A small JSON reader for gec's input files (gec --singleop): RFC 8259 values into a
// tree, every error naming the line and column.
//
//   gec::JsonValue v = gec::parse_json(R"([{"op":"Add","shape":[2,3]}])", "ops.json");
//   v.items()[0].find("op")->text() == "Add";
//   v.items()[0].find("shape")->items()[1].integer() == 3;

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gec {

/// A JSON syntax error: "<source>:<line>:<column>: <what>".
class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One JSON value. Objects keep their keys in the order written.
class JsonValue {
 public:
  enum class Kind : std::uint8_t { null, boolean, number, string, array, object };

  [[nodiscard]] Kind kind() const noexcept { return kind_; }
  /// "null", "a bool", "a number", "a string", "an array", "an object".
  [[nodiscard]] std::string_view kind_name() const noexcept;
  [[nodiscard]] bool boolean() const noexcept { return boolean_; }
  [[nodiscard]] double number() const noexcept { return number_; }
  /// Whether the number was written as an integer that fits int64 (no '.', no exponent).
  [[nodiscard]] bool is_integer() const noexcept { return kind_ == Kind::number && integral_; }
  [[nodiscard]] std::int64_t integer() const noexcept { return integer_; }
  [[nodiscard]] const std::string& text() const noexcept { return text_; }
  [[nodiscard]] const std::vector<JsonValue>& items() const noexcept { return items_; }
  [[nodiscard]] const std::vector<std::pair<std::string, JsonValue>>& members() const noexcept { return members_; }
  /// The member named `key` of an object, or null.
  [[nodiscard]] const JsonValue* find(std::string_view key) const noexcept;

 private:
  friend class JsonParser;
  Kind kind_ = Kind::null;
  bool boolean_ = false;
  bool integral_ = false;
  double number_ = 0;
  std::int64_t integer_ = 0;
  std::string text_;
  std::vector<JsonValue> items_;
  std::vector<std::pair<std::string, JsonValue>> members_;
};

/// Parses `text` (all of it: one value, whitespace around). Throws JsonError naming
/// `source`, line and column: a syntax error, a duplicate key, nesting deeper than 256.
[[nodiscard]] JsonValue parse_json(std::string_view text, std::string_view source);

}  // namespace gec
