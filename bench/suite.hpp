#pragma once
// `ge_bench_models --suite`: the wide model suite (bench/suite.cpp, docs/bench.md), linked
// into ge_bench_models; models.cpp only hands its arguments over.

namespace ge_bench {

// Whether the arguments ask for the suite: --suite, --suite-models, or --suite-child (the
// suite's own child process, one model in ge).
bool suite_requested(int argc, char** argv);

// The suite, with all of ge_bench_models' arguments (its own: docs/bench.md).
int suite_main(int argc, char** argv);

}  // namespace ge_bench
