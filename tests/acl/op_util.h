/* Helpers of the single-op C tests: a tensor (description, buffer, data) made from
 * values, and compile-then-execute of an op over arrays of them. */
#ifndef GE_TESTS_ACL_OP_UTIL_H_
#define GE_TESTS_ACL_OP_UTIL_H_

#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct {
  aclTensorDesc *desc;
  aclDataBuffer *buf;
  void *data;
} Tensor;

/* A tensor of `type` with `rank` dims (which may hold -1 for a compile description) and
 * `bytes` bytes of data copied from `values` (null: zeros). */
static inline Tensor make_tensor(aclDataType type, int rank, const int64_t *dims, const void *values, size_t bytes) {
  Tensor t;
  t.desc = aclCreateTensorDesc(type, rank, dims, ACL_FORMAT_ND);
  t.data = calloc(1, bytes > 0 ? bytes : 1);
  if (values != NULL && bytes > 0) memcpy(t.data, values, bytes);
  t.buf = aclCreateDataBuffer(t.data, bytes);
  return t;
}

/* An f32 tensor of the values (count from the dims; -1 dims count as `fill`). */
static inline Tensor f32_tensor(int rank, const int64_t *dims, const float *values) {
  size_t n = 1;
  for (int i = 0; i < rank; ++i) n *= (size_t)(dims[i] < 0 ? 1 : dims[i]);
  return make_tensor(ACL_FLOAT, rank, dims, values, n * sizeof(float));
}

/* An f32 output of `rank` dims with room for `capacity` values. */
static inline Tensor f32_output(int rank, const int64_t *dims, size_t capacity) {
  return make_tensor(ACL_FLOAT, rank, dims, NULL, capacity * sizeof(float));
}

/* The unused optional input. */
static inline Tensor no_tensor(void) {
  Tensor t;
  t.desc = aclCreateTensorDesc(ACL_DT_UNDEFINED, 0, NULL, ACL_FORMAT_UNDEFINED);
  t.data = NULL;
  t.buf = aclCreateDataBuffer(NULL, 0);
  return t;
}

static inline void free_tensor(Tensor *t) {
  aclDestroyTensorDesc(t->desc);
  aclDestroyDataBuffer(t->buf);
  free(t->data);
}

/* The descriptions and buffers of up to 8 tensors. */
typedef struct {
  aclTensorDesc *desc[8];
  aclDataBuffer *buf[8];
} Arrays;

static inline Arrays arrays_of(int n, Tensor *t) {
  Arrays a;
  memset(&a, 0, sizeof a);
  for (int i = 0; i < n && i < 8; ++i) {
    a.desc[i] = t[i].desc;
    a.buf[i] = t[i].buf;
  }
  return a;
}

static inline aclError compile_op(const char *op, int nin, Tensor *in, int nout, Tensor *out, const aclopAttr *attr) {
  Arrays i = arrays_of(nin, in), o = arrays_of(nout, out);
  return aclopCompile(op, nin, (const aclTensorDesc *const *)i.desc, nout, (const aclTensorDesc *const *)o.desc, attr,
                      ACL_ENGINE_SYS, ACL_COMPILE_SYS, NULL);
}

static inline aclError execute_op(const char *op, int nin, Tensor *in, int nout, Tensor *out, aclopAttr *attr) {
  Arrays i = arrays_of(nin, in), o = arrays_of(nout, out);
  return aclopExecuteV2(op, nin, i.desc, i.buf, nout, o.desc, o.buf, attr, NULL);
}

/* aclopCompile for the tensors' descriptions, then aclopExecuteV2 on them. */
static inline aclError compile_and_run(const char *op, int nin, Tensor *in, int nout, Tensor *out, aclopAttr *attr) {
  const aclError e = compile_op(op, nin, in, nout, out, attr);
  return e != ACL_SUCCESS ? e : execute_op(op, nin, in, nout, out, attr);
}

/* Whether a description's dims are exactly dims[0..rank). */
static inline int dims_are(const aclTensorDesc *d, int rank, const int64_t *dims) {
  if (aclGetTensorDescNumDims(d) != (size_t)rank) return 0;
  for (int i = 0; i < rank; ++i) {
    int64_t v = 0;
    if (aclGetTensorDescDimV2(d, (size_t)i, &v) != ACL_SUCCESS || v != dims[i]) return 0;
  }
  return 1;
}

#endif /* GE_TESTS_ACL_OP_UTIL_H_ */
