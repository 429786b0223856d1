/* Names of the block-device error codes. */
#include "steadyfs/bd.h"

const char *sbd_strerror(int err)
{
    switch (err) {
    case SBD_OK: return "ok";
    case SBD_ERR_ECC: return "ECC uncorrectable";
    case SBD_ERR_PROG: return "program failed";
    case SBD_ERR_ERASE: return "erase failed";
    case SBD_ERR_POWER: return "power lost";
    case SBD_ERR_RULE: return "device rule broken";
    case SBD_ERR_RANGE: return "out of range or misaligned";
    case SBD_ERR_BAD_BLOCK: return "bad block";
    case SBD_ERR_IO: return "I/O error";
    case SBD_ERR_INVAL: return "invalid argument";
    default: return err > 0 ? "ok" : "unknown error";
    }
}
