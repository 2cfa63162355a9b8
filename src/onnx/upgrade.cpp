// Models of an opset below the importer's lowest (`min_opset`) are brought up to it by
// onnx's own version converter (libonnx), which knows each op's changes between opsets
// (Upsample to Resize, Slice's attributes to inputs, BatchNormalization's spatial, ...).
// What it cannot convert is refused with its own reason, which names the op and opsets.
#include "onnx/upgrade.hpp"

#include <exception>
#include <string>

#if defined(GE_ONNX_VERSION_CONVERTER)
#include <fcntl.h>
#include <poll.h>
#include <onnx/defs/schema.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>
#endif

namespace ge::onnx::detail {

namespace {

// The converter's assertion text without its source position ("file:line: func:
// Assertion `cond` failed: ").
std::string converter_reason(const std::string& what) {
  const std::string marker = "failed: ";
  const auto at = what.find(marker);
  std::string s = at == std::string::npos ? what : what.substr(at + marker.size());
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s.substr(0, 300);
}

#if defined(GE_ONNX_VERSION_CONVERTER)
// The rank of value `name` from the graph's inputs, outputs and value_info (which onnx's
// shape inference fills), or its initializer; -1 when unknown.
int rank_of(const ::onnx::GraphProto& g, const std::string& name) {
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& v : *list)
      if (v.name() == name && v.type().tensor_type().has_shape()) return v.type().tensor_type().shape().dim_size();
  for (const auto& t : g.initializer())
    if (t.name() == name) return t.dims_size();
  return -1;
}

// Before opset 7, PRelu applies a slope of shape [C] per channel (axis 1) of X; from
// opset 7 a slope broadcasts by numpy rules, and the converter leaves the node as it is.
// A [C] slope initializer read by that PRelu alone becomes [C, 1, ..., 1].
void per_channel_prelu_slopes(::onnx::ModelProto& m) {
  ::onnx::GraphProto& g = *m.mutable_graph();
  for (const auto& n : g.node()) {
    if (n.op_type() != "PRelu" || n.input_size() != 2) continue;
    const std::string& slope = n.input(1);
    int readers = 0;
    for (const auto& other : g.node())
      for (const auto& in : other.input()) readers += in == slope ? 1 : 0;
    const int rank = rank_of(g, n.input(0));
    if (readers != 1 || rank <= 2) continue;
    for (auto& t : *g.mutable_initializer())
      if (t.name() == slope && t.dims_size() == 1 && t.dims(0) > 1)
        for (int k = 2; k < rank; ++k) t.add_dims(1);
  }
}

// How a node is named in messages: its name, else its index, with its op.
std::string node_label(const ::onnx::NodeProto& n, int index) {
  return (n.name().empty() ? "#" + std::to_string(index) : quote(n.name())) + " (" + n.op_type() + ")";
}

// The converter's adapters trust their nodes: they index inputs and attributes the schema
// requires without looking (Upsample 9 to 10 reads input 1, Gemm 6 to 7 dims 0 and 1 of
// both inputs' shapes). Every default-domain node, in subgraphs too, is checked against
// its schema at the model's opset first: the op exists there, its input and output
// counts, its attributes' types and the required ones (onnx's OpSchema::Verify).
void check_nodes(const ::onnx::GraphProto& g, int version, const std::string& from) {
  for (int i = 0; i < g.node_size(); ++i) {
    const ::onnx::NodeProto& n = g.node(i);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) check_nodes(a.g(), version, from);
      for (const auto& sub : a.graphs()) check_nodes(sub, version, from);
    }
    if (!n.domain().empty() && n.domain() != "ai.onnx") continue;  // not converted; the importer refuses it
    const ::onnx::OpSchema* schema = ::onnx::OpSchemaRegistry::Schema(n.op_type(), version, "");
    const std::string cannot = from + ", and onnx's version converter cannot bring it to opset " +
                               std::to_string(min_opset) + ": node " + node_label(n, i);
    if (schema == nullptr) fail(Errc::unsupported_op, cannot + ": op " + n.op_type() + " does not exist in opset " + std::to_string(version));
    if (schema->Deprecated())
      fail(Errc::unsupported_op, cannot + ": op " + n.op_type() + " is deprecated in opset " + std::to_string(version));
    try {
      schema->Verify(n);
    } catch (const std::exception& e) {
      fail(Errc::bad_model, "node " + node_label(n, i) + " does not match its schema in opset " + std::to_string(version) +
                                ": " + converter_reason(e.what()));
    }
  }
}

// After shape inference: Gemm 6 to 7 reads two dims of A's and B's shapes, which must be
// known and of rank 2.
void check_shapes(const ::onnx::GraphProto& g, int version, const std::string& from) {
  for (int i = 0; i < g.node_size(); ++i) {
    const ::onnx::NodeProto& n = g.node(i);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) check_shapes(a.g(), version, from);
      for (const auto& sub : a.graphs()) check_shapes(sub, version, from);
    }
    if ((!n.domain().empty() && n.domain() != "ai.onnx") || n.op_type() != "Gemm" || version >= 7) continue;
    for (int k = 0; k < 2 && k < n.input_size(); ++k)
      if (rank_of(g, n.input(k)) != 2)
        fail(Errc::unsupported_op, from + ", and onnx's version converter cannot bring it to opset " +
                                       std::to_string(min_opset) + ": node " + node_label(n, i) + ": input " +
                                       quote(n.input(k)) + " needs a known shape of rank 2 to convert");
  }
}

