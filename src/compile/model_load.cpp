// ge::load_compiled: checks a model file's header and checksum, reads its description back
// into a graph whose constants view the mapped weights, and makes the model from it without
// the graph passes (include/ge/compile/model_file.hpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "compile/model_file_format.hpp"
#include "compile/plan_build.hpp"
#include "core/mapped_file.hpp"
#include "ge/compile/model_file.hpp"
#include "ge/core/detail/out_of_memory.hpp"
#include "ge/core/version.hpp"

namespace ge {

namespace {

using detail::ModelReader;
using At = detail::ModelHeaderAt;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  raise(Errc::bad_model, "[ge.model_file] " + where + ": " + what);
}

std::string version_text() { return version(); }

struct Sections {
  std::span<const std::byte> meta, blobs;
};

// The header's checks, in the order that gives the clearest message.
Sections check_header(std::span<const std::byte> file, const std::string& where) {
  if (file.size() < detail::model_header_bytes)
    bad(where, "not a ge model file (" + std::to_string(file.size()) + " bytes; a model file has a 64-byte header)");
  if (std::memcmp(file.data(), detail::model_magic, sizeof detail::model_magic) != 0)
    bad(where, "not a ge model file (no GEMODEL mark at its start); write one with ge::save or gec compile -o");
  if (detail::load_le<std::uint32_t>(file.data() + At::endian) != detail::model_endian_tag)
    bad(where, "written on a machine of the other byte order; expected a little-endian model file");
  const auto version = detail::load_le<std::uint32_t>(file.data() + At::version);
  if (version != model_file_version)
    raise(Errc::unsupported, "[ge.model_file] " + where + ": format version " + std::to_string(version) +
                                 "; this build of ge (" + version_text() + ") reads version " +
                                 std::to_string(model_file_version) + ": compile the model again");
  const auto size = detail::load_le<std::uint64_t>(file.data() + At::file_bytes);
  if (size != file.size())
    bad(where, (size > file.size() ? "truncated: " : "has extra bytes: ") + std::string("the header says ") +
                   std::to_string(size) + " bytes, the file has " + std::to_string(file.size()));
  if (detail::load_le<std::uint64_t>(file.data() + At::checksum) !=
      detail::model_checksum(file.subspan(detail::model_checksum_from)))
    bad(where, "corrupted: its checksum does not match its bytes");
  const auto meta_at = detail::load_le<std::uint64_t>(file.data() + At::meta_offset);
  const auto meta_n = detail::load_le<std::uint64_t>(file.data() + At::meta_bytes);
  const auto blob_at = detail::load_le<std::uint64_t>(file.data() + At::blob_offset);
  const auto blob_n = detail::load_le<std::uint64_t>(file.data() + At::blob_bytes);
  if (meta_at < detail::model_header_bytes || meta_at > size || meta_n > size - meta_at || blob_at > size ||
      blob_n > size - blob_at || blob_at % detail::model_blob_alignment != 0 || blob_at < meta_at + meta_n)
    bad(where, "its sections lie outside the file");
  return {file.subspan(meta_at, meta_n), file.subspan(blob_at, blob_n)};
}

// Reads the description: settings, options, target, graph.
class DescriptionReader {
 public:
  DescriptionReader(Sections s, std::shared_ptr<const detail::MappedBytes> owner, const std::string& where)
      : r_(s.meta, where), blobs_(s.blobs), owner_(std::move(owner)) {}

  struct SavedKernel {
    std::string name;
    PackedState state;
  };
  struct Result {
    std::string target;
    CompileSettings settings;
    BuildOptions options;
    Graph graph;
    std::string isa;                                  // what the packed states were packed for
    std::vector<std::optional<SavedKernel>> kernels;  // per node
  };

  Result read() {
    Result out;
    (void)r_.str();  // the ge version that wrote it (for people reading the file)
    out.target = r_.str();
    out.settings = settings();
    for (std::size_t n = r_.count(8); n > 0; --n) {
      std::string key = r_.str();
      const std::string value = r_.str();
      try {
        out.options.set(key, value);
      } catch (const Error& e) {
        r_.fail(std::string("build option ") + key + ": " + e.what());
      }
    }
    out.graph = graph();
    out.isa = r_.str();
    out.kernels.resize(out.graph.nodes().size());
    for (std::size_t k = r_.count(12); k > 0; --k) {
      const auto node = r_.get<std::uint32_t>();
      if (node >= out.kernels.size() || out.kernels[node]) r_.fail("a packed kernel of node " + std::to_string(node) + ", which has none");
      out.kernels[node] = saved_kernel();
    }
    if (r_.get<std::uint32_t>() != 0x454E4421U || !r_.done()) r_.fail("the description does not end where it should");
    return out;
  }

