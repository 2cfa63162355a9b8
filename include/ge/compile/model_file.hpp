#pragma once
/// \file
/// Compiled models in a file ("model sinking"): `ge::save` writes a model that `ge::compile`
/// made; `ge::load_compiled` maps the file and makes the model again without the graph
/// passes; `gec compile ... -o model.gem` and `aclmdlLoadFromFile` use the same format.
///
/// ```
/// ge::CompileSettings keep;
/// keep.keep_weights = true;                                 // the file needs the weights
/// auto model = ge::compile(g, ge::batch_gears(g, {1, 2, 4, 8}), ge::default_target(), keep);
/// ge::save(*model, "resnet50.gem");
/// auto again = ge::load_compiled("resnet50.gem");         // same gears, same results
/// ```
///
/// The file (format version `model_file_version`, little-endian): a 64-byte header (magic
/// `GEMODEL\0`, version, file size, a 64-bit checksum of everything after the checksum
/// field), the description (the build options, the target, the compile settings, the
/// graph after the passes: values, inputs, constants, nodes with their attributes,
/// outputs), then every weight's bytes at a 64-byte aligned offset. Loading maps the file
/// and the model's constants are views of the mapping, not copies; the file stays mapped
/// while the model or any tensor of it lives.
///
/// What the file holds is portable between CPUs: the weights are in the graph's layout
/// (after BatchNormalization folding and the NHWC layout pass), and the kernels that pack
/// them for this CPU's ISA are chosen and made at load, with each gear's plan (shapes
/// specialised, streams, memory plan). The graph passes do not run again.
///
/// Errors (`ge::Error`): a file that cannot be read, is not a model file, is truncated or
/// corrupted (checksum), or whose description does not parse is `Errc::bad_model`; a file
/// of another format version is `Errc::unsupported`; saving a model compiled without
/// `CompileSettings::keep_weights` (its packed weights are not in the graph) is
/// `Errc::invalid_argument`.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "ge/compile/compile.hpp"

namespace ge {

/// The format version `save` writes and `load_compiled` reads.
inline constexpr std::uint32_t model_file_version = 1;

/// Writes `model` to `path` (see the file comment). Throws `Errc::invalid_argument` for a
/// model without its weights, `Errc::bad_model` when the file cannot be written.
void save(const CompiledModel& model, const std::filesystem::path& path);

/// The bytes `save` would write.
[[nodiscard]] std::vector<std::byte> save_to_memory(const CompiledModel& model);

/// Loads a model file. `settings` other than the ones stored (threads of progress, a
/// kernel cache) may be given: its `progress` and `compiler` are used; the rest comes
/// from the file.
[[nodiscard]] std::shared_ptr<const CompiledModel> load_compiled(const std::filesystem::path& path,
                                                                 const CompileSettings& settings = {});

/// Loads a model from bytes in memory (copied once into an aligned buffer the model keeps).
[[nodiscard]] std::shared_ptr<const CompiledModel> load_compiled(std::span<const std::byte> bytes,
                                                                 const CompileSettings& settings = {});

}  // namespace ge
