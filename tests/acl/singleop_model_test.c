/* Offline single-op models, used as GE's single-op samples use them: the ops of
 * singleop_ops.json compiled by `gec --singleop singleop_ops.json --output DIR` (GE: atc
 * --singleop), loaded with aclopSetModelDir(DIR) or aclopLoad and run with
 * aclopExecuteV2 without any aclopCompile; the errors of bad folders and files, GE's
 * once-per-process rule, and loaded ops outliving aclFinalize.
 *
 *   singleop_model_test DIR   (it adds, then removes, DIR/zz_junk.om: a .om that is no op model)
 *
 * Written with acl calls only, so that it builds against an installed ge as a sample
 * does: cc singleop_model_test.c -I$PREFIX/runtime/include -L$PREFIX/runtime/lib64/stub -lascendcl */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "check.h"

static aclrtStream stream;

/* Runs `op` with float inputs a (dims da) and b (dims db) into y (room for `cap`
 * floats) whose description has dims dy; returns aclopExecuteV2's status. */
static aclError run2(const char *op, int na, const int64_t *da, const float *a, int nb, const int64_t *db,
                     const float *b, int ny, const int64_t *dy, float *y, size_t cap, aclopAttr *attr) {
  aclTensorDesc *in[2] = {aclCreateTensorDesc(ACL_FLOAT, na, da, ACL_FORMAT_ND),
                          aclCreateTensorDesc(ACL_FLOAT, nb, db, ACL_FORMAT_ND)};
  aclTensorDesc *out[1] = {aclCreateTensorDesc(ACL_FLOAT, ny, dy, ACL_FORMAT_ND)};
  size_t sa = 1, sb = 1;
  for (int i = 0; i < na; ++i) sa *= (size_t)da[i];
  for (int i = 0; i < nb; ++i) sb *= (size_t)db[i];
  aclDataBuffer *ib[2] = {aclCreateDataBuffer((void *)a, sa * sizeof(float)), aclCreateDataBuffer((void *)b, sb * sizeof(float))};
  aclDataBuffer *ob[1] = {aclCreateDataBuffer(y, cap * sizeof(float))};
  const aclError e = aclopExecuteV2(op, 2, in, ib, 1, out, ob, attr, stream);
  if (e == ACL_SUCCESS) CHECK_OK(aclrtSynchronizeStream(stream));
  for (int i = 0; i < 2; ++i) {
    aclDestroyTensorDesc(in[i]);
    aclDestroyDataBuffer(ib[i]);
  }
  aclDestroyTensorDesc(out[0]);
  aclDestroyDataBuffer(ob[0]);
  return e;
}

/* Add f32[2,3] (the model named add_f32). */
static aclError add_2x3(void) {
  const int64_t d[] = {2, 3};
  const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
  float y[6] = {0};
  const aclError e = run2("Add", 2, d, a, 2, d, b, 2, d, y, 6, NULL);
  if (e == ACL_SUCCESS)
    for (int i = 0; i < 6; ++i) CHECK(y[i] == a[i] + b[i]);
  return e;
}

static unsigned char *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = (unsigned char *)malloc((size_t)n);
  *size = fread(p, 1, (size_t)n, f);
  fclose(f);
  return p;
}

/* The file format's checksum (FNV-1a 64 of every byte before the last 8), rewritten
 * after a deliberate change so that only the change is wrong. */
static void reseal(unsigned char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n - 8; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  for (int i = 0; i < 8; ++i) p[n - 8 + (size_t)i] = (unsigned char)(h >> (8 * i));
}

/* Conv2D NCHW f32[1,1,4,4] * [1,1,3,3], pads 1 (attributes of every list/int/string kind
 * read from the file), against a direct loop. */
