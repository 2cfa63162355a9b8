#pragma once
// A small JSON writer for gec's output: compact (one line), keys in the order written.
//
//   gec::JsonWriter j;
//   j.begin_object().key("mode").value("gears").key("gears").begin_array().value(1).end_array().end_object();
//   j.str() == R"({"mode":"gears","gears":[1]})"
//
// Strings are escaped as RFC 8259 asks (quote, backslash, control characters); bytes
// that are not valid UTF-8 become U+FFFD, so the output is always valid JSON.

#include <cstdint>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace gec {

/// Writes one JSON value into a string. Calls must nest properly (our bug otherwise).
class JsonWriter {
 public:
  /// Opens `{`.
  JsonWriter& begin_object() { return open('{'); }
  /// Closes `}`.
  JsonWriter& end_object() { return close('}'); }
  /// Opens `[`.
  JsonWriter& begin_array() { return open('['); }
  /// Closes `]`.
  JsonWriter& end_array() { return close(']'); }
  /// Writes `"key":`; the next call writes its value.
  JsonWriter& key(std::string_view k) {
    separate();
    write_string(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  /// A string value.
  JsonWriter& value(std::string_view s) {
    separate();
    write_string(s);
    return *this;
  }
  /// A string value (so that string literals do not pick the `bool` overload).
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  /// An integer value.
  JsonWriter& value(std::int64_t v) {
    separate();
    out_ += std::to_string(v);
    return *this;
  }
  /// An integer value.
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  /// An unsigned integer value.
  JsonWriter& value(std::uint64_t v) {
    separate();
    out_ += std::to_string(v);
    return *this;
  }
  /// A number (`null` when not finite).
  JsonWriter& value(double v) {
    separate();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    out_ += std::isfinite(v) ? buf : "null";
    return *this;
  }
  /// `true` or `false`.
  JsonWriter& value(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
  }
  /// `null`.
  JsonWriter& null() {
    separate();
    out_ += "null";
    return *this;
  }
  /// The text written so far.
  [[nodiscard]] const std::string& str() const noexcept { return out_; }

  /// `s` as a JSON string literal, quotes included.
  [[nodiscard]] static std::string quote(std::string_view s) {
    JsonWriter j;
    j.write_string(s);
    return j.out_;
  }

 private:
  JsonWriter& open(char c) {
    separate();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& close(char c) {
    out_ += c;
    if (!first_.empty()) first_.pop_back();
    return *this;
  }
  // A comma before every element but the first of its container; none after a key.
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }

  // The length of the valid UTF-8 sequence at s[i], or 0 when it is not valid.
  static std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) n = 3, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC) n = 3;
    else if (c == 0xED) n = 3, hi = 0x9F;  // no surrogates
    else if (c >= 0xEE && c <= 0xEF) n = 3;
    else if (c == 0xF0) n = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else if (c == 0xF4) n = 4, hi = 0x8F;
    else return 0;
    if (i + n > s.size()) return 0;
    if (b(i + 1) < lo || b(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
      if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
    return n;
  }

  void write_string(std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out_ += '"';
    for (std::size_t i = 0; i < s.size();) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x80) {
        const std::size_t n = utf8_length(s, i);
        if (n == 0) {
          out_ += "\\ufffd";
          ++i;
        } else {
          out_.append(s.substr(i, n));
          i += n;
        }
        continue;
      }
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\b': out_ += "\\b"; break;
        case '\f': out_ += "\\f"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            out_ += "\\u00";
            out_ += hex[c >> 4];
            out_ += hex[c & 0xF];
          } else {
            out_ += static_cast<char>(c);
          }
      }
      ++i;
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace gec
