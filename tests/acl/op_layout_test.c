/* Image layouts of the window ops (docs/acl.md, "Layouts"): Conv2D, MaxPool and AvgPool on
 * NHWC and NCHW images, with data_format given or not (Ascend IR's default: NHWC), the
 * filter in HWCN, NHWC or NCHW, each output checked value by value against a plain loop
 * over logical indices; layouts that cannot be read are ACL_ERROR_FORMAT_NOT_MATCH. */
#include <math.h>
#include <stdint.h>

#include "op_util.h"

#define NCHW ACL_FORMAT_NCHW
#define NHWC ACL_FORMAT_NHWC
#define ND ACL_FORMAT_ND
#define HWCN ACL_FORMAT_HWCN

/* A tensor of `format` (make_tensor's are ND). */
static Tensor fmt_tensor(aclFormat format, int rank, const int64_t *dims, const float *values) {
  size_t n = 1;
  for (int i = 0; i < rank; ++i) n *= (size_t)dims[i];
  Tensor t;
  t.desc = aclCreateTensorDesc(ACL_FLOAT, rank, dims, format);
  t.data = calloc(n, sizeof(float));
  if (values != NULL) memcpy(t.data, values, n * sizeof(float));
  t.buf = aclCreateDataBuffer(t.data, n * sizeof(float));
  return t;
}

/* Deterministic values in [-1, 1). */
static void fill(float *v, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
}

/* The offset of image element (n, c, h, w) of dims N, C, H, W in `format`. */
static size_t image_at(int format, int64_t C, int64_t H, int64_t W, int64_t n, int64_t c, int64_t h, int64_t w) {
  if (format == NHWC) return (size_t)(((n * H + h) * W + w) * C + c);
  return (size_t)(((n * C + c) * H + h) * W + w);
}

/* The offset of filter element (o, i, kh, kw) of O outputs, I inputs per group, KH x KW. */
static size_t filter_at(int format, int64_t O, int64_t I, int64_t KH, int64_t KW, int64_t o, int64_t i, int64_t kh,
                        int64_t kw) {
  if (format == NHWC) return (size_t)(((o * KH + kh) * KW + kw) * I + i);
  if (format == HWCN) return (size_t)(((kh * KW + kw) * I + i) * O + o);
  return (size_t)(((o * I + i) * KH + kh) * KW + kw);
}

/* Image dims [N, C, H, W] in `format`'s order. */
static void image_dims(int format, const int64_t nchw[4], int64_t out[4]) {
  if (format == NHWC) {
    out[0] = nchw[0], out[1] = nchw[2], out[2] = nchw[3], out[3] = nchw[1];
  } else {
    memcpy(out, nchw, 4 * sizeof(int64_t));
  }
}

/* A 4-element window list with h, w in `format`'s order ([1,1,h,w] or [1,h,w,1]). */
static void window_list(int format, int64_t h, int64_t w, int64_t out[4]) {
  out[0] = 1;
  if (format == NHWC) {
    out[1] = h, out[2] = w, out[3] = 1;
  } else {
    out[1] = 1, out[2] = h, out[3] = w;
  }
}

typedef struct {
  int64_t n, c, h, w, o, kh, kw, sh, sw, dh, dw, groups;
  int64_t pads[4];     /* top, bottom, left, right (explicit) */
  const char *padding; /* NULL, "SAME" or "VALID" */
} Conv;

/* SAME/VALID/explicit: the output extent and the padding before, for one axis. */
static void axis_out(const Conv *cv, int64_t in, int64_t k, int64_t s, int64_t d, int64_t before, int64_t after,
                     int64_t *out, int64_t *pad) {
  const int64_t span = (k - 1) * d + 1;
  if (cv->padding != NULL && strcmp(cv->padding, "SAME") == 0) {
    *out = (in + s - 1) / s;
    int64_t total = (*out - 1) * s + span - in;
    if (total < 0) total = 0;
    *pad = total / 2; /* the odd one at the end */
  } else if (cv->padding != NULL && strcmp(cv->padding, "VALID") == 0) {
    *out = (in - span) / s + 1;
    *pad = 0;
  } else {
    *out = (in + before + after - span) / s + 1;
    *pad = before;
  }
}

/* Runs Conv2D on x in `xf`, the filter in `wf`, y in `yf` (the output description's
 * format); `data_format` NULL leaves the attribute out. Returns the call's code; on
 * success checks every value against the loop. */
