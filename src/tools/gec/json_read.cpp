// The JSON reader of json_read.hpp: recursive descent over the text.
#include "json_read.hpp"

#include <charconv>
#include <cstdlib>

namespace gec {

std::string_view JsonValue::kind_name() const noexcept {
  switch (kind_) {
    case Kind::null: return "null";
    case Kind::boolean: return "a bool";
    case Kind::number: return "a number";
    case Kind::string: return "a string";
    case Kind::array: return "an array";
    case Kind::object: return "an object";
  }
  return "?";
}

const JsonValue* JsonValue::find(std::string_view key) const noexcept {
  for (const auto& [k, v] : members_)
    if (k == key) return &v;
  return nullptr;
}

class JsonParser {
 public:
  JsonParser(std::string_view text, std::string_view source) : s_(text), source_(source) {}

  JsonValue document() {
    skip_space();
    JsonValue v = value(0);
    skip_space();
    if (pos_ != s_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw JsonError(std::string(source_) + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  [[nodiscard]] char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void expect(char c) {
    if (peek() != c) {
      if (pos_ >= s_.size()) fail(std::string("the text ends; expected '") + c + "'");
      fail(std::string("expected '") + c + "', found '" + s_[pos_] + "'");
    }
    ++pos_;
  }
  void literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) fail("unexpected text; expected a JSON value");
    pos_ += word.size();
  }

  JsonValue value(int depth) {
    if (depth > 256) fail("nesting deeper than 256");
    JsonValue v;
    switch (peek()) {
      case '{': object(v, depth); break;
      case '[': array(v, depth); break;
      case '"':
        v.kind_ = JsonValue::Kind::string;
        v.text_ = string();
        break;
      case 't':
        literal("true");
        v.kind_ = JsonValue::Kind::boolean;
        v.boolean_ = true;
        break;
      case 'f':
        literal("false");
        v.kind_ = JsonValue::Kind::boolean;
        break;
      case 'n': literal("null"); break;
      case '\0':
        if (pos_ >= s_.size()) fail("the text ends; expected a JSON value");
        fail("unexpected character; expected a JSON value");
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
          number(v);
          break;
        }
        fail(std::string("unexpected character '") + peek() + "'; expected a JSON value");
    }
    return v;
  }

  void object(JsonValue& v, int depth) {
    v.kind_ = JsonValue::Kind::object;
    expect('{');
    skip_space();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    for (;;) {
      skip_space();
      if (peek() != '"') fail("expected a key in quotes");
      const std::size_t key_pos = pos_;
      std::string key = string();
      if (v.find(key) != nullptr) {
        pos_ = key_pos;
        fail("the key \"" + key + "\" appears twice in one object");
      }
      skip_space();
      expect(':');
      skip_space();
      JsonValue member = value(depth + 1);
      v.members_.emplace_back(std::move(key), std::move(member));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return;
      }
      fail(pos_ >= s_.size() ? "the text ends inside an object; expected ',' or '}'" : "expected ',' or '}'");
    }
  }

  void array(JsonValue& v, int depth) {
    v.kind_ = JsonValue::Kind::array;
    expect('[');
    skip_space();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    for (;;) {
      skip_space();
      v.items_.push_back(value(depth + 1));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return;
      }
      fail(pos_ >= s_.size() ? "the text ends inside an array; expected ',' or ']'" : "expected ',' or ']'");
    }
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::uint32_t hex4() {
    if (s_.size() - pos_ < 4) fail("a \\u escape needs four hex digits");
    std::uint32_t cp = 0;
    const auto [p, ec] = std::from_chars(s_.data() + pos_, s_.data() + pos_ + 4, cp, 16);
    if (ec != std::errc() || p != s_.data() + pos_ + 4) fail("a \\u escape needs four hex digits");
    pos_ += 4;
    return cp;
  }

  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail("the text ends inside a string");
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;
        fail("a control character inside a string (write it as an escape)");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("the text ends inside a string");
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            const std::uint32_t lo = hex4();
            if (lo < 0xDC00 || lo >= 0xE000) fail("a high surrogate without its low one");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          pos_ -= 2;
          fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  void number(JsonValue& v) {
    const std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      fail("a '-' without digits");
    }
    bool integral = true;
    if (peek() == '.') {
      integral = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("a '.' without digits after it");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("an exponent without digits");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    const std::string text(s_.substr(start, pos_ - start));
    v.kind_ = JsonValue::Kind::number;
    v.number_ = std::strtod(text.c_str(), nullptr);
    if (integral) {
      const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v.integer_);
      v.integral_ = ec == std::errc() && p == text.data() + text.size();
    }
  }

  std::string_view s_;
  std::string_view source_;
  std::size_t pos_ = 0;
};

JsonValue parse_json(std::string_view text, std::string_view source) { return JsonParser(text, source).document(); }

}  // namespace gec
