/* placeholder replaced below */
#include "fs/fs_internal.h"
