/* The bound, enforced (issue 12 item 4).  In test builds every API call is
 * armed with the budget steadyfs_bound states for its kind and size, the
 * media layer spends against it, and a call that ends over budget in
 * reads, programs or erases stops the test with the call, its size and
 * both figures.  The budget comes from the same code `steady bound` prints,
 * so a change that makes a call do more than the stated bound fails every
 * test that reaches it, not only the timing tests.
 *
 * Not armed: unmount (it is the closes it makes, each armed), seek/tell.
 * Device faults (a failed program or erase, a power cut) void the running
 * call's check: their handling (a retired unit, a redone program, a
 * checkpoint) is outside the stated bound (DESIGN.md §7). */
#include "fs/fs_internal.h"

#ifdef STEADYFS_CHECK_BUDGET
#include <stdio.h>
#include <stdlib.h>

/* Path components of an absolute path: the depth argument of path calls. */
static uint32_t path_depth(const char *path)
{
    uint32_t n = 0;
    int in_name = 0;
    if (!path)
        return 0;
    for (; *path; path++) {
        if (*path == '/')
            in_name = 0;
        else if (!in_name) {
            in_name = 1;
            n++;
        }
    }
    return n;
}

void sfs_budget_arm(steadyfs *fs, steadyfs_call call, uint64_t n)
{
    steadyfs_cost c;
    fs->chk_call = -1;
    if (steadyfs_bound(&fs->cfg, &fs->cfg.bd->geo, call, n, &c))
        return;
    fs->chk_call = (int32_t)call;
    fs->chk_n = n;
    /* (mount has no table yet: nothing to keep) */
    fs->chk_kept = call != STEADYFS_CALL_MOUNT && fs->blk && sfs_ck_kept(fs) && sfs_switch_units(fs) >= SFS_CK_SWITCH;
    fs->chk_limit[SFS_SPEND_READ] = c.reads;
    fs->chk_limit[SFS_SPEND_PROG] = c.progs;
    fs->chk_limit[SFS_SPEND_ERASE] = c.erases;
    fs->chk_used[0] = fs->chk_used[1] = fs->chk_used[2] = 0;
}

void sfs_budget_arm_path(steadyfs *fs, steadyfs_call call, const char *path, const char *path2)
{
    uint32_t a = path_depth(path), b = path_depth(path2);
    sfs_budget_arm(fs, call, a > b ? a : b);
}

void sfs_budget_spend(steadyfs *fs, uint32_t what, uint32_t n)
{
    fs->chk_used[what] += n;
}

void sfs_budget_void(steadyfs *fs)
{
    fs->chk_call = -1;
}

void sfs_budget_check(steadyfs *fs)
{
    static const char *const what[3] = {"reads", "programs", "erases"};
    uint32_t i;
    if (fs->chk_call < 0)
        return;
    for (i = 0; i < 3; i++)
        if (fs->chk_used[i] > fs->chk_limit[i]) {
            fprintf(stderr, "steadyfs: call %s (n=%llu) spent %u %s, its bound allows %u "
                    "(used r/p/e %u/%u/%u, bound %u/%u/%u)\n",
                    steadyfs_call_name((steadyfs_call)fs->chk_call),
                    (unsigned long long)fs->chk_n, fs->chk_used[i], what[i],
                    fs->chk_limit[i], fs->chk_used[0], fs->chk_used[1], fs->chk_used[2],
                    fs->chk_limit[0], fs->chk_limit[1], fs->chk_limit[2]);
            abort();
        }
    /* The log keeps a unit for the checkpoints' next switch whatever the
     * state (log.c head_move): a call without a device fault never takes
     * it (one with a fault voided this check: a unit may have gone bad). */
    if (fs->chk_kept && !fs->dead && sfs_switch_units(fs) < SFS_CK_SWITCH) {
        fprintf(stderr, "steadyfs: call %s (n=%llu) took the unit kept for a checkpoint-unit switch "
                "(queued %u, free %u, limbo %u, held %u)\n", steadyfs_call_name((steadyfs_call)fs->chk_call),
                (unsigned long long)fs->chk_n, fs->log.nqueued, fs->log.nfree, fs->log.nlimbo, fs->log.nheld);
        abort();
    }
    fs->chk_call = -1;
}
#endif
