// The compile cache (`CompileSettings::cache_dir`): a compiled model written once as a
// model file and loaded by every later compile of the same graph, options and settings.
#include <filesystem>
#include <string>
#include <system_error>

#include "ge/compile/model_file.hpp"
#include "ge/core/log.hpp"

namespace ge::detail {

std::string compile_cache_key(const Graph& g, const BuildOptions& options, const Target& target,
                              const CompileSettings& s);  // model_file.cpp

std::shared_ptr<const CompiledModel> compile_cached(Graph&& graph, const BuildOptions& options, const Target& target,
                                                    const CompileSettings& settings) {
  namespace fs = std::filesystem;
  const fs::path dir(settings.cache_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    raise(Errc::invalid_argument, "[ge.compile] the compile cache folder '" + dir.string() +
                                      "' cannot be made: " + (ec ? ec.message() : "a file of that name is in the way"));
  const fs::path file = dir / ("ge-" + compile_cache_key(graph, options, target, settings) + ".gem");
  CompileSettings inner = settings;
  inner.cache_dir.clear();
  if (fs::exists(file, ec)) {
    try {
      return load_compiled(file, inner);
    } catch (const Error& e) {
      // Damaged, or made where the kernels differ: compiled again below and replaced.
      log_message(LogLevel::warn, "[ge.compile] the compile cache file '" + file.string() +
                                      "' does not load (" + e.what() + "); compiling again and replacing it");
    }
  }
  auto model = compile(std::move(graph), options, target, inner);
  // save writes a temporary file and renames it over `file`: processes sharing the
  // folder never read half a file, and one that has the old file loaded keeps it.
  // A link or a FIFO planted in the folder is replaced, not followed: ge::save writes
  // through links (a user's model.gem may be one) and into devices and FIFOs in place,
  // and the cache must write over nothing but its own files.
  if (fs::is_symlink(file, ec) || (fs::exists(file, ec) && !fs::is_regular_file(file, ec))) fs::remove(file, ec);
  try {
    save(*model, file);
  } catch (const Error& e) {
    raise(Errc::invalid_argument, "[ge.compile] the compile cache folder '" + dir.string() + "' cannot be written: " + e.what());
  }
  return model;
}

}  // namespace ge::detail
