// Tensor descriptions, data buffers and the conversions between acl's types and ge's.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "acl/acl_internal.hpp"
#include "kernels/cpu/movement/data_movement_internal.hpp"

namespace acl {

namespace {

struct TypePair {
  aclDataType acl;
  ge::DataType ge;
};
constexpr TypePair type_pairs[] = {
    {ACL_FLOAT, ge::DataType::f32},  {ACL_FLOAT16, ge::DataType::f16}, {ACL_BF16, ge::DataType::bf16},
    {ACL_DOUBLE, ge::DataType::f64}, {ACL_INT8, ge::DataType::i8},     {ACL_INT16, ge::DataType::i16},
    {ACL_INT32, ge::DataType::i32},  {ACL_INT64, ge::DataType::i64},   {ACL_UINT8, ge::DataType::u8},
    {ACL_UINT16, ge::DataType::u16}, {ACL_UINT32, ge::DataType::u32},  {ACL_UINT64, ge::DataType::u64},
    {ACL_BOOL, ge::DataType::boolean}, {ACL_DT_UNDEFINED, ge::DataType::undefined},
};

std::string type_text(int t) { return std::to_string(t); }

}  // namespace

ge::DataType to_ge_type(int t) {
  for (const TypePair& p : type_pairs)
    if (p.acl == t) return p.ge;
  require(t != ACL_STRING && t != ACL_COMPLEX64 && t != ACL_COMPLEX128,
          "data type " + type_text(t) + " (string or complex) has no ge tensor type", ACL_ERROR_UNSUPPORTED_DATA_TYPE);
  throw CallError(ACL_ERROR_INVALID_PARAM, "[acl] data type " + type_text(t) + " is not an aclDataType");
}

bool is_acl_type(int t) noexcept {
  for (const TypePair& p : type_pairs)
    if (p.acl == t) return true;
  return t == ACL_STRING || t == ACL_COMPLEX64 || t == ACL_COMPLEX128;
}

bool is_acl_format(int f) noexcept {
  for (const int v : {ACL_FORMAT_UNDEFINED, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND, ACL_FORMAT_NC1HWC0,
                      ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_HWCN, ACL_FORMAT_NDHWC, ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NCDHW,
                      ACL_FORMAT_NC, ACL_FORMAT_NCL})
    if (v == f) return true;
  return false;
}

aclDataType to_acl_type(ge::DataType t) noexcept {
  for (const TypePair& p : type_pairs)
    if (p.ge == t) return p.acl;
  return ACL_DT_UNDEFINED;
}

ge::Format to_ge_format(int f) {
  switch (f) {
    case ACL_FORMAT_UNDEFINED: return ge::Format::undefined;
    case ACL_FORMAT_NCHW: return ge::Format::nchw;
    case ACL_FORMAT_NHWC: return ge::Format::nhwc;
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDHWC: return ge::Format::nd;
    case ACL_FORMAT_NC1HWC0:
    case ACL_FORMAT_FRACTAL_Z:
    case ACL_FORMAT_FRACTAL_NZ:
      throw CallError(ACL_ERROR_FORMAT_NOT_MATCH, "[acl] format " + std::to_string(f) +
                                                      " is a packed device layout; the CPU takes plain layouts (ND, NCHW, NHWC, ...)");
  }
  throw CallError(ACL_ERROR_INVALID_PARAM, "[acl] format " + std::to_string(f) + " is not an aclFormat");
}

ge::Shape to_shape(const aclTensorDesc& d) {
  if (d.dims.size() == 1 && d.dims[0] == -2) return ge::Shape::unknown_rank();
  std::vector<ge::Dim> dims;
  for (std::size_t i = 0; i < d.dims.size(); ++i) {
    const std::int64_t v = d.dims[i];
    require(v >= -1, "dim " + std::to_string(i) + " is " + std::to_string(v) +
                         "; expected >= 0, -1 (unknown) or the dims exactly {-2} (unknown rank)");
    if (v >= 0 || d.ranges.empty()) {
      dims.emplace_back(v);
      continue;
    }
    const auto [lo, hi] = d.ranges[i];
    dims.push_back(ge::Dim::range(lo, hi == -1 ? ge::Dim::inf : hi));
  }
  return ge::Shape(std::move(dims));
}

ge::OpTensor to_op_tensor(const aclTensorDesc& d, const std::string& which) {
  try {
    if (d.dtype == ACL_DT_UNDEFINED && d.format == ACL_FORMAT_UNDEFINED && d.dims.empty() && !d.constant)
      return ge::OpTensor::undefined();
    if (d.storage_format) (void)to_ge_format(*d.storage_format);  // a packed device layout: FORMAT_NOT_MATCH
    ge::OpTensor t{to_ge_type(d.dtype), to_shape(d), to_ge_format(d.format), std::nullopt};
    if (d.constant) {
      require(t.shape.is_static(), "a constant tensor needs static dims; got '" + t.shape.to_string() + "'");
      t.constant = ge::Tensor(t.dtype, t.shape.values(), *d.constant);
    }
    return t;
  } catch (const CallError& e) {
    throw CallError(e.code(), which + ": " + e.what());
  } catch (const ge::Error& e) {  // a bad dim, range or constant size: the description itself is bad
    throw CallError(to_acl_error(e.code()) == ACL_ERROR_OP_INPUT_NOT_MATCH ? ACL_ERROR_INVALID_PARAM : to_acl_error(e.code()),
                    "[acl] " + which + ": " + e.what());
  }
}

ge::TensorDesc to_tensor_desc(const aclTensorDesc& d, const std::string& which) {
  const ge::OpTensor t = to_op_tensor(d, which);
  return {t.dtype, t.shape};
}

std::vector<std::int64_t> static_dims(const aclTensorDesc& d, const std::string& which) {
  for (const std::int64_t v : d.dims)
    require(v >= 0, which + " has dims with " + std::to_string(v) + "; a run needs the real (static) dims");
  return d.dims;
}

void set_shape(aclTensorDesc& d, const ge::Shape& shape) {
  d.ranges.clear();
  if (!shape.rank_known()) {
    d.dims = {-2};
    return;
  }
  d.dims.clear();
  bool ranged = false;
  for (const ge::Dim& dim : shape.dims()) {
    d.dims.push_back(dim.is_static() ? dim.lo() : -1);
    ranged = ranged || !dim.is_static();
  }
  if (!ranged) return;
  for (const ge::Dim& dim : shape.dims())
    d.ranges.push_back({dim.lo(), dim.hi() == ge::Dim::inf ? -1 : dim.hi()});
}

std::vector<ge::OpTensor> to_op_tensors(int count, const aclTensorDesc* const* descs, const char* what) {
  require(count >= 0, std::string("the number of ") + what + "s is " + std::to_string(count) + "; expected >= 0");
  require(count == 0 || descs != nullptr, std::string("the ") + what + " descriptions are null, with " +
                                              std::to_string(count) + " " + what + "s");
  std::vector<ge::OpTensor> out;
  for (int i = 0; i < count; ++i) {
    const std::string which = std::string(what) + " " + std::to_string(i);
    require(descs[i] != nullptr, which + "'s description is null");
    out.push_back(to_op_tensor(*descs[i], which));
  }
  return out;
}

const ge::Attributes& attributes_of(const aclopAttr* attr) noexcept {
  static const ge::Attributes none;
  return attr != nullptr ? attr->attrs : none;
}

ge::TensorView view_of(const aclDataBuffer* b, ge::DataType dtype, std::span<const std::int64_t> dims,
                       const std::string& which) {
  require(b != nullptr, which + "'s data buffer is null");
  return ge::TensorView(b->data, dtype, ge::ViewDims(dims), static_cast<std::int64_t>(b->size));
}

}  // namespace acl

