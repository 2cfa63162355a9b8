/* The attribute family: every aclopSetAttr* on success and on its documented errors; the
 * values' effect on ops is checked in op_map_test.c. */
#include "check.h"

int main(void) {
  aclopAttr *a = aclopCreateAttr();
  CHECK(a != NULL);
  CHECK_OK(aclopSetAttrBool(a, "b", 1));
  CHECK_OK(aclopSetAttrInt(a, "i", -7));
  CHECK_OK(aclopSetAttrFloat(a, "f", 0.5f));
  CHECK_OK(aclopSetAttrString(a, "s", "SAME"));
  CHECK_OK(aclopSetAttrDataType(a, "t", ACL_INT32));
  const aclDataType types[] = {ACL_FLOAT, ACL_INT64};
  CHECK_OK(aclopSetAttrListDataType(a, "lt", 2, types));
  const uint8_t bools[] = {0, 1, 1};
  CHECK_OK(aclopSetAttrListBool(a, "lb", 3, bools));
  const int64_t ints[] = {1, 2, 3, 4};
  CHECK_OK(aclopSetAttrListInt(a, "li", 4, ints));
  CHECK_OK(aclopSetAttrListInt(a, "empty", 0, NULL));
  const float floats[] = {0.25f, 2.0f};
  CHECK_OK(aclopSetAttrListFloat(a, "lf", 2, floats));
  const char *strings[] = {"x", "y"};
  CHECK_OK(aclopSetAttrListString(a, "ls", 2, strings));
  const int64_t row0[] = {1, 2}, row1[] = {3, 4};
  const int64_t *rows[] = {row0, row1};
  const int lengths[] = {2, 2};
  CHECK_OK(aclopSetAttrListListInt(a, "lli", 2, lengths, rows));
  CHECK_OK(aclopSetAttrInt(a, "i", 8)); /* replaces */

  /* null attributes, names and values */
  CHECK_ACL(aclopSetAttrBool(NULL, "b", 1), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetAttrInt(a, NULL, 1), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetAttrFloat(a, "", 1.0f), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetAttrString(a, "s", NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetAttrListInt(a, "li", 2, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetAttrListInt(a, "li", -1, ints), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetAttrListFloat(a, "lf", 1, NULL), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetAttrListBool(a, "lb", 1, NULL), ACL_ERROR_INVALID_PARAM);
  const char *holey[] = {"x", NULL};
  CHECK_ACL(aclopSetAttrListString(a, "ls", 2, holey), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetAttrListDataType(a, "lt", 1, NULL), ACL_ERROR_INVALID_PARAM);
  /* data types with no ge tensor type, and values that are no type */
  CHECK_ACL(aclopSetAttrDataType(a, "t", ACL_STRING), ACL_ERROR_UNSUPPORTED_DATA_TYPE);
  CHECK_ACL(aclopSetAttrDataType(a, "t", (aclDataType)55), ACL_ERROR_INVALID_PARAM);
  /* lists of lists: one length for all, non-null pointers */
  const int ragged[] = {2, 1};
  CHECK_ACL(aclopSetAttrListListInt(a, "lli", 2, ragged, rows), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetAttrListListInt(a, "lli", 2, NULL, rows), ACL_ERROR_INVALID_PARAM);
  CHECK_ACL(aclopSetAttrListListInt(a, "lli", -2, lengths, rows), ACL_ERROR_INVALID_PARAM);
  aclopDestroyAttr(a);
  aclopDestroyAttr(NULL);
  return check_report("acl attr");
}
