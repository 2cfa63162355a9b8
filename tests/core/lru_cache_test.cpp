// Tests of ge/core/lru_cache.hpp: hits, misses, eviction order, errors, threads.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ge/core/lru_cache.hpp"
#include "support/expect_error.hpp"

using ge::test::expect_error;

TEST_CASE("hits, misses and least-recently-used eviction") {
  ge::LruCache<int> cache(2);
  int made = 0;
  const auto make = [&](int v) {
    return [&made, v] {
      ++made;
      return std::make_shared<const int>(v);
    };
  };
  CHECK(*cache.get_or_create("a", make(1)) == 1);
  CHECK(*cache.get_or_create("b", make(2)) == 2);
  CHECK(*cache.get_or_create("a", make(99)) == 1);  // hit: "a" is now the most recent
  CHECK(made == 2);
  CHECK(*cache.get_or_create("c", make(3)) == 3);   // evicts "b"
  CHECK(cache.find("b") == nullptr);
  CHECK(cache.find("a") != nullptr);
  const auto s = cache.stats();
  CHECK(s.hits == 1);
  CHECK(s.misses == 3);
  CHECK(s.evictions == 1);
  CHECK(s.size == 2);
  CHECK(s.capacity == 2);
  cache.set_capacity(1);
  CHECK(cache.stats().evictions == 2);
  CHECK(cache.stats().size == 1);
  cache.clear();
  CHECK(cache.stats().size == 0);
}

TEST_CASE("an evicted value lives on while held; a throwing create stores nothing") {
  ge::LruCache<std::string> cache(1);
  const auto held = cache.get_or_create("x", [] { return std::make_shared<const std::string>("kept"); });
  (void)cache.get_or_create("y", [] { return std::make_shared<const std::string>("y"); });
  CHECK(*held == "kept");
  CHECK_THROWS_AS(cache.get_or_create("z", []() -> std::shared_ptr<const std::string> { throw std::runtime_error("no"); }),
                  std::runtime_error);
  CHECK(cache.find("z") == nullptr);
}

TEST_CASE("capacity 0 is a ge::Error") {
  CHECK_THROWS_AS(ge::LruCache<int>(0), ge::Error);
  ge::LruCache<int> c(3);
  expect_error([&] { c.set_capacity(0); }, ge::Errc::invalid_argument);
}

TEST_CASE("concurrent use from several threads") {
  ge::LruCache<int> cache(16);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const int k = (i * 7 + t) % 40;
        const auto v = cache.get_or_create(std::to_string(k), [k] { return std::make_shared<const int>(k); });
        if (*v != k) wrong.fetch_add(1);
      }
    });
  for (auto& t : threads) t.join();
  CHECK(wrong.load() == 0);
  const auto s = cache.stats();
  CHECK(s.hits + s.misses == 8000);
  CHECK(s.size <= 16);
}
