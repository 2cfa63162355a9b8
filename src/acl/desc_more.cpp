// The tensor-description calls of GE's acl_base.h beyond create/get: names, the format
// and dims setters (current, origin, storage), format translation, dynamic inputs,
// value ranges and the exception-time accessors (docs/acl.md, "Tensor descriptions").
#include <string>
#include <vector>

#include "acl/acl_internal.hpp"

namespace {

void require_desc(const aclTensorDesc* desc) { acl::require(desc != nullptr, "the description is null"); }

int checked_format(const aclFormat& format) {
  const int f = acl::raw(format);
  acl::require(acl::is_acl_format(f), "format " + std::to_string(f) + " is not an aclFormat");
  return f;
}

std::vector<std::int64_t> checked_dims(int numDims, const int64_t* dims) {
  acl::require(numDims >= 0, "numDims is " + std::to_string(numDims) + "; expected >= 0");
  acl::require(numDims == 0 || dims != nullptr, "dims is null with numDims " + std::to_string(numDims));
  for (int i = 0; i < numDims; ++i)
    acl::require(dims[i] >= -1 || (numDims == 1 && dims[0] == -2),
                 "dim " + std::to_string(i) + " is " + std::to_string(dims[i]) +
                     "; expected >= 0, -1 (unknown) or exactly {-2} (unknown rank)");
  return numDims > 0 ? std::vector<std::int64_t>(dims, dims + numDims) : std::vector<std::int64_t>{};
}

// Where each dim of a 4-d layout's N, C, H, W sits (NCHW, NHWC, HWCN); empty for others.
std::vector<int> nchw_positions(int format) {
  switch (format) {
    case ACL_FORMAT_NCHW: return {0, 1, 2, 3};
    case ACL_FORMAT_NHWC: return {0, 3, 1, 2};
    case ACL_FORMAT_HWCN: return {3, 2, 0, 1};
  }
  return {};
}

}  // namespace