static aclError conv_case(const Conv *cv, int xf, int wf, int yf, const char *data_format, int layout) {
  int64_t oh, ow, pt, pl;
  axis_out(cv, cv->h, cv->kh, cv->sh, cv->dh, cv->pads[0], cv->pads[1], &oh, &pt);
  axis_out(cv, cv->w, cv->kw, cv->sw, cv->dw, cv->pads[2], cv->pads[3], &ow, &pl);
  const int64_t ipg = cv->c / cv->groups, opg = cv->o / cv->groups;
  const int64_t xn[4] = {cv->n, cv->c, cv->h, cv->w}, yn[4] = {cv->n, cv->o, oh, ow};
  int64_t xd[4], yd[4], wd[4];
  image_dims(layout, xn, xd);
  image_dims(layout, yn, yd);
  if (wf == NHWC) {
    wd[0] = cv->o, wd[1] = cv->kh, wd[2] = cv->kw, wd[3] = ipg;
  } else if (wf == HWCN) {
    wd[0] = cv->kh, wd[1] = cv->kw, wd[2] = ipg, wd[3] = cv->o;
  } else {
    wd[0] = cv->o, wd[1] = ipg, wd[2] = cv->kh, wd[3] = cv->kw;
  }
  const size_t xs = (size_t)(cv->n * cv->c * cv->h * cv->w), ws = (size_t)(cv->o * ipg * cv->kh * cv->kw),
               ys = (size_t)(cv->n * cv->o * oh * ow);
  float *xv = malloc(xs * sizeof(float)), *wv = malloc(ws * sizeof(float)), *expect = calloc(ys, sizeof(float));
  fill(xv, xs, 7u);
  fill(wv, ws, 11u);
  for (int64_t n = 0; n < cv->n; ++n)
    for (int64_t o = 0; o < cv->o; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double acc = 0;
          const int64_t g = o / opg;
          for (int64_t i = 0; i < ipg; ++i)
            for (int64_t kh = 0; kh < cv->kh; ++kh)
              for (int64_t kw = 0; kw < cv->kw; ++kw) {
                const int64_t ih = y * cv->sh - pt + kh * cv->dh, iw = x * cv->sw - pl + kw * cv->dw;
                if (ih < 0 || ih >= cv->h || iw < 0 || iw >= cv->w) continue;
                acc += (double)xv[image_at(layout, cv->c, cv->h, cv->w, n, g * ipg + i, ih, iw)] *
                       (double)wv[filter_at(wf, cv->o, ipg, cv->kh, cv->kw, o, i, kh, kw)];
              }
          expect[image_at(layout, cv->o, oh, ow, n, o, y, x)] = (float)acc;
        }
  Tensor t[2] = {fmt_tensor((aclFormat)xf, 4, xd, xv), fmt_tensor((aclFormat)wf, 4, wd, wv)};
  Tensor out = fmt_tensor((aclFormat)yf, 4, yd, NULL);
  aclopAttr *a = aclopCreateAttr();
  int64_t strides[4], dilations[4];
  window_list(layout, cv->sh, cv->sw, strides);
  window_list(layout, cv->dh, cv->dw, dilations);
  aclopSetAttrListInt(a, "strides", 4, strides);
  aclopSetAttrListInt(a, "dilations", 4, dilations);
  aclopSetAttrListInt(a, "pads", 4, cv->pads);
  aclopSetAttrInt(a, "groups", cv->groups);
  if (cv->padding != NULL) aclopSetAttrString(a, "padding", cv->padding);
  if (data_format != NULL) aclopSetAttrString(a, "data_format", data_format);
  const aclError e = compile_and_run("Conv2D", 2, t, 1, &out, a);
  if (e == ACL_SUCCESS) {
    int wrong = 0;
    for (size_t k = 0; k < ys; ++k) wrong += fabsf(((float *)out.data)[k] - expect[k]) > 1e-4f;
    if (wrong != 0) fprintf(stderr, "  Conv2D: %d of %zu values wrong\n", wrong, ys);
    CHECK(wrong == 0);
    CHECK(dims_are(out.desc, 4, yd)); /* rewritten in the output's layout */
  }
  aclopDestroyAttr(a);
  free_tensor(&t[0]);
  free_tensor(&t[1]);
  free_tensor(&out);
  free(xv);
  free(wv);
  free(expect);
  return e;
}

