// aclmdl*: loading compiled model files (ge::load_compiled), the model's description, and
// datasets (src/acl/mdl.hpp). Gears and execution: mdl_exec.cpp.
#include "acl/mdl.hpp"

#include <algorithm>
#include <map>
#include <span>


namespace acl {

namespace {

std::mutex models_mutex;
std::map<std::uint32_t, std::shared_ptr<LoadedModel>>& models() {
  static std::map<std::uint32_t, std::shared_ptr<LoadedModel>> m;
  return m;
}
std::uint32_t next_id = 1;

std::int64_t elements(const std::vector<ge::Shape>& shapes) {
  std::int64_t n = 0;
  for (const ge::Shape& s : shapes) {
    std::int64_t e = 1;
    for (const std::int64_t v : s.values()) e *= v;
    n += e;
  }
  return n;
}

}  // namespace

std::shared_ptr<LoadedModel> described(std::shared_ptr<const ge::CompiledModel> model) {
  auto loaded = std::make_shared<LoadedModel>();
  loaded->model = std::move(model);
  if (has_gear_input(*loaded->model))
    loaded->current_output_dims = gear_output_dims(*loaded->model, largest_gear(*loaded->model));
  return loaded;
}

std::uint32_t add_model(std::shared_ptr<const ge::CompiledModel> model, ge::SessionOptions options) {
  auto session = std::make_unique<ge::Session>(model, std::move(options));
  auto loaded = described(std::move(model));
  loaded->session = std::move(session);
  std::lock_guard lock(models_mutex);
  const std::uint32_t id = next_id++;
  models().emplace(id, std::move(loaded));
  return id;
}

std::shared_ptr<LoadedModel> find_model(std::uint32_t id, const char* api) {
  std::lock_guard lock(models_mutex);
  const auto it = models().find(id);
  require(it != models().end(), std::string(api) + ": no model is loaded with id " + std::to_string(id),
          ACL_ERROR_INVALID_MODEL_ID);
  return it->second;
}

namespace {
void wait_unloaded(LoadedModel& m) {
  std::lock_guard run(m.run);  // a run in progress ends first
  m.unloaded = true;
}
}  // namespace

bool remove_model(std::uint32_t id) {
  std::shared_ptr<LoadedModel> m;
  {
    std::lock_guard lock(models_mutex);
    const auto it = models().find(id);
    if (it == models().end()) return false;
    m = std::move(it->second);
    models().erase(it);
  }
  wait_unloaded(*m);
  return true;
}

void release_models() noexcept {
  std::vector<std::shared_ptr<LoadedModel>> all;
  {
    std::lock_guard lock(models_mutex);
    for (auto& [id, m] : models()) all.push_back(std::move(m));
    models().clear();
  }
  for (const auto& m : all) wait_unloaded(*m);
}

bool has_gear_input(const ge::CompiledModel& m) noexcept { return m.mode() == ge::ShapeMode::gears && !m.gears().empty(); }

std::size_t gear_values(const ge::CompiledModel& m) noexcept {
  return has_gear_input(m) ? m.gears().front().values.size() : 0;
}

std::int32_t largest_gear(const ge::CompiledModel& m) noexcept {
  std::int32_t best = 0;
  std::int64_t most = -1;
  for (const auto& plan : m.plans())
    if (plan->gear < 0) {
      continue;  // hybrid mode's range plan
    } else if (const std::int64_t n = elements(plan->input_shapes); n > most) {
      most = n;
      best = plan->gear;
    }
  return best;
}

std::vector<std::vector<std::int64_t>> gear_output_dims(const ge::CompiledModel& m, std::int32_t g) {
  std::vector<std::vector<std::int64_t>> out;
  for (const auto& plan : m.plans())
    if (plan->gear == g)
      for (const std::int32_t v : plan->graph_outputs) {
        const ge::Shape& s = plan->values[static_cast<std::size_t>(v)].desc.shape;
        out.push_back(s.is_static() ? s.values() : std::vector<std::int64_t>{});
      }
  return out;
}

}  // namespace acl

