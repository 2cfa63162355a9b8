// Model files: ge::save / ge::load_compiled (include/ge/compile/model_file.hpp). The
// byte level is in model_file_format.hpp; this file says what the description holds.
#include "ge/compile/model_file.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "compile/model_file_format.hpp"
#include "core/mapped_file.hpp"
#include "ge/compile/cpu_isa.hpp"
#include "ge/core/detail/file_write.hpp"
#include "ge/core/detail/out_of_memory.hpp"
#include "ge/core/version.hpp"

namespace ge {

namespace detail {

// The instruction set the kernels packed for: AVX-512, AVX2 or baseline, with "+bf16" for
// a bf16 model where bf16 kernels run (AMX's and the dot products' packing is the same).
std::string packing_isa(Precision precision) {
  const std::string_view isa = cpu_isa();
  std::string base(isa.substr(0, isa.find('+')));
  if (precision == Precision::bf16 && bf16_supported()) base += "+bf16";
  return base;
}


std::string ModelReader::str() {
  const std::size_t n = count(1);
  std::string s(reinterpret_cast<const char*>(in_.data() + at_), n);
  at_ += n;
  return s;
}

std::size_t ModelReader::count(std::size_t item_bytes) {
  const auto n = get<std::uint32_t>();
  if (static_cast<std::uint64_t>(n) * item_bytes > in_.size() - at_)
    fail("a count of " + std::to_string(n) + " at byte " + std::to_string(at_ - 4) + " runs past the description's end");
  return n;
}

void ModelReader::need(std::size_t n) const {
  if (n > in_.size() - at_) fail("the description ends early (at byte " + std::to_string(at_) + ")");
}

void ModelReader::fail(const std::string& what) const { raise(Errc::bad_model, "[ge.model_file] " + where_ + ": " + what); }

}  // namespace detail

namespace {

using detail::ModelReader;
using detail::ModelWriter;

// The weights' bytes, each once (tensors sharing a buffer share their bytes), at
// aligned offsets of the blob area.
class BlobTable {
 public:
  std::uint64_t add(const Tensor& t) { return add(t.bytes()); }
  std::uint64_t add(std::span<const std::byte> bytes) {
    const auto key = std::make_pair(static_cast<const void*>(bytes.data()), bytes.size());
    if (const auto it = seen_.find(key); it != seen_.end()) return it->second;
    const std::uint64_t at = size_;
    size_ = (size_ + bytes.size() + detail::model_blob_alignment - 1) / detail::model_blob_alignment *
            detail::model_blob_alignment;
    blobs_.push_back({at, bytes});
    seen_.emplace(key, at);
    return at;
  }
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  [[nodiscard]] const std::vector<std::pair<std::uint64_t, std::span<const std::byte>>>& blobs() const noexcept {
    return blobs_;
  }
  void copy_to(std::byte* area) const {
    for (const auto& [at, bytes] : blobs_)
      if (!bytes.empty()) std::memcpy(area + at, bytes.data(), bytes.size());
  }