 private:
  CompileSettings settings() {
    CompileSettings s;
    s.alignment = r_.get<std::int64_t>();
    const auto streams = r_.get<std::int64_t>();
    s.optimize = r_.get<std::uint8_t>() != 0;
    s.plan_cache = r_.get<std::uint64_t>();
    s.plan_search_budget = r_.get<std::int64_t>();
    const auto precision = r_.get<std::uint8_t>();
    if (s.alignment < 1 || s.alignment > (1 << 20) || (s.alignment & (s.alignment - 1)) != 0 || streams < 1 ||
        streams > 1024 || s.plan_cache < 1 || s.plan_search_budget < 0 || precision > 1)
      r_.fail("its compile settings are out of range");
    s.max_streams = static_cast<int>(streams);
    s.precision = static_cast<Precision>(precision);
    return s;
  }

  DataType dtype(bool allow_undefined) {
    const auto t = r_.get<std::uint8_t>();
    if (t > static_cast<std::uint8_t>(DataType::boolean) || (t == 0 && !allow_undefined))
      r_.fail("data type " + std::to_string(t) + " does not exist");
    return static_cast<DataType>(t);
  }

  Shape shape() {
    const std::string text = r_.str();
    try {
      return Shape::parse(text);
    } catch (const Error& e) {
      r_.fail("shape '" + text + "': " + e.what());
    }
  }

  Tensor tensor() {
    const DataType t = dtype(false);
    std::vector<std::int64_t> dims(r_.count(8));
    std::uint64_t elements = 1;
    for (auto& d : dims) {
      d = r_.get<std::int64_t>();
      if (d < 0 || (d > 0 && elements > (std::uint64_t{1} << 48) / static_cast<std::uint64_t>(d)))
        r_.fail("a weight dim " + std::to_string(d) + " out of range");
      elements *= static_cast<std::uint64_t>(d);
    }
    if (r_.get<std::uint8_t>() == 0) return Tensor::without_data(t, std::move(dims));
    const auto at = r_.get<std::uint64_t>();
    const auto n = r_.get<std::uint64_t>();
    if (n != elements * static_cast<std::uint64_t>(size_of(t)) || at > blobs_.size() || n > blobs_.size() - at ||
        at % detail::model_blob_alignment != 0)
      r_.fail("a weight's bytes lie outside the weights' section or do not match its dims");
    return Tensor::view(t, std::move(dims), blobs_.subspan(at, n), owner_);
  }

  Attribute attribute();
  Graph graph();

  SavedKernel saved_kernel() {
    SavedKernel k;
    k.name = r_.str();
    k.state.owner = owner_;
    k.state.parts.resize(r_.count(8));
    for (PackedState::Part& part : k.state.parts) {
      part.numbers.resize(r_.count(8));
      for (auto& v : part.numbers) v = r_.get<std::int64_t>();
      part.buffers.resize(r_.count(16));
      for (auto& b : part.buffers) {
        const auto at = r_.get<std::uint64_t>();
        const auto n = r_.get<std::uint64_t>();
        if (at > blobs_.size() || n > blobs_.size() - at || at % detail::model_blob_alignment != 0)
          r_.fail("packed weights of kernel " + k.name + " lie outside the weights' section");
        b = blobs_.subspan(at, n);
      }
    }
    return k;
  }

  std::vector<ValueId> ids() {
    std::vector<ValueId> out(r_.count(4));
    for (auto& v : out) v = r_.get<std::uint32_t>();
    return out;
  }

