// Offline single-op models (op_model.hpp): the file format, aclopSetModelDir and aclopLoad.
#include "acl/op_model.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

#include "acl/single_op.hpp"
#include "ge/core/log.hpp"

namespace acl {

namespace {

constexpr char magic[8] = {'G', 'E', 'O', 'P', 'M', 'D', 'L', '\0'};
constexpr std::uint32_t format_version = 1;
constexpr std::uint32_t flag_fuzzy = 1;
// Bounds on counts read from a file, so that a damaged count fails as a parse error
// instead of asking for gigabytes.
constexpr std::uint64_t max_count = 1u << 20;

std::uint64_t fnv1a(std::span<const std::byte> bytes) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const std::byte b : bytes) h = (h ^ static_cast<std::uint64_t>(b)) * 0x100000001b3ull;
  return h;
}

// --- writing ---

class Writer {
 public:
  template <class T>
  void put(T v) {
    static_assert(std::is_integral_v<T>);
    const auto u = static_cast<std::make_unsigned_t<T>>(v);
    for (std::size_t i = 0; i < sizeof(T); ++i) out_.push_back(static_cast<std::byte>((u >> (8 * i)) & 0xffu));
  }
  void put_f64(double d) { put(std::bit_cast<std::uint64_t>(d)); }
  void put_bytes(std::span<const std::byte> b) {
    put<std::uint64_t>(b.size());
    out_.insert(out_.end(), b.begin(), b.end());
  }
  void put_str(std::string_view s) { put_bytes(std::as_bytes(std::span(s.data(), s.size()))); }
  std::vector<std::byte>& bytes() { return out_; }

 private:
  std::vector<std::byte> out_;
};

void put_tensor(Writer& w, const aclTensorDesc& d) {
  w.put<std::int32_t>(raw(d.dtype));
  w.put<std::int32_t>(raw(d.format));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(d.dims.size()));
  for (const std::int64_t v : d.dims) w.put<std::int64_t>(v);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(d.ranges.size()));
  for (const auto& r : d.ranges) {
    w.put<std::int64_t>(r[0]);
    w.put<std::int64_t>(r[1]);
  }
  w.put<std::uint8_t>(d.constant ? 1 : 0);
  if (d.constant) w.put_bytes(*d.constant);
  w.put<std::int32_t>(raw(d.placement));
}

