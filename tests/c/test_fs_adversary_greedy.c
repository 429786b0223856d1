/* The adversarial churn of test_fs_adversary.c with the greedy victim as
 * full as the fill allows: every record overwrites a live sector of the
 * closed unit that holds the most (ADV_GREEDY there), so the units drain
 * evenly and collection meets the fullest victims it can (DESIGN.md §10),
 * at 92 % of the live limit by default (STEADYFS_ADV_FILL).  Checked as
 * there: every call within its bound, every window of records within
 * n c + d, no ENOSPC below the live limit, counts exact. */
#define ADV_GREEDY 1
#define ADV_DEFAULT_FILL 92
#define ADV_DEFAULT_CALLS 30000
#define ADV_NAME "test_fs_adversary_greedy"
#include "test_fs_adversary.c"
