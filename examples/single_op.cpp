// Single-op use (GE's aclopCompile / aclopExecuteV2 in C++): compile one Conv for a
// batch range once, then run it on real tensors, sizing the outputs with output_dims.
// A bad input is a ge::Error that says what was wrong.
#include <cstdio>
#include <string>
#include <vector>

#include "ge/ge.hpp"

int main() {
  try {
    using ge::OpTensor;
    // Conv 3 -> 8 channels, 3x3, pad 1, over a batch of 1 to 4 images of 16x16; the weights
    // are constant (packed once, at compile time).
    const ge::Tensor w = ge::Tensor::random(ge::DataType::f32, {8, 3, 3, 3}, 7);
    const auto op = ge::compile_op(
        "Conv", {OpTensor{ge::DataType::f32, ge::Shape::parse("1~4,3,16,16")}, OpTensor::constant_of(w)},
        {OpTensor{ge::DataType::f32, ge::Shape::parse("1~4,8,16,16")}}, {{"pads", {1, 1, 1, 1}}});
    std::printf("compiled %s: kernel %s, output [%s]\n", op->op_type.c_str(), std::string(op->kernel->name()).c_str(),
                op->outputs[0].shape.to_string().c_str());

    for (const std::int64_t batch : {1, 3}) {
      std::vector<float> x(static_cast<std::size_t>(batch * 3 * 16 * 16), 1.f);
      const std::int64_t xd[] = {batch, 3, 16, 16};
      const std::vector<ge::TensorView> in{{x.data(), ge::DataType::f32, xd},
                                           {const_cast<std::byte*>(w.bytes().data()), ge::DataType::f32, w.dims()}};
      const std::vector<std::int64_t> yd = op->output_dims(in)[0];
      std::vector<float> y(static_cast<std::size_t>(yd[0] * yd[1] * yd[2] * yd[3]));
      ge::execute_op(*op, in, std::vector<ge::TensorView>{{y.data(), ge::DataType::f32, yd}});
      std::printf("batch %lld: output [%lld,%lld,%lld,%lld], y[0] = %.4f\n", static_cast<long long>(batch),
                  static_cast<long long>(yd[0]), static_cast<long long>(yd[1]), static_cast<long long>(yd[2]),
                  static_cast<long long>(yd[3]), static_cast<double>(y[0]));
    }

    // Batch 5 is outside what was compiled: a clear error, not a crash.
    std::vector<float> x(5 * 3 * 16 * 16, 1.f);
    const std::int64_t xd[] = {5, 3, 16, 16};
    try {
      (void)op->output_dims(std::vector<ge::TensorView>{
          {x.data(), ge::DataType::f32, xd}, {const_cast<std::byte*>(w.bytes().data()), ge::DataType::f32, w.dims()}});
      std::printf("single_op: batch 5 was accepted\n");
      return 1;
    } catch (const ge::Error& e) {
      std::printf("batch 5: %s [%s]\n", e.what(), std::string(ge::to_string(e.code())).c_str());
    }
    std::printf("single_op: ok\n");
    return 0;
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "single_op: %s\n", e.what());
    return 1;
  }
}
