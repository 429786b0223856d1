/* steady-torture: command-line front end of the power-loss torture runner
 * (src/host/torture.c).  `steady torture ...` execs this binary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/torture.h"

static int usage(void)
{
    fprintf(stderr, "usage: steady-torture --device PROFILE [--seed N] [--ops N] "
                    "[--powercut every|N|0] [--blocks N] [--faults|--no-faults] [--verbose]\n");
    return 2;
}

int main(int argc, char **argv)
{
    steady_torture_opts o;
    steady_torture_result r;
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
        else if (!strcmp(a, "--seed") && v)
            o.seed = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--ops") && v)
            o.ops = (uint32_t)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--blocks") && v)
            o.blocks = (uint32_t)strtoul(v, NULL, 0), i++;
        else if (!strcmp(a, "--powercut") && v) {
            o.powercut_every = !strcmp(v, "every");
            o.powercut = o.powercut_every ? 0 : (uint32_t)strtoul(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--faults"))
            o.faults = 1;
        else if (!strcmp(a, "--no-faults"))
            o.faults = 0;
        else if (!strcmp(a, "--verbose"))
            o.verbose = 1;
        else
            return usage();
    }
    return steady_torture_run(&o, &r, stdout) ? 1 : 0;
}
