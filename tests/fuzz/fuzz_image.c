/* libFuzzer harness: corrupted steadyfs images through mount, fsck and
 * every read path (info, stat, readdir of every directory, read of every
 * file).  The input is a patch of a small valid image (fuzz_image_dev.h),
 * so the corruptions are near real structure, optionally with their CRCs
 * recomputed so bad fields reach the parsers.  Besides "no crash, no hang,
 * no sanitizer report": the unpatched image must mount and check clean,
 * a mount that fails must fail with one of the documented errors, and an
 * image fsck passes must mount and read without a single error (else fsck
 * missed the damage). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_image_dev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static steadyfs fs;
static steadyfs_config cfg;
static int strict;   /* fsck found nothing: every read must succeed */
static uint64_t seen[64];   /* directories walked: a damaged tree may loop */
static unsigned nseen;

static void must(int ok, const char *what, const char *path)
{
    if (!ok && strict) {
        fprintf(stderr, "fuzz_image: fsck passed the image, but %s %s failed\n", what, path);
        abort();
    }
}

static void quiet(void *ctx, const char *msg)
{
    (void)ctx;
    if (getenv("FUZZ_IMAGE_VERBOSE"))
        fprintf(stderr, "%s\n", msg);
}

static void read_file(const char *path)
{
    static uint8_t buf[4096];
    int fd = steadyfs_open(&fs, path, STEADYFS_O_RDONLY), i;
    int32_t n = 1;
    steadyfs_stat st;
    must(fd >= 0, "open", path);
    if (fd < 0)
        return;
    /* a corrupted size may be huge: a bounded number of reads, then the end */
    for (i = 0; i < 16 && (n = steadyfs_read(&fs, fd, buf, sizeof buf)) > 0; i++)
        ;
    must(n >= 0, "read", path);
    if (steadyfs_seek(&fs, fd, -100, STEADYFS_SEEK_END) >= 0)
        must(steadyfs_read(&fs, fd, buf, sizeof buf) >= 0, "read at the end of", path);
    (void)steadyfs_fstat(&fs, fd, &st);
    (void)steadyfs_size(&fs, fd);
    steadyfs_close(&fs, fd);
}

static void walk(const char *dir, int depth)
{
    steadyfs_dirent e;
    char path[600];
    int dd = steadyfs_opendir(&fs, dir), n = 0, rc = 0;
    must(dd >= 0, "opendir", dir);
    if (dd < 0)
        return;
    while (n++ < 600 && (rc = steadyfs_readdir(&fs, dd, &e)) > 0) {
        steadyfs_stat st;
        size_t l = strlen(dir);
        if (l + 2 + e.name_len >= sizeof path)
            continue;
        memcpy(path, dir, l);
        if (l > 1)
            path[l++] = '/';
        memcpy(path + l, e.name, e.name_len + 1u);
        if (path[0] != '/')
            continue;
        if (steadyfs_stat_path(&fs, path, &st) != 0) {
            must(0, "stat", path);
            continue;
        }
        if (st.type == STEADYFS_TYPE_DIR && depth < 5 && nseen < 64) {
            unsigned k;
            for (k = 0; k < nseen && seen[k] != st.id; k++)
                ;
            if (k < nseen)
                continue;
            seen[nseen++] = st.id;
            walk(path, depth + 1);
        }
        else if (st.type == STEADYFS_TYPE_FILE)
            read_file(path);
    }
    must(rc >= 0, "readdir", dir);
    steadyfs_closedir(&fs, dd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fi_base base;
    static uint8_t *img, *fwork, sector[FI_SECTOR];
    static uint8_t work[8192] __attribute__((aligned(8)));
    static uint32_t fws;
    steadyfs_fsck_report rep;
    steadyfs_info info;
    sim_dev d;
    int rc;
    if (!img) {
        if (fi_build(&base))
            abort();
        img = malloc((size_t)base.len);
        if (!img)
            abort();
    }
    memcpy(img, base.img, (size_t)base.len);
    fi_apply(&base, img, data, size);
    if (sim_init(&d, base.p, FI_BLOCKS, img, base.len, SIM_TYPICAL, 1, 0))
        abort();   /* the header is never patched */
    memset(&cfg, 0, sizeof cfg);
    cfg.bd = &d.bd;
    cfg.work = work;
    cfg.work_size = sizeof work;
    cfg.sector_buf = sector;
    cfg.sector_buf_size = sizeof sector;
    cfg.open_max = 8;
    if (!fwork) {
        fws = steadyfs_fsck_work_size(&cfg);
        fwork = malloc(fws);
        if (!fwork)
            abort();
    }
    rc = steadyfs_fsck(&fs, &cfg, fwork, fws, quiet, NULL, &rep);
    if (size < 5 && rc != 0)
        abort();   /* the untouched image is clean */
    strict = rc == 0;
    rc = steadyfs_mount(&fs, &cfg);
    must(rc == 0, "mount", "");
    if (rc) {
        /* EFORMAT: the damage hit the format version (a one-line refusal) */
        if (rc != STEADYFS_ECORRUPT && rc != STEADYFS_EIO && rc != STEADYFS_EINVAL &&
            rc != STEADYFS_EFORMAT)
            abort();
        return 0;
    }
    (void)steadyfs_info_get(&fs, &info);
    nseen = 0;
    walk("/", 0);
    strict = 0;   /* these two may have been damaged away */
    read_file("/etc/config");
    read_file("/logs/old/big");
    steadyfs_unmount(&fs);
    return 0;
}