void put_attr(Writer& w, const ge::Attribute& a) {
  w.put<std::uint8_t>(static_cast<std::uint8_t>(a.kind()));
  std::visit(
      [&]<class T>(const T& v) {
        if constexpr (std::is_same_v<T, std::int64_t>) {
          w.put<std::int64_t>(v);
        } else if constexpr (std::is_same_v<T, double>) {
          w.put_f64(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          w.put_str(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          w.put<std::uint8_t>(v ? 1 : 0);
        } else if constexpr (std::is_same_v<T, ge::Tensor>) {
          w.put<std::uint8_t>(static_cast<std::uint8_t>(v.dtype()));
          w.put<std::uint32_t>(static_cast<std::uint32_t>(v.dims().size()));
          for (const std::int64_t d : v.dims()) w.put<std::int64_t>(d);
          w.put_bytes(v.bytes());
        } else if constexpr (std::is_same_v<T, ge::GraphRef>) {
          ge::raise(ge::Errc::internal, "[ge.acl] an op attribute holds a graph");  // aclopAttr cannot make one
        } else {  // the lists
          w.put<std::uint64_t>(v.size());
          for (const auto& e : v) {
            using E = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<E, std::int64_t>)
              w.put<std::int64_t>(e);
            else if constexpr (std::is_same_v<E, double>)
              w.put_f64(e);
            else if constexpr (std::is_same_v<E, std::string>)
              w.put_str(e);
            else
              w.put<std::uint8_t>(e ? 1 : 0);  // std::vector<bool>'s reference
          }
        }
      },
      a.value());
}

// --- reading ---

// Every failure of reading is ACL_ERROR_PARSE_MODEL naming the source.
class Reader {
 public:
  Reader(std::span<const std::byte> bytes, const std::string& source) : in_(bytes), source_(source) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw CallError(ACL_ERROR_PARSE_MODEL, "[acl] '" + source_ + "' is not a ge single-op model: " + what);
  }
  template <class T>
  T get() {
    if (in_.size() - pos_ < sizeof(T)) fail("it ends early (truncated at byte " + std::to_string(pos_) + ")");
    static_assert(std::is_integral_v<T>);
    std::make_unsigned_t<T> u = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
      u = static_cast<std::make_unsigned_t<T>>(u | (static_cast<std::make_unsigned_t<T>>(in_[pos_ + i]) << (8 * i)));
    pos_ += sizeof(T);
    return static_cast<T>(u);
  }
  double get_f64() { return std::bit_cast<double>(get<std::uint64_t>()); }
  std::uint64_t count(std::uint64_t limit = max_count) {
    const auto n = get<std::uint64_t>();
    if (n > limit || n > in_.size() - pos_ + 1)
      fail("a count of " + std::to_string(n) + " at byte " + std::to_string(pos_ - 8));
    return n;
  }
  std::uint32_t count32() {
    const auto n = get<std::uint32_t>();
    if (n > max_count) fail("a count of " + std::to_string(n) + " at byte " + std::to_string(pos_ - 4));
    return n;
  }
  std::vector<std::byte> get_bytes() {
    const auto n = count(in_.size());
    if (in_.size() - pos_ < n) fail("it ends early (truncated at byte " + std::to_string(pos_) + ")");
    std::vector<std::byte> b(in_.begin() + static_cast<std::ptrdiff_t>(pos_),
                             in_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
    return b;
  }
  std::string get_str() {
    const auto b = get_bytes();
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }
  [[nodiscard]] std::size_t pos() const noexcept { return pos_; }
  [[nodiscard]] std::size_t size() const noexcept { return in_.size(); }

 private:
  std::span<const std::byte> in_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

aclTensorDesc get_tensor(Reader& r) {
  aclTensorDesc d;
  const auto dtype = r.get<std::int32_t>();
  const auto format = r.get<std::int32_t>();
  // As aclCreateTensorDesc: enumerators only (no other value may be loaded as the enum).
  if (!is_acl_type(dtype)) r.fail("a data type of " + std::to_string(dtype) + " (expected an aclDataType)");
  if (!is_acl_format(format)) r.fail("a format of " + std::to_string(format) + " (expected an aclFormat)");
  std::memcpy(&d.dtype, &dtype, sizeof dtype);
  std::memcpy(&d.format, &format, sizeof format);
  for (std::uint32_t i = 0, n = r.count32(); i < n; ++i) d.dims.push_back(r.get<std::int64_t>());
  const std::uint32_t ranges = r.count32();
  // As aclSetTensorShapeRange: no ranges, or one per dim (readers index both together).
  if (ranges != 0 && ranges != d.dims.size())
    r.fail(std::to_string(ranges) + " ranges for " + std::to_string(d.dims.size()) + " dims (expected 0 or one per dim)");
  for (std::uint32_t i = 0; i < ranges; ++i) {
    const auto lo = r.get<std::int64_t>();
    d.ranges.push_back({lo, r.get<std::int64_t>()});
  }
  if (r.get<std::uint8_t>() != 0) d.constant = r.get_bytes();
  const auto placement = r.get<std::int32_t>();
  if (placement != ACL_MEMTYPE_DEVICE && placement != ACL_MEMTYPE_HOST && placement != ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT)
    r.fail("a placement of " + std::to_string(placement) + " (expected an aclMemType)");
  std::memcpy(&d.placement, &placement, sizeof placement);
  return d;
}

ge::Attribute get_attr(Reader& r) {
  const auto kind = r.get<std::uint8_t>();
  switch (static_cast<ge::AttrKind>(kind)) {
    case ge::AttrKind::integer:
      return r.get<std::int64_t>();
    case ge::AttrKind::floating:
      return r.get_f64();
    case ge::AttrKind::string:
      return r.get_str();
    case ge::AttrKind::boolean:
      return r.get<std::uint8_t>() != 0;
    case ge::AttrKind::integers: {
      std::vector<std::int64_t> v(r.count());
      for (auto& e : v) e = r.get<std::int64_t>();
      return v;
    }
    case ge::AttrKind::floats: {
      std::vector<double> v(r.count());
      for (auto& e : v) e = r.get_f64();
      return v;
    }
    case ge::AttrKind::strings: {
      std::vector<std::string> v(r.count());
      for (auto& e : v) e = r.get_str();
      return v;
    }
    case ge::AttrKind::booleans: {
      std::vector<bool> v(r.count());
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = r.get<std::uint8_t>() != 0;
      return v;
    }
    case ge::AttrKind::tensor: {
      const auto dtype = r.get<std::uint8_t>();
      if (dtype > static_cast<std::uint8_t>(ge::DataType::boolean))
        r.fail("a tensor attribute of type " + std::to_string(dtype));
      std::vector<std::int64_t> dims(r.count32());
      for (auto& d : dims) d = r.get<std::int64_t>();
      auto bytes = r.get_bytes();
      try {
        return ge::Tensor(static_cast<ge::DataType>(dtype), std::move(dims), std::move(bytes));
      } catch (const ge::Error& e) {
        r.fail(std::string("a tensor attribute: ") + e.what());
      }
    }
    case ge::AttrKind::graph: break;  // single ops take no subgraphs: refused below
  }
  r.fail("an attribute of kind " + std::to_string(kind));
}

struct OpModel {
  std::string op_type;
  std::vector<aclTensorDesc> inputs;
  std::vector<aclTensorDesc> outputs;
  aclopAttr attr;
  bool fuzzy = false;
};

OpModel parse(std::span<const std::byte> bytes, const std::string& source) {
  Reader r(bytes, source);
  if (bytes.size() < sizeof magic + 8 || std::memcmp(bytes.data(), magic, sizeof magic) != 0)
    r.fail("it does not begin with ge's op model mark (a file of another tool, or GE's own .om?)");
  for (std::size_t i = 0; i < sizeof magic; ++i) (void)r.get<std::uint8_t>();
  const auto version = r.get<std::uint32_t>();
  if (version != format_version)
    r.fail("format version " + std::to_string(version) + "; this ge reads version " + std::to_string(format_version) +
           " (write it again with this ge's gec --singleop)");
  const auto body = bytes.first(bytes.size() - 8);
  std::uint64_t stored = 0;
  for (std::size_t i = 0; i < 8; ++i) stored |= static_cast<std::uint64_t>(bytes[body.size() + i]) << (8 * i);
  if (stored != fnv1a(body)) r.fail("its checksum does not match (the file is damaged)");
  OpModel m;
  m.fuzzy = (r.get<std::uint32_t>() & flag_fuzzy) != 0;
  m.op_type = r.get_str();
  for (std::uint32_t i = 0, n = r.count32(); i < n; ++i) m.inputs.push_back(get_tensor(r));
  for (std::uint32_t i = 0, n = r.count32(); i < n; ++i) m.outputs.push_back(get_tensor(r));
  for (std::uint32_t i = 0, n = r.count32(); i < n; ++i) {
    std::string name = r.get_str();
    m.attr.attrs[std::move(name)] = get_attr(r);
  }
  if (r.pos() != body.size()) r.fail(std::to_string(body.size() - r.pos()) + " bytes follow the op");
  return m;
}

std::vector<const aclTensorDesc*> pointers(const std::vector<aclTensorDesc>& v) {
  std::vector<const aclTensorDesc*> p;
  for (const auto& d : v) p.push_back(&d);
  return p;
}

// Compiles the op into the store as aclopCompile would (engine: the system's choice).
void compile_into_store(const char* op_type, int num_inputs, const aclTensorDesc* const* input_desc, int num_outputs,
                        const aclTensorDesc* const* output_desc, const aclopAttr* attr, bool fuzzy) {
  const GeCall call = read_call(op_type, num_inputs, input_desc, num_outputs, output_desc, attr);
  ge::OpCompileRequest request = compile_request(call, ge::EngineChoice::system);
  request.flag = fuzzy ? ge::CompileFlag::fuzzy : ge::CompileFlag::exact;  // the file's, not the options in force
  (void)op_compiler().compile(request);
}

// The models loaded in this process, kept so that aclFinalize's emptying of the store
// does not drop them (GE's loaded op models outlive aclFinalize), and whether
// aclopSetModelDir succeeded once (GE allows one per process).
struct LoadedModels {
  std::mutex mutex;
  bool dir_set = false;
  std::vector<OpModel> models;
};

LoadedModels& loaded() {
  static LoadedModels l;
  return l;
}

// Compiles a parsed model into the store; ACL_ERROR_OP_LOAD_FAILED when ge cannot.
void compile_model(const OpModel& m, const std::string& source) {
  const auto in = pointers(m.inputs);
  const auto out = pointers(m.outputs);
  try {
    compile_into_store(m.op_type.c_str(), static_cast<int>(in.size()), in.data(), static_cast<int>(out.size()),
                       out.data(), &m.attr, m.fuzzy);
  } catch (const CallError& e) {
    throw CallError(ACL_ERROR_OP_LOAD_FAILED, "[acl] '" + source + "' (op " + m.op_type + "): " + e.what());
  } catch (const ge::Error& e) {
    throw CallError(ACL_ERROR_OP_LOAD_FAILED, "[acl] '" + source + "' (op " + m.op_type + "): " + e.what());
  }
}

std::vector<std::byte> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw CallError(ACL_ERROR_READ_MODEL_FAILURE, "[acl] cannot read the op model file '" + p.string() + "'");
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

// The .om files of `dir` and of its folders up to two levels below it (GE reads three
// levels: the folder itself and two below), in name order.
std::vector<std::filesystem::path> model_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  auto it = std::filesystem::recursive_directory_iterator(dir, ec);
  if (ec)
    throw CallError(ACL_ERROR_READ_MODEL_FAILURE,
                    "[acl] cannot list the model folder '" + dir.string() + "': " + ec.message());
  for (; it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (ec)
      throw CallError(ACL_ERROR_READ_MODEL_FAILURE,
                      "[acl] cannot list the model folder '" + dir.string() + "': " + ec.message());
    if (it->is_directory(ec) && it.depth() >= 2) it.disable_recursion_pending();
    if (it->is_regular_file(ec) && it->path().extension() == ".om") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::vector<std::byte> make_op_model(const char* op_type, int num_inputs, const aclTensorDesc* const* input_desc,
                                     int num_outputs, const aclTensorDesc* const* output_desc, const aclopAttr* attr,
                                     bool fuzzy) {
  compile_into_store(op_type, num_inputs, input_desc, num_outputs, output_desc, attr, fuzzy);
  Writer w;
  for (const char c : magic) w.put(c);
  w.put<std::uint32_t>(format_version);
  w.put<std::uint32_t>(fuzzy ? flag_fuzzy : 0);
  w.put_str(op_type);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(num_inputs));
  for (int i = 0; i < num_inputs; ++i) put_tensor(w, *input_desc[i]);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(num_outputs));
  for (int o = 0; o < num_outputs; ++o) put_tensor(w, *output_desc[o]);
  const ge::Attributes& attrs = attributes_of(attr);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(attrs.size()));
  for (const auto& [name, a] : attrs) {
    w.put_str(name);
    put_attr(w, a);
  }
  w.put<std::uint64_t>(fnv1a(w.bytes()));
  return std::move(w.bytes());
}

