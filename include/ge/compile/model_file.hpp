#pragma once
/// \file
/// Compiled models in a file ("model sinking"): `ge::save` writes a model that `ge::compile`
/// made; `ge::load_compiled` maps the file and makes the model again without the graph
/// passes; `gec compile ... -o model.gem` and `aclmdlLoadFromFile` use the same format.
///
/// ```
/// auto model = ge::compile(g, ge::batch_gears(g, {1, 2, 4, 8}));
/// ge::save(*model, "resnet50.gem");                  // the weights as the kernels packed them
/// auto again = ge::load_compiled("resnet50.gem");   // same gears, same results, nothing packed
/// ```
///
/// The file (format version `model_file_version`, little-endian): a 64-byte header (magic
/// `GEMODEL\0`, version, file size, a 64-bit checksum of everything after the checksum
/// field), the description (the build options, the target, the compile settings, the
/// graph after the passes: values, inputs, constants, nodes with their attributes,
/// outputs; the instruction set the weights were packed for, and per node whose kernel
/// packs its weights, the kernel's name and its packed state), then every weight's bytes
/// at a 64-byte aligned offset. Loading maps the file; the graph's constants and the
/// kernels' packed weights are views of the mapping, not copies, and the file stays
/// mapped while the model lives. Load chooses the kernels again (the same ones, on the
/// same instruction set), makes them from their packed states without packing, and
/// builds each gear's plan; the graph passes do not run again.
///
/// Weights (`ModelWeights`):
/// - `packed` (the default): as the kernels packed them for this CPU's instruction set
///   (AVX-512, AVX2 or baseline, and AMX or AVX512-BF16 for bf16): a load packs nothing, but only a CPU
///   whose kernels run the same instruction set loads it (`GE_CPU_ISA` caps a wider one);
/// - `portable`: in the graph's layout (after BatchNormalization folding and the NHWC
///   layout pass), packed at load for whatever CPU loads it; needs the model compiled
///   with `CompileSettings::keep_weights` (else the graph lacks the packed ones' data).
///
/// Errors (`ge::Error`): a file that cannot be read, is not a model file, is truncated or
/// corrupted (checksum), or whose description does not parse is `Errc::bad_model`; a file
/// of another format version, or packed for another instruction set, is
/// `Errc::unsupported`; saving weights the model no longer holds as the file needs them
/// is `Errc::invalid_argument`.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "ge/compile/compile.hpp"
#include "ge/core/api.hpp"

namespace ge {

/// The format version `save` writes and `load_compiled` reads.
inline constexpr std::uint32_t model_file_version = 5;

/// How a model file holds the weights the kernels pack (see the file comment).
enum class ModelWeights : std::uint8_t {
  packed,    ///< as packed for this CPU: nothing to pack at load; loads on the same ISA
  portable,  ///< in the graph's layout: packed at load on any CPU; needs keep_weights
};

/// Writes `model` to `path` (see the file comment). Throws `Errc::invalid_argument` for
/// weights the model does not hold as `weights` needs them, `Errc::bad_model` when the
/// file cannot be written.
GE_API void save(const CompiledModel& model, const std::filesystem::path& path,
                 ModelWeights weights = ModelWeights::packed);

/// The bytes `save` would write.
[[nodiscard]] GE_API std::vector<std::byte> save_to_memory(const CompiledModel& model,
                                                           ModelWeights weights = ModelWeights::packed);

/// Loads a model file. `settings` other than the ones stored (threads of progress, a
/// kernel cache) may be given: its `progress` and `compiler` are used; the rest comes
/// from the file.
[[nodiscard]] GE_API std::shared_ptr<const CompiledModel> load_compiled(const std::filesystem::path& path,
                                                                        const CompileSettings& settings = {});

/// Loads a model from bytes in memory (copied once into an aligned buffer the model keeps).
[[nodiscard]] GE_API std::shared_ptr<const CompiledModel> load_compiled(std::span<const std::byte> bytes,
                                                                        const CompileSettings& settings = {});

/// The bytes of a model file's weights section (every constant's and packed buffer's
/// bytes, each at a 64-byte aligned offset): what the loads below need in `weights`.
/// The header and checksum are checked first (the errors of `load_compiled`).
[[nodiscard]] GE_API std::int64_t model_weights_bytes(std::span<const std::byte> bytes);
[[nodiscard]] GE_API std::int64_t model_weights_bytes(const std::filesystem::path& path);

/// Loads a model file with its weights in the caller's memory: the weights section is
/// copied into `weights` and the model's constants and packed weights are views of that
/// copy, so `weights` must stay valid and unchanged while the model (or a kernel or
/// tensor of it) lives; the file itself is read only during the call. `weights` must
/// start at a 64-byte boundary and hold `model_weights_bytes` (`Errc::invalid_argument`
/// otherwise; it may be empty for a model without weights). Weights a kernel packs at
/// load (a `ModelWeights::portable` file) live in the kernel's own memory.
///
/// ```
/// const auto n = static_cast<std::size_t>(ge::model_weights_bytes(path));
/// auto* w = static_cast<std::byte*>(::operator new(n, std::align_val_t{64}));
/// auto model = ge::load_compiled(path, std::span(w, n));
/// ```
[[nodiscard]] GE_API std::shared_ptr<const CompiledModel> load_compiled(const std::filesystem::path& path,
                                                                        std::span<std::byte> weights,
                                                                        const CompileSettings& settings = {});
/// The same from the file's bytes in memory (read only during the call).
[[nodiscard]] GE_API std::shared_ptr<const CompiledModel> load_compiled(std::span<const std::byte> bytes,
                                                                        std::span<std::byte> weights,
                                                                        const CompileSettings& settings = {});

}  // namespace ge
