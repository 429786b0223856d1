/* Names of the error codes (Linux errno meanings). */
#include "fs/fs_internal.h"

const char *steadyfs_strerror(int err)
{
    /* the codes, and their names in the same order as one string of
     * NUL-separated names ending in "unknown": no padded table */
    static const int8_t codes[] = {0, -1, -2, -5, -9, -16, -17, -20, -21, -22, -23, -27, -28,
                                   -30, -36, -39, -40, -117, -124};
    static const char names[] =
        "success\0not permitted\0no such entry\0I/O error\0bad handle\0busy\0exists\0"
        "not a directory\0is a directory\0invalid\0open table full\0file too large\0"
        "no space\0not mounted\0name too long\0not empty\0symbolic link\0corrupt\0"
        "another format version\0unknown";
    const char *p = names;
    unsigned i;
    for (i = 0; i < sizeof codes && codes[i] != err; i++)
        p += strlen(p) + 1;
    return p;
}