void load_op_model(std::span<const std::byte> bytes, const std::string& source) {
  OpModel m = parse(bytes, source);
  compile_model(m, source);
  LoadedModels& l = loaded();
  std::lock_guard lock(l.mutex);
  l.models.push_back(std::move(m));
}

std::string op_model_file_name(std::size_t index, const char* op_type, int num_inputs,
                               const aclTensorDesc* const* input_desc, int num_outputs,
                               const aclTensorDesc* const* output_desc) {
  std::string name = std::to_string(index) + "_" + op_type;
  const auto add = [&](const aclTensorDesc& d) {
    name += "_" + std::to_string(raw(d.dtype)) + "_" + std::to_string(raw(d.format));
    for (const std::int64_t v : d.dims) name += "_" + std::to_string(v);
  };
  for (int i = 0; i < num_inputs; ++i) add(*input_desc[i]);
  for (int o = 0; o < num_outputs; ++o) add(*output_desc[o]);
  return name + ".om";
}

void restore_op_models() noexcept {
  LoadedModels& l = loaded();
  std::lock_guard lock(l.mutex);
  for (const OpModel& m : l.models) {
    try {
      compile_model(m, "a loaded op model");
    } catch (const std::exception& e) {  // compiled once already: a failure now is memory
      ge::log_message(ge::LogLevel::warn, [&] { return std::string("[acl] aclFinalize: ") + e.what(); });
    }
  }
}

}  // namespace acl