static void test_conv2d_layouts(void) {
  /* The case: 4x4x4 NHWC, no data_format, an HWCN filter. */
  const Conv base = {1, 4, 4, 4, 4, 3, 3, 1, 1, 1, 1, 1, {1, 1, 1, 1}, NULL};
  CHECK_OK(conv_case(&base, NHWC, HWCN, NHWC, NULL, NHWC));
  /* data_format given, x described ND: the attribute decides. */
  CHECK_OK(conv_case(&base, ND, HWCN, ND, "NHWC", NHWC));
  /* x described ND, no data_format: Ascend IR's default NHWC. */
  CHECK_OK(conv_case(&base, ND, NHWC, ND, NULL, NHWC));
  /* NCHW: by the description, or by the attribute; the filter NCHW, HWCN or (NCHW images only) ND. */
  CHECK_OK(conv_case(&base, NCHW, NCHW, NCHW, NULL, NCHW));
  CHECK_OK(conv_case(&base, ND, ND, ND, "NCHW", NCHW));
  CHECK_OK(conv_case(&base, NCHW, HWCN, NCHW, "NCHW", NCHW));
  /* Strides, dilations, asymmetric pads, two images. */
  const Conv strided = {2, 3, 7, 6, 5, 3, 2, 2, 1, 1, 2, 1, {1, 0, 2, 1}, NULL};
  CHECK_OK(conv_case(&strided, NHWC, HWCN, NHWC, "NHWC", NHWC));
  CHECK_OK(conv_case(&strided, NHWC, NHWC, NHWC, NULL, NHWC));
  CHECK_OK(conv_case(&strided, NCHW, NCHW, NCHW, NULL, NCHW));
  /* Groups (2 and depthwise) with an NHWC filter and an HWCN one. */
  const Conv grouped = {1, 4, 5, 5, 6, 3, 3, 1, 1, 1, 1, 2, {1, 1, 1, 1}, NULL};
  CHECK_OK(conv_case(&grouped, NHWC, NHWC, NHWC, NULL, NHWC));
  CHECK_OK(conv_case(&grouped, NHWC, HWCN, NHWC, NULL, NHWC));
  const Conv depthwise = {1, 4, 5, 5, 4, 3, 3, 2, 2, 1, 1, 4, {1, 1, 1, 1}, NULL};
  CHECK_OK(conv_case(&depthwise, NHWC, HWCN, NHWC, NULL, NHWC));
  /* SAME (the odd pad at the end) and VALID. */
  const Conv same = {1, 3, 6, 5, 2, 3, 3, 2, 2, 1, 1, 1, {0, 0, 0, 0}, "SAME"};
  CHECK_OK(conv_case(&same, NHWC, HWCN, NHWC, NULL, NHWC));
  CHECK_OK(conv_case(&same, NCHW, NCHW, NCHW, NULL, NCHW));
  const Conv valid = {1, 3, 6, 5, 2, 2, 3, 1, 2, 1, 1, 1, {0, 0, 0, 0}, "VALID"};
  CHECK_OK(conv_case(&valid, NHWC, HWCN, NHWC, NULL, NHWC));
}