 private:
  std::map<std::pair<const void*, std::size_t>, std::uint64_t> seen_;
  std::vector<std::pair<std::uint64_t, std::span<const std::byte>>> blobs_;
  std::uint64_t size_ = 0;
};

void put_dims(ModelWriter& w, const std::vector<std::int64_t>& dims) {
  w.put<std::uint32_t>(static_cast<std::uint32_t>(dims.size()));
  for (const std::int64_t d : dims) w.put(d);
}

void put_tensor(ModelWriter& w, BlobTable& blobs, const Tensor& t) {
  w.put(static_cast<std::uint8_t>(t.dtype()));
  put_dims(w, t.dims());
  w.put<std::uint8_t>(t.has_data() ? 1 : 0);
  if (t.has_data()) {
    w.put(blobs.add(t));
    w.put<std::uint64_t>(t.bytes().size());
  }
}

template <class T, class Put>
void put_list(ModelWriter& w, const std::vector<T>& items, Put put) {
  w.put<std::uint32_t>(static_cast<std::uint32_t>(items.size()));
  for (const auto& item : items) put(item);
}

void put_graph(ModelWriter& w, BlobTable& blobs, const Graph& g, const std::vector<bool>& omit);

void put_attribute(ModelWriter& w, BlobTable& blobs, const Attribute& a) {
  w.put(static_cast<std::uint8_t>(a.kind()));
  switch (a.kind()) {
    case AttrKind::integer: w.put(a.as_int()); break;
    case AttrKind::floating: w.put(a.as_float()); break;
    case AttrKind::string: w.str(a.as_string()); break;
    case AttrKind::boolean: w.put<std::uint8_t>(a.as_bool() ? 1 : 0); break;
    case AttrKind::integers: put_list(w, a.as_ints(), [&](std::int64_t v) { w.put(v); }); break;
    case AttrKind::floats: put_list(w, a.as_floats(), [&](double v) { w.put(v); }); break;
    case AttrKind::strings: put_list(w, a.as_strings(), [&](const std::string& v) { w.str(v); }); break;
    case AttrKind::booleans:
      put_list(w, a.as_bools(), [&](bool v) { w.put<std::uint8_t>(v ? 1 : 0); });
      break;
    case AttrKind::tensor: put_tensor(w, blobs, a.as_tensor()); break;
    case AttrKind::graph:  // a subgraph keeps its weights' data: its kernels pack at load
      put_graph(w, blobs, a.as_graph(), std::vector<bool>(a.as_graph().values().size(), false));
      break;
  }
}

// The settings and options compile read (what a load needs, and the compile cache's key).
void put_settings(ModelWriter& w, const CompileSettings& s, std::string_view target, const BuildOptions& options) {
  w.str(version());
  w.str(target);
  w.put(s.alignment);
  w.put<std::int64_t>(s.max_streams);
  w.put<std::uint8_t>(s.optimize ? 1 : 0);
  w.put<std::uint64_t>(s.plan_cache);
  w.put(s.plan_search_budget);
  w.put(static_cast<std::uint8_t>(s.precision));
  const auto items = options.items();
  w.put<std::uint32_t>(static_cast<std::uint32_t>(items.size()));
  for (const auto& [key, value] : items) {
    w.str(key);
    w.str(value);
  }
}

void put_settings(ModelWriter& w, const CompiledModel& model) {
  put_settings(w, model.settings(), model.config().target.name, model.options());
}

void put_graph(ModelWriter& w, BlobTable& blobs, const Graph& g, const std::vector<bool>& omit) {
  std::size_t input = 0;
  w.put<std::uint32_t>(static_cast<std::uint32_t>(g.values().size()));
  for (ValueId v = 0; v < g.values().size(); ++v) {
    const ValueInfo& info = g.values()[v];
    w.put(static_cast<std::uint8_t>(info.source));
    w.str(info.name);
    if (info.source == ValueSource::input) {
      const GraphInput& in = g.inputs()[input++];
      w.put(static_cast<std::uint8_t>(in.dtype));
      w.put(static_cast<std::uint8_t>(in.format));
      w.str(in.shape.to_string());
    } else if (info.source == ValueSource::constant) {
      const Tensor& t = *g.constant_of(v);
      put_tensor(w, blobs, omit[v] ? Tensor::without_data(t.dtype(), t.dims()) : t);
    } else {
      w.put(static_cast<std::uint8_t>(info.desc.dtype));
      w.str(info.desc.shape.to_string());
    }
  }
  put_list(w, g.nodes(), [&](const Node& n) {
    w.str(n.name);
    w.str(n.op);
    put_list(w, n.inputs, [&](ValueId v) { w.put<std::uint32_t>(v); });
    put_list(w, n.outputs, [&](ValueId v) { w.put<std::uint32_t>(v); });
    w.put<std::uint32_t>(static_cast<std::uint32_t>(n.attrs.size()));
    for (const auto& [key, a] : n.attrs) {
      w.str(key);
      put_attribute(w, blobs, a);
    }
  });
  put_list(w, g.outputs(), [&](ValueId v) { w.put<std::uint32_t>(v); });
}

// The kernels' packed states (with `packed` weights): node index, kernel name, parts.
std::vector<std::pair<std::size_t, PackedState>> packed_states(const CompiledModel& model, ModelWeights weights) {
  std::vector<std::pair<std::size_t, PackedState>> out;
  if (weights == ModelWeights::portable) return out;
  for (std::size_t n = 0; n < model.kernels().size(); ++n)
    if (const auto& k = model.kernels()[n]; k)
      if (auto s = k->packed_state()) out.emplace_back(n, std::move(*s));
  return out;
}

// The constants the file leaves out: every reader's kernel holds them packed. Every
// other weight must have its data (a model compiled without keep_weights lacks it).
std::vector<bool> omitted_constants(const CompiledModel& model, const std::vector<bool>& has_state) {
  const Graph& g = model.graph();
  std::vector<bool> omit(g.values().size(), false);
  for (const Constant& c : g.constants()) omit[c.value] = true;
  for (const ValueId v : g.outputs()) omit[v] = false;
  for (std::size_t n = 0; n < g.nodes().size(); ++n)
    for (std::size_t k = 0; k < g.nodes()[n].inputs.size(); ++k) {
      const ValueId v = g.nodes()[n].inputs[k];
      if (v != no_value && (!has_state[n] || !model.kernels()[n]->captures_input(k))) omit[v] = false;
    }
  for (const Constant& c : g.constants())
    if (!omit[c.value] && !c.tensor.has_data())
      raise(Errc::invalid_argument,
            "[ge.model_file] cannot save the model: weight '" + c.name + "' is held only packed by its kernels" +
                " and the file must hold it as it is; compile with CompileSettings::keep_weights = true to save it");
  return omit;
}

void put_states(ModelWriter& w, BlobTable& blobs, const CompiledModel& model,
                const std::vector<std::pair<std::size_t, PackedState>>& states) {
  w.str(detail::packing_isa(model.settings().precision));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(states.size()));
  for (const auto& [node, state] : states) {
    w.put<std::uint32_t>(static_cast<std::uint32_t>(node));
    w.str(model.kernels()[node]->name());
    put_list(w, state.parts, [&](const PackedState::Part& part) {
      put_list(w, part.numbers, [&](std::int64_t v) { w.put(v); });
      put_list(w, part.buffers, [&](std::span<const std::byte> b) {
        w.put(blobs.add(b));
        w.put<std::uint64_t>(b.size());
      });
    });
  }
}

}  // namespace