static void conv2d_from_file(void) {
  const int64_t dx[] = {1, 1, 4, 4}, dw[] = {1, 1, 3, 3};
  float x[16], w[9], y[16] = {0}, want[16];
  for (int i = 0; i < 16; ++i) x[i] = (float)(i % 5) - 2.0f;
  for (int i = 0; i < 9; ++i) w[i] = (float)(i % 3) - 1.0f + 0.5f * (float)(i / 3);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      float acc = 0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          const int rr = r + i - 1, cc = c + j - 1;
          if (rr >= 0 && rr < 4 && cc >= 0 && cc < 4) acc += x[rr * 4 + cc] * w[i * 3 + j];
        }
      want[r * 4 + c] = acc;
    }
  aclTensorDesc *in[2] = {aclCreateTensorDesc(ACL_FLOAT, 4, dx, ACL_FORMAT_NCHW),
                          aclCreateTensorDesc(ACL_FLOAT, 4, dw, ACL_FORMAT_NCHW)};
  aclTensorDesc *out[1] = {aclCreateTensorDesc(ACL_FLOAT, 4, dx, ACL_FORMAT_NCHW)};
  aclDataBuffer *ib[2] = {aclCreateDataBuffer(x, sizeof x), aclCreateDataBuffer(w, sizeof w)};
  aclDataBuffer *ob[1] = {aclCreateDataBuffer(y, sizeof y)};
  aclopAttr *attr = aclopCreateAttr();
  const int64_t ones[] = {1, 1, 1, 1};
  CHECK_OK(aclopSetAttrListInt(attr, "strides", 4, ones));
  CHECK_OK(aclopSetAttrListInt(attr, "pads", 4, ones));
  CHECK_OK(aclopSetAttrListInt(attr, "dilations", 4, ones));
  CHECK_OK(aclopSetAttrInt(attr, "groups", 1));
  CHECK_OK(aclopSetAttrString(attr, "data_format", "NCHW"));
  CHECK_OK(aclopExecuteV2("Conv2D", 2, in, ib, 1, out, ob, attr, stream));
  CHECK(close_floats(y, want, 16));
  aclopDestroyAttr(attr);
  for (int i = 0; i < 2; ++i) {
    aclDestroyTensorDesc(in[i]);
    aclDestroyDataBuffer(ib[i]);
  }
  aclDestroyTensorDesc(out[0]);
  aclDestroyDataBuffer(ob[0]);
}

/* Cast f32 -> int32 (an int attribute) and Transpose with a constant perm input (the
 * constant's data read from the file must equal the run's). */
static void cast_and_transpose_from_file(void) {
  const int64_t d4[] = {4};
  float x[4] = {1.0f, -2.0f, 3.0f, 40.0f};
  int32_t yi[4] = {0};
  aclTensorDesc *cin[1] = {aclCreateTensorDesc(ACL_FLOAT, 1, d4, ACL_FORMAT_ND)};
  aclTensorDesc *cout[1] = {aclCreateTensorDesc(ACL_INT32, 1, d4, ACL_FORMAT_ND)};
  aclDataBuffer *cib[1] = {aclCreateDataBuffer(x, sizeof x)};
  aclDataBuffer *cob[1] = {aclCreateDataBuffer(yi, sizeof yi)};
  aclopAttr *attr = aclopCreateAttr();
  CHECK_OK(aclopSetAttrInt(attr, "dst_type", ACL_INT32));
  CHECK_OK(aclopExecuteV2("Cast", 1, cin, cib, 1, cout, cob, attr, stream));
  CHECK(yi[0] == 1 && yi[1] == -2 && yi[2] == 3 && yi[3] == 40);
  aclopDestroyAttr(attr);
  aclDestroyTensorDesc(cin[0]);
  aclDestroyTensorDesc(cout[0]);
  aclDestroyDataBuffer(cib[0]);
  aclDestroyDataBuffer(cob[0]);

  const int64_t dx[] = {2, 3}, dp[] = {2}, dy[] = {3, 2};
  float a[6] = {1, 2, 3, 4, 5, 6}, t[6] = {0};
  int64_t perm[2] = {1, 0};
  aclTensorDesc *tin[2] = {aclCreateTensorDesc(ACL_FLOAT, 2, dx, ACL_FORMAT_ND),
                           aclCreateTensorDesc(ACL_INT64, 1, dp, ACL_FORMAT_ND)};
  aclTensorDesc *tout[1] = {aclCreateTensorDesc(ACL_FLOAT, 2, dy, ACL_FORMAT_ND)};
  CHECK_OK(aclSetTensorConst(tin[1], perm, sizeof perm));
  aclDataBuffer *tib[2] = {aclCreateDataBuffer(a, sizeof a), aclCreateDataBuffer(perm, sizeof perm)};
  aclDataBuffer *tob[1] = {aclCreateDataBuffer(t, sizeof t)};
  CHECK_OK(aclopExecuteV2("Transpose", 2, tin, tib, 1, tout, tob, NULL, stream));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) CHECK(t[i * 2 + j] == a[j * 3 + i]);
  /* another constant perm than the file's: no model for it (the constant is part of the key) */
  int64_t same[2] = {0, 1};
  aclTensorDesc *other = aclCreateTensorDesc(ACL_INT64, 1, dp, ACL_FORMAT_ND);
  CHECK_OK(aclSetTensorConst(other, same, sizeof same));
  aclTensorDesc *tin2[2] = {tin[0], other};
  aclTensorDesc *tout2[1] = {aclCreateTensorDesc(ACL_FLOAT, 2, dx, ACL_FORMAT_ND)};
  CHECK_ACL(aclopExecuteV2("Transpose", 2, tin2, tib, 1, tout2, tob, NULL, stream), ACL_ERROR_OP_NOT_FOUND);
  aclDestroyTensorDesc(other);
  aclDestroyTensorDesc(tout2[0]);
  for (int i = 0; i < 2; ++i) {
    aclDestroyTensorDesc(tin[i]);
    aclDestroyDataBuffer(tib[i]);
  }
  aclDestroyTensorDesc(tout[0]);
  aclDestroyDataBuffer(tob[0]);
}

