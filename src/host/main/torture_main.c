/* steady-torture: command-line front end of the power-loss torture runner
 * (src/host/torture.c).  `steady torture ...` execs this binary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/torture.h"
#include "steadyfs/host.h"

static int usage(void)
{
    fprintf(stderr, "usage: steady-torture --device PROFILE [--seed N] [--ops N] "
                    "[--powercut every|N|0] [--blocks N] [--erase-mult M] [--sector-size BYTES] [--ring-units N] [--pending-max K] [--file-max BYTES] [--meta] [--hold] [--handles N] [--fill PERCENT] [--read-errors PPM] [--wear-limit N] [--fsck] [--faults|--no-faults] [--spinand] [--verbose]\n"
                    "       [--profile-def KIND:NAME:N0,N1,... [--profile-file FILE]]\n");
    return 2;
}

/* A number option: all digits, <= max; else a one-line error. */
static int num(const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    *out = strtoull(v, &end, 0);
    if (errno || !*v || *end || v[0] == '-' || *out < min || *out > max) {
        fprintf(stderr, "steady torture: %s %s: want a number %llu..%llu\n", opt, v,
                (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    steady_torture_opts o;
    steady_torture_result r;
    uint64_t x;
    int i;
    memset(&o, 0, sizeof o);
    o.device = "mt29f1g01";
    o.seed = 1;
    o.ops = 1000;
    o.powercut_every = 1;
    o.faults = 1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--device") && v)
            o.device = v, i++;
        else if (!strcmp(a, "--seed") && v) {
            if (num(a, v, 0, ~0ull, &o.seed))
                return 2;
            i++;
        } else if (!strcmp(a, "--ops") && v) {
            if (num(a, v, 1, 0xFFFFFFFFu, &x))
                return 2;
            o.ops = (uint32_t)x, i++;
        } else if (!strcmp(a, "--blocks") && v) {
            if (num(a, v, 0, 0xFFFFFFFFu, &x))
                return 2;
            o.blocks = (uint32_t)x, i++;
        } else if (!strcmp(a, "--erase-mult") && v) {
            if (num(a, v, 0, 0xFFFFFFFFu, &x))
                return 2;
            o.erase_mult = (uint32_t)x, i++;
        } else if (!strcmp(a, "--sector-size") && v) {
            if (num(a, v, 0, TORTURE_SECTOR_MAX, &x))
                return 2;
            o.sector_size = (uint32_t)x, i++;
        } else if (!strcmp(a, "--ring-units") && v) {
            if (num(a, v, 0, 0xFFFFu, &x))
                return 2;
            o.ring_units = (uint32_t)x, i++;
        } else if (!strcmp(a, "--pending-max") && v) {
            if (num(a, v, 0, 0xFFFFu, &x))
                return 2;
            o.pending_max = (uint32_t)x, i++;
        } else if (!strcmp(a, "--file-max") && v) {
            if (num(a, v, 6000, 1u << 20, &x))
                return 2;
            o.file_max = (uint32_t)x, i++;
        } else if (!strcmp(a, "--handles") && v) {
            if (num(a, v, 2, TORTURE_HANDLES_MAX, &x))
                return 2;
            o.handles = (uint32_t)x, i++;
        } else if (!strcmp(a, "--read-errors") && v) {
            if (num(a, v, 0, 100000, &x))
                return 2;
            o.read_errors = (uint32_t)x, i++;
        } else if (!strcmp(a, "--wear-limit") && v) {
            if (num(a, v, 0, 1000000u, &x))
                return 2;
            o.wear_limit = (uint32_t)x, i++;
        } else if (!strcmp(a, "--fill") && v) {
            if (num(a, v, 0, 90, &x))
                return 2;
            o.fill = (uint32_t)x, i++;
        } else if (!strcmp(a, "--powercut") && v) {
            o.powercut_every = !strcmp(v, "every");
            if (!o.powercut_every) {
                char *end;
                errno = 0;
                x = strtoull(v, &end, 10);
                if (errno || !*v || *end || v[0] == '-' || x > 0xFFFFFFFFu) {
                    fprintf(stderr, "steady torture: --powercut %s: want every, a number N (a "
                            "cut every N program/erase ops) or 0\n", v);
                    return 2;
                }
                o.powercut = (uint32_t)x;
            }
            i++;
        } else if (!strcmp(a, "--faults"))
            o.faults = 1;
        else if (!strcmp(a, "--no-faults"))
            o.faults = 0;
        else if (!strcmp(a, "--fsck"))
            o.fsck = 1;
        else if (!strcmp(a, "--meta"))
            o.meta = 1;
        else if (!strcmp(a, "--hold"))
            o.hold = 1;
        else if (!strcmp(a, "--spinand"))
            o.spinand = 1;
        else if (!strcmp(a, "--verbose"))
            o.verbose = 1;
        else if (!strcmp(a, "--profile-def") && v) {
            /* a user's profile (`steady torture --profile-file`) */
            if (sh_profile_option("steady torture", v))
                return 2;
            i++;
        } else if (!strcmp(a, "--profile-file") && v)
            o.profile_file = v, i++;
        else
            return usage();
    }
    if (o.read_errors && o.spinand) {
        fprintf(stderr, "steady torture: --read-errors: the simulated device fails its reads, not the SPI "
                "chip model (drop --spinand)\n");
        return 2;
    }
    return steady_torture_run(&o, &r, stdout) ? 1 : 0;
}
