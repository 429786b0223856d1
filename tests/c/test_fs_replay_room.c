/* The relocation records a replay rebuilds fit the table (format 21,
 * DESIGN.md §10).  A replay after a cut starts from the relocation sector
 * the last checkpoint names, adds a record for every victim whose copies
 * follow it and retires none, so it may hold more records than run time
 * ever does; collection begins a victim only while that sum fits
 * (reloc.c sfs_reloc_room).  Built with SFS_RELOC_SLACK 0 (the Makefile's
 * rule for this test), the table has the default mt29f1g01's margin, R + 2,
 * on every device, and the torture's small NOR device meets the state --
 * records retired and victims begun between two checkpoints, then a cut --
 * within a few thousand calls: each of these runs, before that count,
 * failed the mount after a cut with ECORRUPT (`steady torture --device
 * mt25q128 --seed S --ops N --powercut 200 --file-max 100000 --fill 65`;
 * with the guard taken out of sfs_reloc_room, at ops 2123, 628 and 3346
 * since the pace is kept in fractions of a step, 38th session -- seed 3
 * had failed at 1721 before -- and seeds 4-12 all within 4000). */
#include <stdio.h>

#include "check.h"
#include "host/torture.h"
#include "fs/fs_internal.h"

int main(void)
{
    static const struct {
        uint64_t seed;
        uint32_t ops;
    } runs[] = {{1, 3162}, {2, 1261}, {3, 4000}};
    unsigned i;
    CHECK_EQ(SFS_RELOC_SLACK, 0u);   /* (the Makefile's rule for this test) */
    for (i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        steady_torture_opts o = {0};
        steady_torture_result r;
        o.device = "mt25q128";
        o.seed = runs[i].seed;
        o.ops = runs[i].ops;
        o.powercut = 200;
        o.faults = 1;
        o.file_max = 100000;
        o.fill = 65;
        CHECK_EQ(steady_torture_run(&o, &r, stdout), 0);
        CHECK_EQ(r.failures, 0);
    }
    return check_done("test_fs_replay_room");
}
