/* A minimal test harness: CHECK counts, a failure names its line, and
 * check_done() prints "<name>: N passed, N failed" and gives the exit code. */
#ifndef STEADYFS_TEST_CHECK_H
#define STEADYFS_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (cond) {                                                               \
            check_passed++;                                                       \
        } else {                                                                  \
            check_failed++;                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                         \
    } while (0)

#define CHECK_EQ(a, b)                                                            \
    do {                                                                          \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);           \
        if (check_a_ == check_b_) {                                               \
            check_passed++;                                                       \
        } else {                                                                  \
            check_failed++;                                                       \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n",   \
                    __FILE__, __LINE__, #a, check_a_, #b, check_b_);              \
        }                                                                         \
    } while (0)

static inline int check_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed != 0 || check_passed == 0;
}

#endif
