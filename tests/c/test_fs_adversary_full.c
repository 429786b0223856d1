/* The adversarial churn of test_fs_adversary.c at 92 % of the live limit,
 * where collection cannot keep up (its copies induce more map writes than
 * a victim frees, DESIGN.md §10): writes fail with ENOSPC, and this checks
 * what a user is promised then -- the file system never runs itself out
 * of the units a delete needs (before SFS_RM_UNITS it did, and neither a
 * write nor an unlink could run again), a delete works, and writes
 * succeed after it. */
#define ADV_DEFAULT_FILL 92
#define ADV_DEFAULT_CALLS 30000
#define ADV_NAME "test_fs_adversary_full"
#include "test_fs_adversary.c"
