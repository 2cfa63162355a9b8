// bench/gears: the gears ge::choose_gears picks for a BERT encoder layer from a skewed
// 1..128 sequence-length histogram (most requests short, a long tail), against the
// powers of two a user would write by hand (16, 32, 64, 128): the expected FLOPs per
// request, and the expected latency per request measured on this machine (each gear's
// median run, weighted by the requests it serves after padding).
//
//   ge_bench_gears [K (default 4)] [runs per gear (default 30)] [threads (default 1)]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ge/ge.hpp"
#include "models/bert_encoder.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

constexpr std::int64_t max_len = 128;

// Requests per length: a bump around 18 tokens and a flat tail to 128.
std::vector<std::int64_t> length_counts() {
  std::vector<std::int64_t> counts(max_len + 1, 0);
  for (std::int64_t s = 1; s <= max_len; ++s)
    counts[static_cast<std::size_t>(s)] =
        2 + static_cast<std::int64_t>(400.0 * std::exp(-static_cast<double>((s - 18) * (s - 18)) / 120.0));
  return counts;
}

std::string histogram_text(const std::vector<std::int64_t>& counts) {
  std::string text;
  for (std::int64_t s = 1; s <= max_len; ++s) {
    const std::string n = std::to_string(s);
    text += "hidden_states:1," + n + ",256;attention_mask:1," + n + " " +
            std::to_string(counts[static_cast<std::size_t>(s)]) + "\n";
  }
  return text;
}

// The median latency (ms) of a run at sequence length `s` on `session`.
double median_ms(ge::Session& session, std::int64_t s, int runs) {
  std::vector<float> x(static_cast<std::size_t>(s * 256), 0.5f);
  std::vector<std::int64_t> mask(static_cast<std::size_t>(s), 1);
  const ge::TensorView in[] = {ge::TensorView(std::span<float>(x), {1, s, 256}),
                               ge::TensorView(std::span<std::int64_t>(mask), {1, s})};
  for (int i = 0; i < 3; ++i) (void)session.run(in);
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto t = clock_type::now();
    (void)session.run(in);
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t).count());
  }
  std::nth_element(ms.begin(), ms.begin() + runs / 2, ms.end());
  return ms[static_cast<std::size_t>(runs / 2)];
}

struct Row {
  std::string name;
  std::vector<std::int64_t> gears;
  double flops = 0, ms = 0;  // expected per request
  std::int64_t arena = 0;
};

// Compiles `gears` (sequence lengths) and measures the expected work and latency per request.
Row measure(const std::string& name, const std::vector<std::int64_t>& gears, const std::vector<std::int64_t>& counts,
            const ge::Graph& g, int runs, int threads) {
  std::string dims;
  for (const std::int64_t s : gears) dims += (dims.empty() ? "" : ";") + std::to_string(s) + "," + std::to_string(s);
  const auto model = ge::compile(g, {{"ge.inputShape", "hidden_states:1,-1,256;attention_mask:1,-1"},
                                     {"ge.dynamicDims", dims}});
  ge::Session session(model, {.threads = threads});
  Row row{name, gears};
  row.arena = model->arena_bytes();
  std::vector<double> gear_ms, gear_flops;
  for (std::size_t i = 0; i < gears.size(); ++i) {
    gear_ms.push_back(median_ms(session, gears[i], runs));
    gear_flops.push_back(ge::plan_flops(*model->plans()[i]).value_or(0));
  }
  double total = 0;
  for (std::int64_t s = 1; s <= max_len; ++s) {
    std::size_t at = 0;  // the smallest gear that holds s
    for (std::size_t i = 0; i < gears.size(); ++i)
      if (gears[i] >= s && (gears[at] < s || gears[i] < gears[at])) at = i;
    const auto n = static_cast<double>(counts[static_cast<std::size_t>(s)]);
    row.ms += n * gear_ms[at];
    row.flops += n * gear_flops[at];
    total += n;
  }
  row.ms /= total;
  row.flops /= total;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t k = argc > 1 ? static_cast<std::size_t>(std::atoi(argv[1])) : 4;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 30;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  const ge::Graph g = ge::models::bert_encoder("1", "-1");
  const std::vector<std::int64_t> counts = length_counts();
  const auto ranged = ge::compile(g, {{"ge.inputShape", "hidden_states:1,1~128,256;attention_mask:1,1~128"}});
  const auto t = clock_type::now();
  const ge::GearChoice c =
      ge::choose_gears(*ranged, ge::parse_shape_histogram(histogram_text(counts)), {.max_gears = k, .max_arena = {}});
  const double choose_ms = std::chrono::duration<double, std::milli>(clock_type::now() - t).count();
  std::printf("BERT encoder layer (hidden 256, 4 heads), batch 1, lengths 1..128 (bump at 18, flat tail), %zu gears,\n"
              "%d runs per gear, %d thread(s). choose_gears took %.0f ms (%zu plans built); chosen: %s %s, "
              "expected %.2f MFLOP per request (%.2f at length 128), waste %.1f%% against own sizes\n\n",
              k, runs, threads, choose_ms, static_cast<std::size_t>(max_len), c.input_shape.c_str(),
              c.option_text.c_str(), c.expected_work / 1e6, c.gears.back().flops / 1e6, c.waste_percent);
  std::vector<std::int64_t> chosen;
  for (const ge::ChosenGear& gear : c.gears) chosen.push_back(gear.values.front());
  std::vector<std::int64_t> pow2;
  for (std::int64_t s = max_len; pow2.size() < k && s >= 1; s /= 2) pow2.insert(pow2.begin(), s);
  const Row rows[] = {measure("choose_gears", chosen, counts, g, runs, threads),
                      measure("powers of two", pow2, counts, g, runs, threads)};
  std::printf("%-14s %-22s %16s %16s %12s\n", "gears", "lengths", "MFLOP/request", "ms/request", "arena bytes");
  for (const Row& r : rows) {
    std::string lengths;
    for (const std::int64_t s : r.gears) lengths += (lengths.empty() ? "" : ",") + std::to_string(s);
    std::printf("%-14s %-22s %16.2f %16.4f %12lld\n", r.name.c_str(), lengths.c_str(), r.flops / 1e6, r.ms,
                static_cast<long long>(r.arena));
  }
  std::printf("\nchoose_gears saves %.1f%% of the FLOPs and %.1f%% of the latency per request against powers of two\n",
              (1 - rows[0].flops / rows[1].flops) * 100, (1 - rows[0].ms / rows[1].ms) * 100);
  return 0;
}
