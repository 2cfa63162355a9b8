// Shape inference of RNN, GRU and LSTM: layouts, directions, optional outputs, and an
// error for each bad attribute.
#include "ops/infer_helpers.hpp"

using namespace ge_test;
using ge::Errc;

TEST_CASE("RNN, GRU and LSTM: output shapes by layout and direction") {
  const auto r = infer("RNN", {t("f32", "5,2~3,4"), t("f32", "1,3,4"), t("f32", "1,3,3")}, {{"hidden_size", 3}}, 2);
  CHECK(r[0].shape.to_string() == "5,1,2~3,3");
  CHECK(r[1].shape.to_string() == "1,2~3,3");
  const auto g = infer("GRU", {t("f32", "2,5,4"), t("f32", "2,18,4"), t("f32", "2,18,6")},
                       {{"direction", std::string("bidirectional")}, {"layout", 1}}, 2);
  CHECK(g[0].shape.to_string() == "2,5,2,6");  // hidden_size from R
  CHECK(g[1].shape.to_string() == "2,2,6");
  const auto l = infer("LSTM", {t("f64", "5,2,4"), t("f64", "1,12,4"), t("f64", "1,12,3")}, {}, 3);
  CHECK(l[2].shape.to_string() == "1,2,3");
  CHECK(l[2].dtype == ge::DataType::f64);
}

TEST_CASE("RNN, GRU and LSTM: each bad attribute is a clear error") {
  const std::vector<In> rnn{t("f32", "5,2,4"), t("f32", "1,3,4"), t("f32", "1,3,3")};
  check_infer_error("RNN", rnn, {{"direction", std::string("sideways")}}, Errc::bad_attribute, "'direction'",
                    "bidirectional");
  check_infer_error("RNN", rnn, {{"layout", 2}}, Errc::bad_attribute, "'layout'");
  check_infer_error("RNN", rnn, {{"hidden_size", 0}}, Errc::bad_attribute, "'hidden_size'");
  check_infer_error("RNN", rnn, {{"hidden_size", 4}}, Errc::bad_op_inputs, "hidden_size");
  check_infer_error("RNN", rnn, {{"clip", 0.0}}, Errc::bad_attribute, "'clip'");
  check_infer_error("RNN", rnn, {{"activations", std::vector<std::string>{"Cube"}}}, Errc::bad_attribute,
                    "'activations'", "Cube");
  check_infer_error("RNN", rnn, {{"activations", std::vector<std::string>{"Relu", "Tanh", "Elu"}}},
                    Errc::bad_attribute, "3 names");
  check_infer_error("RNN", rnn, {{"direction", std::string("bidirectional")}}, Errc::bad_op_inputs, "direction count");
  check_infer_error("GRU", {t("f32", "5,2,4"), t("f32", "1,9,4"), t("f32", "1,9,3")}, {{"linear_before_reset", 2}},
                    Errc::bad_attribute, "'linear_before_reset'");
  check_infer_error("GRU", {t("f32", "5,2,4"), t("f32", "1,8,4"), t("f32", "1,8,3")}, {}, Errc::bad_op_inputs,
                    "gates * hidden_size");
  check_infer_error("LSTM", {t("f32", "5,2,4"), t("f32", "1,12,4"), t("f32", "1,12,3")}, {{"input_forget", -1}},
                    Errc::bad_attribute, "'input_forget'");
  check_infer_error("LSTM", {t("f32", "5,2"), t("f32", "1,12,4"), t("f32", "1,12,3")}, {}, Errc::bad_op_inputs,
                    "rank");
  // Optional inputs of the wrong rank (a scalar B was read past its dims: found by fuzz_compile_op).
  check_infer_error("RNN", {t("f32", "5,2,4"), t("f32", "1,3,4"), t("f32", "1,3,3"), t("f32", "")}, {},
                    Errc::bad_op_inputs, "rank");
  check_infer_error("GRU", {t("f32", "5,2,4"), t("f32", "1,9,4"), t("f32", "1,9,3"), t("f32", "1,18"), t("i32", "2,1")},
                    {}, Errc::bad_op_inputs, "rank");
  check_infer_error("LSTM",
                    {t("f32", "5,2,4"), t("f32", "1,12,4"), t("f32", "1,12,3"), t("f32", "1,24"), t("i32", "2"),
                     t("f32", "1,2,3"), t("f32", "1,2,3"), t("f32", "1,9,1")},
                    {}, Errc::bad_op_inputs, "rank");
}