/* Writes `text` to `path` (a file of the test's own, removed after). */
static int write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return 0;
  fputs(text, f);
  return fclose(f) == 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL_DIR\n", argv[0]);
    return 2;
  }
  const char *dir = argv[1];
  char add_path[4096], junk_path[4096];
  snprintf(add_path, sizeof add_path, "%s/add_f32.om", dir);
  snprintf(junk_path, sizeof junk_path, "%s/zz_junk.om", dir);

  CHECK_OK(aclInit(NULL));
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtCreateStream(&stream));

  /* Nothing compiled or loaded: not found. */
  CHECK_ACL(add_2x3(), ACL_ERROR_OP_NOT_FOUND);

  /* aclopLoad: one model from memory (the Add of add_f32.om); its bad forms. */
  size_t size = 0;
  unsigned char *model = read_all(add_path, &size);
  CHECK(model != NULL && size > 16);
  if (model != NULL && size > 16) {
    CHECK_ACL(aclopLoad(NULL, size), ACL_ERROR_INVALID_PARAM);
    CHECK_ACL(aclopLoad(model, 0), ACL_ERROR_INVALID_PARAM);
    CHECK_ACL(aclopLoad(model, size - 9), ACL_ERROR_PARSE_MODEL); /* truncated */
    CHECK_ACL(aclopLoad("GEOPMDL", 8), ACL_ERROR_PARSE_MODEL);     /* the mark alone */
    CHECK_ACL(aclopLoad("not an op model", 15), ACL_ERROR_PARSE_MODEL);
    CHECK(strstr(aclGetRecentErrMsg(), "not a ge single-op model") != NULL);
    model[size / 2] ^= 0x5a; /* damaged */
    CHECK_ACL(aclopLoad(model, size), ACL_ERROR_PARSE_MODEL);
    CHECK(strstr(aclGetRecentErrMsg(), "checksum") != NULL);
    model[size / 2] ^= 0x5a;
    CHECK_ACL(add_2x3(), ACL_ERROR_OP_NOT_FOUND);
    CHECK_OK(aclopLoad(model, size));
    CHECK_OK(add_2x3());
    /* A well-formed model of an op ge cannot compile: the op type "Add" made "Adq". */
    unsigned char *p = NULL;
    for (size_t i = 0; i + 3 <= size; ++i)
      if (memcmp(model + i, "Add", 3) == 0) {
        p = model + i;
        break;
      }
    CHECK(p != NULL);
    if (p != NULL) {
      p[2] = 'q';
      reseal(model, size);
      CHECK_ACL(aclopLoad(model, size), ACL_ERROR_OP_LOAD_FAILED);
      CHECK(strstr(aclGetRecentErrMsg(), "Adq") != NULL);
    }
    free(model);
  }

  /* Bad folders: null, missing. Neither counts as the one aclopSetModelDir of the process. */
  CHECK_ACL(aclopSetModelDir(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetModelDir("no/such/folder"), ACL_ERROR_READ_MODEL_FAILURE);

  /* The folder gec wrote, with a .om file that is no op model (skipped, as GE skips it):
   * every op runs without aclopCompile. */
  CHECK(write_text(junk_path, "not an op model\n"));
  CHECK_OK(aclopSetModelDir(dir));
  remove(junk_path);
  CHECK_OK(add_2x3());
  { /* the ranged Add at two row counts; the output description gets the real dims */
    const int64_t d4[] = {4}, dy[] = {-1, 4};
    const float b[4] = {1, 2, 3, 4};
    float a[32], y[32];
    for (int i = 0; i < 32; ++i) a[i] = (float)i;
    for (int64_t rows = 3; rows <= 8; rows += 5) {
      const int64_t da[] = {rows, 4};
      memset(y, 0, sizeof y);
      CHECK_OK(run2("Add", 2, da, a, 1, d4, b, 2, dy, y, 32, NULL));
      for (int64_t i = 0; i < rows * 4; ++i) CHECK(y[i] == a[i] + b[i % 4]);
    }
    const int64_t too_many[] = {9, 4};
    float big[36] = {0}, ybig[36];
    CHECK_ACL(run2("Add", 2, too_many, big, 1, d4, b, 2, dy, ybig, 36, NULL), ACL_ERROR_OP_NOT_FOUND);
  }
  { /* Relu compiled fuzzy (compile_flag 1): any length of rank 1 */
    const int64_t d7[] = {7};
    const float x[7] = {-3, -2, -1, 0, 1, 2, 3};
    float y[7] = {0};
    aclTensorDesc *in[1] = {aclCreateTensorDesc(ACL_FLOAT, 1, d7, ACL_FORMAT_ND)};
    aclTensorDesc *out[1] = {aclCreateTensorDesc(ACL_FLOAT, 1, d7, ACL_FORMAT_ND)};
    aclDataBuffer *ib[1] = {aclCreateDataBuffer((void *)x, sizeof x)};
    aclDataBuffer *ob[1] = {aclCreateDataBuffer(y, sizeof y)};
    CHECK_OK(aclopExecuteV2("Relu", 1, in, ib, 1, out, ob, NULL, stream));
    for (int i = 0; i < 7; ++i) CHECK(y[i] == (x[i] > 0 ? x[i] : 0));
    /* aclopExecute, GE's first run call, finds the same op */
    memset(y, 0, sizeof y);
    CHECK_OK(aclopExecute("Relu", 1, (const aclTensorDesc *const *)in, (const aclDataBuffer *const *)ib, 1,
                          (const aclTensorDesc *const *)out, ob, NULL, stream));
    CHECK(y[6] == 3 && y[0] == 0);
    aclDestroyTensorDesc(in[0]);
    aclDestroyTensorDesc(out[0]);
    aclDestroyDataBuffer(ib[0]);
    aclDestroyDataBuffer(ob[0]);
  }

  conv2d_from_file();
  cast_and_transpose_from_file();

  /* Once per process, as GE's. */
  CHECK_ACL(aclopSetModelDir(dir), ACL_ERROR_REPEAT_INITIALIZE);

  /* Loaded ops outlive aclFinalize, as GE's; aclopSetModelDir stays refused. */
  CHECK_OK(aclrtDestroyStream(stream));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  CHECK_OK(aclInit(NULL));
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtCreateStream(&stream));
  CHECK_OK(add_2x3());
  { /* MatMulV2 with transpose_x2: y = a * b^T */
    const int64_t da[] = {2, 3}, db[] = {4, 3}, dy[] = {2, 4};
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
    float y[8] = {0};
    aclopAttr *attr = aclopCreateAttr();
    CHECK_OK(aclopSetAttrBool(attr, "transpose_x1", 0));
    CHECK_OK(aclopSetAttrBool(attr, "transpose_x2", 1));
    CHECK_OK(run2("MatMulV2", 2, da, a, 2, db, b, 2, dy, y, 8, attr));
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        float want = 0;
        for (int k = 0; k < 3; ++k) want += a[i * 3 + k] * b[j * 3 + k];
        CHECK(y[i * 4 + j] == want);
      }
    /* other attributes than the model's: not found */
    CHECK_OK(aclopSetAttrBool(attr, "transpose_x2", 0));
    CHECK_ACL(run2("MatMulV2", 2, da, a, 2, db, b, 2, dy, y, 8, attr), ACL_ERROR_OP_NOT_FOUND);
    aclopDestroyAttr(attr);
  }
  CHECK_ACL(aclopSetModelDir(dir), ACL_ERROR_REPEAT_INITIALIZE);

  CHECK_OK(aclrtDestroyStream(stream));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  return check_report("acl.singleop_model");
}