namespace detail {

// The compile cache's key (compile_cache.cpp): what compile reads, in the model file's
// own description form, the weights by their checksums.
std::string compile_cache_key(const Graph& g, const BuildOptions& options, const Target& target,
                              const CompileSettings& s) {
  ModelWriter w;
  w.put(model_file_version);
  w.str(packing_isa(s.precision));
  put_settings(w, s, target.name, options);
  BlobTable blobs;
  put_graph(w, blobs, g, std::vector<bool>(g.values().size(), false));
  for (const auto& [at, bytes] : blobs.blobs()) {
    w.put(at);
    w.put(model_checksum(bytes));
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(model_checksum(w.bytes())));
  return hex;
}

}  // namespace detail

namespace {

std::vector<std::byte> make_file(const CompiledModel& model, ModelWeights weights) {
  const auto states = packed_states(model, weights);
  std::vector<bool> has_state(model.graph().nodes().size(), false);
  for (const auto& [node, state] : states) has_state[node] = true;
  const std::vector<bool> omit = omitted_constants(model, has_state);
  ModelWriter w;
  BlobTable blobs;
  put_settings(w, model);
  put_graph(w, blobs, model.graph(), omit);
  put_states(w, blobs, model, states);
  w.put<std::uint32_t>(0x454E4421U);  // the description's end mark
  const std::vector<std::byte>& meta = w.bytes();
  const std::size_t a = detail::model_blob_alignment;
  const std::uint64_t blob_offset = (detail::model_header_bytes + meta.size() + a - 1) / a * a;
  std::vector<std::byte> file(blob_offset + blobs.size());
  using At = detail::ModelHeaderAt;
  std::memcpy(file.data(), detail::model_magic, sizeof detail::model_magic);
  detail::store_le(file.data() + At::version, model_file_version);
  detail::store_le(file.data() + At::endian, detail::model_endian_tag);
  detail::store_le<std::uint64_t>(file.data() + At::file_bytes, file.size());
  detail::store_le<std::uint64_t>(file.data() + At::meta_offset, detail::model_header_bytes);
  detail::store_le<std::uint64_t>(file.data() + At::meta_bytes, meta.size());
  detail::store_le<std::uint64_t>(file.data() + At::blob_offset, blob_offset);
  detail::store_le<std::uint64_t>(file.data() + At::blob_bytes, blobs.size());
  std::memcpy(file.data() + detail::model_header_bytes, meta.data(), meta.size());
  blobs.copy_to(file.data() + blob_offset);
  detail::seal_model_file(file);
  return file;
}

}  // namespace

std::vector<std::byte> save_to_memory(const CompiledModel& model, ModelWeights weights) {
  return detail::guard_memory("[ge.model_file] making a model file in memory", [&] { return make_file(model, weights); });
}

void save(const CompiledModel& model, const std::filesystem::path& path, ModelWeights weights) {
  const std::vector<std::byte> file = detail::guard_memory(
      "[ge.model_file] making the model file", [&] { return "'" + path.string() + "'"; },
      [&] { return make_file(model, weights); });
  // A new file renamed over the old one: a process that has the old file loaded keeps
  // its mapping, and a save that fails leaves the old file as it was.
  if (const auto why = detail::write_file_atomically(path, {std::span<const std::byte>(file)}))
    raise(Errc::bad_model, "[ge.model_file] cannot write " + path.string() + ": " + *why);
}

}  // namespace ge
