/*
 * The minimal C runtime the freestanding core needs (the firmware links
 * with -nostdlib, so newlib is not pulled in): memcpy, memset, memmove,
 * memcmp, strlen, strcmp, strncmp.  Word-at-a-time where it matters: the
 * device model formats and copies megabytes of image at boot.
 *
 * GCC may turn these loops into calls to the very function being defined;
 * no-tree-loop-distribute-patterns stops that.
 */
#include <stdint.h>
#include <string.h>

#define RT_FN __attribute__((optimize("no-tree-loop-distribute-patterns")))

RT_FN void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
        for (; n >= 4; n -= 4, d += 4, s += 4)
            *(uint32_t *)(void *)d = *(const uint32_t *)(const void *)s;
    }
    while (n--)
        *d++ = *s++;
    return dst;
}

RT_FN void *memset(void *dst, int c, size_t n)
{
    uint8_t *d = dst;
    uint32_t w = (uint8_t)c * 0x01010101u;
    while (n && ((uintptr_t)d & 3u)) {
        *d++ = (uint8_t)c;
        n--;
    }
    for (; n >= 4; n -= 4, d += 4)
        *(uint32_t *)(void *)d = w;
    while (n--)
        *d++ = (uint8_t)c;
    return dst;
}

RT_FN void *memmove(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if (d <= s || d >= s + n)
        return memcpy(dst, src, n);
    while (n--)
        d[n] = s[n];
    return dst;
}

RT_FN int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x < *y ? -1 : 1;
    return 0;
}

RT_FN size_t strlen(const char *s)
{
    const char *p = s;
    while (*p)
        p++;
    return (size_t)(p - s);
}

RT_FN int strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++) {
        if (*a != *b)
            return (uint8_t)*a < (uint8_t)*b ? -1 : 1;
        if (!*a)
            return 0;
    }
    return 0;
}

RT_FN int strcmp(const char *a, const char *b) { return strncmp(a, b, SIZE_MAX); }
