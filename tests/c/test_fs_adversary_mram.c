/* The adversarial churn of test_fs_adversary.c on MRAM (em064lx: no erase, 64 KiB units of 31
 * sectors, the tag beside each), in worst timing at 75 % of the
 * live limit: every call within its bound, every window of records within
 * n c + d, no ENOSPC below the live limit (issue 16).  10^5 calls in
 * make test, as on mt29f1g01; STEADYFS_ADV_CALLS for more. */
#define ADV_DEFAULT_DEVICE "em064lx"
#define ADV_NAME "test_fs_adversary_mram"
#include "test_fs_adversary.c"
