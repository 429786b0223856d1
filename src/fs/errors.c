/* Names of the error codes (Linux errno meanings). */
#include "fs/fs_internal.h"

const char *steadyfs_strerror(int err)
{
    static const struct {
        int8_t code;
        char name[16];
    } names[] = {
        {0, "success"},        {-1, "not permitted"},   {-2, "no such entry"},
        {-5, "I/O error"},     {-9, "bad handle"},      {-16, "busy"},
        {-17, "exists"},       {-20, "not a directory"},
        {-21, "is a directory"}, {-22, "invalid"},      {-23, "open table full"},
        {-27, "file too large"}, {-28, "no space"},     {-30, "not mounted"},
        {-36, "name too long"}, {-39, "not empty"},   {-117, "corrupt"},
    };
    unsigned i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == err)
            return names[i].name;
    return "unknown";
}
