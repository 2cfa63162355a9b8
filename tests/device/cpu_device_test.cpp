// Tests of ge/device/cpu_device.hpp: memory, launches, events across threads, errors.
#include <doctest/doctest.h>

#include "support/expect_error.hpp"

#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include "ge/core/error.hpp"
#include "ge/device/cpu_device.hpp"

namespace {
using ge::test::expect_error;
void add_one(const void* args) { ++*static_cast<int*>(const_cast<void*>(args)); }
}  // namespace

TEST_CASE("memory: aligned, accounted, copied") {
  ge::CpuDevice dev;
  void* a = dev.allocate(1000, 64);
  void* b = dev.allocate(0, 256);
  CHECK(reinterpret_cast<std::uintptr_t>(a) % 64 == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(b) % 256 == 0);
  CHECK(dev.bytes_in_use() == 1024 + 256);
  const char text[] = "ge";
  dev.copy(a, text, 3);
  CHECK(std::strcmp(static_cast<const char*>(a), "ge") == 0);
  dev.deallocate(a);
  dev.deallocate(b);
  dev.deallocate(nullptr);
  CHECK(dev.bytes_in_use() == 0);
  CHECK(dev.peak_bytes() == 1280);
  expect_error([&] { (void)dev.allocate(-1, 64); }, ge::Errc::invalid_argument, "-1 bytes");
  expect_error([&] { (void)dev.allocate(8, 3); }, ge::Errc::invalid_argument, "power of two");
  expect_error([&] { dev.copy(nullptr, text, 3); }, ge::Errc::invalid_argument, "null");
}

TEST_CASE("launches run in order on their stream") {
  ge::CpuDevice dev;
  const auto s = dev.create_stream();
  int counter = 0;
  dev.launch(s, {add_one, &counter});
  dev.launch(s, {add_one, &counter});
  dev.synchronize(s);
  CHECK(counter == 2);
  CHECK(dev.stream_count() == 1);
  expect_error([&] { dev.launch(ge::Stream{5}, {add_one, &counter}); }, ge::Errc::invalid_argument, "stream 5");
  expect_error([&] { dev.launch(s, {nullptr, nullptr}); }, ge::Errc::invalid_argument, "null kernel");
}

TEST_CASE("an event orders work across streams and threads") {
  ge::CpuDevice dev;
  const auto s0 = dev.create_stream(), s1 = dev.create_stream();
  const auto ev = dev.create_event();
  std::atomic<int> value{0};
  int seen = -1;
  std::thread consumer([&] {
    dev.wait(s1, ev);  // blocks until the producer records
    seen = value.load();
  });
  value.store(42);
  dev.record(ev, s0);
  consumer.join();
  CHECK(seen == 42);
  dev.reset(ev);
  CHECK(dev.event_count() == 1);
  expect_error([&] { dev.record(ge::Event{3}, s0); }, ge::Errc::invalid_argument, "event 3");
  expect_error([&] { dev.wait(ge::Stream{-1}, ev); }, ge::Errc::invalid_argument, "stream -1");
}