namespace {

// The element count of static dims; 0 while a dim is unknown (or for unknown rank).
// A count beyond size_t is CallError ACL_ERROR_INVALID_PARAM quoting the dims.
std::size_t element_count(const aclTensorDesc& d) {
  for (const std::int64_t v : d.dims)
    if (v <= 0) return 0;  // unknown (-1, {-2}), or no elements
  std::size_t n = 1;
  for (const std::int64_t v : d.dims) {
    if (__builtin_mul_overflow(n, static_cast<std::size_t>(v), &n)) {
      std::string dims;
      for (const std::int64_t x : d.dims) dims += (dims.empty() ? "" : ",") + std::to_string(x);
      throw acl::CallError(ACL_ERROR_INVALID_PARAM, "[acl] the description's dims [" + dims +
                                                        "] hold more elements than a size_t counts");
    }
  }
  return n;
}

// The bytes of a description's data; 0 while a dim is unknown. Overflow: CallError.
std::size_t byte_size(const aclTensorDesc& d) {
  const std::size_t n = element_count(d);
  const std::size_t size =
      d.dtype == ACL_DT_UNDEFINED ? 0 : static_cast<std::size_t>(ge::size_of(acl::to_ge_type(d.dtype)));
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(n, size, &bytes))
    throw acl::CallError(ACL_ERROR_INVALID_PARAM, "[acl] the description's " + std::to_string(n) + " elements of " +
                                                      std::to_string(size) + " bytes overflow a size_t");
  return bytes;
}

}  // namespace