  ModelReader r_;
  std::span<const std::byte> blobs_;
  std::shared_ptr<const detail::MappedBytes> owner_;
  static constexpr int max_subgraph_depth = 64;
  int depth_ = 0;  // graphs being read inside graph attributes
};

Attribute DescriptionReader::attribute() {
  const auto kind = r_.get<std::uint8_t>();
  switch (static_cast<AttrKind>(kind)) {
    case AttrKind::integer: return r_.get<std::int64_t>();
    case AttrKind::floating: return r_.get<double>();
    case AttrKind::string: return r_.str();
    case AttrKind::boolean: return r_.get<std::uint8_t>() != 0;
    case AttrKind::integers: {
      std::vector<std::int64_t> v(r_.count(8));
      for (auto& x : v) x = r_.get<std::int64_t>();
      return v;
    }
    case AttrKind::floats: {
      std::vector<double> v(r_.count(8));
      for (auto& x : v) x = r_.get<double>();
      return v;
    }
    case AttrKind::strings: {
      std::vector<std::string> v(r_.count(4));
      for (auto& x : v) x = r_.str();
      return v;
    }
    case AttrKind::booleans: {
      std::vector<bool> v(r_.count(1));
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = r_.get<std::uint8_t>() != 0;
      return v;
    }
    case AttrKind::tensor: return tensor();
    case AttrKind::graph: {
      if (depth_ >= max_subgraph_depth) r_.fail("subgraphs nest deeper than " + std::to_string(max_subgraph_depth));
      ++depth_;
      GraphRef sub = std::make_shared<const Graph>(graph());
      --depth_;
      return sub;
    }
  }
  r_.fail("attribute kind " + std::to_string(kind) + " does not exist");
}

Graph DescriptionReader::graph() {
  Graph g;
  try {
    for (std::size_t v = 0, n = r_.count(5); v < n; ++v) {
      const auto source = r_.get<std::uint8_t>();
      std::string name = r_.str();
      if (source == static_cast<std::uint8_t>(ValueSource::input)) {
        const DataType t = dtype(false);
        const auto format = r_.get<std::uint8_t>();
        if (format > static_cast<std::uint8_t>(Format::nhwc)) r_.fail("input '" + name + "' has no known format");
        (void)g.add_input(std::move(name), t, shape(), static_cast<Format>(format));
      } else if (source == static_cast<std::uint8_t>(ValueSource::constant)) {
        (void)g.add_constant(std::move(name), tensor());
      } else {
        const DataType t = dtype(true);
        (void)g.declare_value(std::move(name), TensorDesc{t, shape()});
      }
    }
    for (std::size_t k = 0, n = r_.count(16); k < n; ++k) {
      std::string name = r_.str();
      std::string op = r_.str();
      std::vector<ValueId> ins = ids(), outs = ids();
      Attributes attrs;
      for (std::size_t a = r_.count(5); a > 0; --a) {
        std::string key = r_.str();
        attrs.insert_or_assign(std::move(key), attribute());
      }
      (void)g.add_node(std::move(name), std::move(op), std::move(ins), std::move(outs), std::move(attrs));
    }
    for (const ValueId v : ids()) g.add_output(v);
  } catch (const Error& e) {
    if (e.code() == Errc::bad_model) throw;
    r_.fail(std::string("its graph does not rebuild: ") + e.what());
  }
  return g;
}

// The saved kernels' states for compile's kernel step, and the check that each kernel
// made from one is the kernel that packed it.
class SavedPacking final : public detail::NodePacking {
 public:
  SavedPacking(const std::vector<std::optional<DescriptionReader::SavedKernel>>& kernels, std::string where)
      : kernels_(kernels), where_(std::move(where)) {}
  [[nodiscard]] const PackedState* state(std::size_t node) const override {
    return node < kernels_.size() && kernels_[node] ? &kernels_[node]->state : nullptr;
  }
  void check(std::size_t node, const Kernel& made) const override {
    if (made.name() != kernels_[node]->name)
      raise(Errc::unsupported, "[ge.model_file] " + where_ + ": node " + std::to_string(node) + " was saved with kernel " +
                                   kernels_[node]->name + ", and this CPU chooses " + std::string(made.name()) +
                                   " for it: compile the model again here, or save it with portable weights");
    // A weight the file holds only packed must be one this kernel took from its state:
    // a kernel that reads it at run time would read no data.
    const Node& n = graph_.nodes()[node];
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (const Tensor* t = n.inputs[k] == no_value ? nullptr : graph_.constant_of(n.inputs[k]);
          t != nullptr && !t->has_data() && !made.captures_input(k))
        bad(where_, "weight '" + graph_.values()[n.inputs[k]].name + "' is held only packed, but the kernel " +
                        std::string(made.name()) + " of node '" + n.name + "' reads it at run time");
  }

  // Before anything is made: every weight the file holds only packed (no data) is read
  // only by nodes with a saved packed kernel, and is no graph output.
  static void check_packed_only(const Graph& g, const std::vector<std::optional<DescriptionReader::SavedKernel>>& kernels,
                                const std::string& where) {
    for (const ValueId v : g.outputs())
      if (const Tensor* t = g.constant_of(v); t != nullptr && !t->has_data())
        bad(where, "graph output '" + g.values()[v].name + "' is a weight the file holds only packed (no data)");
    for (std::size_t i = 0; i < g.nodes().size(); ++i)
      for (const ValueId v : g.nodes()[i].inputs)
        if (const Tensor* t = v == no_value ? nullptr : g.constant_of(v); t != nullptr && !t->has_data() && !kernels[i])
          bad(where, "node '" + g.nodes()[i].name + "' reads weight '" + g.values()[v].name +
                         "', which the file holds only packed, and has no packed kernel of its own");
  }

  void bind(const Graph& g) { graph_ = g; }

 private:
  const std::vector<std::optional<DescriptionReader::SavedKernel>>& kernels_;
  std::string where_;
  Graph graph_;  // a copy (shares the weights): the one given is moved into the model
};

// Memory of the caller's that a model's weights are views of: not owned.
class CallersBytes final : public detail::MappedBytes {
 public:
  explicit CallersBytes(std::span<const std::byte> b) : b_(b) {}
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept override { return b_; }

