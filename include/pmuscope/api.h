/* pmuscope export marker.
 *
 * The library is built with hidden symbol visibility: only what a public
 * header declares between PMS_API_BEGIN and PMS_API_END is exported from
 * libpmuscope.so (tests/cli/exports.sh compares the two).  Every public
 * header puts its declarations inside that pair; internal headers never do.
 *
 * Ownership: this header declares no functions and owns nothing.
 */
#ifndef PMUSCOPE_API_H
#define PMUSCOPE_API_H

#if defined(__GNUC__) || defined(__clang__)
#define PMS_API_BEGIN _Pragma("GCC visibility push(default)")
#define PMS_API_END _Pragma("GCC visibility pop")
#else
#define PMS_API_BEGIN
#define PMS_API_END
#endif

#endif
