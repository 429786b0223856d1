/* The adversarial churn of test_fs_adversary.c with the held sector
 * configured (steadyfs_config.hold_buf, ADV_HOLD there): every write,
 * sync, close and read within its bound with the held sector's paths in
 * them, the records' windows within n c + d, and two more streams of
 * write + sync to a file kept open, whose windows must stay within the
 * guarantee for such records (STEADYFS_RECORD_HELD: no inode sector, as
 * O_DSYNC records), at random offsets and at sector boundaries. */
#define ADV_HOLD 1
#define ADV_DEFAULT_CALLS 30000
#define ADV_NAME "test_fs_adversary_hold"
#include "test_fs_adversary.c"
