/* The execution family: aclopExecuteV2 (ranges at two shapes, output descriptions
 * rewritten, misses, constant data changed, fuzzy compiles), the handles,
 * aclopCompileAndExecute[V2], aclopInferShape and aclopSetMaxOpQueueNum. */
#include "op_util.h"

static float vals[64];

/* Compiles Add for f32[1~8,4] + f32[4]. */
static void compile_ranged_add(void) {
  const int64_t rows[] = {-1, 4}, d4[] = {4};
  Tensor in[2] = {f32_tensor(2, rows, NULL), f32_tensor(1, d4, NULL)};
  Tensor out = f32_tensor(2, rows, NULL);
  int64_t range[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 8}, {4, 4}};
  CHECK_OK(aclSetTensorShapeRange(in[0].desc, 2, range));
  CHECK_OK(aclSetTensorShapeRange(out.desc, 2, range));
  CHECK_OK(compile_op("Add", 2, in, 1, &out, NULL));
  free_tensor(&in[0]);
  free_tensor(&in[1]);
  free_tensor(&out);
}

/* Runs the ranged Add with `rows` rows; returns its status and checks the values. */
static aclError add_rows(int64_t rows) {
  const int64_t x_dims[] = {rows, 4}, d4[] = {4}, out_dims[] = {-1, 4};
  const float b[4] = {10, 20, 30, 40};
  Tensor in[2] = {f32_tensor(2, x_dims, vals), f32_tensor(1, d4, b)};
  Tensor out = f32_output(2, out_dims, 64);
  const aclError e = execute_op("Add", 2, in, 1, &out, NULL);
  if (e == ACL_SUCCESS) {
    const int64_t want_dims[] = {rows, 4};
    CHECK(dims_are(out.desc, 2, want_dims)); /* rewritten with the real dims */
    const float *y = (const float *)out.data;
    for (int64_t i = 0; i < rows * 4; ++i) CHECK(y[i] == vals[i] + b[i % 4]);
  }
  free_tensor(&in[0]);
  free_tensor(&in[1]);
  free_tensor(&out);
  return e;
}