extern "C" {

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  return acl::guard_value<aclDataBuffer*>("aclCreateDataBuffer", nullptr, [&] { return new aclDataBuffer{data, size}; });
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  return acl::guard("aclDestroyDataBuffer", [&] {
    acl::require(dataBuffer != nullptr, "aclDestroyDataBuffer: the buffer is null");
    delete dataBuffer;
    return ACL_SUCCESS;
  });
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) { return dataBuffer ? dataBuffer->data : nullptr; }
size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) { return dataBuffer ? dataBuffer->size : 0; }

uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer) {
  return acl::guard_value<uint32_t>("aclGetDataBufferSize", 0, [&] {
    if (dataBuffer == nullptr) return uint32_t{0};
    acl::require(dataBuffer->size <= std::numeric_limits<uint32_t>::max(),
                 "the buffer holds " + std::to_string(dataBuffer->size) +
                     " bytes, more than 32 bits hold; call aclGetDataBufferSizeV2");
    return static_cast<uint32_t>(dataBuffer->size);
  });
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data, size_t size) {
  return acl::guard("aclUpdateDataBuffer", [&] {
    acl::require(dataBuffer != nullptr, "the buffer is null");
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
  });
}

size_t aclDataTypeSize(aclDataType dataType) {
  return acl::guard_value<size_t>("aclDataTypeSize", 0, [&] {
    return static_cast<size_t>(ge::size_of(acl::to_ge_type(acl::raw(dataType))));
  });
}

aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims, aclFormat format) {
  return acl::guard_value<aclTensorDesc*>("aclCreateTensorDesc", nullptr, [&] {
    acl::require(numDims >= 0, "aclCreateTensorDesc: numDims is " + std::to_string(numDims) + "; expected >= 0");
    acl::require(numDims == 0 || dims != nullptr, "aclCreateTensorDesc: dims is null with numDims > 0");
    acl::require(acl::is_acl_type(acl::raw(dataType)), "aclCreateTensorDesc: data type " +
                                                           std::to_string(acl::raw(dataType)) + " is not an aclDataType");
    acl::require(acl::is_acl_format(acl::raw(format)), "aclCreateTensorDesc: format " +
                                                           std::to_string(acl::raw(format)) + " is not an aclFormat");
    auto* d = new aclTensorDesc;
    d->dtype = dataType;
    d->format = format;
    if (numDims > 0) d->dims.assign(dims, dims + numDims);
    return d;
  });
}

void aclDestroyTensorDesc(const aclTensorDesc* desc) { delete desc; }

