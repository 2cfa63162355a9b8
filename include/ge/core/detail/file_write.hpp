#pragma once
// Private to ge (the library, gec, ge::onnx): how every file ge writes is written.
#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ge/core/api.hpp"

namespace ge::detail {

/// Writes `pieces` (one after the other) to `path` as one change: into a new temporary
/// file in the same folder, flushed to the disk (fsync), then renamed over `path`. A
/// process that has the old file open or mapped keeps reading the old bytes, a reader
/// never sees half a file, and a write that fails (disk full, RLIMIT_FSIZE, no
/// permission) leaves `path` as it was and no temporary file behind. A symbolic link is
/// followed (its target is replaced); a `path` that is not a regular file (a device, a
/// FIFO: `/dev/null`, `/dev/stdout`) is written in place. The new file gets the old
/// file's permission bits, else the usual ones (0666 less the umask).
/// Returns nullopt on success, else why it failed (the system's words, e.g. "No space
/// left on device"), for the caller's own error.
[[nodiscard]] GE_API std::optional<std::string> write_file_atomically(
    const std::filesystem::path& path, std::initializer_list<std::span<const std::byte>> pieces);

/// The same for text.
[[nodiscard]] GE_API std::optional<std::string> write_file_atomically(const std::filesystem::path& path,
                                                                      std::string_view text);

}  // namespace ge::detail
