// Single-op attributes: each aclopSetAttr* stores a ge::Attribute under its name.
// Data types are stored as ge's type names ("f32", the form ge's Cast reads); a list of
// lists of ints as an i64 tensor [lists, values] (ge attributes have no ragged lists).
#include <string>
#include <vector>

#include "acl/acl_internal.hpp"

namespace {

// Checks the attribute and its name, then stores `value` under it.
aclError set_attr(std::string_view api, aclopAttr* attr, const char* name, const auto& make) {
  return acl::guard(api, [&] {
    acl::require(attr != nullptr, "the attributes are null");
    acl::require(name != nullptr && *name != '\0', "the attribute name is null or empty");
    attr->attrs[name] = make();
    return ACL_SUCCESS;
  });
}

// `n` values at `values` converted one by one (null values allowed only with n == 0).
template <class Out, class In, class Convert>
std::vector<Out> list_of(int n, const In* values, Convert convert) {
  acl::require(n >= 0, "the number of values is " + std::to_string(n) + "; expected >= 0");
  acl::require(n == 0 || values != nullptr, "the values are null with " + std::to_string(n) + " values");
  std::vector<Out> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(convert(values[i]));
  return out;
}

std::string type_name(const aclDataType& t) { return std::string(ge::to_string(acl::to_ge_type(acl::raw(t)))); }

}  // namespace

extern "C" {

aclopAttr* aclopCreateAttr(void) {
  return acl::guard_value<aclopAttr*>("aclopCreateAttr", nullptr, [] { return new aclopAttr; });
}

void aclopDestroyAttr(const aclopAttr* attr) { delete attr; }

aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName, uint8_t attrValue) {
  return set_attr("aclopSetAttrBool", attr, attrName, [&] { return ge::Attribute(attrValue != 0); });
}

aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName, int64_t attrValue) {
  return set_attr("aclopSetAttrInt", attr, attrName, [&] { return ge::Attribute(attrValue); });
}

aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName, float attrValue) {
  return set_attr("aclopSetAttrFloat", attr, attrName, [&] { return ge::Attribute(attrValue); });
}

aclError aclopSetAttrString(aclopAttr* attr, const char* attrName, const char* attrValue) {
  return set_attr("aclopSetAttrString", attr, attrName, [&] {
    acl::require(attrValue != nullptr, "the string value is null");
    return ge::Attribute(std::string(attrValue));
  });
}

aclError aclopSetAttrDataType(aclopAttr* attr, const char* attrName, aclDataType attrValue) {
  return set_attr("aclopSetAttrDataType", attr, attrName, [&] { return ge::Attribute(type_name(attrValue)); });
}

aclError aclopSetAttrListDataType(aclopAttr* attr, const char* attrName, int numValues, const aclDataType values[]) {
  return set_attr("aclopSetAttrListDataType", attr, attrName,
                  [&] { return ge::Attribute(list_of<std::string>(numValues, values, type_name)); });
}

aclError aclopSetAttrListBool(aclopAttr* attr, const char* attrName, int numValues, const uint8_t* values) {
  return set_attr("aclopSetAttrListBool", attr, attrName, [&] {
    return ge::Attribute(list_of<bool>(numValues, values, [](uint8_t v) { return v != 0; }));
  });
}

aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName, int numValues, const int64_t* values) {
  return set_attr("aclopSetAttrListInt", attr, attrName, [&] {
    return ge::Attribute(list_of<std::int64_t>(numValues, values, [](int64_t v) { return v; }));
  });
}

aclError aclopSetAttrListFloat(aclopAttr* attr, const char* attrName, int numValues, const float* values) {
  return set_attr("aclopSetAttrListFloat", attr, attrName, [&] {
    return ge::Attribute(list_of<double>(numValues, values, [](float v) { return static_cast<double>(v); }));
  });
}

aclError aclopSetAttrListString(aclopAttr* attr, const char* attrName, int numValues, const char** values) {
  return set_attr("aclopSetAttrListString", attr, attrName, [&] {
    return ge::Attribute(list_of<std::string>(numValues, values, [](const char* v) {
      acl::require(v != nullptr, "a string of the list is null");
      return std::string(v);
    }));
  });
}

aclError aclopSetAttrListListInt(aclopAttr* attr, const char* attrName, int numLists, const int* numValues,
                                 const int64_t* const values[]) {
  return set_attr("aclopSetAttrListListInt", attr, attrName, [&] {
    acl::require(numLists >= 0, "the number of lists is " + std::to_string(numLists) + "; expected >= 0");
    acl::require(numLists == 0 || (numValues != nullptr && values != nullptr), "the list lengths or the lists are null");
    const int width = numLists > 0 ? numValues[0] : 0;
    std::vector<std::int64_t> flat;
    for (int i = 0; i < numLists; ++i) {
      acl::require(numValues[i] == width, "list " + std::to_string(i) + " has " + std::to_string(numValues[i]) +
                                              " values, list 0 has " + std::to_string(width) +
                                              "; ge holds lists of lists of one length");
      const auto row = list_of<std::int64_t>(numValues[i], values[i], [](int64_t v) { return v; });
      flat.insert(flat.end(), row.begin(), row.end());
    }
    return ge::Attribute(ge::Tensor::from<std::int64_t>({numLists, width}, flat));
  });
}

}  // extern "C"
