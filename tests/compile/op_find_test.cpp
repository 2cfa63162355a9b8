// Tests of OpCompiler::find (ge/compile/op_compile.hpp): the lookup by meaning that serves
// execution (the acl layer's aclopExecuteV2): ranges, fuzzy compiles, attributes with
// defaults, constant data, optional inputs, and what is never a match.
#include <doctest/doctest.h>

#include "ge/compile/op_compile.hpp"
#include "ge/core/error.hpp"

using ge::CompileFlag;
using ge::DataType;
using ge::OpCompileRequest;
using ge::OpTensor;
using ge::Shape;

namespace {
OpTensor op_f32(const char* shape) { return OpTensor{DataType::f32, Shape::parse(shape)}; }
OpCompileRequest request(std::string op, std::vector<OpTensor> in, std::vector<OpTensor> out, ge::Attributes attrs = {}) {
  OpCompileRequest r;
  r.op_type = std::move(op);
  r.inputs = std::move(in);
  r.outputs = std::move(out);
  r.attrs = std::move(attrs);
  return r;
}
}  // namespace

TEST_CASE("find: a ranged compile serves every shape inside its ranges, none outside") {
  ge::OpCompiler compiler(8);
  const auto op = compiler.compile(request("Add", {op_f32("1~8,16"), op_f32("16")}, {op_f32("1~8,16")}));
  CHECK(compiler.find(request("Add", {op_f32("3,16"), op_f32("16")}, {op_f32("3,16")})) == op);
  CHECK(compiler.find(request("Add", {op_f32("8,16"), op_f32("16")}, {op_f32("-1,16")})) == op);
  CHECK(compiler.find(request("Add", {op_f32("9,16"), op_f32("16")}, {op_f32("9,16")})) == nullptr);
  CHECK(compiler.find(request("Add", {op_f32("3,15"), op_f32("16")}, {op_f32("3,16")})) == nullptr);
  CHECK(compiler.find(request("Sub", {op_f32("3,16"), op_f32("16")}, {op_f32("3,16")})) == nullptr);
  CHECK(compiler.find(request("Add", {OpTensor{DataType::i32, Shape{3, 16}}, op_f32("16")}, {op_f32("3,16")})) == nullptr);
  CHECK(compiler.stats().misses == 1);  // find compiles nothing
}

TEST_CASE("find: a fuzzy compile serves other shapes of the same rank") {
  ge::OpCompiler compiler(8);
  auto r = request("Relu", {op_f32("2,3")}, {op_f32("2,3")});
  r.flag = CompileFlag::fuzzy;
  const auto op = compiler.compile(r);
  CHECK(compiler.find(request("Relu", {op_f32("7,11")}, {op_f32("7,11")})) == op);
  CHECK(compiler.find(request("Relu", {op_f32("7")}, {op_f32("7")})) == nullptr);
}

TEST_CASE("find: attributes match with the schema's defaults filled in") {
  ge::OpCompiler compiler(8);
  const auto op = compiler.compile(request("Softmax", {op_f32("2,3")}, {op_f32("2,3")}));
  CHECK(compiler.find(request("Softmax", {op_f32("2,3")}, {op_f32("2,3")}, {{"axis", -1}})) == op);
  CHECK(compiler.find(request("Softmax", {op_f32("2,3")}, {op_f32("2,3")}, {{"axis", 0}})) == nullptr);
}

TEST_CASE("find: constant data must be equal, unless asked to ignore it") {
  ge::OpCompiler compiler(8);
  const auto c1 = OpTensor::constant_of(ge::Tensor::from<float>({2}, {1.f, 2.f}));
  const auto c2 = OpTensor::constant_of(ge::Tensor::from<float>({2}, {1.f, 5.f}));
  const auto op = compiler.compile(request("Mul", {op_f32("4,2"), c1}, {op_f32("4,2")}));
  CHECK(compiler.find(request("Mul", {op_f32("4,2"), c1}, {op_f32("4,2")})) == op);
  CHECK(compiler.find(request("Mul", {op_f32("4,2"), c2}, {op_f32("4,2")})) == nullptr);
  CHECK(compiler.find(request("Mul", {op_f32("4,2"), c2}, {op_f32("4,2")}), true) == op);
  CHECK(compiler.find(request("Mul", {op_f32("4,2"), op_f32("2")}, {op_f32("4,2")})) == nullptr);  // not constant
}

TEST_CASE("find: an unknown op type is unknown_op; an empty cache finds nothing") {
  ge::OpCompiler compiler(8);
  CHECK(compiler.find(request("Add", {op_f32("1")}, {op_f32("1")})) == nullptr);
  CHECK_THROWS_AS((void)compiler.find(request("NoSuchOp", {op_f32("1")}, {op_f32("1")})), ge::Error);
}
