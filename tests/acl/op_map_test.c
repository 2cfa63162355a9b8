/* Ascend IR op names onto ge's ops (docs/acl.md): each mapped name computes what it means,
 * and its attributes translate; names and attributes with no ge meaning are errors. */
#include <math.h>

#include "op_util.h"

static aclError run1(const char *op, Tensor *x, Tensor *y, aclopAttr *attr) { return compile_and_run(op, 1, x, 1, y, attr); }

static void test_elementwise(void) {
  const int64_t d4[] = {4};
  const float a[4] = {1, -2, 3, -4}, b[4] = {2, 4, 6, 8};
  Tensor in[2] = {f32_tensor(1, d4, a), f32_tensor(1, d4, b)};
  Tensor y = f32_output(1, d4, 4);
  const float div[4] = {0.5f, -0.5f, 0.5f, -0.5f};
  CHECK_OK(compile_and_run("RealDiv", 2, in, 1, &y, NULL));
  CHECK(close_floats((float *)y.data, div, 4));
  const float add[4] = {3, 2, 9, 4}, sub[4] = {-1, -6, -3, -12}, mul[4] = {2, -8, 18, -32};
  CHECK_OK(compile_and_run("Add", 2, in, 1, &y, NULL));
  CHECK(close_floats((float *)y.data, add, 4));
  CHECK_OK(compile_and_run("Sub", 2, in, 1, &y, NULL));
  CHECK(close_floats((float *)y.data, sub, 4));
  CHECK_OK(compile_and_run("Mul", 2, in, 1, &y, NULL));
  CHECK(close_floats((float *)y.data, mul, 4));
  const float relu[4] = {1, 0, 3, 0};
  CHECK_OK(run1("Relu", &in[0], &y, NULL));
  CHECK(close_floats((float *)y.data, relu, 4));
  CHECK_OK(run1("Sigmoid", &in[0], &y, NULL));
  CHECK(fabsf(((float *)y.data)[0] - 1.0f / (1.0f + expf(-1.0f))) < 1e-5f);
  CHECK_OK(run1("Tanh", &in[0], &y, NULL));
  CHECK(fabsf(((float *)y.data)[2] - tanhf(3.0f)) < 1e-5f);
  /* Gelu is the tanh form (Ascend's) unless told otherwise */
  CHECK_OK(run1("Gelu", &in[0], &y, NULL));
  CHECK(fabsf(((float *)y.data)[0] - 0.841192f) < 2e-5f);
  aclopAttr *exact = aclopCreateAttr();
  CHECK_OK(aclopSetAttrString(exact, "approximate", "none"));
  CHECK_OK(run1("Gelu", &in[0], &y, exact));
  CHECK(fabsf(((float *)y.data)[0] - 0.841345f) < 2e-5f);
  aclopDestroyAttr(exact);
  CHECK_ACL(run1("NoSuchOp", &in[0], &y, NULL), ACL_ERROR_OP_NOT_FOUND);
  free_tensor(&in[0]);
  free_tensor(&in[1]);
  free_tensor(&y);
}