static void test_conv2d_layout_errors(void) {
  const Conv base = {1, 4, 4, 4, 4, 3, 3, 1, 1, 1, 1, 1, {1, 1, 1, 1}, NULL};
  /* data_format against x's description */
  CHECK_ACL(conv_case(&base, NHWC, HWCN, NHWC, "NCHW", NHWC), ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK(strstr(aclGetRecentErrMsg(), "data_format") != NULL);
  CHECK_ACL(conv_case(&base, NCHW, NCHW, NCHW, "NHWC", NCHW), ACL_ERROR_FORMAT_NOT_MATCH);
  /* a data_format that is no image layout */
  CHECK_ACL(conv_case(&base, ND, HWCN, ND, "NCDHW", NHWC), ACL_ERROR_FORMAT_NOT_MATCH);
  /* an ND filter with NHWC images: which order it is cannot be told */
  CHECK_ACL(conv_case(&base, NHWC, ND, NHWC, NULL, NHWC), ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK(strstr(aclGetRecentErrMsg(), "filter") != NULL);
  /* x in a format that is no image layout */
  CHECK_ACL(conv_case(&base, HWCN, HWCN, NHWC, NULL, NHWC), ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK_ACL(conv_case(&base, ACL_FORMAT_NC1HWC0, HWCN, NHWC, NULL, NHWC), ACL_ERROR_FORMAT_NOT_MATCH);
  /* the output described in the other layout */
  CHECK_ACL(conv_case(&base, NHWC, HWCN, NCHW, NULL, NHWC), ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK(strstr(aclGetRecentErrMsg(), "output 0") != NULL);
  CHECK_ACL(conv_case(&base, NCHW, NCHW, NHWC, NULL, NCHW), ACL_ERROR_FORMAT_NOT_MATCH);
  /* strides in the other layout's order: C is not 1 */
  const int64_t xd[4] = {1, 4, 4, 4}, wd[4] = {3, 3, 4, 4};
  Tensor t[2] = {fmt_tensor(NHWC, 4, xd, NULL), fmt_tensor(HWCN, 4, wd, NULL)};
  Tensor y = fmt_tensor(NHWC, 4, xd, NULL);
  aclopAttr *a = aclopCreateAttr();
  const int64_t nchw_strides[4] = {1, 1, 2, 2}, pads[4] = {1, 1, 1, 1};
  aclopSetAttrListInt(a, "strides", 4, nchw_strides);
  aclopSetAttrListInt(a, "pads", 4, pads);
  CHECK_ACL(compile_op("Conv2D", 2, t, 1, &y, a), ACL_ERROR_OP_ATTR_NOT_MATCH);
  CHECK(strstr(aclGetRecentErrMsg(), "[1,h,w,1]") != NULL);
  aclopDestroyAttr(a);
  free_tensor(&t[0]);
  free_tensor(&t[1]);
  free_tensor(&y);
}

/* NHWC Conv2D through a handle, with a constant HWCN filter, a too-small output buffer,
 * and aclopInferShape giving NHWC output dims. */
static void test_conv2d_handle_and_infer(void) {
  const int64_t xd[4] = {1, 3, 3, 2}, wd[4] = {2, 2, 2, 1}, yd[4] = {1, 2, 2, 1};
  float xv[18], wv[8];
  for (int i = 0; i < 18; ++i) xv[i] = (float)i;
  for (int i = 0; i < 8; ++i) wv[i] = (float)(i % 2 == 0 ? 1 : -1); /* +c0, -c1 per tap */
  Tensor t[2] = {fmt_tensor(NHWC, 4, xd, xv), fmt_tensor(HWCN, 4, wd, wv)};
  CHECK_OK(aclSetTensorConst(t[1].desc, wv, sizeof wv));
  Tensor y = fmt_tensor(NHWC, 4, yd, NULL);
  aclopAttr *a = aclopCreateAttr();
  const int64_t ones[4] = {1, 1, 1, 1}, zeros[4] = {0, 0, 0, 0};
  aclopSetAttrListInt(a, "strides", 4, ones);
  aclopSetAttrListInt(a, "pads", 4, zeros);
  CHECK_OK(compile_op("Conv2D", 2, t, 1, &y, a));
  aclopHandle *h = NULL;
  Arrays in = arrays_of(2, t), out = arrays_of(1, &y);
  CHECK_OK(aclopCreateHandle("Conv2D", 2, (const aclTensorDesc *const *)in.desc, 1,
                             (const aclTensorDesc *const *)out.desc, a, &h));
  CHECK_OK(aclopExecWithHandle(h, 2, (const aclDataBuffer *const *)in.buf, 1, out.buf, NULL));
  /* each output: sum over a 2x2 window of (c0 - c1) = -1 per pixel, so -4 */
  const float expect[4] = {-4, -4, -4, -4};
  CHECK(close_floats((float *)y.data, expect, 4));
  aclopDestroyHandle(h);
  /* an output buffer too small for its dims */
  Tensor small = fmt_tensor(NHWC, 4, yd, NULL);
  aclDestroyDataBuffer(small.buf);
  small.buf = aclCreateDataBuffer(small.data, 3 * sizeof(float));
  CHECK_ACL(execute_op("Conv2D", 2, t, 1, &small, a), ACL_ERROR_INVALID_PARAM);
  /* shape inference in the output's layout: dims [1, 2, 2, 1] from x [1, 3, 3, 2] */
  const int64_t unknown[4] = {-1, -1, -1, -1};
  aclTensorDesc *yi = aclCreateTensorDesc(ACL_FLOAT, 4, unknown, ACL_FORMAT_NHWC);
  aclTensorDesc *ind[2] = {t[0].desc, t[1].desc};
  CHECK_OK(aclopInferShape("Conv2D", 2, ind, in.buf, 1, &yi, a));
  CHECK(dims_are(yi, 4, yd));
  aclDestroyTensorDesc(yi);
  aclopDestroyAttr(a);
  free_tensor(&t[0]);
  free_tensor(&t[1]);
  free_tensor(&y);
  free_tensor(&small);
}

typedef struct {
  int64_t n, c, h, w, kh, kw, sh, sw;
  const char *padding;
  int exclusive; /* AvgPool: 1 divides by the elements inside, 0 by the window */
} Pool;

/* MaxPool (is_max) or AvgPool on x in `xf`; `layout` is the layout in force. */
static aclError pool_case(const Pool *p, int is_max, int xf, const char *data_format, int layout) {
  const Conv axis = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, {0, 0, 0, 0}, p->padding};
  int64_t oh, ow, pt, pl;
  axis_out(&axis, p->h, p->kh, p->sh, 1, 0, 0, &oh, &pt);
  axis_out(&axis, p->w, p->kw, p->sw, 1, 0, 0, &ow, &pl);
  const int64_t xn[4] = {p->n, p->c, p->h, p->w}, yn[4] = {p->n, p->c, oh, ow};
  int64_t xd[4], yd[4];
  image_dims(layout, xn, xd);
  image_dims(layout, yn, yd);
  const size_t xs = (size_t)(p->n * p->c * p->h * p->w), ys = (size_t)(p->n * p->c * oh * ow);
  float *xv = malloc(xs * sizeof(float)), *expect = calloc(ys, sizeof(float));
  fill(xv, xs, 5u);
  for (int64_t n = 0; n < p->n; ++n)
    for (int64_t c = 0; c < p->c; ++c)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double acc = is_max ? -INFINITY : 0;
          int64_t inside = 0;
          for (int64_t kh = 0; kh < p->kh; ++kh)
            for (int64_t kw = 0; kw < p->kw; ++kw) {
              const int64_t ih = y * p->sh - pt + kh, iw = x * p->sw - pl + kw;
              if (ih < 0 || ih >= p->h || iw < 0 || iw >= p->w) continue;
              const double v = xv[image_at(layout, p->c, p->h, p->w, n, c, ih, iw)];
              acc = is_max ? (v > acc ? v : acc) : acc + v;
              ++inside;
            }
          if (!is_max) acc /= (double)(p->exclusive ? inside : p->kh * p->kw);
          expect[image_at(layout, p->c, oh, ow, n, c, y, x)] = (float)acc;
        }
  Tensor x = fmt_tensor((aclFormat)xf, 4, xd, xv), out = fmt_tensor((aclFormat)xf, 4, yd, NULL);
  aclopAttr *a = aclopCreateAttr();
  int64_t ksize[4], strides[4];
  window_list(layout, p->kh, p->kw, ksize);
  window_list(layout, p->sh, p->sw, strides);
  aclopSetAttrListInt(a, "ksize", 4, ksize);
  aclopSetAttrListInt(a, "strides", 4, strides);
  aclopSetAttrString(a, "padding", p->padding);
  if (!is_max) aclopSetAttrBool(a, "exclusive", (uint8_t)p->exclusive);
  if (data_format != NULL) aclopSetAttrString(a, "data_format", data_format);
  const aclError e = compile_and_run(is_max ? "MaxPool" : "AvgPool", 1, &x, 1, &out, a);
  if (e == ACL_SUCCESS) {
    int wrong = 0;
    for (size_t k = 0; k < ys; ++k) wrong += fabsf(((float *)out.data)[k] - expect[k]) > 1e-5f;
    if (wrong != 0) fprintf(stderr, "  %s: %d of %zu values wrong\n", is_max ? "MaxPool" : "AvgPool", wrong, ys);
    CHECK(wrong == 0);
    CHECK(dims_are(out.desc, 4, yd));
  }
  aclopDestroyAttr(a);
  free_tensor(&x);
  free_tensor(&out);
  free(xv);
  free(expect);
  return e;
}

static void test_pool_layouts(void) {
  const Pool valid = {2, 3, 6, 5, 2, 2, 2, 2, "VALID", 1};
  const Pool same = {1, 4, 7, 6, 3, 3, 2, 2, "SAME", 1};
  const Pool same_inclusive = {1, 4, 7, 6, 3, 3, 2, 2, "SAME", 0};
  for (int is_max = 0; is_max <= 1; ++is_max) {
    /* NHWC by the description, by the attribute, by default (ND, no data_format) */
    CHECK_OK(pool_case(&valid, is_max, NHWC, NULL, NHWC));
    CHECK_OK(pool_case(&valid, is_max, ND, "NHWC", NHWC));
    CHECK_OK(pool_case(&valid, is_max, ND, NULL, NHWC));
    CHECK_OK(pool_case(&same, is_max, NHWC, NULL, NHWC));
    /* NCHW by the description or the attribute */
    CHECK_OK(pool_case(&valid, is_max, NCHW, NULL, NCHW));
    CHECK_OK(pool_case(&same, is_max, ND, "NCHW", NCHW));
    /* the conflict */
    CHECK_ACL(pool_case(&valid, is_max, NHWC, "NCHW", NHWC), ACL_ERROR_FORMAT_NOT_MATCH);
    CHECK_ACL(pool_case(&valid, is_max, NCHW, "NHWC", NCHW), ACL_ERROR_FORMAT_NOT_MATCH);
  }
  CHECK_OK(pool_case(&same_inclusive, 0, NHWC, NULL, NHWC));
  CHECK_OK(pool_case(&same_inclusive, 0, NCHW, NULL, NCHW));
}

typedef struct {
  int64_t c, h, w, k, s, pt, pb, pl, pr;
  const char *mode; /* padding_mode: "CALCULATED" (pads), "SAME", "VALID" */
  int ceil, exclusive, global;
} PoolV2;

/* MaxPoolV3 / AvgPoolV2 (Ascend IR: NCHW unless said otherwise) on one image in `layout`. */
static aclError pool_v2_case(const PoolV2 *p, int is_max, int xf, const char *data_format, int layout) {
  int64_t oh, ow, pt = p->pt, pl = p->pl, kh = p->k, kw = p->k, sh = p->s, sw = p->s;
  if (p->global) {
    oh = ow = 1, kh = p->h, kw = p->w, sh = sw = 1, pt = pl = 0;
  } else if (strcmp(p->mode, "SAME") == 0) {
    const Conv axis = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, {0, 0, 0, 0}, "SAME"};
    axis_out(&axis, p->h, p->k, p->s, 1, 0, 0, &oh, &pt);
    axis_out(&axis, p->w, p->k, p->s, 1, 0, 0, &ow, &pl);
  } else {
    const int64_t ph = p->h + p->pt + p->pb - p->k, pw = p->w + p->pl + p->pr - p->k;
    oh = (p->ceil ? (ph + p->s - 1) / p->s : ph / p->s) + 1;
    ow = (p->ceil ? (pw + p->s - 1) / p->s : pw / p->s) + 1;
  }
  const int64_t xn[4] = {1, p->c, p->h, p->w}, yn[4] = {1, p->c, oh, ow};
  int64_t xd[4], yd[4];
  image_dims(layout, xn, xd);
  image_dims(layout, yn, yd);
  float xv[256], expect[256];
  fill(xv, (size_t)(p->c * p->h * p->w), 21u);
  for (int64_t c = 0; c < p->c; ++c)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x) {
        double acc = is_max ? -INFINITY : 0;
        int64_t inside = 0;
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j) {
            const int64_t ih = y * sh - pt + i, iw = x * sw - pl + j;
            if (ih < 0 || ih >= p->h || iw < 0 || iw >= p->w) continue;
            const double v = xv[image_at(layout, p->c, p->h, p->w, 0, c, ih, iw)];
            acc = is_max ? (v > acc ? v : acc) : acc + v;
            ++inside;
          }
        if (!is_max) acc /= (double)(p->exclusive ? inside : kh * kw);
        expect[image_at(layout, p->c, oh, ow, 0, c, y, x)] = (float)acc;
      }
  Tensor t = fmt_tensor((aclFormat)xf, 4, xd, xv), out = fmt_tensor((aclFormat)xf, 4, yd, NULL);
  aclopAttr *a = aclopCreateAttr();
  int64_t ksize[4], strides[4];
  window_list(layout, p->k, p->k, ksize);
  window_list(layout, p->s, p->s, strides);
  const int64_t pads[4] = {p->pt, p->pb, p->pl, p->pr};
  aclopSetAttrListInt(a, "ksize", 4, ksize);
  aclopSetAttrListInt(a, "strides", 4, strides);
  aclopSetAttrListInt(a, "pads", 4, pads);
  aclopSetAttrString(a, "padding_mode", p->mode);
  aclopSetAttrBool(a, "ceil_mode", (uint8_t)p->ceil);
  aclopSetAttrBool(a, "global_pooling", (uint8_t)p->global);
  if (!is_max) aclopSetAttrBool(a, "exclusive", (uint8_t)p->exclusive);
  if (data_format != NULL) aclopSetAttrString(a, "data_format", data_format);
  const aclError e = compile_and_run(is_max ? "MaxPoolV3" : "AvgPoolV2", 1, &t, 1, &out, a);
  if (e == ACL_SUCCESS) {
    CHECK(close_floats((float *)out.data, expect, (size_t)(p->c * oh * ow)));
    CHECK(dims_are(out.desc, 4, yd));
  }
  aclopDestroyAttr(a);
  free_tensor(&t);
  free_tensor(&out);
  return e;
}