extern "C" {

int64_t aclGetTensorDescDim(const aclTensorDesc* desc, size_t index) {
  return acl::guard_value<int64_t>("aclGetTensorDescDim", -1, [&]() -> int64_t {
    require_desc(desc);
    acl::require(index < desc->dims.size(), "dim " + std::to_string(index) + " of " + std::to_string(desc->dims.size()));
    return desc->dims[index];
  });
}

void aclSetTensorDescName(aclTensorDesc* desc, const char* name) {
  if (desc == nullptr) {
    acl::record_error("aclSetTensorDescName", "[acl] the description is null");
    return;
  }
  try {
    desc->name = name != nullptr ? name : "";
  } catch (...) {
    (void)acl::current_exception_error("aclSetTensorDescName");
  }
}

const char* aclGetTensorDescName(aclTensorDesc* desc) { return desc != nullptr ? desc->name.c_str() : ""; }

aclError aclSetTensorFormat(aclTensorDesc* desc, aclFormat format) {
  return acl::guard("aclSetTensorFormat", [&] {
    require_desc(desc);
    (void)checked_format(format);
    desc->format = format;
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  return acl::guard("aclSetTensorShape", [&] {
    require_desc(desc);
    desc->dims = checked_dims(numDims, dims);
    desc->ranges.clear();
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorOriginFormat(aclTensorDesc* desc, aclFormat format) {
  return acl::guard("aclSetTensorOriginFormat", [&] {
    require_desc(desc);
    (void)checked_format(format);
    desc->origin_format = format;
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorOriginShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  return acl::guard("aclSetTensorOriginShape", [&] {
    require_desc(desc);
    desc->origin_dims = checked_dims(numDims, dims);
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorStorageFormat(aclTensorDesc* desc, aclFormat format) {
  return acl::guard("aclSetTensorStorageFormat", [&] {
    require_desc(desc);
    (void)checked_format(format);
    desc->storage_format = format;
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorStorageShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  return acl::guard("aclSetTensorStorageShape", [&] {
    require_desc(desc);
    desc->storage_dims = checked_dims(numDims, dims);
    return ACL_SUCCESS;
  });
}

aclError aclTransTensorDescFormat(const aclTensorDesc* srcDesc, aclFormat dstFormat, aclTensorDesc** dstDesc) {
  return acl::guard("aclTransTensorDescFormat", [&] {
    require_desc(srcDesc);
    acl::require(dstDesc != nullptr, "the pointer to store the description in is null");
    const int to = checked_format(dstFormat);
    const int from = acl::raw(srcDesc->format);
    (void)acl::to_ge_format(to);  // a packed device layout: ACL_ERROR_FORMAT_NOT_MATCH
    auto out = std::make_unique<aclTensorDesc>(*srcDesc);
    out->format = dstFormat;
    const auto src_pos = nchw_positions(from), dst_pos = nchw_positions(to);
    if (from != to && !src_pos.empty() && !dst_pos.empty()) {
      acl::require(srcDesc->dims.size() == 4,
                   "the description has " + std::to_string(srcDesc->dims.size()) + " dims; its layout needs 4",
                   ACL_ERROR_FORMAT_NOT_MATCH);
      for (std::size_t k = 0; k < 4; ++k) {
        out->dims[static_cast<std::size_t>(dst_pos[k])] = srcDesc->dims[static_cast<std::size_t>(src_pos[k])];
        if (!srcDesc->ranges.empty())
          out->ranges[static_cast<std::size_t>(dst_pos[k])] = srcDesc->ranges[static_cast<std::size_t>(src_pos[k])];
      }
    } else {
      acl::require(from == to || to == ACL_FORMAT_ND || from == ACL_FORMAT_ND || from == ACL_FORMAT_UNDEFINED,
                   "no translation of format " + std::to_string(from) + " into " + std::to_string(to),
                   ACL_ERROR_FORMAT_NOT_MATCH);
    }
    *dstDesc = out.release();
    return ACL_SUCCESS;
  });
}

aclTensorDesc* aclGetTensorDescByIndex(aclTensorDesc* desc, size_t index) {
  if (desc == nullptr) {
    acl::record_error("aclGetTensorDescByIndex", "[acl] the description is null");
    return nullptr;
  }
  if (index == 0) return desc;
  acl::record_error("aclGetTensorDescByIndex", "[acl] index " + std::to_string(index) +
                                                   ": the description is no array of aclmdlCreateAndGetOpDesc");
  return nullptr;
}

void* aclGetTensorDescAddress(const aclTensorDesc* desc) {
  if (desc == nullptr) acl::record_error("aclGetTensorDescAddress", "[acl] the description is null");
  return nullptr;  // only the descriptions of a failed device task carry an address; ge has none
}

aclError aclSetTensorDynamicInput(aclTensorDesc* desc, const char* dynamicInputName) {
  return acl::guard("aclSetTensorDynamicInput", [&] {
    require_desc(desc);
    acl::require(dynamicInputName != nullptr && *dynamicInputName != '\0', "the dynamic input's name is null or empty");
    desc->dynamic_input = dynamicInputName;
    return ACL_SUCCESS;
  });
}

aclError aclSetTensorValueRange(aclTensorDesc* desc, size_t valueCount,
                                int64_t valueRange[][ACL_TENSOR_VALUE_RANGE_NUM]) {
  return acl::guard("aclSetTensorValueRange", [&] {
    require_desc(desc);
    acl::require(valueCount == 0 || valueRange != nullptr, "the ranges are null");
    std::vector<std::array<std::int64_t, 2>> ranges;
    for (size_t i = 0; i < valueCount; ++i) {
      acl::require(valueRange[i][0] <= valueRange[i][1], "value range " + std::to_string(i) + " is [" +
                                                             std::to_string(valueRange[i][0]) + ", " +
                                                             std::to_string(valueRange[i][1]) + "]; expected lo <= hi");
      ranges.push_back({valueRange[i][0], valueRange[i][1]});
    }
    desc->value_range = std::move(ranges);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
