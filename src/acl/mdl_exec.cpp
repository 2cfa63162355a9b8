// aclmdl*: the gears of a loaded model (which gear the next run takes, and the lists of
// gears), the real input descriptions of range models, and aclmdlExecute
// (src/acl/mdl.hpp; docs/acl.md "Models").
#include <algorithm>
#include <cstring>
#include <span>

#include "acl/mdl.hpp"

namespace {

using acl::require;

const ge::CompiledModel& model_of(const aclmdlDesc* d, const char* api) {
  require(d != nullptr && d->loaded != nullptr, std::string(api) + ": the model description is null or empty (aclmdlGetDesc)");
  return *d->loaded->model;
}

std::string option_name(const ge::CompiledModel& m) {
  if (!m.config().gear_option) return "none";
  switch (*m.config().gear_option) {
    case ge::Option::dynamic_batch_size: return "DYNAMIC_BATCH_SIZE (aclmdlSetDynamicBatchSize)";
    case ge::Option::dynamic_image_size: return "DYNAMIC_IMAGE_SIZE (aclmdlSetDynamicHWSize)";
    default: return "DYNAMIC_DIMS (aclmdlSetInputDynamicDims)";
  }
}

// The joined dims of every input under gear `g`.
std::vector<std::int64_t> joined_dims(const ge::CompiledModel& m, std::size_t g) {
  std::vector<std::int64_t> out;
  for (const auto& plan : m.plans())
    if (plan->gear == static_cast<std::int32_t>(g))
      for (const ge::Shape& s : plan->input_shapes)
        for (const std::int64_t v : s.values()) out.push_back(v);
  return out;
}

std::string inputs_text(const ge::CompiledModel& m) {
  std::string out;
  for (const ge::ModelIO& io : m.inputs()) out += (out.empty() ? "" : "; ") + io.name + ":" + io.shape.to_string();
  return out;
}

// Hybrid mode: every input's dims with `values` in the dims the gears fill, or none when
// the model's range (its inputs' shapes: the hull of the gears and the range plan) does
// not hold them.
std::vector<std::vector<std::int64_t>> hybrid_dims(const ge::CompiledModel& m, const std::vector<std::int64_t>& values) {
  ge::DynamicConfig one = m.config();
  one.gears = {values};
  const std::vector<ge::Gear> gear = ge::enumerate_gears(one);
  std::vector<std::vector<std::int64_t>> dims;
  for (std::size_t i = 0; i < m.inputs().size(); ++i) {
    ge::Shape s = m.inputs()[i].shape;
    const auto& entries = one.input_shape.entries();
    for (std::size_t e = 0; e < entries.size(); ++e)
      if (entries[e].name == m.inputs()[i].name) s = gear.front().shapes[e];
    if (!s.is_static() || !ge::relaxes(m.inputs()[i].shape, s)) return {};
    dims.push_back(s.values());
  }
  return dims;
}

// Hybrid mode: the values of the dims the gears fill, read from every input's dims joined
// (in INPUT_SHAPE's order), or none when `joined` does not fit the inputs (their ranks,
// their fixed dims).
std::vector<std::int64_t> slot_values(const ge::CompiledModel& m, const std::vector<std::int64_t>& joined) {
  std::vector<std::size_t> offset;
  std::size_t total = 0;
  for (const ge::ModelIO& io : m.inputs()) {
    offset.push_back(total);
    total += io.shape.rank();
  }
  if (joined.size() != total) return {};
  for (std::size_t i = 0; i < m.inputs().size(); ++i)
    for (std::size_t d = 0; d < m.inputs()[i].shape.rank(); ++d)
      if (const ge::Dim& dim = m.inputs()[i].shape.dims()[d]; dim.is_static() && dim.value() != joined[offset[i] + d])
        return {};
  std::vector<std::int64_t> values;
  for (const ge::InputShapeEntry& e : m.config().input_shape.entries())
    for (std::size_t i = 0; i < m.inputs().size(); ++i)
      if (m.inputs()[i].name == e.name)
        for (std::size_t d = 0; d < e.shape.dims().size(); ++d)
          if (m.config().gear_slot(e.shape.dims()[d])) values.push_back(joined[offset[i] + d]);
  return values;
}

// Chooses the gear with `values` for the next aclmdlExecute with `dataset`, writing the
// values into the buffer of the gear input as int64s.
aclError choose_gear(const char* api, std::uint32_t id, aclmdlDataset* dataset, size_t index, ge::Option kind,
                     const std::vector<std::int64_t>& values) {
  const auto loaded = acl::find_model(id, api);
  const ge::CompiledModel& m = *loaded->model;
  require(dataset != nullptr, std::string(api) + ": the dataset is null");
  require(acl::has_gear_input(m), std::string(api) + ": model " + std::to_string(id) + " was built without gears",
          ACL_ERROR_MODEL_NOT_DYNAMIC);
  require(m.config().gear_option == kind,
          std::string(api) + ": model " + std::to_string(id) + " has gears of " + option_name(m));
  require(index == m.inputs().size(), std::string(api) + ": index " + std::to_string(index) + " is not the " +
                                          ACL_DYNAMIC_TENSOR_NAME + " input's (" + std::to_string(m.inputs().size()) +
                                          "; aclmdlGetInputIndexByName)");
  require(std::none_of(dataset->descs.begin(), dataset->descs.end(), [](const auto& d) { return d != nullptr; }),
          std::string(api) + ": the dataset has real descriptions set (aclmdlSetDatasetTensorDesc, for range models); gears and ranges exclude one another");
  const auto it = std::find_if(m.gears().begin(), m.gears().end(), [&](const ge::Gear& g) { return g.values == values; });
  if (it == m.gears().end() && m.hybrid()) {
    // Hybrid mode: values between the gears run on the range plan, where it holds them.
    require(values.size() == m.gears().front().values.size(),
            std::string(api) + ": " + std::to_string(values.size()) + " values; the gears of model " + std::to_string(id) +
                " have " + std::to_string(m.gears().front().values.size()));
    const auto dims = hybrid_dims(m, values);
    require(!dims.empty(), std::string(api) + ": the values match no gear of model " + std::to_string(id) +
                               " and lie outside its hybrid range " + inputs_text(m));
  } else if (it == m.gears().end()) {
    std::string all;
    for (const ge::Gear& g : m.gears()) {
      all += all.empty() ? "" : "; ";
      for (std::size_t k = 0; k < g.values.size(); ++k) all += (k ? "," : "") + std::to_string(g.values[k]);
    }
    require(false, std::string(api) + ": no gear of model " + std::to_string(id) + " has these values; its gears: " + all);
  }
  dataset->gear = values;
  dataset->gear_model = id;
  if (index < dataset->buffers.size() && dataset->buffers[index] != nullptr &&
      dataset->buffers[index]->data != nullptr && dataset->buffers[index]->size >= values.size() * sizeof(std::int64_t))
    std::memcpy(dataset->buffers[index]->data, values.data(), values.size() * sizeof(std::int64_t));
  return ACL_SUCCESS;
}

// The dims each graph input runs with: the gear's, the fixed ones, or (ranges) the real
// descriptions set on the dataset.
std::vector<std::vector<std::int64_t>> run_dims(std::uint32_t id, const ge::CompiledModel& m, const aclmdlDataset& in) {
  std::vector<std::vector<std::int64_t>> dims;
  if (acl::has_gear_input(m)) {
    require(!in.gear || in.gear_model == id, "aclmdlExecute: the input dataset's gear was chosen for model " +
                                                 std::to_string(in.gear_model.value_or(0)) + ", not " + std::to_string(id));
    std::int32_t g = acl::largest_gear(m);  // no gear chosen: the largest
    bool found = !in.gear;
    if (in.gear)
      for (const ge::Gear& gear : m.gears())
        if (gear.values == *in.gear) {
          g = static_cast<std::int32_t>(gear.index);
          found = true;
        }
    if (!found && m.hybrid()) return hybrid_dims(m, *in.gear);  // checked when it was chosen
    for (const auto& plan : m.plans())
      if (plan->gear == g)
        for (const ge::Shape& s : plan->input_shapes) dims.push_back(s.values());
    return dims;
  }
  require(!in.gear, "aclmdlExecute: a gear was chosen, but model " + std::to_string(id) + " has no gears",
          ACL_ERROR_MODEL_NOT_DYNAMIC);
  for (std::size_t i = 0; i < m.inputs().size(); ++i) {
    const ge::ModelIO& io = m.inputs()[i];
    if (i < in.descs.size() && in.descs[i] != nullptr) {
      const aclDataType want = acl::to_acl_type(io.dtype);
      require(in.descs[i]->dtype == want || in.descs[i]->dtype == ACL_DT_UNDEFINED,
              "aclmdlExecute: input " + std::to_string(i) + " ('" + io.name + "') is described as type " +
                  std::to_string(static_cast<int>(in.descs[i]->dtype)) + "; the model takes " +
                  std::to_string(static_cast<int>(want)),
              ACL_ERROR_MODEL_INPUT_NOT_MATCH);
      dims.push_back(acl::static_dims(*in.descs[i], "input " + std::to_string(i) + " ('" + io.name + "')"));
    } else {
      require(io.shape.is_static(), "aclmdlExecute: input " + std::to_string(i) + " ('" + io.name + "') is " +
                                        io.shape.to_string() + "; set its real description with aclmdlSetDatasetTensorDesc");
      dims.push_back(io.shape.values());
    }
  }
  return dims;
}

// Copies the run's outputs into the caller's buffers and describes them on `out`.
void deliver(const ge::RunResult& r, aclmdlDataset& out) {
  require(out.buffers.size() == r.outputs.size(), "aclmdlExecute: the output dataset has " + std::to_string(out.buffers.size()) +
                                                      " buffers; the model has " + std::to_string(r.outputs.size()) + " outputs",
          ACL_ERROR_MODEL_OUTPUT_NOT_MATCH);
  out.descs.resize(r.outputs.size());
  for (std::size_t o = 0; o < r.outputs.size(); ++o) {
    const ge::Output& y = r.outputs[o];
    const aclDataBuffer* b = out.buffers[o];
    const auto bytes = static_cast<std::size_t>(y.bytes);
    require(b != nullptr && (b->data != nullptr || bytes == 0) && b->size >= bytes,
            "aclmdlExecute: output " + std::to_string(o) + " ('" + y.name + "') needs " + std::to_string(bytes) +
                " bytes; its buffer has " + std::to_string(b ? b->size : 0),
            ACL_ERROR_MODEL_OUTPUT_NOT_MATCH);
    if (bytes > 0) std::memcpy(b->data, y.data, bytes);
    auto d = std::make_unique<aclTensorDesc>();
    d->dtype = acl::to_acl_type(y.dtype);
    d->format = acl::acl_format(y.format);
    d->dims = y.dims;
    out.descs[o] = std::move(d);
  }
}

// aclmdlExecute and aclmdlExecuteAsync: runs model `modelId` on `input` into `output`.
aclError execute(const std::string& api, uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output) {
  acl::require_initialized(api);
  require(input != nullptr && output != nullptr, api + ": the input or the output dataset is null");
  const auto loaded = acl::find_model(modelId, api.c_str());
  const ge::CompiledModel& m = *loaded->model;
  const std::size_t want = m.inputs().size() + (acl::has_gear_input(m) ? 1 : 0);
  require(input->buffers.size() == want, api + ": the input dataset has " + std::to_string(input->buffers.size()) +
                                             " buffers; the model has " + std::to_string(want) + " inputs" +
                                             (acl::has_gear_input(m) ? std::string(" (with ") + ACL_DYNAMIC_TENSOR_NAME + ")" : ""),
          ACL_ERROR_MODEL_INPUT_NOT_MATCH);
  const std::vector<std::vector<std::int64_t>> dims = run_dims(modelId, m, *input);
  std::vector<ge::TensorView> views;
  for (std::size_t i = 0; i < m.inputs().size(); ++i) {
    const std::string which = "input " + std::to_string(i) + " ('" + m.inputs()[i].name + "')";
    const aclDataBuffer* b = input->buffers[i];
    std::int64_t bytes = ge::size_of(m.inputs()[i].dtype);
    for (const std::int64_t d : dims[i]) bytes *= d;
    require(b != nullptr && (b->data != nullptr || bytes == 0) && b->size >= static_cast<std::size_t>(bytes),
            api + ": " + which + " needs " + std::to_string(bytes) + " bytes; its buffer has " +
                std::to_string(b ? b->size : 0),
            ACL_ERROR_MODEL_INPUT_NOT_MATCH);
    views.push_back(acl::view_of(b, m.inputs()[i].dtype, dims[i], which));
  }
  std::lock_guard lock(loaded->run);
  require(!loaded->unloaded, api + ": model " + std::to_string(modelId) + " was unloaded while this call began",
          ACL_ERROR_INVALID_MODEL_ID);
  const ge::RunResult r = loaded->session->run(views);
  deliver(r, *output);
  loaded->current_output_dims.clear();
  for (const ge::Output& y : r.outputs) loaded->current_output_dims.push_back(y.dims);
  return ACL_SUCCESS;
}


}  // namespace