 private:
  std::span<const std::byte> b_;
};

// With `weights`: the weights section copied there, and the model's weights views of the
// copy (the file is read only during the load).
std::shared_ptr<const CompiledModel> load(std::shared_ptr<const detail::MappedBytes> file, const std::string& where,
                                          const CompileSettings& given,
                                          std::optional<std::span<std::byte>> weights = std::nullopt) {
  Sections sections = check_header(file->bytes(), where);
  std::shared_ptr<const detail::MappedBytes> owner = file;
  if (weights) {
    const std::size_t need = sections.blobs.size();
    if (weights->size() < need)
      raise(Errc::invalid_argument, "[ge.model_file] " + where + ": the weights need " + std::to_string(need) +
                                        " bytes; the memory given holds " + std::to_string(weights->size()));
    if (need > 0 && reinterpret_cast<std::uintptr_t>(weights->data()) % detail::model_blob_alignment != 0)
      raise(Errc::invalid_argument, "[ge.model_file] " + where + ": the memory given for the weights starts at an "
                                        "address that is no multiple of " + std::to_string(detail::model_blob_alignment));
    if (need > 0) std::memcpy(weights->data(), sections.blobs.data(), need);
    owner = std::make_shared<const CallersBytes>(weights->first(need));
    sections.blobs = owner->bytes();
  }
  DescriptionReader::Result d = DescriptionReader(sections, owner, where).read();
  const Target* target = nullptr;
  try {
    target = &find_target(d.target);
  } catch (const Error& e) {
    bad(where, e.what());
  }
  const bool packed = std::any_of(d.kernels.begin(), d.kernels.end(), [](const auto& k) { return k.has_value(); });
  if (packed && d.isa != detail::packing_isa(d.settings.precision))
    raise(Errc::unsupported, "[ge.model_file] " + where + ": its weights are packed for instruction set " + d.isa +
                                 ", and this CPU's kernels run " + detail::packing_isa(d.settings.precision) +
                                 ": compile the model again here, or save it with portable weights (ge::ModelWeights::portable)");
  d.settings.compiler = given.compiler;
  d.settings.progress = given.progress;
  // The memory planner's search runs again at load: a file may not make the loader spend
  // more on it than the caller allows (a crafted budget of 2^62 would search for ever).
  d.settings.plan_search_budget = std::min(d.settings.plan_search_budget, given.plan_search_budget);
  d.settings.keep_weights = true;  // the weights are views of the file: keeping them costs nothing
  file.reset();                    // the constants keep the mapping alive (or view the caller's memory)
  owner.reset();
  SavedPacking::check_packed_only(d.graph, d.kernels, where);
  SavedPacking packing(d.kernels, where);
  packing.bind(d.graph);
  return detail::assemble_model(std::move(d.graph), d.options, *target, d.settings, &packing);
}

}  // namespace

std::shared_ptr<const CompiledModel> load_compiled(const std::filesystem::path& path, const CompileSettings& settings) {
  return detail::guard_memory("[ge.model_file] loading the model file", [&] { return "'" + path.string() + "'"; },
                              [&] { return load(detail::map_file(path), path.string(), settings); });
}

std::shared_ptr<const CompiledModel> load_compiled(std::span<const std::byte> bytes, const CompileSettings& settings) {
  return detail::guard_memory("[ge.model_file] loading a model from memory",
                              [&] { return load(detail::aligned_copy(bytes), "a model in memory", settings); });
}

std::shared_ptr<const CompiledModel> load_compiled(const std::filesystem::path& path, std::span<std::byte> weights,
                                                   const CompileSettings& settings) {
  return detail::guard_memory("[ge.model_file] loading the model file", [&] { return "'" + path.string() + "'"; },
                              [&] { return load(detail::map_file(path), path.string(), settings, weights); });
}

std::shared_ptr<const CompiledModel> load_compiled(std::span<const std::byte> bytes, std::span<std::byte> weights,
                                                   const CompileSettings& settings) {
  return detail::guard_memory("[ge.model_file] loading a model from memory", [&] {
    return load(std::make_shared<const CallersBytes>(bytes), "a model in memory", settings, weights);
  });
}

std::int64_t model_weights_bytes(std::span<const std::byte> bytes) {
  return static_cast<std::int64_t>(check_header(bytes, "a model in memory").blobs.size());
}

std::int64_t model_weights_bytes(const std::filesystem::path& path) {
  const auto file = detail::map_file(path);
  return static_cast<std::int64_t>(check_header(file->bytes(), path.string()).blobs.size());
}

}  // namespace ge