static void test_matmul(void) {
  const int64_t d23[] = {2, 3}, d43[] = {4, 3}, d32[] = {3, 2}, d24[] = {2, 4}, d22[] = {2, 2}, d2[] = {2};
  const float x1[6] = {1, 2, 3, 4, 5, 6}, x2[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  Tensor t[3] = {f32_tensor(2, d23, x1), f32_tensor(2, d43, x2), no_tensor()};
  Tensor y = f32_output(2, d24, 8);
  aclopAttr *tb = aclopCreateAttr();
  CHECK_OK(aclopSetAttrBool(tb, "transpose_x2", 1));
  CHECK_OK(compile_and_run("MatMulV2", 3, t, 1, &y, tb));
  const float want[8] = {1, 2, 3, 6, 4, 5, 6, 15};
  CHECK(close_floats((float *)y.data, want, 8));
  /* no transposes: numpy's product; with a bias */
  const float w[6] = {1, 0, 0, 1, 1, 1}, bias[2] = {10, 20};
  Tensor u[3] = {f32_tensor(2, d23, x1), f32_tensor(2, d32, w), f32_tensor(1, d2, bias)};
  Tensor z = f32_output(2, d22, 4);
  CHECK_OK(compile_and_run("MatMul", 2, u, 1, &z, NULL));
  const float plain[4] = {4, 5, 10, 11}, biased[4] = {14, 25, 20, 31};
  CHECK(close_floats((float *)z.data, plain, 4));
  CHECK_OK(compile_and_run("MatMulV2", 3, u, 1, &z, NULL));
  CHECK(close_floats((float *)z.data, biased, 4));
  /* batched */
  const int64_t b23[] = {2, 2, 3}, b32[] = {2, 3, 2}, b22[] = {2, 2, 2};
  float bx[12], bw[12];
  for (int i = 0; i < 12; ++i) {
    bx[i] = x1[i % 6];
    bw[i] = w[i % 6];
  }
  Tensor bt[2] = {f32_tensor(3, b23, bx), f32_tensor(3, b32, bw)};
  Tensor by = f32_output(3, b22, 8);
  CHECK_OK(compile_and_run("BatchMatMul", 2, bt, 1, &by, NULL));
  CHECK(close_floats((float *)by.data + 4, plain, 4));
  aclopAttr *adj = aclopCreateAttr();
  CHECK_OK(aclopSetAttrBool(adj, "adj_x1", 1));
  CHECK_ACL(compile_op("BatchMatMul", 2, bt, 1, &by, adj), ACL_ERROR_OP_ATTR_NOT_MATCH);
  aclopDestroyAttr(adj);
  aclopDestroyAttr(tb);
  Tensor all[] = {t[0], t[1], t[2], y, u[0], u[1], u[2], z, bt[0], bt[1], by};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

static void test_conv2d(void) {
  const int64_t dx[] = {1, 1, 3, 3}, dw[] = {1, 1, 2, 2}, dy[] = {1, 1, 2, 2}, dp[] = {1, 1, 4, 4};
  const float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  Tensor t[2] = {f32_tensor(4, dx, ones), f32_tensor(4, dw, ones)};
  Tensor y = f32_output(4, dy, 4), p = f32_output(4, dp, 16);
  aclopAttr *a = aclopCreateAttr();
  const int64_t strides[] = {1, 1, 1, 1}, pads[] = {0, 0, 0, 0}, pads1[] = {1, 1, 1, 1};
  CHECK_OK(aclopSetAttrListInt(a, "strides", 4, strides));
  CHECK_OK(aclopSetAttrListInt(a, "pads", 4, pads));
  CHECK_OK(aclopSetAttrString(a, "data_format", "NCHW"));
  CHECK_OK(compile_and_run("Conv2D", 2, t, 1, &y, a));
  const float four[4] = {4, 4, 4, 4};
  CHECK(close_floats((float *)y.data, four, 4));
  CHECK_OK(aclopSetAttrListInt(a, "pads", 4, pads1));
  CHECK_OK(compile_and_run("Conv2D", 2, t, 1, &p, a));
  CHECK(((float *)p.data)[0] == 1 && ((float *)p.data)[5] == 4);
  CHECK_OK(aclopSetAttrListInt(a, "strides", 3, strides));
  CHECK_ACL(compile_op("Conv2D", 2, t, 1, &p, a), ACL_ERROR_OP_ATTR_NOT_MATCH);
  CHECK_OK(aclopSetAttrListInt(a, "strides", 4, strides));
  CHECK_OK(aclopSetAttrString(a, "data_format", "NHWC"));
  CHECK_ACL(compile_op("Conv2D", 2, t, 1, &p, a), ACL_ERROR_FORMAT_NOT_MATCH);
  aclopDestroyAttr(a);
  Tensor all[] = {t[0], t[1], y, p};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

static void test_shape_ops(void) {
  const int64_t d23[] = {2, 3}, d32[] = {3, 2}, d2[] = {2}, d26[] = {2, 6};
  const float x[6] = {1, 2, 3, 4, 5, 6};
  const int64_t perm[2] = {1, 0};
  Tensor t[2] = {f32_tensor(2, d23, x), make_tensor(ACL_INT64, 1, d2, perm, sizeof perm)};
  CHECK_OK(aclSetTensorConst(t[1].desc, (void *)perm, sizeof perm));
  Tensor y = f32_output(2, d32, 6);
  CHECK_OK(compile_and_run("Transpose", 2, t, 1, &y, NULL));
  const float tr[6] = {1, 4, 2, 5, 3, 6};
  CHECK(close_floats((float *)y.data, tr, 6));
  aclopAttr *pa = aclopCreateAttr();
  CHECK_OK(aclopSetAttrListInt(pa, "perm", 2, perm));
  CHECK_OK(compile_and_run("TransposeD", 1, t, 1, &y, pa));
  CHECK(close_floats((float *)y.data, tr, 6));
  const int64_t shape[2] = {3, 2};
  Tensor r[2] = {f32_tensor(2, d23, x), make_tensor(ACL_INT64, 1, d2, shape, sizeof shape)};
  CHECK_OK(aclSetTensorConst(r[1].desc, (void *)shape, sizeof shape));
  CHECK_OK(compile_and_run("Reshape", 2, r, 1, &y, NULL));
  CHECK(dims_are(y.desc, 2, d32) && close_floats((float *)y.data, x, 6));
  /* ConcatD */
  Tensor c[2] = {f32_tensor(2, d23, x), f32_tensor(2, d23, x)};
  Tensor cy = f32_output(2, d26, 12);
  aclopAttr *ca = aclopCreateAttr();
  CHECK_OK(aclopSetAttrInt(ca, "concat_dim", 1));
  CHECK_OK(aclopSetAttrInt(ca, "N", 2));
  CHECK_OK(compile_and_run("ConcatD", 2, c, 1, &cy, ca));
  CHECK(((float *)cy.data)[3] == 1 && ((float *)cy.data)[11] == 6);
  CHECK_OK(aclopSetAttrInt(ca, "N", 3));
  CHECK_ACL(compile_op("ConcatD", 2, c, 1, &cy, ca), ACL_ERROR_OP_INPUT_NOT_MATCH);
  /* Cast by dst_type */
  aclopAttr *cast = aclopCreateAttr();
  CHECK_OK(aclopSetAttrInt(cast, "dst_type", ACL_INT32));
  Tensor ci = make_tensor(ACL_INT32, 2, d23, NULL, 24);
  CHECK_OK(run1("Cast", &t[0], &ci, cast));
  CHECK(((int32_t *)ci.data)[5] == 6);
  aclopDestroyAttr(cast);
  aclopDestroyAttr(ca);
  aclopDestroyAttr(pa);
  Tensor all[] = {t[0], t[1], y, r[0], r[1], c[0], c[1], cy, ci};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

static void test_reductions_and_softmax(void) {
  const int64_t d23[] = {2, 3}, d2[] = {2}, d21[] = {2, 1};
  const float x[6] = {1, 2, 3, 4, 5, 6};
  Tensor t = f32_tensor(2, d23, x), y = f32_output(1, d2, 2), yk = f32_output(2, d21, 2);
  aclopAttr *a = aclopCreateAttr();
  const int64_t axes[] = {1};
  CHECK_OK(aclopSetAttrListInt(a, "axes", 1, axes));
  CHECK_OK(run1("ReduceSumD", &t, &y, a)); /* keep_dims false by default */
  const float sum[2] = {6, 15}, mean[2] = {2, 5};
  CHECK(close_floats((float *)y.data, sum, 2));
  CHECK_OK(aclopSetAttrBool(a, "keep_dims", 1));
  CHECK_OK(run1("ReduceMeanD", &t, &yk, a));
  CHECK(dims_are(yk.desc, 2, d21) && close_floats((float *)yk.data, mean, 2));
  aclopAttr *s = aclopCreateAttr();
  const int64_t last[] = {-1}, two[] = {0, 1};
  CHECK_OK(aclopSetAttrListInt(s, "axes", 1, last));
  Tensor sy = f32_output(2, d23, 6);
  CHECK_OK(run1("SoftmaxV2", &t, &sy, s));
  const float *p = (const float *)sy.data;
  CHECK(fabsf(p[0] + p[1] + p[2] - 1.0f) < 1e-5f && p[2] > p[1]);
  CHECK_OK(aclopSetAttrListInt(s, "axes", 2, two));
  CHECK_ACL(compile_op("SoftmaxV2", 1, &t, 1, &sy, s), ACL_ERROR_OP_ATTR_NOT_MATCH);
  aclopDestroyAttr(a);
  aclopDestroyAttr(s);
  free_tensor(&t);
  free_tensor(&y);
  free_tensor(&yk);
  free_tensor(&sy);
}

static void test_pools_and_norm(void) {
  const int64_t d44[] = {1, 1, 4, 4}, d22[] = {1, 1, 2, 2}, d11[] = {1, 1, 1, 1};
  float x[16];
  for (int i = 0; i < 16; ++i) x[i] = (float)i;
  Tensor t = f32_tensor(4, d44, x), y = f32_output(4, d22, 4), g = f32_output(4, d11, 1);
  aclopAttr *a = aclopCreateAttr();
  const int64_t k2[] = {1, 1, 2, 2};
  CHECK_OK(aclopSetAttrListInt(a, "ksize", 4, k2));
  CHECK_OK(aclopSetAttrListInt(a, "strides", 4, k2));
  CHECK_OK(aclopSetAttrString(a, "padding", "VALID"));
  CHECK_OK(aclopSetAttrString(a, "data_format", "NCHW")); /* Ascend IR's default is NHWC (op_layout_test.c) */
  CHECK_OK(run1("MaxPool", &t, &y, a));
  const float mx[4] = {5, 7, 13, 15}, av[4] = {2.5f, 4.5f, 10.5f, 12.5f};
  CHECK(close_floats((float *)y.data, mx, 4));
  CHECK_OK(run1("AvgPool", &t, &y, a));
  CHECK(close_floats((float *)y.data, av, 4));
  CHECK_OK(aclopSetAttrString(a, "padding", "FULL"));
  CHECK_ACL(compile_op("AvgPool", 1, &t, 1, &y, a), ACL_ERROR_OP_ATTR_NOT_MATCH);
  aclopAttr *p = aclopCreateAttr();
  CHECK_OK(aclopSetAttrInt(p, "mode", 1));
  CHECK_OK(aclopSetAttrBool(p, "global_pooling", 1));
  CHECK_OK(run1("Pooling", &t, &g, p));
  CHECK(fabsf(((float *)g.data)[0] - 7.5f) < 1e-5f);
  CHECK_OK(aclopSetAttrInt(p, "mode", 0));
  CHECK_OK(run1("Pooling", &t, &g, p));
  CHECK(((float *)g.data)[0] == 15);
  /* LayerNorm over the last dim */
  const int64_t d24[] = {2, 4}, d4[] = {4};
  const float ones[4] = {1, 1, 1, 1}, zeros[4] = {0, 0, 0, 0};
  Tensor ln[3] = {f32_tensor(2, d24, x), f32_tensor(1, d4, ones), f32_tensor(1, d4, zeros)};
  Tensor ly = f32_output(2, d24, 8);
  aclopAttr *la = aclopCreateAttr();
  CHECK_OK(aclopSetAttrInt(la, "begin_norm_axis", 1));
  CHECK_OK(aclopSetAttrInt(la, "begin_params_axis", 1));
  CHECK_OK(compile_and_run("LayerNorm", 3, ln, 1, &ly, la));
  const float *n = (const float *)ly.data;
  CHECK(fabsf(n[0] + n[3]) < 1e-4f && fabsf(n[0] + 1.3416f) < 1e-3f);
  Tensor three[3] = {f32_output(2, d24, 8), f32_output(1, d4, 4), f32_output(1, d4, 4)};
  CHECK_ACL(compile_op("LayerNorm", 3, ln, 3, three, la), ACL_ERROR_OP_OUTPUT_NOT_MATCH);
  aclopDestroyAttr(a);
  aclopDestroyAttr(p);
  aclopDestroyAttr(la);
  Tensor all[] = {t, y, g, ln[0], ln[1], ln[2], ly, three[0], three[1], three[2]};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) free_tensor(&all[k]);
}

int main(void) {
  CHECK_OK(aclInit(NULL));
  test_elementwise();
  test_matmul();
  test_conv2d();
  test_shape_ops();
  test_reductions_and_softmax();
  test_pools_and_norm();
  CHECK_OK(aclFinalize());
  return check_report("acl op names");
}
