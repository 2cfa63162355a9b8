// The asynchronous-inference pattern of GE's C++ samples, as they write it: a std::thread
// whose id (printed, then parsed) is subscribed to the stream, which sets the context and
// loops on aclrtProcessReport(100) until told to stop; the main thread issues work and a
// blocking callback per run, each callback checks the run's output and gives its buffers
// back to a pool; then synchronize, stop the thread, unsubscribe.
#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"

namespace {

struct Run {
  std::vector<float> x, y, out;
  std::thread::id ran_on;
  bool used = false;  // taken from the pool at least once (a fast callback thread may reuse one run only)
  bool checked = false;
};

struct Pool {
  std::mutex mutex;
  std::vector<Run*> free;
};

Pool* g_pool = nullptr;
std::atomic<int> g_callbacks{0}, g_right{0};

void check_run(void* arg) {
  auto* run = static_cast<Run*>(arg);
  bool ok = true;
  for (std::size_t i = 0; i < run->out.size(); ++i) ok = ok && run->out[i] == run->x[i] + run->y[i];
  run->checked = ok;
  run->ran_on = std::this_thread::get_id();
  g_callbacks.fetch_add(1);
  if (ok) g_right.fetch_add(1);
  std::lock_guard lock(g_pool->mutex);
  g_pool->free.push_back(run);
}

aclError add_on_stream(Run& r, aclrtStream stream) {
  const int64_t dims[1] = {static_cast<int64_t>(r.x.size())};
  aclTensorDesc* in_desc[2] = {aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND),
                               aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND)};
  aclTensorDesc* out_desc[1] = {aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND)};
  const std::size_t bytes = r.x.size() * sizeof(float);
  aclDataBuffer* in[2] = {aclCreateDataBuffer(r.x.data(), bytes), aclCreateDataBuffer(r.y.data(), bytes)};
  aclDataBuffer* out[1] = {aclCreateDataBuffer(r.out.data(), bytes)};
  const aclError e = aclopCompileAndExecuteV2("Add", 2, in_desc, in, 1, out_desc, out, nullptr, ACL_ENGINE_SYS,
                                              ACL_COMPILE_SYS, nullptr, stream);
  for (auto* d : in_desc) aclDestroyTensorDesc(d);
  aclDestroyTensorDesc(out_desc[0]);
  for (auto* b : in) aclDestroyDataBuffer(b);
  aclDestroyDataBuffer(out[0]);
  return e;
}

}  // namespace

TEST_CASE("acl rt: the asynchronous samples' callback thread runs each run's callback") {
  REQUIRE(aclInit(nullptr) == ACL_SUCCESS);
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  aclrtContext context = nullptr;
  REQUIRE(aclrtCreateContext(&context, 0) == ACL_SUCCESS);
  aclrtStream stream = nullptr;
  REQUIRE(aclrtCreateStream(&stream) == ACL_SUCCESS);

  Pool pool;
  g_pool = &pool;
  g_callbacks = 0;
  g_right = 0;
  std::vector<Run> runs(4);
  for (Run& r : runs) pool.free.push_back(&r);

  std::atomic<bool> exit{false};
  std::thread worker([&] {
    (void)aclrtSetCurrentContext(context);
    while (!exit.load()) (void)aclrtProcessReport(100);
  });
  const std::thread::id worker_id = worker.get_id();
  std::ostringstream id;
  id << worker_id;
  const auto tid = static_cast<uint64_t>(std::stoull(id.str()));
  REQUIRE(aclrtSubscribeReport(tid, stream) == ACL_SUCCESS);

  int issued = 0;
  for (int n = 0; n < 40; ++n) {
    Run* r = nullptr;
    while (r == nullptr) {  // the pool refills as the callbacks run
      std::lock_guard lock(pool.mutex);
      if (!pool.free.empty()) {
        r = pool.free.back();
        pool.free.pop_back();
      }
    }
    r->x.assign(64, static_cast<float>(n));
    r->y.assign(64, 0.5f);
    r->out.assign(64, -1.0f);
    r->checked = false;
    r->used = true;
    REQUIRE(add_on_stream(*r, stream) == ACL_SUCCESS);
    REQUIRE(aclrtLaunchCallback(check_run, r, ACL_CALLBACK_BLOCK, stream) == ACL_SUCCESS);
    ++issued;
  }
  CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
  {
    std::lock_guard lock(pool.mutex);
    CHECK(pool.free.size() == runs.size());  // every callback ran and gave its buffers back
  }
  CHECK(g_callbacks.load() == issued);  // one callback per run, each output right
  CHECK(g_right.load() == issued);
  for (const Run& r : runs) {
    if (!r.used) continue;
    CHECK(r.checked);
    CHECK(r.ran_on == worker_id);
  }
  exit.store(true);
  worker.join();
  CHECK(aclrtUnSubscribeReport(tid, stream) == ACL_SUCCESS);
  CHECK(issued == 40);

  CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
  CHECK(aclrtDestroyContext(context) == ACL_SUCCESS);
  CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
  CHECK(aclFinalize() == ACL_SUCCESS);
  g_pool = nullptr;
}