aclError aclSetTensorShapeRange(aclTensorDesc* desc, size_t dimsCount, int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM]) {
  return acl::guard("aclSetTensorShapeRange", [&] {
    acl::require(desc != nullptr, "the description is null");
    acl::require(dimsCount == 0 || dimsRange != nullptr, "the ranges are null");
    acl::require(!(desc->dims.size() == 1 && desc->dims[0] == -2), "the description has unknown rank ({-2}); ranges need dims");
    acl::require(dimsCount == desc->dims.size(), std::to_string(dimsCount) + " ranges for " +
                                                     std::to_string(desc->dims.size()) + " dims; expected one per dim");
    std::vector<std::array<std::int64_t, 2>> ranges;
    for (size_t i = 0; i < dimsCount; ++i) {
      const std::int64_t lo = dimsRange[i][0], hi = dimsRange[i][1];
      acl::require(lo >= 0 && (hi == -1 || hi >= lo), "range " + std::to_string(i) + " is [" + std::to_string(lo) + ", " +
                                                          std::to_string(hi) + "]; expected 0 <= lo <= hi, or hi -1 (unbounded)");
      ranges.push_back({lo, hi});
    }
    desc->ranges = std::move(ranges);
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorConst(aclTensorDesc* desc, void* dataBuffer, size_t length) {
  return acl::guard("aclSetTensorConst", [&] {
    acl::require(desc != nullptr, "the description is null");
    acl::require(dataBuffer != nullptr || length == 0, "the data is null");
    const auto* p = static_cast<const std::byte*>(dataBuffer);
    desc->constant = std::vector<std::byte>(p, p + length);
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorPlaceMent(aclTensorDesc* desc, aclMemType memType) {
  return acl::guard("aclSetTensorPlaceMent", [&] {
    acl::require(desc != nullptr, "the description is null");
    const int m = acl::raw(memType);
    acl::require(m >= ACL_MEMTYPE_DEVICE && m <= ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT,
                 "memory type " + std::to_string(m) + " is not an aclMemType");
    desc->placement = memType;
    return ACL_SUCCESS;
  });
}

aclDataType aclGetTensorDescType(const aclTensorDesc* desc) { return desc ? desc->dtype : ACL_DT_UNDEFINED; }
aclFormat aclGetTensorDescFormat(const aclTensorDesc* desc) { return desc ? desc->format : ACL_FORMAT_UNDEFINED; }
size_t aclGetTensorDescElementCount(const aclTensorDesc* desc) {
  return acl::guard_value<size_t>("aclGetTensorDescElementCount", 0, [&] { return desc ? element_count(*desc) : 0; });
}

size_t aclGetTensorDescSize(const aclTensorDesc* desc) {
  return acl::guard_value<size_t>("aclGetTensorDescSize", 0, [&] { return desc ? byte_size(*desc) : 0; });
}

float aclFloat16ToFloat(aclFloat16 value) { return ge::cpu::half_to_float(value); }

aclFloat16 aclFloatToFloat16(float value) { return ge::cpu::float_to_half(value); }

size_t aclGetTensorDescNumDims(const aclTensorDesc* desc) {
  if (desc == nullptr) return 0;
  if (desc->dims.size() == 1 && desc->dims[0] == -2) return static_cast<size_t>(ACL_UNKNOWN_RANK);
  return desc->dims.size();
}

aclError aclGetTensorDescDimV2(const aclTensorDesc* desc, size_t index, int64_t* dimSize) {
  return acl::guard("aclGetTensorDescDimV2", [&] {
    acl::require(desc != nullptr && dimSize != nullptr, "the description or dimSize is null");
    acl::require(index < desc->dims.size(), "dim " + std::to_string(index) + " of " + std::to_string(desc->dims.size()));
    *dimSize = desc->dims[index];
    return ACL_SUCCESS;
  });
}

aclError aclGetTensorDescDimRange(const aclTensorDesc* desc, size_t index, size_t dimRangeNum, int64_t* dimRange) {
  return acl::guard("aclGetTensorDescDimRange", [&] {
    acl::require(desc != nullptr && dimRange != nullptr, "the description or dimRange is null");
    acl::require(dimRangeNum >= ACL_TENSOR_SHAPE_RANGE_NUM, "dimRangeNum " + std::to_string(dimRangeNum) + "; expected >= 2");
    acl::require(index < desc->dims.size(), "dim " + std::to_string(index) + " of " + std::to_string(desc->dims.size()));
    const std::int64_t v = desc->dims[index];
    if (!desc->ranges.empty()) {
      dimRange[0] = desc->ranges[index][0];
      dimRange[1] = desc->ranges[index][1];
    } else {
      dimRange[0] = v >= 0 ? v : 0;  // an unknown dim without a range: any value
      dimRange[1] = v >= 0 ? v : -1;
    }
    return ACL_SUCCESS;
  });
}

}  // extern "C"
