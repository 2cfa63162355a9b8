// libFuzzer target for single-op compile and execution: `ge::compile_op` on any
// registered op with input descriptions (data type, shape with ranges, -1 and -2,
// sometimes a constant's data), output descriptions and attributes (of the schema's
// names and of any kind) from the fuzzer's bytes; when it compiles for fixed shapes,
// `ge::execute_op` on buffers of exactly those shapes (the outputs as inferred).
//
// Any ge::Error is an accepted outcome; another exception type, a crash or a sanitizer
// report is a finding (__builtin_trap).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ge/ge.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

struct Bytes {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t u8() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  std::int64_t small() { return static_cast<std::int64_t>(u8() % 7) - 1; }  // -1 .. 5
};

const std::vector<ge::OpInfo>& ops() {
  static const std::vector<ge::OpInfo> table = ge::ops_table();
  return table;
}

ge::Dim dim(Bytes& in) {
  switch (in.u8() % 6) {
    case 0: return ge::Dim(-1);
    case 1: {
      const std::int64_t lo = in.u8() % 4;
      return ge::Dim::range(lo, lo + in.u8() % 4);
    }
    default: return ge::Dim(in.u8() % 6);
  }
}

ge::Shape shape(Bytes& in) {
  if (in.u8() % 16 == 0) return ge::Shape::unknown_rank();
  std::vector<ge::Dim> dims(in.u8() % 5);
  for (ge::Dim& d : dims) d = dim(in);
  return ge::Shape(std::move(dims));
}

ge::Attribute attribute(Bytes& in) {
  switch (in.u8() % 6) {
    case 0: return ge::Attribute(in.small());
    case 1: return ge::Attribute(static_cast<double>(in.small()) * 0.5);
    case 2: {
      std::vector<std::int64_t> v(in.u8() % 5);
      for (std::int64_t& x : v) x = in.small();
      return ge::Attribute(std::move(v));
    }
    case 3: return ge::Attribute(std::vector<double>{0.5, static_cast<double>(in.small())});
    case 4: {
      static const char* words[] = {"NOTSET", "SAME_UPPER", "VALID", "linear", "nearest", "Relu", "", "x"};
      return ge::Attribute(words[in.u8() % 8]);
    }
    default: return ge::Attribute(static_cast<std::int64_t>(in.u8()) << (in.u8() % 40));
  }
}

ge::OpTensor tensor(Bytes& in) {
  static constexpr ge::DataType types[] = {ge::DataType::f32, ge::DataType::f32, ge::DataType::i64,
                                           ge::DataType::i32, ge::DataType::boolean, ge::DataType::f64,
                                           ge::DataType::u8, ge::DataType::undefined};
  const ge::DataType t = types[in.u8() % std::size(types)];
  if (t == ge::DataType::undefined) return ge::OpTensor::undefined();
  ge::Shape s = shape(in);
  if (in.u8() % 4 == 0 && s.is_static() && ge::element_count(s).value() <= 64) {
    // A constant with the shape's data: small values, often valid indices or sizes.
    std::vector<std::int64_t> dims = s.values();
    ge::Tensor data = ge::Tensor::full(t, dims, static_cast<double>(in.small()));
    return ge::OpTensor::constant_of(std::move(data));
  }
  return ge::OpTensor{t, std::move(s)};
}

void fuzz_one(Bytes in) {
  const ge::OpInfo& op = ops()[in.u8() % ops().size()];
  ge::OpCompileRequest r;
  r.op_type = op.name;
  const std::size_t n_in = in.u8() % 5;
  for (std::size_t i = 0; i < n_in; ++i) r.inputs.push_back(tensor(in));
  if (in.u8() % 4 == 0) r.outputs.push_back(tensor(in));
  const std::size_t n_attr = in.u8() % 4;
  for (std::size_t i = 0; i < n_attr && !op.attrs.empty(); ++i)
    r.attrs[op.attrs[in.u8() % op.attrs.size()].name] = attribute(in);
  r.flag = in.u8() % 2 ? ge::CompileFlag::fuzzy : ge::CompileFlag::exact;
  static ge::OpCompiler compiler(256);
  try {
    const auto compiled = compiler.compile(r);
    // Fixed shapes everywhere: run it on buffers of those shapes.
    std::vector<std::vector<std::byte>> storage;
    std::vector<ge::TensorView> ins, outs;
    for (const ge::OpTensor& t : compiled->inputs) {
      if (t.is_undefined()) {
        ins.emplace_back();
        continue;
      }
      if (!t.shape.is_static()) return;
      const std::vector<std::int64_t> dims = t.shape.values();
      const std::int64_t bytes = ge::checked_bytes(dims, t.dtype);
      if (bytes > (1 << 20)) return;
      storage.emplace_back(static_cast<std::size_t>(bytes));
      if (t.constant && !t.constant->bytes().empty())
        std::memcpy(storage.back().data(), t.constant->bytes().data(), t.constant->bytes().size());
      ins.emplace_back(storage.back().data(), t.dtype, dims, bytes);
    }
    for (const ge::TensorDesc& d : compiled->outputs) {
      if (!d.shape.is_static()) return;
      const std::vector<std::int64_t> dims = d.shape.values();
      const std::int64_t bytes = ge::checked_bytes(dims, d.dtype);
      if (bytes > (1 << 20)) return;
      storage.emplace_back(static_cast<std::size_t>(bytes));
      outs.emplace_back(storage.back().data(), d.dtype, dims, bytes);
    }
    (void)ge::execute_op(*compiled, ins, outs);
  } catch (const ge::Error&) {
  } catch (...) {
    check(false);  // only ge::Error may leave the library
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_one(Bytes{data, size});
  return 0;
}
