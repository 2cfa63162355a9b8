#pragma once
// Offline single-op models: the files `gec --singleop` writes (one op each) and
// aclopSetModelDir / aclopLoad read back into the single-op store, where aclopExecuteV2
// finds them as it finds ops aclopCompile compiled.
//
// A file holds the op as the acl call describes it (type, each description verbatim,
// the attributes as aclopSetAttr* stored them, the compile flag), not a kernel: loading
// translates and compiles it through the path of aclopCompile, so the lookup key of
// aclopExecuteV2 is the same by construction and a file stays valid across kernel
// changes. Layout (little-endian), docs/acl.md "Offline single-op models":
//
//   "GEOPMDL\0"  u32 version  u32 flags(bit 0: fuzzy)  str op_type
//   u32 n  tensor*n (inputs)  u32 n  tensor*n (outputs)  u32 n  attr*n
//   u64 FNV-1a 64 of every byte before it
//
//   std::vector<std::byte> file = acl::make_op_model("Add", 2, in, 1, out, attr, false);
//   acl::load_op_model(file, "add.om");  // now aclopExecuteV2("Add", ...) finds it

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "ge/core/api.hpp"

namespace acl {

/// Checks the op as aclopCompile does (it compiles it into the acl layer's store) and
/// returns the bytes of its op model file. Throws CallError or ge::Error (their what()
/// says what was wrong). Exported by libge_acl.so (with op_model_file_name) for
/// `gec --singleop`, though no acl header declares it.
[[nodiscard]] GE_API std::vector<std::byte> make_op_model(const char* op_type, int num_inputs,
                                                          const aclTensorDesc* const* input_desc, int num_outputs,
                                                          const aclTensorDesc* const* output_desc,
                                                          const aclopAttr* attr, bool fuzzy);

/// Reads an op model file and compiles its op into the single-op store, where it stays
/// across aclFinalize (`restore_op_models`). `source` names it in errors. Throws CallError
/// ACL_ERROR_PARSE_MODEL for bytes that are no op model (wrong mark, version, truncated,
/// checksum), ACL_ERROR_OP_LOAD_FAILED for a model whose op ge cannot compile.
void load_op_model(std::span<const std::byte> bytes, const std::string& source);

/// The file name GE's atc gives an op without a "name": index, op type, then per input
/// and output its type, format and dims, joined by '_', and ".om"
/// (`0_Add_3_2_3_3_3_2_3_3_3_2_3_3.om`).
[[nodiscard]] GE_API std::string op_model_file_name(std::size_t index, const char* op_type, int num_inputs,
                                                    const aclTensorDesc* const* input_desc, int num_outputs,
                                                    const aclTensorDesc* const* output_desc);

/// Compiles every loaded model into the store again (aclFinalize empties the store;
/// GE's loaded op models outlive it).
void restore_op_models() noexcept;

}  // namespace acl
