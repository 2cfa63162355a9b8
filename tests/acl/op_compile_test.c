/* The compile family: aclopCompile's rules (counts, null pointers, engine and compile
 * types, opPath, unknown op, optional and unknown-rank inputs, types and formats) and the
 * compile options (aclSetCompileopt, aclGetCompileopt[Size], aclopSetCompileFlag). */
#include "op_util.h"

static const int64_t row16[] = {-1, 16};
static const int64_t d16[] = {16};

static void test_before_init(void) {
  Tensor in[2] = {f32_tensor(2, row16, NULL), f32_tensor(1, d16, NULL)};
  Tensor out[1] = {f32_tensor(2, row16, NULL)};
  CHECK_ACL(compile_op("Add", 2, in, 1, out, NULL), ACL_ERROR_UNINITIALIZE);
  for (int i = 0; i < 2; ++i) free_tensor(&in[i]);
  free_tensor(&out[0]);
}

static void test_compile_rules(void) {
  Tensor in[2] = {f32_tensor(2, row16, NULL), f32_tensor(1, d16, NULL)};
  Tensor out[1] = {f32_tensor(2, row16, NULL)};
  int64_t range[2][ACL_TENSOR_SHAPE_RANGE_NUM] = {{1, 8}, {16, 16}};
  CHECK_OK(aclSetTensorShapeRange(in[0].desc, 2, range));
  CHECK_OK(aclSetTensorShapeRange(out[0].desc, 2, range));
  CHECK_OK(compile_op("Add", 2, in, 1, out, NULL));
  CHECK_OK(compile_op("Add", 2, in, 1, out, NULL)); /* again: a cache hit */
  Arrays i = arrays_of(2, in), o = arrays_of(1, out);
  const aclTensorDesc *const *id = (const aclTensorDesc *const *)i.desc;
  const aclTensorDesc *const *od = (const aclTensorDesc *const *)o.desc;
  CHECK_OK(aclopCompile("Add", 2, id, 1, od, NULL, ACL_ENGINE_AICORE, ACL_COMPILE_SYS, NULL));
  CHECK_OK(aclopCompile("Add", 2, id, 1, od, NULL, ACL_ENGINE_VECTOR, ACL_COMPILE_SYS, NULL));
  CHECK_ACL(aclopCompile("Add", 2, id, 1, od, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, "/opp/kernels"), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCompile(NULL, 2, id, 1, od, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCompile("Add", 2, NULL, 1, od, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCompile("Add", 2, id, 1, NULL, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCompile("Add", -1, id, 1, od, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCompile("Add", 2, id, 1, od, NULL, (aclopEngineType)7, ACL_COMPILE_SYS, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCompile("Add", 2, id, 1, od, NULL, ACL_ENGINE_SYS, (aclopCompileType)5, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopCompile("Add", 2, id, 1, od, NULL, ACL_ENGINE_SYS, ACL_COMPILE_UNREGISTERED, NULL), ACL_ERROR_API_NOT_SUPPORT);
  CHECK_ACL(aclopCompile("NoSuchOp", 2, id, 1, od, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL), ACL_ERROR_OP_NOT_FOUND);
  /* counts that disagree with the op */
  CHECK_ACL(aclopCompile("Add", 1, id, 1, od, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL), ACL_ERROR_OP_INPUT_NOT_MATCH);
  CHECK_ACL(aclopCompile("Relu", 2, id, 1, od, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL), ACL_ERROR_OP_INPUT_NOT_MATCH);
  /* a null entry in the array */
  aclTensorDesc *holey[2] = {in[0].desc, NULL};
  CHECK_ACL(aclopCompile("Add", 2, (const aclTensorDesc *const *)holey, 1, od, NULL, ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL),
            ACL_ERROR_INVALID_PARAM);
  for (int k = 0; k < 2; ++k) free_tensor(&in[k]);
  free_tensor(&out[0]);
}

static void test_descriptions_at_compile(void) {
  const int64_t d23[] = {2, 3}, unknown_rank[] = {-2};
  Tensor x = f32_tensor(2, d23, NULL), y = f32_tensor(2, d23, NULL);
  /* an output type that disagrees with the op's */
  Tensor yi = make_tensor(ACL_INT32, 2, d23, NULL, 24);
  CHECK_ACL(compile_op("Relu", 1, &x, 1, &yi, NULL), ACL_ERROR_UNSUPPORTED_DATA_TYPE);
  /* string data and packed device formats have no meaning here */
  Tensor s = make_tensor(ACL_STRING, 2, d23, NULL, 8);
  CHECK_ACL(compile_op("Relu", 1, &s, 1, &y, NULL), ACL_ERROR_UNSUPPORTED_DATA_TYPE);
  Tensor z = f32_tensor(2, d23, NULL);
  aclDestroyTensorDesc(z.desc);
  z.desc = aclCreateTensorDesc(ACL_FLOAT, 2, d23, ACL_FORMAT_FRACTAL_Z);
  CHECK_ACL(compile_op("Relu", 1, &z, 1, &y, NULL), ACL_ERROR_FORMAT_NOT_MATCH);
  /* unknown rank: dims exactly {-2} */
  Tensor r[2] = {f32_tensor(1, unknown_rank, NULL), f32_tensor(1, unknown_rank, NULL)};
  CHECK_OK(compile_op("Relu", 1, &r[0], 1, &r[1], NULL));
  /* -3 is no dim */
  const int64_t bad[] = {-3, 2};
  Tensor b = f32_tensor(2, bad, NULL);
  CHECK_ACL(compile_op("Relu", 1, &b, 1, &y, NULL), ACL_ERROR_INVALID_PARAM);
  /* the unused optional input: MatMulV2 without bias; a required input cannot be unused */
  const int64_t d32[] = {3, 2}, d22[] = {2, 2};
  Tensor mm[3] = {f32_tensor(2, d23, NULL), f32_tensor(2, d32, NULL), no_tensor()};
  Tensor mo = f32_tensor(2, d22, NULL);
  CHECK_OK(compile_op("MatMulV2", 3, mm, 1, &mo, NULL));
  Tensor add[2] = {f32_tensor(2, d23, NULL), no_tensor()};
  CHECK_ACL(compile_op("Add", 2, add, 1, &y, NULL), ACL_ERROR_OP_INPUT_NOT_MATCH);
  /* a constant whose data does not fit its dims */
  const int64_t d2[] = {2};
  Tensor c = f32_tensor(1, d2, NULL);
  float three[3] = {1, 2, 3};
  CHECK_OK(aclSetTensorConst(c.desc, three, sizeof three));
  Tensor cx[2] = {f32_tensor(1, d2, NULL), c};
  Tensor co = f32_tensor(1, d2, NULL);
  CHECK_ACL(compile_op("Add", 2, cx, 1, &co, NULL), ACL_ERROR_INVALID_PARAM);
  Tensor all[] = {x, y, yi, s, z, r[0], r[1], b, mm[0], mm[1], mm[2], mo, add[0], add[1], cx[0], cx[1], co};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

static void test_options(void) {
  CHECK_ACL(aclSetCompileopt(ACL_OP_JIT_COMPILE, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetCompileopt((aclCompileOpt)99, "x"), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclSetCompileopt(ACL_OP_JIT_COMPILE, "maybe"), ACL_ERROR_INVALID_PARAM);
  CHECK(aclGetCompileoptSize(ACL_OP_JIT_COMPILE) == 1); /* never set: "" */
  CHECK_OK(aclSetCompileopt(ACL_OP_JIT_COMPILE, "disable"));
  CHECK(aclGetCompileoptSize(ACL_OP_JIT_COMPILE) == 8);
  char value[16];
  CHECK_OK(aclGetCompileopt(ACL_OP_JIT_COMPILE, value, sizeof value));
  CHECK(strcmp(value, "disable") == 0);
  CHECK_ACL(aclGetCompileopt(ACL_OP_JIT_COMPILE, value, 4), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclGetCompileopt(ACL_OP_JIT_COMPILE, NULL, 16), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclGetCompileopt((aclCompileOpt)-1, value, 16), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclSetCompileopt(ACL_OP_JIT_COMPILE, "enable"));
  CHECK_OK(aclSetCompileopt(ACL_PRECISION_MODE, "force_fp32"));
  CHECK_OK(aclGetCompileopt(ACL_PRECISION_MODE, value, sizeof value));
  CHECK(strcmp(value, "force_fp32") == 0);
  CHECK_OK(aclSetCompileopt(ACL_OP_DEBUG_OPTION, "oom"));
  CHECK_OK(aclopSetCompileFlag(ACL_OP_COMPILE_FUZZ));
  CHECK_OK(aclopSetCompileFlag(ACL_OP_COMPILE_DEFAULT));
  CHECK_ACL(aclopSetCompileFlag((aclOpCompileFlag)3), ACL_ERROR_INVALID_PARAM);
}

int main(void) {
  test_before_init();
  CHECK_OK(aclInit(NULL));
  test_compile_rules();
  test_descriptions_at_compile();
  test_options();
  CHECK_OK(aclFinalize());
  return check_report("acl op compile");
}
