/* Internal: natural string order ("cpu2" < "cpu10"). */
#ifndef PMS_UTIL_NATSORT_H
#define PMS_UTIL_NATSORT_H
int pms_natcmp(const char *a, const char *b);
#endif