static void test_pool_v2(void) {
  const PoolV2 padded = {2, 7, 6, 3, 2, 1, 1, 1, 1, "CALCULATED", 0, 1, 0};
  const PoolV2 ceiled = {2, 6, 6, 3, 2, 0, 0, 0, 0, "CALCULATED", 1, 1, 0};
  const PoolV2 uneven = {2, 5, 5, 3, 2, 1, 0, 1, 0, "CALCULATED", 0, 1, 0};
  const PoolV2 uneven_inclusive = {2, 5, 5, 3, 2, 1, 0, 1, 0, "CALCULATED", 0, 0, 0};
  const PoolV2 same = {3, 7, 5, 3, 2, 0, 0, 0, 0, "SAME", 0, 1, 0};
  const PoolV2 valid = {3, 7, 5, 2, 2, 0, 0, 0, 0, "VALID", 0, 1, 0};
  const PoolV2 global = {3, 4, 5, 1, 1, 0, 0, 0, 0, "CALCULATED", 0, 1, 1};
  for (int is_max = 0; is_max <= 1; ++is_max) {
    CHECK_OK(pool_v2_case(&padded, is_max, ND, NULL, NCHW)); /* the default: NCHW */
    CHECK_OK(pool_v2_case(&padded, is_max, NHWC, NULL, NHWC));
    CHECK_OK(pool_v2_case(&ceiled, is_max, NCHW, NULL, NCHW));
    CHECK_OK(pool_v2_case(&ceiled, is_max, ND, "NHWC", NHWC));
    CHECK_OK(pool_v2_case(&uneven, is_max, NHWC, "NHWC", NHWC));
    CHECK_OK(pool_v2_case(&same, is_max, NHWC, NULL, NHWC));
    CHECK_OK(pool_v2_case(&valid, is_max, NCHW, NULL, NCHW));
    CHECK_OK(pool_v2_case(&global, is_max, NHWC, NULL, NHWC));
    CHECK_OK(pool_v2_case(&global, is_max, NCHW, NULL, NCHW));
    CHECK_ACL(pool_v2_case(&padded, is_max, NCHW, "NHWC", NCHW), ACL_ERROR_FORMAT_NOT_MATCH);
  }
  CHECK_OK(pool_v2_case(&uneven_inclusive, 0, NCHW, NULL, NCHW));
  const PoolV2 full = {2, 5, 5, 3, 2, 0, 0, 0, 0, "FULL", 0, 1, 0};
  CHECK_ACL(pool_v2_case(&full, 1, NCHW, NULL, NCHW), ACL_ERROR_OP_ATTR_NOT_MATCH);
  /* AvgPoolV2's divisor_override: 0 only */
  const int64_t xd[4] = {1, 1, 4, 4}, yd[4] = {1, 1, 2, 2}, k[4] = {1, 1, 2, 2};
  Tensor x = fmt_tensor(NCHW, 4, xd, NULL), y = fmt_tensor(NCHW, 4, yd, NULL);
  aclopAttr *a = aclopCreateAttr();
  aclopSetAttrListInt(a, "ksize", 4, k);
  aclopSetAttrListInt(a, "strides", 4, k);
  aclopSetAttrInt(a, "divisor_override", 3);
  CHECK_ACL(compile_op("AvgPoolV2", 1, &x, 1, &y, a), ACL_ERROR_OP_ATTR_NOT_MATCH);
  aclopDestroyAttr(a);
  free_tensor(&x);
  free_tensor(&y);
}

