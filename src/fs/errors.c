/* Names of the error codes. */
#include "fs/fs_internal.h"

const char *steadyfs_strerror(int err)
{
    switch (err) {
    case STEADYFS_OK: return "success";
    case STEADYFS_EPERM: return "operation not permitted";
    case STEADYFS_ENOENT: return "no such file or directory";
    case STEADYFS_EIO: return "I/O error";
    case STEADYFS_EBADF: return "bad handle";
    case STEADYFS_EBUSY: return "busy";
    case STEADYFS_EEXIST: return "already exists";
    case STEADYFS_EXDEV: return "cross-device";
    case STEADYFS_ENOTDIR: return "not a directory";
    case STEADYFS_EISDIR: return "is a directory";
    case STEADYFS_EINVAL: return "invalid argument";
    case STEADYFS_ENFILE: return "too many open files";
    case STEADYFS_EFBIG: return "file too large";
    case STEADYFS_ENOSPC: return "no space left";
    case STEADYFS_EROFS: return "not mounted";
    case STEADYFS_ENAMETOOLONG: return "name too long";
    case STEADYFS_ENOTEMPTY: return "directory not empty";
    case STEADYFS_ECORRUPT: return "corrupt file system structure";
    default: return "unknown error";
    }
}
