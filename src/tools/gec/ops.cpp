// `gec ops`: every registered op with its inputs, outputs, type constraints, attributes
// (kind and default), engines, which outputs may be written in place, and its origin (an
// ONNX op from which opset, or ge's own); as text, or as one JSON object with --json.
//
//   $ gec ops
//   Conv  2-D convolution ...
//     inputs:  X: T, W: T, B?: T
//     ...
//   $ gec ops --json
//   {"ops":[{"name":"Abs","doc":"...","inputs":["X: T"],...,"engines":"vector|host","in_place":["Y <- X"],"origin":"onnx 13"},...]}

#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "ge/ops/registry.hpp"
#include "json.hpp"

namespace gec {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "-" : out;
}

void write_list(JsonWriter& j, const char* key, const std::vector<std::string>& items) {
  j.key(key).begin_array();
  for (const std::string& s : items) j.value(s);
  j.end_array();
}

}  // namespace

int run_ops(std::span<const std::string> args) {
  const std::vector<Flag> flags{{"json", false, "print one JSON object instead of text"},
                                {"help", false, "print this help and exit"}};
  const Args a = parse_args(args, flags);
  if (a.has("help")) {
    std::printf(
        "usage: gec ops [--json]\n\nLists every registered op: inputs (B? optional, X... variadic) and\n"
        "outputs with their type variables, the types each variable allows, attributes with\n"
        "their kind and default (required ones marked), the engines that run it, and which\n"
        "outputs may be written over an input (in place).\n\nflags:\n%s\nexample:\n  gec ops --json\n",
        describe_flags(flags).c_str());
    return 0;
  }
  if (!a.positionals.empty())
    throw UsageError("unexpected argument '" + a.positionals.front() + "'; ops takes only flags");
  const auto table = ge::ops_table();
  if (a.has("json")) {
    JsonWriter j;
    j.begin_object().key("ops").begin_array();
    for (const ge::OpInfo& op : table) {
      j.begin_object().key("name").value(op.name).key("doc").value(op.doc);
      write_list(j, "inputs", op.inputs);
      write_list(j, "outputs", op.outputs);
      write_list(j, "types", op.types);
      j.key("attributes").begin_array();
      for (const ge::OpAttrInfo& at : op.attrs) {
        j.begin_object().key("name").value(at.name).key("kind").value(at.kind).key("default");
        if (at.default_value.empty()) {
          j.null();
        } else {
          j.value(at.default_value);
        }
        j.key("required").value(at.required).end_object();
      }
      j.end_array();
      j.key("engines").value(op.engines);
      write_list(j, "in_place", op.in_place);
      j.key("origin").value(op.origin);
      j.end_object();
    }
    j.end_array().end_object();
    std::printf("%s\n", j.str().c_str());
    return 0;
  }
  for (const ge::OpInfo& op : table) {
    std::printf("%s  %s\n", op.name.c_str(), op.doc.c_str());
    std::printf("  inputs:     %s\n", joined(op.inputs).c_str());
    std::printf("  outputs:    %s\n", joined(op.outputs).c_str());
    if (!op.types.empty()) std::printf("  types:      %s\n", joined(op.types).c_str());
    std::vector<std::string> attrs;
    for (const ge::OpAttrInfo& at : op.attrs)
      attrs.push_back(at.name + ": " + at.kind +
                      (at.required ? " (required)" : at.default_value.empty() ? "" : " = " + at.default_value));
    std::printf("  attributes: %s\n", joined(attrs).c_str());
    std::printf("  engines:    %s\n", op.engines.c_str());
    std::printf("  in place:   %s\n", joined(op.in_place).c_str());
    std::printf("  origin:     %s\n\n", op.origin.c_str());
  }
  return 0;
}

}  // namespace gec