/* Pooling (a Caffe op: NCHW unless described otherwise) on an NHWC image. */
static void test_pooling_nhwc(void) {
  const int64_t xd[4] = {1, 2, 2, 3}, yd[4] = {1, 1, 1, 3};
  const float xv[12] = {0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23}; /* channel c at h, w: 10c + 2h + w */
  Tensor x = fmt_tensor(NHWC, 4, xd, xv), y = fmt_tensor(NHWC, 4, yd, NULL);
  aclopAttr *a = aclopCreateAttr();
  aclopSetAttrInt(a, "mode", 0);
  aclopSetAttrBool(a, "global_pooling", 1);
  CHECK_OK(compile_and_run("Pooling", 1, &x, 1, &y, a));
  const float mx[3] = {3, 13, 23};
  CHECK(close_floats((float *)y.data, mx, 3));
  aclopDestroyAttr(a);
  free_tensor(&x);
  free_tensor(&y);
}

/* DepthwiseConv2D: x [1, 5, 5, 3] (NHWC, or NCHW by the attribute), filter HWCN [3, 3, 3, 2]:
 * output channel c*2 + k is x's channel c by filter[., ., c, k]. */
static aclError depthwise_case(int layout, const char *data_format, int xf, int wf, int64_t stride) {
  const int64_t C = 3, K = 2, H = 5, W = 5, OH = (H + 2 - 3) / stride + 1, OW = (W + 2 - 3) / stride + 1;
  const int64_t xn[4] = {1, C, H, W}, yn[4] = {1, C * K, OH, OW}, wd[4] = {3, 3, C, K};
  int64_t xd[4], yd[4];
  image_dims(layout, xn, xd);
  image_dims(layout, yn, yd);
  float xv[75], wv[54], expect[150];
  fill(xv, 75, 3u);
  fill(wv, 54, 9u);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t x = 0; x < OW; ++x) {
          double acc = 0;
          for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
              const int64_t ih = y * stride - 1 + kh, iw = x * stride - 1 + kw;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              acc += (double)xv[image_at(layout, C, H, W, 0, c, ih, iw)] * (double)wv[((kh * 3 + kw) * C + c) * K + k];
            }
          expect[image_at(layout, C * K, OH, OW, 0, c * K + k, y, x)] = (float)acc;
        }
  Tensor t[2] = {fmt_tensor((aclFormat)xf, 4, xd, xv), fmt_tensor((aclFormat)wf, 4, wd, wv)};
  Tensor out = fmt_tensor((aclFormat)xf, 4, yd, NULL);
  aclopAttr *a = aclopCreateAttr();
  int64_t strides[4];
  window_list(layout, stride, stride, strides);
  const int64_t pads[4] = {1, 1, 1, 1};
  aclopSetAttrListInt(a, "strides", 4, strides);
  aclopSetAttrListInt(a, "pads", 4, pads);
  if (data_format != NULL) aclopSetAttrString(a, "data_format", data_format);
  const aclError e = compile_and_run("DepthwiseConv2D", 2, t, 1, &out, a);
  if (e == ACL_SUCCESS) CHECK(close_floats((float *)out.data, expect, (size_t)(C * K * OH * OW)));
  aclopDestroyAttr(a);
  free_tensor(&t[0]);
  free_tensor(&t[1]);
  free_tensor(&out);
  return e;
}