static void test_execute(void) {
  compile_ranged_add();
  CHECK_OK(add_rows(3));
  CHECK_OK(add_rows(8)); /* a second shape of the range */
  CHECK_OK(add_rows(1));
  CHECK_ACL(add_rows(9), ACL_ERROR_OP_NOT_FOUND); /* outside the range */
  /* an op never compiled */
  const int64_t d4[] = {4};
  Tensor in[2] = {f32_tensor(1, d4, vals), f32_tensor(1, d4, vals)};
  Tensor out = f32_output(1, d4, 4);
  CHECK_ACL(execute_op("Sub", 2, in, 1, &out, NULL), ACL_ERROR_OP_NOT_FOUND);
  CHECK_ACL(execute_op("NoSuchOp", 2, in, 1, &out, NULL), ACL_ERROR_OP_NOT_FOUND);
  /* real dims are required at execution */
  const int64_t rows[] = {-1, 4};
  Tensor open = f32_tensor(2, rows, vals);
  Tensor args[2] = {open, in[1]};
  CHECK_ACL(execute_op("Add", 2, args, 1, &out, NULL), ACL_ERROR_INVALID_PARAM);
  /* an output buffer too small for the real output */
  const int64_t x_dims[] = {2, 4};
  Tensor x = f32_tensor(2, x_dims, vals);
  Tensor small = f32_output(2, x_dims, 3);
  Tensor xs[2] = {x, in[1]};
  CHECK_ACL(execute_op("Add", 2, xs, 1, &small, NULL), ACL_ERROR_INVALID_PARAM);
  /* null pointers, streams */
  Arrays a = arrays_of(2, xs), o = arrays_of(1, &out);
  CHECK_ACL(aclopExecuteV2("Add", 2, a.desc, NULL, 1, o.desc, o.buf, NULL, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopExecuteV2(NULL, 2, a.desc, a.buf, 1, o.desc, o.buf, NULL, NULL), ACL_ERROR_INVALID_PARAM);
  int not_a_stream = 0;
  CHECK_ACL(aclopExecuteV2("Add", 2, a.desc, a.buf, 1, o.desc, o.buf, NULL, &not_a_stream), ACL_ERROR_INVALID_PARAM);
  Tensor all[] = {in[0], in[1], out, open, x, small};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

static void test_attributes_and_constants(void) {
  const int64_t d23[] = {2, 3}, d3[] = {3};
  Tensor x = f32_tensor(2, d23, vals), y = f32_output(2, d23, 6);
  aclopAttr *axis0 = aclopCreateAttr(), *axis1 = aclopCreateAttr();
  CHECK_OK(aclopSetAttrInt(axis0, "axis", 0));
  CHECK_OK(aclopSetAttrInt(axis1, "axis", 1));
  CHECK_OK(compile_op("Softmax", 1, &x, 1, &y, axis0));
  CHECK_OK(execute_op("Softmax", 1, &x, 1, &y, axis0));
  CHECK_ACL(execute_op("Softmax", 1, &x, 1, &y, axis1), ACL_ERROR_OP_NOT_FOUND); /* other attributes */
  /* a constant input: the same data runs, other data is an error */
  const float c[3] = {1, 2, 3}, other[3] = {1, 2, 4};
  Tensor k = f32_tensor(1, d3, c);
  CHECK_OK(aclSetTensorConst(k.desc, (void *)c, sizeof c));
  Tensor in[2] = {x, k};
  CHECK_OK(compile_op("Mul", 2, in, 1, &y, NULL));
  CHECK_OK(execute_op("Mul", 2, in, 1, &y, NULL));
  CHECK(((float *)y.data)[5] == vals[5] * 3);
  CHECK_OK(aclSetTensorConst(k.desc, (void *)other, sizeof other));
  memcpy(k.data, other, sizeof other);
  in[1] = k;
  CHECK_ACL(execute_op("Mul", 2, in, 1, &y, NULL), ACL_ERROR_OP_INPUT_NOT_MATCH);
  aclopDestroyAttr(axis0);
  aclopDestroyAttr(axis1);
  free_tensor(&x);
  free_tensor(&y);
  free_tensor(&k);
}

static void test_fuzzy(void) {
  const int64_t d23[] = {2, 3}, d57[] = {5, 7}, d5[] = {5};
  Tensor a = f32_tensor(2, d23, vals), ay = f32_output(2, d23, 6);
  CHECK_OK(aclopSetCompileFlag(ACL_OP_COMPILE_FUZZ));
  CHECK_OK(compile_op("Relu", 1, &a, 1, &ay, NULL));
  CHECK_OK(aclopSetCompileFlag(ACL_OP_COMPILE_DEFAULT));
  Tensor b = f32_tensor(2, d57, vals), by = f32_output(2, d57, 35);
  CHECK_OK(execute_op("Relu", 1, &b, 1, &by, NULL)); /* the fuzzy compile serves another shape */
  CHECK(dims_are(by.desc, 2, d57));
  Tensor c = f32_tensor(1, d5, vals), cy = f32_output(1, d5, 5);
  CHECK_ACL(execute_op("Relu", 1, &c, 1, &cy, NULL), ACL_ERROR_OP_NOT_FOUND); /* another rank */
  /* ACL_OP_JIT_COMPILE "disable" generalises as well */
  CHECK_OK(aclSetCompileopt(ACL_OP_JIT_COMPILE, "disable"));
  CHECK_OK(compile_op("Tanh", 1, &a, 1, &ay, NULL));
  CHECK_OK(aclSetCompileopt(ACL_OP_JIT_COMPILE, "enable"));
  CHECK_OK(execute_op("Tanh", 1, &b, 1, &by, NULL));
  CHECK_OK(compile_op("Sigmoid", 1, &a, 1, &ay, NULL)); /* exact again */
  CHECK_ACL(execute_op("Sigmoid", 1, &b, 1, &by, NULL), ACL_ERROR_OP_NOT_FOUND);
  Tensor all[] = {a, ay, b, by, c, cy};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

static void test_handles(void) {
  const int64_t x_dims[] = {3, 4}, d4[] = {4};
  Tensor in[2] = {f32_tensor(2, x_dims, vals), f32_tensor(1, d4, vals)};
  Tensor out = f32_output(2, x_dims, 12);
  Arrays i = arrays_of(2, in), o = arrays_of(1, &out);
  const aclTensorDesc *const *id = (const aclTensorDesc *const *)i.desc;
  const aclTensorDesc *const *od = (const aclTensorDesc *const *)o.desc;
  aclopHandle *h = NULL;
  CHECK_OK(aclopCreateHandle("Add", 2, id, 1, od, NULL, &h)); /* served by the ranged Add */
  CHECK(h != NULL);
  CHECK_OK(aclopExecWithHandle(h, 2, (const aclDataBuffer *const *)i.buf, 1, o.buf, NULL));
  CHECK(((float *)out.data)[11] == vals[11] + vals[3]);
  CHECK_ACL(aclopExecWithHandle(h, 1, (const aclDataBuffer *const *)i.buf, 1, o.buf, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopExecWithHandle(NULL, 2, (const aclDataBuffer *const *)i.buf, 1, o.buf, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopExecWithHandle(h, 2, NULL, 1, o.buf, NULL), ACL_ERROR_INVALID_PARAM);
  aclopDestroyHandle(h);
  aclopHandle *none = NULL;
  CHECK_ACL(aclopCreateHandle("Sub", 2, id, 1, od, NULL, &none), ACL_ERROR_OP_NOT_FOUND);
  CHECK_ACL(aclopCreateHandle("Add", 2, id, 1, od, NULL, NULL), ACL_ERROR_INVALID_PARAM);
  free_tensor(&in[0]);
  free_tensor(&in[1]);
  free_tensor(&out);
}

static void test_compile_and_execute(void) {
  const int64_t d4[] = {4}, open[] = {-1};
  const float b[4] = {2, 2, 2, 2};
  Tensor in[2] = {f32_tensor(1, d4, vals), f32_tensor(1, d4, b)};
  Tensor out = f32_output(1, open, 4);
  Arrays i = arrays_of(2, in), o = arrays_of(1, &out);
  CHECK_OK(aclopCompileAndExecuteV2("Mul", 2, i.desc, i.buf, 1, o.desc, o.buf, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS,
                                    NULL, NULL));
  CHECK(dims_are(out.desc, 1, d4));
  CHECK(((float *)out.data)[3] == vals[3] * 2);
  CHECK_OK(aclopCompileAndExecute("Sub", 2, (const aclTensorDesc *const *)i.desc, (const aclDataBuffer *const *)i.buf, 1,
                                  (const aclTensorDesc *const *)o.desc, o.buf, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS,
                                  NULL, NULL));
  CHECK(((float *)out.data)[3] == vals[3] - 2);
  CHECK_ACL(aclopCompileAndExecuteV2("Mul", 2, i.desc, i.buf, 1, o.desc, o.buf, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS,
                                     "/opp", NULL),
            ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCompileAndExecuteV2("NoSuchOp", 2, i.desc, i.buf, 1, o.desc, o.buf, NULL, ACL_ENGINE_SYS,
                                     ACL_COMPILE_SYS, NULL, NULL),
            ACL_ERROR_OP_NOT_FOUND);
  free_tensor(&in[0]);
  free_tensor(&in[1]);
  free_tensor(&out);
}

static void test_infer_shape(void) {
  const int64_t rows[] = {-1, 4}, d4[] = {4}, d2[] = {2}, d8[] = {8};
  Tensor in[2] = {f32_tensor(2, rows, NULL), f32_tensor(1, d4, NULL)};
  int64_t range[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 8}, {4, 4}};
  CHECK_OK(aclSetTensorShapeRange(in[0].desc, 2, range));
  Tensor out = f32_output(0, NULL, 1);
  Arrays i = arrays_of(2, in), o = arrays_of(1, &out);
  CHECK_OK(aclopInferShape("Add", 2, i.desc, i.buf, 1, o.desc, NULL));
  CHECK(dims_are(out.desc, 2, rows));
  int64_t r[2];
  CHECK_OK(aclGetTensorDescDimRange(out.desc, 0, 2, r));
  CHECK(r[0] == 1 && r[1] == 8);
  /* a Reshape's shape read from its buffer */
  const int64_t shape[2] = {2, 4};
  Tensor rs[2] = {f32_tensor(1, d8, NULL), make_tensor(ACL_INT64, 1, d2, shape, sizeof shape)};
  Arrays ri = arrays_of(2, rs);
  CHECK_OK(aclopInferShape("Reshape", 2, ri.desc, ri.buf, 1, o.desc, NULL));
  CHECK(dims_are(out.desc, 2, shape));
  CHECK_ACL(aclopInferShape("NoSuchOp", 2, ri.desc, ri.buf, 1, o.desc, NULL), ACL_ERROR_OP_NOT_FOUND);
  CHECK_ACL(aclopInferShape("Add", 2, NULL, NULL, 1, o.desc, NULL), ACL_ERROR_INVALID_PARAM);
  Tensor all[] = {in[0], in[1], out, rs[0], rs[1]};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

static void test_queue(void) {
  CHECK_ACL(aclopSetMaxOpQueueNum(0), ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG);
  CHECK_OK(aclopSetMaxOpQueueNum(1));
  const int64_t d4[] = {4}, d5[] = {5};
  Tensor a = f32_tensor(1, d4, vals), ay = f32_output(1, d4, 4);
  Tensor b = f32_tensor(1, d5, vals), by = f32_output(1, d5, 5);
  CHECK_OK(compile_op("Neg", 1, &a, 1, &ay, NULL));
  CHECK_OK(execute_op("Neg", 1, &a, 1, &ay, NULL));
  CHECK_OK(compile_op("Neg", 1, &b, 1, &by, NULL)); /* evicts the first: the queue holds one */
  CHECK_ACL(execute_op("Neg", 1, &a, 1, &ay, NULL), ACL_ERROR_OP_NOT_FOUND);
  CHECK_OK(execute_op("Neg", 1, &b, 1, &by, NULL));
  CHECK_OK(aclopSetMaxOpQueueNum(20000));
  Tensor all[] = {a, ay, b, by};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

int main(void) {
  for (int i = 0; i < 64; ++i) vals[i] = (float)(i % 7) - 3.0f;
  const int64_t d4[] = {4};
  Tensor x = f32_tensor(1, d4, vals), y = f32_output(1, d4, 4);
  CHECK_ACL(execute_op("Relu", 1, &x, 1, &y, NULL), ACL_ERROR_UNINITIALIZE);
  CHECK_OK(aclInit(NULL));
  test_execute();
  test_attributes_and_constants();
  test_fuzzy();
  test_handles();
  test_compile_and_execute();
  test_infer_shape();
  test_queue();
  CHECK_OK(aclFinalize());
  CHECK_OK(aclInit(NULL));
  CHECK_ACL(execute_op("Relu", 1, &x, 1, &y, NULL), ACL_ERROR_OP_NOT_FOUND); /* aclFinalize dropped the compiled ops */
  CHECK_OK(aclFinalize());
  free_tensor(&x);
  free_tensor(&y);
  return check_report("acl op exec");
}