extern "C" {

aclError aclopSetModelDir(const char* modelDir) {
  return acl::guard("aclopSetModelDir", [&] {
    acl::require(modelDir != nullptr && *modelDir != '\0', "the model folder is null or empty");
    const std::filesystem::path dir(modelDir);
    std::error_code ec;
    acl::require(std::filesystem::is_directory(dir, ec),
                 std::string("the model folder '") + modelDir + "' does not exist or is not a folder",
                 ACL_ERROR_READ_MODEL_FAILURE);
    acl::LoadedModels& l = acl::loaded();
    std::unique_lock lock(l.mutex);
    acl::require(!l.dir_set,
                 "aclopSetModelDir was called already; one model folder per process (load more with aclopLoad)",
                 ACL_ERROR_REPEAT_INITIALIZE);
    std::vector<acl::OpModel> models;
    for (const auto& file : acl::model_files(dir)) {
      const std::string source = file.string();
      try {  // as GE's: a .om file that is no op model is skipped, with a warning
        models.push_back(acl::parse(acl::read_file(file), source));
      } catch (const acl::CallError& e) {
        if (e.code() != ACL_ERROR_PARSE_MODEL) throw;
        ge::log_message(ge::LogLevel::warn, [&] { return std::string(e.what()) + "; skipped"; });
        continue;
      }
      acl::compile_model(models.back(), source);
    }
    for (auto& m : models) l.models.push_back(std::move(m));
    l.dir_set = true;
    return ACL_SUCCESS;
  });
}

aclError aclopLoad(const void* model, size_t modelSize) {
  return acl::guard("aclopLoad", [&] {
    acl::require(model != nullptr, "the model is null");
    acl::require(modelSize > 0, "the model size is 0");
    acl::load_op_model(std::span(static_cast<const std::byte*>(model), modelSize), "the model in memory");
    return ACL_SUCCESS;
  });
}

}  // extern "C"