static void test_depthwise_conv2d(void) {
  CHECK_OK(depthwise_case(NHWC, NULL, NHWC, HWCN, 1));
  CHECK_OK(depthwise_case(NHWC, NULL, ND, HWCN, 2));
  CHECK_OK(depthwise_case(NCHW, "NCHW", ND, HWCN, 1));
  CHECK_OK(depthwise_case(NCHW, NULL, NCHW, HWCN, 2));
  CHECK_ACL(depthwise_case(NHWC, NULL, NHWC, NCHW, 1), ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK_ACL(depthwise_case(NHWC, "NCHW", NHWC, HWCN, 1), ACL_ERROR_FORMAT_NOT_MATCH);
}

/* BiasAdd: the bias along the channels, last (NHWC, the default) or first (NCHW). */
static aclError bias_add_case(int rank, const int64_t *dims, int channel_axis, int xf, const char *data_format,
                              int64_t bias_count) {
  size_t n = 1;
  for (int i = 0; i < rank; ++i) n *= (size_t)dims[i];
  float xv[64], bv[8], expect[64];
  fill(xv, n, 13u);
  fill(bv, (size_t)bias_count, 17u);
  size_t inner = 1;
  for (int i = channel_axis + 1; i < rank; ++i) inner *= (size_t)dims[i];
  for (size_t i = 0; i < n; ++i) expect[i] = xv[i] + bv[(i / inner) % (size_t)dims[channel_axis]];
  const int64_t bd[1] = {bias_count};
  Tensor t[2] = {fmt_tensor((aclFormat)xf, rank, dims, xv), fmt_tensor(ND, 1, bd, bv)};
  Tensor y = fmt_tensor((aclFormat)xf, rank, dims, NULL);
  aclopAttr *a = aclopCreateAttr();
  if (data_format != NULL) aclopSetAttrString(a, "data_format", data_format);
  const aclError e = compile_and_run("BiasAdd", 2, t, 1, &y, a);
  if (e == ACL_SUCCESS) CHECK(close_floats((float *)y.data, expect, n));
  aclopDestroyAttr(a);
  free_tensor(&t[0]);
  free_tensor(&t[1]);
  free_tensor(&y);
  return e;
}

static void test_bias_add(void) {
  const int64_t d4[4] = {2, 2, 2, 3}, d2[2] = {4, 3};
  CHECK_OK(bias_add_case(4, d4, 3, ND, NULL, 3));     /* default: channels last */
  CHECK_OK(bias_add_case(4, d4, 3, NHWC, "NHWC", 3));
  CHECK_OK(bias_add_case(4, d4, 1, ND, "NCHW", 2));   /* channels first: [2, 2, 2, 3] has C = 2 */
  CHECK_OK(bias_add_case(4, d4, 1, NCHW, NULL, 2));
  CHECK_OK(bias_add_case(2, d2, 1, ND, NULL, 3));
  CHECK_OK(bias_add_case(2, d2, 1, ACL_FORMAT_NC, NULL, 3));
  CHECK_ACL(bias_add_case(4, d4, 1, NHWC, "NCHW", 2), ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK_ACL(bias_add_case(4, d4, 3, ND, NULL, 2), ACL_ERROR_OP_INPUT_NOT_MATCH);
}

/* ge's own (ONNX) image ops take NCHW: an NHWC description is refused, not read as NCHW. */
static void test_onnx_ops_refuse_nhwc(void) {
  const int64_t xd[4] = {1, 4, 4, 2}, wd[4] = {1, 2, 1, 1}, yd[4] = {1, 4, 4, 1};
  Tensor t[2] = {fmt_tensor(NHWC, 4, xd, NULL), fmt_tensor(NCHW, 4, wd, NULL)};
  Tensor y = fmt_tensor(NHWC, 4, yd, NULL);
  CHECK_ACL(compile_op("Conv", 2, t, 1, &y, NULL), ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK(strstr(aclGetRecentErrMsg(), "NCHW") != NULL);
  aclopAttr *a = aclopCreateAttr();
  const int64_t k[2] = {2, 2};
  aclopSetAttrListInt(a, "kernel_shape", 2, k);
  Tensor p = fmt_tensor(NHWC, 4, xd, NULL);
  CHECK_ACL(compile_op("MaxPool", 1, t, 1, &p, a), ACL_ERROR_FORMAT_NOT_MATCH);
  CHECK_ACL(compile_op("GlobalAveragePool", 1, t, 1, &p, NULL), ACL_ERROR_FORMAT_NOT_MATCH);
  /* described NCHW (or ND), the same ops compile */
  const int64_t xn[4] = {1, 2, 4, 4}, yn[4] = {1, 1, 4, 4}, pn[4] = {1, 2, 3, 3};
  Tensor tn[2] = {fmt_tensor(NCHW, 4, xn, NULL), fmt_tensor(NCHW, 4, wd, NULL)};
  Tensor yo = fmt_tensor(NCHW, 4, yn, NULL), po = fmt_tensor(NCHW, 4, pn, NULL);
  CHECK_OK(compile_op("Conv", 2, tn, 1, &yo, NULL));
  CHECK_OK(compile_op("MaxPool", 1, tn, 1, &po, a));
  aclopDestroyAttr(a);
  Tensor all[] = {t[0], t[1], y, p, tn[0], tn[1], yo, po};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free_tensor(&all[i]);
}

int main(void) {
  CHECK_OK(aclInit(NULL));
  test_conv2d_layouts();
  test_conv2d_layout_errors();
  test_conv2d_handle_and_infer();
  test_pool_layouts();
  test_pooling_nhwc();
  test_onnx_ops_refuse_nhwc();
  test_depthwise_conv2d();
  test_bias_add();
  test_pool_v2();
  CHECK_OK(aclFinalize());
  return check_report("acl op layouts");
}
