#pragma once
/// \file
/// Everything of ge in one include. Library code includes what it uses instead.

#include "ge/compile/compile.hpp"
#include "ge/compile/cpu_isa.hpp"
#include "ge/compile/flops.hpp"
#include "ge/compile/kernel.hpp"
#include "ge/compile/memory_plan.hpp"
#include "ge/compile/op_compile.hpp"
#include "ge/compile/passes.hpp"
#include "ge/compile/plan.hpp"
#include "ge/compile/streams.hpp"
#include "ge/core/data_type.hpp"
#include "ge/core/error.hpp"
#include "ge/core/format.hpp"
#include "ge/core/lru_cache.hpp"
#include "ge/core/tensor_view.hpp"
#include "ge/core/version.hpp"
#include "ge/device/cpu_device.hpp"
#include "ge/device/device.hpp"
#include "ge/graph.hpp"
#include "ge/options.hpp"
#if defined(GE_WITH_ONNX)
#include "ge/onnx.hpp"
#endif
#include "ge/runtime/host_scheduler.hpp"
#include "ge/runtime/plan_select.hpp"
#include "ge/runtime/session.hpp"
#include "ge/runtime/trace.hpp"
#include "ge/shape/dim.hpp"
#include "ge/shape/shape.hpp"
#include "ge/shape/typed.hpp"
#include "ge/shape/window.hpp"