// Shape inference, the checks that need its shapes, and the conversion, in this process.
::onnx::ModelProto convert_here(::onnx::ModelProto& m, std::int64_t version, const std::string& from) {
  // Some adapters (Gemm 6 to 7's broadcast) need the inputs' shapes: onnx's shape
  // inference records them first. A model it cannot infer is converted without them.
  try {
    ::onnx::shape_inference::InferShapes(m);
  } catch (const std::exception&) {
  }
  check_shapes(m.graph(), static_cast<int>(version), from);
  if (version < 7) per_channel_prelu_slopes(m);
  try {
    return ::onnx::version_conversion::ConvertVersion(m, static_cast<int>(min_opset));
  } catch (const std::exception& e) {
    fail(Errc::unsupported_op, from + ", and onnx's version converter cannot bring it to opset " +
                                   std::to_string(min_opset) + ": " + converter_reason(e.what()));
  }
}

// onnx's shape inference and adapters trust shapes and values that a schema check cannot
// see (an RNN of opset 7 whose input has too few dims crashed the inference): both run
// in a child process, which hands the converted model back through a pipe; a child that
// dies is `bad_model`, not the end of this process. Where no child can be made (no
// memory, no processes left), the conversion runs here.
::onnx::ModelProto convert_isolated(::onnx::ModelProto& m, std::int64_t version, const std::string& from) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return convert_here(m, version, from);
  const ::pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return convert_here(m, version, from);
  }
  if (pid == 0) {  // the child: convert, write a tag and the result, leave without cleanup
    ::close(fds[0]);
    // A crash here ends the child quietly: the parent's crash handlers (a test framework's,
    // a server's crash reporter) are not for it.
    for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);
    std::string out;
    try {
      out = std::string(1, '\0') + convert_here(m, version, from).SerializeAsString();
    } catch (const Error& e) {
      out = std::string(1, e.code() == Errc::unsupported_op ? '\1' : '\2') + e.what();
    } catch (const std::exception& e) {
      out = std::string(1, '\2') + e.what();
    }
    for (std::size_t at = 0; at < out.size();) {
      const ::ssize_t n = ::write(fds[1], out.data() + at, out.size() - at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ::_exit(3);
      at += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string in;
  char buf[1 << 16];
  // A child that says nothing for this long is stopped: fork copies only this thread, so
  // a lock another thread held at the fork (in the allocator or a library) never opens in
  // the child; the caller gets an error, not a hang. Converting the largest real models
  // takes seconds.
  constexpr int kChildSilenceMs = 300'000;
  bool timed_out = false;
  for (;;) {
    ::pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, kChildSilenceMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      ::kill(pid, SIGKILL);
      timed_out = true;
      break;
    }
    const ::ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    in.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    fail(Errc::bad_model, from + ", and onnx's shape inference or version converter did not finish within " +
                              std::to_string(kChildSilenceMs / 1000) + " s: it was stopped");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || in.empty())
    fail(Errc::bad_model, from + ", and onnx's shape inference or version converter failed on it (" +
                              (WIFSIGNALED(status) ? "it crashed with signal " + std::to_string(WTERMSIG(status))
                                                   : std::string("no result")) +
                              "): the model is malformed");
  if (in[0] != '\0') raise(in[0] == '\1' ? Errc::unsupported_op : Errc::bad_model, in.substr(1));
  ::onnx::ModelProto up;
  if (!up.ParseFromArray(in.data() + 1, static_cast<int>(in.size() - 1)))
    fail(Errc::bad_model, from + ", and onnx's version converter returned no model");
  return up;
}
#endif

}  // namespace

void upgrade_opset(::onnx::ModelProto& m, std::int64_t version) {
  const std::string from = "the model uses opset " + std::to_string(version) + " of the default domain; ge reads opsets " +
                           std::to_string(min_opset) + " to " + std::to_string(max_opset);
  if (version < 1) fail(Errc::bad_model, from + " (an opset below 1 does not exist)");
#if defined(GE_ONNX_VERSION_CONVERTER)
  // Every node against its schema first: onnx's shape inference trusts them too (a Scan
  // of opset 9 without its body crashed it).
  check_nodes(m.graph(), static_cast<int>(version), from);
  ::onnx::ModelProto up = convert_isolated(m, version, from);
  m.Swap(&up);
#else
  (void)m;
  fail(Errc::unsupported_op, from + " (this build has no onnx version converter to upgrade older opsets)");
#endif
}

std::optional<std::int64_t> onnx_op_first_opset_above(const std::string& op, std::int64_t opset) {
#if defined(GE_ONNX_VERSION_CONVERTER)
  if (opset < 1 || opset > 1000) return std::nullopt;  // (the loader reads 11 to 20): keeps the casts exact
  if (::onnx::OpSchemaRegistry::Schema(op, static_cast<int>(opset), "") != nullptr) return std::nullopt;
  const ::onnx::OpSchema* latest = ::onnx::OpSchemaRegistry::Schema(op, "");
  if (latest == nullptr) return std::nullopt;
  for (int v = static_cast<int>(opset) + 1; v < latest->SinceVersion(); ++v)
    if (::onnx::OpSchemaRegistry::Schema(op, v, "") != nullptr) return v;
  return latest->SinceVersion();
#else
  (void)op;
  (void)opset;
  return std::nullopt;
#endif
}

}  // namespace ge::onnx::detail
