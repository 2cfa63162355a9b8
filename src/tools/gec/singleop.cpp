// `gec --singleop ops.json --output DIR` (also `gec singleop ...`): GE's atc --singleop.
// Reads a JSON array of op descriptions, checks and compiles each op as aclopCompile
// would, and writes one offline single-op model per op into DIR, which a program loads
// with aclopSetModelDir(DIR) or aclopLoad (src/acl/op_model.hpp has the file format).
//
//   [{"op": "Add",
//     "input_desc":  [{"format": "ND", "shape": [8, 16], "type": "float"},
//                     {"format": "ND", "shape": [-1, 16], "shape_range": [[1, 32], [16, 16]], "type": "float"}],
//     "output_desc": [{"format": "ND", "shape": [-1, 16], "type": "float"}],
//     "attr": [{"name": "alpha", "type": "float", "value": 0.5}],
//     "compile_flag": 0, "name": "add"}]
//
// Every bad entry is an error naming the file, the entry (index and op) and the field;
// nothing is written unless every entry is good.

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "acl/op_model.hpp"
#include "args.hpp"
#include "commands.hpp"
#include "ge/options/option.hpp"
#include "json_read.hpp"

namespace gec {

namespace {

// A bad entry of the JSON file: the message names where.
class EntryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NamedValue {
  std::string_view name;
  int value;
};

// The type names of GE's op description files (and their ACL_/DT_ spellings' tails).
constexpr std::array type_names{
    NamedValue{"float", ACL_FLOAT},
    NamedValue{"float32", ACL_FLOAT},
    NamedValue{"float16", ACL_FLOAT16},
    NamedValue{"int8", ACL_INT8},
    NamedValue{"int32", ACL_INT32},
    NamedValue{"uint8", ACL_UINT8},
    NamedValue{"int16", ACL_INT16},
    NamedValue{"uint16", ACL_UINT16},
    NamedValue{"uint32", ACL_UINT32},
    NamedValue{"int64", ACL_INT64},
    NamedValue{"uint64", ACL_UINT64},
    NamedValue{"double", ACL_DOUBLE},
    NamedValue{"float64", ACL_DOUBLE},
    NamedValue{"bool", ACL_BOOL},
    NamedValue{"string", ACL_STRING},
    NamedValue{"complex64", ACL_COMPLEX64},
    NamedValue{"complex128", ACL_COMPLEX128},
    NamedValue{"bfloat16", ACL_BF16},
    NamedValue{"undefined", ACL_DT_UNDEFINED},
};

constexpr std::array format_names{
    NamedValue{"NCHW", ACL_FORMAT_NCHW},
    NamedValue{"NHWC", ACL_FORMAT_NHWC},
    NamedValue{"ND", ACL_FORMAT_ND},
    NamedValue{"NC1HWC0", ACL_FORMAT_NC1HWC0},
    NamedValue{"FRACTAL_Z", ACL_FORMAT_FRACTAL_Z},
    NamedValue{"HWCN", ACL_FORMAT_HWCN},
    NamedValue{"NDHWC", ACL_FORMAT_NDHWC},
    NamedValue{"FRACTAL_NZ", ACL_FORMAT_FRACTAL_NZ},
    NamedValue{"NCDHW", ACL_FORMAT_NCDHW},
    NamedValue{"NC", ACL_FORMAT_NC},
    NamedValue{"NCL", ACL_FORMAT_NCL},
    NamedValue{"RESERVED", ACL_FORMAT_UNDEFINED},
    NamedValue{"UNDEFINED", ACL_FORMAT_UNDEFINED},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The value named `text` (case ignored; a "DT_"/"ACL_"/"ACL_FORMAT_" prefix allowed), or
// an EntryError with "did you mean".
template <std::size_t N>
int lookup(const std::array<NamedValue, N>& table, const std::string& text, std::string_view what,
           const std::string& where) {
  std::string t = lower(text);
  for (const std::string_view prefix : {"acl_format_", "acl_", "dt_"})
    if (t.starts_with(prefix)) {
      t = t.substr(prefix.size());
      break;
    }
  for (const NamedValue& n : table)
    if (lower(n.name) == t) return n.value;
  std::vector<std::string_view> names;
  for (const NamedValue& n : table) names.push_back(n.name);
  std::string msg = where + ": unknown " + std::string(what) + " '" + text + "'";
  if (const auto near = ge::closest_spelling(text, names)) msg += "; did you mean '" + std::string(*near) + "'";
  msg += "; expected one of";
  for (std::size_t i = 0; i < names.size(); ++i) msg += (i == 0 ? " " : ", ") + std::string(names[i]);
  throw EntryError(msg);
}

const JsonValue& need(const JsonValue& object, std::string_view key, JsonValue::Kind kind, std::string_view kind_text,
                      const std::string& where) {
  const JsonValue* v = object.find(key);
  if (v == nullptr)
    throw EntryError(where + ": \"" + std::string(key) + "\" is missing; expected " + std::string(kind_text));
  if (v->kind() != kind)
    throw EntryError(where + ": \"" + std::string(key) + "\" is " + std::string(v->kind_name()) + "; expected " +
                     std::string(kind_text));
  return *v;
}

std::int64_t integer_of(const JsonValue& v, const std::string& where) {
  if (!v.is_integer()) throw EntryError(where + " is " + std::string(v.kind_name()) + "; expected an integer");
  return v.integer();
}

std::vector<std::int64_t> integers_of(const JsonValue& v, const std::string& where) {
  if (v.kind() != JsonValue::Kind::array)
    throw EntryError(where + " is " + std::string(v.kind_name()) + "; expected an array of integers");
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < v.items().size(); ++i)
    out.push_back(integer_of(v.items()[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

void warn_unknown_keys(const JsonValue& object, std::span<const std::string_view> known, const std::string& where) {
  for (const auto& [key, value] : object.members()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string msg = where + ": unknown key \"" + key + "\" ignored";
    if (const auto near = ge::closest_spelling(key, known)) msg += "; did you mean \"" + std::string(*near) + "\"";
    std::fprintf(stderr, "gec: warning: %s\n", msg.c_str());
  }
}

// IEEE half and bfloat16 bits of a float, rounded to nearest even.
std::uint16_t half_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflows to infinity
  if (abs < 0x38800000u) {                                                    // subnormal half (or zero)
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;             // * 2^24: units of the smallest half
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(scaled)));
  }
  const std::uint32_t rounded = abs + 0x0fffu + ((abs >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}
std::uint16_t bf16_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

template <class T>
void append(std::vector<std::byte>& out, T v) {
  const auto* p = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

// The bytes of a constant input's "const_value" (a flat array of numbers) in `dtype`.
std::vector<std::byte> const_bytes(const JsonValue& v, int dtype, std::int64_t elements, const std::string& where) {
  if (v.kind() != JsonValue::Kind::array)
    throw EntryError(where + " is " + std::string(v.kind_name()) + "; expected an array of numbers");
  if (static_cast<std::int64_t>(v.items().size()) != elements)
    throw EntryError(where + " has " + std::to_string(v.items().size()) + " values; the shape holds " +
                     std::to_string(elements));
  std::vector<std::byte> out;
  for (std::size_t i = 0; i < v.items().size(); ++i) {
    const JsonValue& e = v.items()[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (e.kind() != JsonValue::Kind::number && e.kind() != JsonValue::Kind::boolean)
      throw EntryError(at + " is " + std::string(e.kind_name()) + "; expected a number");
    const double d = e.kind() == JsonValue::Kind::boolean ? (e.boolean() ? 1.0 : 0.0) : e.number();
    const bool integral = e.kind() == JsonValue::Kind::boolean || e.is_integer();
    const std::int64_t n = e.kind() == JsonValue::Kind::boolean ? (e.boolean() ? 1 : 0) : e.integer();
    const auto want_int = [&] {
      if (!integral) throw EntryError(at + " is " + std::to_string(d) + "; the type is an integer type");
    };
    switch (dtype) {
      case ACL_FLOAT:
        append(out, static_cast<float>(d));
        break;
      case ACL_DOUBLE:
        append(out, d);
        break;
      case ACL_FLOAT16:
        append(out, half_bits(static_cast<float>(d)));
        break;
      case ACL_BF16:
        append(out, bf16_bits(static_cast<float>(d)));
        break;
      case ACL_INT8:
        want_int();
        append(out, static_cast<std::int8_t>(n));
        break;
      case ACL_INT16:
        want_int();
        append(out, static_cast<std::int16_t>(n));
        break;
      case ACL_INT32:
        want_int();
        append(out, static_cast<std::int32_t>(n));
        break;
      case ACL_INT64:
        want_int();
        append(out, n);
        break;
      case ACL_UINT8:
        want_int();
        append(out, static_cast<std::uint8_t>(n));
        break;
      case ACL_UINT16:
        want_int();
        append(out, static_cast<std::uint16_t>(n));
        break;
      case ACL_UINT32:
        want_int();
        append(out, static_cast<std::uint32_t>(n));
        break;
      case ACL_UINT64:
        want_int();
        append(out, static_cast<std::uint64_t>(n));
        break;
      case ACL_BOOL:
        append(out, static_cast<std::uint8_t>(d != 0 ? 1 : 0));
        break;
      default:
        throw EntryError(where + ": constant data of this type is not offered");
    }
  }
  return out;
}

struct DescDeleter {
  void operator()(aclTensorDesc* d) const noexcept { aclDestroyTensorDesc(d); }
};
struct AttrDeleter {
  void operator()(aclopAttr* a) const noexcept { aclopDestroyAttr(a); }
};
using DescPtr = std::unique_ptr<aclTensorDesc, DescDeleter>;
using AttrPtr = std::unique_ptr<aclopAttr, AttrDeleter>;

void check_acl(aclError rc, const std::string& where) {
  if (rc != ACL_SUCCESS)
    throw EntryError(where + ": " + aclGetRecentErrMsg() + " (aclError " + std::to_string(rc) + ")");
}

DescPtr read_desc(const JsonValue& t, const std::string& where) {
  if (t.kind() != JsonValue::Kind::object)
    throw EntryError(where + " is " + std::string(t.kind_name()) + "; expected an object");
  static constexpr std::array<std::string_view, 10> known{"format",   "shape",         "type",          "shape_range",
                                                          "name",     "dynamic_input", "origin_format", "origin_shape",
                                                          "is_const", "const_value"};
  warn_unknown_keys(t, known, where);
  const int format = lookup(
      format_names, need(t, "format", JsonValue::Kind::string, "a format name (\"ND\", \"NCHW\", ...)", where).text(),
      "format", where + ": \"format\"");
  const int dtype = lookup(
      type_names, need(t, "type", JsonValue::Kind::string, "a type name (\"float\", \"float16\", ...)", where).text(),
      "type", where + ": \"type\"");
  const JsonValue* shape_value = t.find("shape");
  if (shape_value == nullptr)
    throw EntryError(where + ": \"shape\" is missing; expected an array of dims ([] for a scalar)");
  const std::vector<std::int64_t> dims = integers_of(*shape_value, where + ": \"shape\"");
  DescPtr desc(aclCreateTensorDesc(static_cast<aclDataType>(dtype), static_cast<int>(dims.size()), dims.data(),
                                   static_cast<aclFormat>(format)));
  if (!desc) check_acl(ACL_ERROR_INVALID_PARAM, where);
  if (const JsonValue* r = t.find("shape_range");
      r != nullptr && !(r->kind() == JsonValue::Kind::array && r->items().empty())) {
    if (r->kind() != JsonValue::Kind::array)
      throw EntryError(where + ": \"shape_range\" is " + std::string(r->kind_name()) + "; expected [[lo, hi], ...]");
    std::vector<std::array<std::int64_t, 2>> ranges;
    for (std::size_t i = 0; i < r->items().size(); ++i) {
      const auto pair = integers_of(r->items()[i], where + ": \"shape_range\"[" + std::to_string(i) + "]");
      if (pair.size() != 2)
        throw EntryError(where + ": \"shape_range\"[" + std::to_string(i) + "] has " + std::to_string(pair.size()) +
                         " values; expected [lo, hi] (hi -1: unbounded)");
      ranges.push_back({pair[0], pair[1]});
    }
    check_acl(aclSetTensorShapeRange(desc.get(), ranges.size(),
                                     reinterpret_cast<int64_t(*)[ACL_TENSOR_SHAPE_RANGE_NUM]>(ranges.data())),
              where + ": \"shape_range\"");
  }
  const JsonValue* is_const = t.find("is_const");
  if (is_const != nullptr && is_const->kind() != JsonValue::Kind::boolean)
    throw EntryError(where + ": \"is_const\" is " + std::string(is_const->kind_name()) + "; expected true or false");
  const JsonValue* value = t.find("const_value");
  if (is_const != nullptr && is_const->boolean()) {
    if (value == nullptr) throw EntryError(where + ": \"is_const\" is true but \"const_value\" is missing");
    std::int64_t elements = 1;
    for (const std::int64_t d : dims) {
      if (d < 0) throw EntryError(where + ": a constant input needs a static \"shape\"");
      elements *= d;
    }
    auto bytes = const_bytes(*value, dtype, elements, where + ": \"const_value\"");
    check_acl(aclSetTensorConst(desc.get(), bytes.data(), bytes.size()), where + ": \"const_value\"");
  } else if (value != nullptr) {
    throw EntryError(where + ": \"const_value\" given without \"is_const\": true");
  }
  return desc;
}

// One attribute {"name", "type", "value"} set on `attr` through aclopSetAttr*.
void read_attr(const JsonValue& a, aclopAttr* attr, const std::string& where) {
  if (a.kind() != JsonValue::Kind::object)
    throw EntryError(where + " is " + std::string(a.kind_name()) + "; expected an object");
  static constexpr std::array<std::string_view, 3> known{"name", "type", "value"};
  warn_unknown_keys(a, known, where);
  const std::string name = need(a, "name", JsonValue::Kind::string, "the attribute's name", where).text();
  const std::string at = where + " (\"" + name + "\")";
  const std::string type =
      need(a, "type", JsonValue::Kind::string, "the attribute's type (\"int\", \"list_int\", ...)", at).text();
  const JsonValue* v = a.find("value");
  if (v == nullptr) throw EntryError(at + ": \"value\" is missing");
  const std::string vat = at + ": \"value\"";
  const auto want = [&](const JsonValue& x, JsonValue::Kind k, std::string_view text,
                        const std::string& w) -> const JsonValue& {
    if (x.kind() != k) throw EntryError(w + " is " + std::string(x.kind_name()) + "; expected " + std::string(text));
    return x;
  };
  const auto number = [&](const JsonValue& x, const std::string& w) {
    if (x.kind() != JsonValue::Kind::number)
      throw EntryError(w + " is " + std::string(x.kind_name()) + "; expected a number");
    return static_cast<float>(x.number());
  };
  const auto items = [&](std::string_view text) -> const std::vector<JsonValue>& {
    return want(*v, JsonValue::Kind::array, text, vat).items();
  };
  const auto item_at = [&](std::size_t i) { return vat + "[" + std::to_string(i) + "]"; };
  const char* n = name.c_str();
  aclError rc = ACL_SUCCESS;
  if (type == "bool") {
    rc = aclopSetAttrBool(attr, n, want(*v, JsonValue::Kind::boolean, "true or false", vat).boolean() ? 1 : 0);
  } else if (type == "int") {
    rc = aclopSetAttrInt(attr, n, integer_of(*v, vat));
  } else if (type == "float") {
    rc = aclopSetAttrFloat(attr, n, number(*v, vat));
  } else if (type == "string") {
    rc = aclopSetAttrString(attr, n, want(*v, JsonValue::Kind::string, "a string", vat).text().c_str());
  } else if (type == "data_type") {
    const int t = lookup(type_names, want(*v, JsonValue::Kind::string, "a type name", vat).text(), "type", vat);
    rc = aclopSetAttrDataType(attr, n, static_cast<aclDataType>(t));
  } else if (type == "list_bool") {
    std::vector<std::uint8_t> values;
    const auto& xs = items("an array of bools");
    for (std::size_t i = 0; i < xs.size(); ++i)
      values.push_back(want(xs[i], JsonValue::Kind::boolean, "true or false", item_at(i)).boolean() ? 1 : 0);
    rc = aclopSetAttrListBool(attr, n, static_cast<int>(values.size()), values.data());
  } else if (type == "list_int") {
    const auto values = integers_of(*v, vat);
    rc = aclopSetAttrListInt(attr, n, static_cast<int>(values.size()), values.data());
  } else if (type == "list_float") {
    std::vector<float> values;
    const auto& xs = items("an array of numbers");
    for (std::size_t i = 0; i < xs.size(); ++i) values.push_back(number(xs[i], item_at(i)));
    rc = aclopSetAttrListFloat(attr, n, static_cast<int>(values.size()), values.data());
  } else if (type == "list_string") {
    std::vector<const char*> values;
    const auto& xs = items("an array of strings");
    for (std::size_t i = 0; i < xs.size(); ++i)
      values.push_back(want(xs[i], JsonValue::Kind::string, "a string", item_at(i)).text().c_str());
    rc = aclopSetAttrListString(attr, n, static_cast<int>(values.size()), values.data());
  } else if (type == "list_data_type") {
    std::vector<aclDataType> values;
    const auto& xs = items("an array of type names");
    for (std::size_t i = 0; i < xs.size(); ++i)
      values.push_back(static_cast<aclDataType>(lookup(
          type_names, want(xs[i], JsonValue::Kind::string, "a type name", item_at(i)).text(), "type", item_at(i))));
    rc = aclopSetAttrListDataType(attr, n, static_cast<int>(values.size()), values.data());
  } else if (type == "list_list_int") {
    std::vector<std::vector<std::int64_t>> lists;
    const auto& xs = items("an array of arrays of integers");
    for (std::size_t i = 0; i < xs.size(); ++i) lists.push_back(integers_of(xs[i], item_at(i)));
    std::vector<int> counts;
    std::vector<const int64_t*> pointers;
    for (const auto& l : lists) {
      counts.push_back(static_cast<int>(l.size()));
      pointers.push_back(l.data());
    }
    rc = aclopSetAttrListListInt(attr, n, static_cast<int>(lists.size()), counts.data(), pointers.data());
  } else {
    static constexpr std::array<std::string_view, 11> types{
        "bool",     "int",        "float",       "string",         "data_type",    "list_bool",
        "list_int", "list_float", "list_string", "list_data_type", "list_list_int"};
    std::string msg = at + ": unknown attribute type '" + type + "'";
    if (const auto near = ge::closest_spelling(type, types)) msg += "; did you mean '" + std::string(*near) + "'";
    throw EntryError(msg + "; expected bool, int, float, string, data_type or list_ of them, or list_list_int");
  }
  check_acl(rc, at);
}

struct OpModelFile {
  std::string name;
  std::string op;
  std::vector<std::byte> bytes;
};

OpModelFile read_entry(const JsonValue& e, std::size_t index, const std::string& source) {
  std::string where = source + ": entry " + std::to_string(index);
  if (e.kind() != JsonValue::Kind::object)
    throw EntryError(where + " is " + std::string(e.kind_name()) + "; expected an op description object");
  const std::string op = need(e, "op", JsonValue::Kind::string, "the op type (\"Add\", \"Conv2D\", ...)", where).text();
  where += " (op '" + op + "')";
  static constexpr std::array<std::string_view, 6> known{"op",          "name", "input_desc",
                                                         "output_desc", "attr", "compile_flag"};
  warn_unknown_keys(e, known, where);
  bool fuzzy = false;
  if (const JsonValue* f = e.find("compile_flag")) {
    const std::int64_t flag = integer_of(*f, where + ": \"compile_flag\"");
    if (flag != 0 && flag != 1)
      throw EntryError(where + ": \"compile_flag\" is " + std::to_string(flag) + "; expected 0 (exact) or 1 (fuzzy)");
    fuzzy = flag == 1;
  }
  std::vector<DescPtr> inputs, outputs;
  for (const auto& [key, list] : {std::pair{"input_desc", &inputs}, std::pair{"output_desc", &outputs}}) {
    const auto& descs = need(e, key, JsonValue::Kind::array, "an array of tensor descriptions", where).items();
    for (std::size_t i = 0; i < descs.size(); ++i)
      list->push_back(read_desc(descs[i], where + ": " + key + "[" + std::to_string(i) + "]"));
  }
  AttrPtr attr(aclopCreateAttr());
  if (const JsonValue* attrs = e.find("attr")) {
    if (attrs->kind() != JsonValue::Kind::array)
      throw EntryError(where + ": \"attr\" is " + std::string(attrs->kind_name()) +
                       "; expected an array of {\"name\", \"type\", \"value\"}");
    for (std::size_t i = 0; i < attrs->items().size(); ++i)
      read_attr(attrs->items()[i], attr.get(), where + ": attr[" + std::to_string(i) + "]");
  }
  std::vector<const aclTensorDesc*> in, out;
  for (const auto& d : inputs) in.push_back(d.get());
  for (const auto& d : outputs) out.push_back(d.get());
  OpModelFile file;
  file.op = op;
  try {
    file.bytes = acl::make_op_model(op.c_str(), static_cast<int>(in.size()), in.data(), static_cast<int>(out.size()),
                                    out.data(), attr.get(), fuzzy);
  } catch (const std::exception& x) {
    throw EntryError(where + ": " + x.what());
  }
  if (const JsonValue* name = e.find("name")) {
    if (name->kind() != JsonValue::Kind::string || name->text().empty())
      throw EntryError(where + ": \"name\" is " + std::string(name->kind_name()) + "; expected the model file's name");
    if (name->text().find('/') != std::string::npos)
      throw EntryError(where + ": \"name\" '" + name->text() + "' holds a '/'; expected a file name");
    file.name = name->text().ends_with(".om") ? name->text() : name->text() + ".om";
  } else {
    file.name = acl::op_model_file_name(index, op.c_str(), static_cast<int>(in.size()), in.data(),
                                        static_cast<int>(out.size()), out.data());
  }
  return file;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw EntryError("cannot read --singleop file '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int run_singleop(std::span<const std::string> args) {
  const std::vector<Flag> flags{
      {"singleop", true, "the JSON file of op descriptions (GE's atc --singleop format)"},
      {"output", true, "the folder to write the op models into (made when missing)"},
      {"soc_version", true,
       "atc's target chip; accepted so that atc's command lines run, not used (the CPU runs the ops)"},
      {"help", false, "print this help and exit"}};
  const Args a = parse_args(args, flags);
  if (a.has("help")) {
    std::printf(
        "usage: gec --singleop FILE.json --output DIR\n       gec singleop --singleop FILE.json --output DIR\n\n"
        "Compiles each op of FILE.json (a JSON array of {\"op\", \"input_desc\", \"output_desc\",\n"
        "\"attr\", \"compile_flag\", \"name\"}, as GE's atc --singleop reads) and writes one offline\n"
        "single-op model per op into DIR, named \"name\".om or index_op_<type_format_dims of each\n"
        "input and output>.om. A program loads them with aclopSetModelDir(DIR) or aclopLoad and\n"
        "runs them with aclopExecuteV2. Nothing is written unless every op is good.\n\nflags:\n%s",
        describe_flags(flags).c_str());
    return 0;
  }
  if (!a.positionals.empty()) throw UsageError("unexpected argument '" + a.positionals.front() + "'");
  const auto json_path = a.get("singleop");
  const auto out_dir = a.get("output");
  if (!json_path) throw UsageError("--singleop FILE.json is required");
  if (!out_dir) throw UsageError("--output DIR is required with --singleop");
  std::vector<OpModelFile> files;
  try {
    const JsonValue root = parse_json(read_text(*json_path), *json_path);
    if (root.kind() != JsonValue::Kind::array)
      throw EntryError(*json_path + ": the file holds " + std::string(root.kind_name()) +
                       "; expected an array of op descriptions");
    if (root.items().empty()) throw EntryError(*json_path + ": the array holds no op descriptions");
    std::map<std::string, std::size_t> names;
    for (std::size_t i = 0; i < root.items().size(); ++i) {
      files.push_back(read_entry(root.items()[i], i, *json_path));
      const auto [it, fresh] = names.emplace(files.back().name, i);
      if (!fresh)
        throw EntryError(*json_path + ": entries " + std::to_string(it->second) + " and " + std::to_string(i) +
                         " both write '" + it->first + "'; give them different \"name\"s");
    }
  } catch (const JsonError& e) {
    std::fprintf(stderr, "gec: error: %s\n", e.what());
    return 2;
  } catch (const EntryError& e) {
    std::fprintf(stderr, "gec: error: %s\n", e.what());
    return 2;
  }
  const std::filesystem::path dir(*out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    std::fprintf(stderr, "gec: error: cannot make the --output folder '%s'%s%s\n", out_dir->c_str(), ec ? ": " : "",
                 ec ? ec.message().c_str() : "");
    return 2;
  }
  for (const OpModelFile& f : files) {
    const auto path = dir / f.name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(f.bytes.data()), static_cast<std::streamsize>(f.bytes.size()));
    if (!out.flush()) {
      std::fprintf(stderr, "gec: error: cannot write '%s'\n", path.string().c_str());
      return 2;
    }
    std::printf("%s  %s (%zu bytes)\n", f.op.c_str(), path.string().c_str(), f.bytes.size());
  }
  std::printf("%zu op model%s written to %s\n", files.size(), files.size() == 1 ? "" : "s", out_dir->c_str());
  return 0;
}

}  // namespace gec