namespace {

using acl::require;

const ge::CompiledModel& model_of(const aclmdlDesc* d, const char* api) {
  require(d != nullptr, std::string(api) + ": the model description is null");
  require(d->loaded != nullptr, std::string(api) + ": the description is empty; fill it with aclmdlGetDesc first");
  return *d->loaded->model;
}

// The dims as the C API writes them: fixed ones, -1 where the dim varies.
void write_dims(aclmdlIODims* out, const std::string& name, const ge::Shape& s) {
  std::memset(out->name, 0, sizeof out->name);
  std::memcpy(out->name, name.data(), std::min(name.size(), sizeof out->name - 1));
  out->dimCount = s.rank_known() ? s.rank() : 0;
  require(out->dimCount <= ACL_MAX_DIM_CNT, "a tensor of rank " + std::to_string(out->dimCount) + " has more dims than ACL_MAX_DIM_CNT");
  for (std::size_t i = 0; i < out->dimCount; ++i) out->dims[i] = s[i].is_static() ? s[i].lo() : -1;
}

// The largest bytes a tensor of `dtype` and `s` takes; 0 when unbounded.
std::size_t upper_bytes(ge::DataType dtype, const ge::Shape& s) {
  if (!s.rank_known() || !s.is_bounded()) return 0;
  std::int64_t n = ge::size_of(dtype);
  for (const ge::Dim& d : s.dims())
    if (__builtin_mul_overflow(n, d.hi(), &n)) return 0;
  return static_cast<std::size_t>(n);
}

std::size_t input_count(const ge::CompiledModel& m) { return m.inputs().size() + (acl::has_gear_input(m) ? 1 : 0); }

// aclmdlGetInputDims[V2]: -1 where a dim varies; the gear input's one dim, its values.
aclError input_dims(const std::string& api, const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  const ge::CompiledModel& m = model_of(modelDesc, api.c_str());
  require(dims != nullptr, api + ": dims is null");
  require(index < input_count(m), api + ": input " + std::to_string(index) + " of " + std::to_string(input_count(m)));
  if (index == m.inputs().size()) {
    write_dims(dims, ACL_DYNAMIC_TENSOR_NAME, ge::Shape{static_cast<std::int64_t>(acl::gear_values(m))});
  } else {
    write_dims(dims, m.inputs()[index].name, m.inputs()[index].shape);
  }
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclmdlDesc* aclmdlCreateDesc(void) {
  return acl::guard_value<aclmdlDesc*>("aclmdlCreateDesc", nullptr, [] { return new aclmdlDesc(); });
}

aclError aclmdlDestroyDesc(aclmdlDesc* modelDesc) {
  return acl::guard("aclmdlDestroyDesc", [&] {
    require(modelDesc != nullptr, "aclmdlDestroyDesc: the description is null");
    delete modelDesc;
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetDesc(aclmdlDesc* modelDesc, uint32_t modelId) {
  return acl::guard("aclmdlGetDesc", [&] {
    require(modelDesc != nullptr, "aclmdlGetDesc: the description is null");
    modelDesc->loaded = acl::find_model(modelId, "aclmdlGetDesc");
    return ACL_SUCCESS;
  });
}

size_t aclmdlGetNumInputs(aclmdlDesc* modelDesc) {
  return acl::guard_value<size_t>("aclmdlGetNumInputs", 0, [&] { return input_count(model_of(modelDesc, "aclmdlGetNumInputs")); });
}

size_t aclmdlGetNumOutputs(aclmdlDesc* modelDesc) {
  return acl::guard_value<size_t>("aclmdlGetNumOutputs", 0, [&] { return model_of(modelDesc, "aclmdlGetNumOutputs").outputs().size(); });
}

size_t aclmdlGetInputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  return acl::guard_value<size_t>("aclmdlGetInputSizeByIndex", 0, [&]() -> size_t {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetInputSizeByIndex");
    require(index < input_count(m), "aclmdlGetInputSizeByIndex: input " + std::to_string(index) + " of " + std::to_string(input_count(m)));
    if (index == m.inputs().size()) return acl::gear_values(m) * sizeof(std::int64_t);
    return upper_bytes(m.inputs()[index].dtype, m.inputs()[index].shape);
  });
}

size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  return acl::guard_value<size_t>("aclmdlGetOutputSizeByIndex", 0, [&]() -> size_t {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetOutputSizeByIndex");
    require(index < m.outputs().size(), "aclmdlGetOutputSizeByIndex: output " + std::to_string(index) + " of " + std::to_string(m.outputs().size()));
    return upper_bytes(m.outputs()[index].dtype, m.outputs()[index].shape);
  });
}

const char* aclmdlGetInputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  return acl::guard_value<const char*>("aclmdlGetInputNameByIndex", "", [&]() -> const char* {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetInputNameByIndex");
    require(index < input_count(m), "aclmdlGetInputNameByIndex: input " + std::to_string(index) + " of " + std::to_string(input_count(m)));
    return index == m.inputs().size() ? ACL_DYNAMIC_TENSOR_NAME : m.inputs()[index].name.c_str();
  });
}

const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  return acl::guard_value<const char*>("aclmdlGetOutputNameByIndex", "", [&]() -> const char* {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetOutputNameByIndex");
    require(index < m.outputs().size(), "aclmdlGetOutputNameByIndex: output " + std::to_string(index) + " of " + std::to_string(m.outputs().size()));
    return m.outputs()[index].name.c_str();
  });
}

aclError aclmdlGetOutputIndexByName(const aclmdlDesc* modelDesc, const char* name, size_t* index) {
  return acl::guard("aclmdlGetOutputIndexByName", [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetOutputIndexByName");
    require(name != nullptr && index != nullptr, "aclmdlGetOutputIndexByName: the name or the index pointer is null");
    for (std::size_t i = 0; i < m.outputs().size(); ++i)
      if (m.outputs()[i].name == name) {
        *index = i;
        return ACL_SUCCESS;
      }
    require(false, std::string("aclmdlGetOutputIndexByName: the model has no output named '") + name + "'");
    return ACL_SUCCESS;
  });
}

const char* aclmdlGetTensorRealName(const aclmdlDesc* modelDesc, const char* name) {
  return acl::guard_value<const char*>("aclmdlGetTensorRealName", nullptr, [&]() -> const char* {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetTensorRealName");
    require(name != nullptr, "aclmdlGetTensorRealName: the name is null");
    for (const auto* io : {&m.inputs(), &m.outputs()})
      for (const ge::ModelIO& t : *io)
        if (t.name == name) return t.name.c_str();
    if (acl::has_gear_input(m) && std::string_view(name) == ACL_DYNAMIC_TENSOR_NAME) return ACL_DYNAMIC_TENSOR_NAME;
    require(false, std::string("aclmdlGetTensorRealName: the model has no input or output named '") + name + "'");
    return nullptr;
  });
}

aclError aclmdlGetAippType(uint32_t modelId, size_t index, aclmdlInputAippType* type, size_t* dynamicAttachedDataIndex) {
  return acl::guard("aclmdlGetAippType", [&] {
    const auto loaded = acl::find_model(modelId, "aclmdlGetAippType");
    const ge::CompiledModel& m = *loaded->model;
    require(type != nullptr && dynamicAttachedDataIndex != nullptr, "aclmdlGetAippType: type or dynamicAttachedDataIndex is null");
    require(index < input_count(m), "aclmdlGetAippType: input " + std::to_string(index) + " of " + std::to_string(input_count(m)));
    *type = ACL_DATA_WITHOUT_AIPP;  // ge compiles no AIPP preprocessing into a model
    *dynamicAttachedDataIndex = ACL_INVALID_NODE_INDEX;
    return ACL_SUCCESS;
  });
}

aclDataType aclmdlGetInputDataType(const aclmdlDesc* modelDesc, size_t index) {
  return acl::guard_value<aclDataType>("aclmdlGetInputDataType", ACL_DT_UNDEFINED, [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetInputDataType");
    require(index < input_count(m), "aclmdlGetInputDataType: input " + std::to_string(index) + " of " + std::to_string(input_count(m)));
    return index == m.inputs().size() ? ACL_INT64 : acl::to_acl_type(m.inputs()[index].dtype);
  });
}

aclDataType aclmdlGetOutputDataType(const aclmdlDesc* modelDesc, size_t index) {
  return acl::guard_value<aclDataType>("aclmdlGetOutputDataType", ACL_DT_UNDEFINED, [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetOutputDataType");
    require(index < m.outputs().size(), "aclmdlGetOutputDataType: output " + std::to_string(index) + " of " + std::to_string(m.outputs().size()));
    return acl::to_acl_type(m.outputs()[index].dtype);
  });
}

aclFormat aclmdlGetInputFormat(const aclmdlDesc* modelDesc, size_t index) {
  return acl::guard_value<aclFormat>("aclmdlGetInputFormat", ACL_FORMAT_UNDEFINED, [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetInputFormat");
    require(index < input_count(m), "aclmdlGetInputFormat: input " + std::to_string(index) + " of " + std::to_string(input_count(m)));
    return index == m.inputs().size() ? ACL_FORMAT_ND : acl::acl_format(m.inputs()[index].format);
  });
}

aclFormat aclmdlGetOutputFormat(const aclmdlDesc* modelDesc, size_t index) {
  return acl::guard_value<aclFormat>("aclmdlGetOutputFormat", ACL_FORMAT_UNDEFINED, [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetOutputFormat");
    require(index < m.outputs().size(), "aclmdlGetOutputFormat: output " + std::to_string(index) + " of " + std::to_string(m.outputs().size()));
    return acl::acl_format(m.outputs()[index].format);
  });
}

aclError aclmdlGetInputIndexByName(const aclmdlDesc* modelDesc, const char* name, size_t* index) {
  return acl::guard("aclmdlGetInputIndexByName", [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetInputIndexByName");
    require(name != nullptr && index != nullptr, "aclmdlGetInputIndexByName: the name or the index pointer is null");
    for (std::size_t i = 0; i < m.inputs().size(); ++i)
      if (m.inputs()[i].name == name) {
        *index = i;
        return ACL_SUCCESS;
      }
    require(acl::has_gear_input(m) && std::string_view(name) == ACL_DYNAMIC_TENSOR_NAME,
            std::string("aclmdlGetInputIndexByName: the model has no input named '") + name + "'");
    *index = m.inputs().size();
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetInputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return acl::guard("aclmdlGetInputDims", [&] { return input_dims("aclmdlGetInputDims", modelDesc, index, dims); });
}

aclError aclmdlGetInputDimsRange(const aclmdlDesc* modelDesc, size_t index, aclmdlIODimsRange* dimsRange) {
  return acl::guard("aclmdlGetInputDimsRange", [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetInputDimsRange");
    require(dimsRange != nullptr, "aclmdlGetInputDimsRange: dimsRange is null");
    require(index < m.inputs().size(), "aclmdlGetInputDimsRange: input " + std::to_string(index) + " of " + std::to_string(m.inputs().size()));
    const ge::Shape& s = m.inputs()[index].shape;
    require(s.rank_known(), "aclmdlGetInputDimsRange: input '" + m.inputs()[index].name + "' has an unknown rank",
            ACL_ERROR_OP_UNSUPPORTED_DYNAMIC);
    dimsRange->rangeCount = s.rank();
    for (std::size_t i = 0; i < s.rank(); ++i) {
      dimsRange->range[i][0] = s[i].lo();
      dimsRange->range[i][1] = s[i].hi() == ge::Dim::inf ? -1 : s[i].hi();
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetInputDimsV2(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  // ge models have no image preprocessing (AIPP) before an input: the same dims.
  return acl::guard("aclmdlGetInputDimsV2", [&] { return input_dims("aclmdlGetInputDimsV2", modelDesc, index, dims); });
}

aclError aclmdlGetOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return acl::guard("aclmdlGetOutputDims", [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetOutputDims");
    require(dims != nullptr, "aclmdlGetOutputDims: dims is null");
    require(index < m.outputs().size(), "aclmdlGetOutputDims: output " + std::to_string(index) + " of " + std::to_string(m.outputs().size()));
    const ge::ModelIO& o = m.outputs()[index];
    if (acl::has_gear_input(m)) {  // GE's rule: the largest gear's dims
      const auto all = acl::gear_output_dims(m, acl::largest_gear(m));
      if (index < all.size() && !all[index].empty()) {
        write_dims(dims, o.name, ge::Shape(std::vector<ge::Dim>(all[index].begin(), all[index].end())));
        return ACL_SUCCESS;
      }
    }
    write_dims(dims, o.name, o.shape);
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetCurOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return acl::guard("aclmdlGetCurOutputDims", [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetCurOutputDims");
    require(dims != nullptr, "aclmdlGetCurOutputDims: dims is null");
    require(index < m.outputs().size(), "aclmdlGetCurOutputDims: output " + std::to_string(index) + " of " + std::to_string(m.outputs().size()));
    std::vector<std::int64_t> cur;
    {
      std::lock_guard lock(modelDesc->loaded->run);
      const auto& all = modelDesc->loaded->current_output_dims;
      if (index < all.size()) cur = all[index];
    }
    if (cur.empty() && !m.outputs()[index].shape.is_static()) {
      write_dims(dims, m.outputs()[index].name, m.outputs()[index].shape);  // no run yet: the description's
    } else {
      write_dims(dims, m.outputs()[index].name, cur.empty() ? m.outputs()[index].shape : ge::Shape(std::vector<ge::Dim>(cur.begin(), cur.end())));
    }
    return ACL_SUCCESS;
  });
}

aclmdlDataset* aclmdlCreateDataset(void) {
  return acl::guard_value<aclmdlDataset*>("aclmdlCreateDataset", nullptr, [] { return new aclmdlDataset(); });
}

aclError aclmdlDestroyDataset(const aclmdlDataset* dataset) {
  return acl::guard("aclmdlDestroyDataset", [&] {
    require(dataset != nullptr, "aclmdlDestroyDataset: the dataset is null");
    delete dataset;
    return ACL_SUCCESS;
  });
}

aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset, aclDataBuffer* dataBuffer) {
  return acl::guard("aclmdlAddDatasetBuffer", [&] {
    require(dataset != nullptr && dataBuffer != nullptr, "aclmdlAddDatasetBuffer: the dataset or the buffer is null");
    dataset->buffers.push_back(dataBuffer);
    return ACL_SUCCESS;
  });
}

size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset* dataset) {
  return acl::guard_value<size_t>("aclmdlGetDatasetNumBuffers", 0, [&] {
    require(dataset != nullptr, "aclmdlGetDatasetNumBuffers: the dataset is null");
    return dataset->buffers.size();
  });
}

aclDataBuffer* aclmdlGetDatasetBuffer(const aclmdlDataset* dataset, size_t index) {
  return acl::guard_value<aclDataBuffer*>("aclmdlGetDatasetBuffer", nullptr, [&] {
    require(dataset != nullptr, "aclmdlGetDatasetBuffer: the dataset is null");
    require(index < dataset->buffers.size(), "aclmdlGetDatasetBuffer: buffer " + std::to_string(index) + " of " +
                                                 std::to_string(dataset->buffers.size()));
    return dataset->buffers[index];
  });
}

aclTensorDesc* aclmdlGetDatasetTensorDesc(const aclmdlDataset* dataset, size_t index) {
  return acl::guard_value<aclTensorDesc*>("aclmdlGetDatasetTensorDesc", nullptr, [&] {
    require(dataset != nullptr, "aclmdlGetDatasetTensorDesc: the dataset is null");
    require(index < dataset->descs.size() && dataset->descs[index] != nullptr,
            "aclmdlGetDatasetTensorDesc: the dataset has no description at " + std::to_string(index) +
                " (an output's is set by aclmdlExecute, an input's by aclmdlSetDatasetTensorDesc)");
    return dataset->descs[index].get();
  });
}

}  // extern "C"