extern "C" {

aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset* dataset, size_t index, uint64_t batchSize) {
  return acl::guard("aclmdlSetDynamicBatchSize", [&] {
    require(batchSize >= 1 && batchSize <= INT64_MAX, "aclmdlSetDynamicBatchSize: batch size " + std::to_string(batchSize));
    return choose_gear("aclmdlSetDynamicBatchSize", modelId, dataset, index, ge::Option::dynamic_batch_size,
                       {static_cast<std::int64_t>(batchSize)});
  });
}

aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset* dataset, size_t index, uint64_t height, uint64_t width) {
  return acl::guard("aclmdlSetDynamicHWSize", [&] {
    require(height >= 1 && width >= 1 && height <= INT64_MAX && width <= INT64_MAX,
            "aclmdlSetDynamicHWSize: " + std::to_string(height) + "x" + std::to_string(width));
    return choose_gear("aclmdlSetDynamicHWSize", modelId, dataset, index, ge::Option::dynamic_image_size,
                       {static_cast<std::int64_t>(height), static_cast<std::int64_t>(width)});
  });
}

aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset* dataset, size_t index, const aclmdlIODims* dims) {
  return acl::guard("aclmdlSetInputDynamicDims", [&] {
    require(dims != nullptr && dims->dimCount <= ACL_MAX_DIM_CNT, "aclmdlSetInputDynamicDims: dims is null or too long");
    const auto loaded = acl::find_model(modelId, "aclmdlSetInputDynamicDims");
    const ge::CompiledModel& m = *loaded->model;
    const std::vector<std::int64_t> joined(dims->dims, dims->dims + dims->dimCount);
    // The dims of every input joined: the gear whose shapes they are.
    std::vector<std::int64_t> values{-1};
    for (const ge::Gear& g : m.gears())
      if (joined_dims(m, g.index) == joined) values = g.values;
    if (values.size() == 1 && values[0] == -1 && m.hybrid()) {
      values = slot_values(m, joined);
      require(!values.empty(), "aclmdlSetInputDynamicDims: the dims do not fit the inputs of model " +
                                   std::to_string(modelId) + " (" + inputs_text(m) +
                                   "): expected every input's dims joined, its fixed dims as they are");
    }
    return choose_gear("aclmdlSetInputDynamicDims", modelId, dataset, index, ge::Option::dynamic_dims, values);
  });
}

