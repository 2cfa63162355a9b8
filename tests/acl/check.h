/* A tiny assertion harness for the C tests of the acl API: CHECK(cond) and
 * CHECK_ACL(call, code) count failures and print them with the call's text, the code
 * returned and aclGetRecentErrMsg(); check_report() prints the totals and gives main's
 * exit status. One test program per family of functions. */
#ifndef GE_TESTS_ACL_CHECK_H_
#define GE_TESTS_ACL_CHECK_H_

#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

static int check_count;
static int check_failures;

#define CHECK(cond)                                                         \
  do {                                                                      \
    ++check_count;                                                          \
    if (!(cond)) {                                                          \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++check_failures;                                                     \
    }                                                                       \
  } while (0)

#define CHECK_ACL(call, code)                                                                          \
  do {                                                                                                 \
    aclError check_got_ = (call);                                                                      \
    ++check_count;                                                                                     \
    if (check_got_ != (code)) {                                                                        \
      fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s); last message: %s\n", __FILE__, __LINE__, \
              #call, check_got_, (int)(code), #code, aclGetRecentErrMsg());                            \
      ++check_failures;                                                                                \
    }                                                                                                  \
  } while (0)

#define CHECK_OK(call) CHECK_ACL(call, ACL_SUCCESS)

/* Whether every value of a[0..n) is within 1e-4 of b[0..n). */
static inline int close_floats(const float *a, const float *b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float d = a[i] - b[i];
    if (d > 1e-4f || d < -1e-4f) {
      fprintf(stderr, "  value %zu: %g, expected %g\n", i, (double)a[i], (double)b[i]);
      return 0;
    }
  }
  return 1;
}

/* Prints "<name>: N checks, M failed" and returns main's exit status. */
static inline int check_report(const char *name) {
  printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
  return check_failures == 0 ? 0 : 1;
}

#endif /* GE_TESTS_ACL_CHECK_H_ */