aclError aclmdlSetDatasetTensorDesc(aclmdlDataset* dataset, aclTensorDesc* tensorDesc, size_t index) {
  return acl::guard("aclmdlSetDatasetTensorDesc", [&] {
    require(dataset != nullptr && tensorDesc != nullptr, "aclmdlSetDatasetTensorDesc: the dataset or the description is null");
    require(!dataset->gear, "aclmdlSetDatasetTensorDesc: the dataset has a gear chosen (aclmdlSetDynamic*); gears and ranges exclude one another");
    require(index < ACL_MAX_DIM_CNT * 16, "aclmdlSetDatasetTensorDesc: index " + std::to_string(index) + " out of range");
    if (dataset->descs.size() <= index) dataset->descs.resize(index + 1);
    dataset->descs[index] = std::make_unique<aclTensorDesc>(*tensorDesc);
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetDynamicBatch(const aclmdlDesc* modelDesc, aclmdlBatch* batch) {
  return acl::guard("aclmdlGetDynamicBatch", [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetDynamicBatch");
    require(batch != nullptr, "aclmdlGetDynamicBatch: batch is null");
    batch->batchCount = 0;
    if (m.config().gear_option != ge::Option::dynamic_batch_size) return ACL_SUCCESS;
    require(m.gears().size() <= ACL_MAX_BATCH_NUM, "aclmdlGetDynamicBatch: more gears than ACL_MAX_BATCH_NUM");
    for (const ge::Gear& g : m.gears()) batch->batch[batch->batchCount++] = static_cast<uint64_t>(g.values[0]);
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetDynamicHW(const aclmdlDesc* modelDesc, size_t index, aclmdlHW* hw) {
  return acl::guard("aclmdlGetDynamicHW", [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetDynamicHW");
    require(hw != nullptr, "aclmdlGetDynamicHW: hw is null");
    require(index == static_cast<size_t>(-1) || index < m.inputs().size(), "aclmdlGetDynamicHW: index " + std::to_string(index));
    hw->hwCount = 0;
    if (m.config().gear_option != ge::Option::dynamic_image_size) return ACL_SUCCESS;
    require(m.gears().size() <= ACL_MAX_HW_NUM, "aclmdlGetDynamicHW: more gears than ACL_MAX_HW_NUM");
    for (const ge::Gear& g : m.gears()) {
      hw->hw[hw->hwCount][0] = static_cast<uint64_t>(g.values[0]);
      hw->hw[hw->hwCount++][1] = static_cast<uint64_t>(g.values[1]);
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc* modelDesc, size_t index, size_t* gearCount) {
  return acl::guard("aclmdlGetInputDynamicGearCount", [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetInputDynamicGearCount");
    require(gearCount != nullptr, "aclmdlGetInputDynamicGearCount: gearCount is null");
    require(index == static_cast<size_t>(-1), "aclmdlGetInputDynamicGearCount: index must be -1 (the model's gears)");
    *gearCount = m.config().gear_option == ge::Option::dynamic_dims ? m.gears().size() : 0;
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetInputDynamicDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims, size_t gearCount) {
  return acl::guard("aclmdlGetInputDynamicDims", [&] {
    const ge::CompiledModel& m = model_of(modelDesc, "aclmdlGetInputDynamicDims");
    require(dims != nullptr, "aclmdlGetInputDynamicDims: dims is null");
    require(index == static_cast<size_t>(-1), "aclmdlGetInputDynamicDims: index must be -1 (the model's gears)");
    const std::size_t count = m.config().gear_option == ge::Option::dynamic_dims ? m.gears().size() : 0;
    require(gearCount == count, "aclmdlGetInputDynamicDims: gearCount is " + std::to_string(gearCount) +
                                    "; the model has " + std::to_string(count) + " dims gears (aclmdlGetInputDynamicGearCount)");
    for (std::size_t g = 0; g < count; ++g) {
      const std::vector<std::int64_t> joined = joined_dims(m, g);
      require(joined.size() <= ACL_MAX_DIM_CNT, "aclmdlGetInputDynamicDims: more dims than ACL_MAX_DIM_CNT");
      std::memset(dims[g].name, 0, sizeof dims[g].name);
      dims[g].dimCount = joined.size();
      std::copy(joined.begin(), joined.end(), dims[g].dims);
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output) {
  return acl::guard("aclmdlExecute", [&] { return execute("aclmdlExecute", modelId, input, output); });
}

aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output, aclrtStream stream) {
  return acl::guard("aclmdlExecuteAsync", [&] {
    acl::require_initialized("aclmdlExecuteAsync");
    acl::require_stream(stream, "aclmdlExecuteAsync");
    // ge's streams run their work as it is given (docs/acl.md): the run is done on return,
    // and aclrtSynchronizeStream(stream) finds nothing left to wait for. A run that fails
    // is told to the exception callbacks, as a failed task on the stream.
    return acl::run_task("aclmdlExecuteAsync", stream, [&] { return execute("aclmdlExecuteAsync", modelId, input, output); });
  });
}

}  // extern "C"
