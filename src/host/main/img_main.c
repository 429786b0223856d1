/* steady-img: host tools on steadyfs image files (docs/TOOLS.md).  The
 * `steady mkfs|fsck|ls|cat|put|get|rm|mkdir|mv|image` commands exec it.
 *
 * Convention: an image is a simulated-device image file whose header names
 * its device profile, so only creating one needs --device.  Whole-image
 * commands take the image as their first word (mkfs IMAGE, fsck IMAGE,
 * df IMAGE; --image F is the same); file commands take IMAGE:/path (like
 * scp).
 * Errors: one line on stderr, exit 1 (fsck: 1 errors found, 2 unreadable);
 * usage errors exit 2.  Read-only commands map the image privately and
 * never change the file. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/imgfs.h"
#include "host/imgraw.h"
#include "steadyfs/host.h"

#define PATHMAX 4096
#define CHUNK 65536

static const char *cmd = "steady-img";

static int err(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "steady %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

static int usage(const char *u)
{
    fprintf(stderr, "usage: steady %s\n", u);
    return 2;
}

/* Resolve "." and ".." components of an absolute path in place, as POSIX
 * does (steadyfs has no symbolic links, so by the text alone): the core
 * refuses them as components (steadyfs.h).  Empty components go; a
 * trailing '/' stays. */
static void resolve_dots(char *path)
{
    char *out = path, *p = path;
    int trail = path[0] && path[strlen(path) - 1] == '/';
    while (*p) {
        char *c;
        size_t len;
        while (*p == '/')
            p++;
        for (c = p, len = 0; c[len] && c[len] != '/'; len++)
            ;
        p = c + len;
        if (!len || (len == 1 && c[0] == '.'))
            continue;
        if (len == 2 && c[0] == '.' && c[1] == '.') {
            while (out > path && *--out != '/')
                ;
            continue;
        }
        *out++ = '/';
        memmove(out, c, len);
        out += len;
    }
    if (out == path || trail)
        *out++ = '/';
    *out = 0;
}

/* IMAGE[:/path] -> image file and absolute path in it ("." and ".."
 * resolved). */
static int split_spec(const char *spec, char *img, char *path)
{
    const char *c = strstr(spec, ":/");
    size_t n = c ? (size_t)(c - spec) : strlen(spec);
    if (!c && n && spec[n - 1] == ':')
        n--;
    if (!n || n >= PATHMAX || (c && strlen(c + 1) >= PATHMAX))
        return -1;
    memcpy(img, spec, n);
    img[n] = 0;
    strcpy(path, c ? c + 1 : "/");
    resolve_dots(path);
    return 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int join(char *out, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    int w = snprintf(out, PATHMAX, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
    return w < 0 || w >= PATHMAX ? -1 : 0;
}

/* ---- listing a directory of the image ------------------------------------ */

typedef struct ent {
    char name[STEADYFS_NAME_MAX + 1];
    uint8_t type;
    uint64_t id;
} ent;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const ent *)a)->name, ((const ent *)b)->name);
}

/* All entries of dir, sorted by name (the handle is closed before any
 * recursion, so depth is not limited by open_max). */
static int list(steadyfs *fs, const char *dir, ent **out, size_t *n)
{
    steadyfs_dirent de;
    size_t cap = 16;
    int dd = steadyfs_opendir(fs, dir), rc = 0;
    *n = 0;
    *out = NULL;
    if (dd < 0)
        return dd;
    *out = malloc(cap * sizeof **out);
    while (*out && (rc = steadyfs_readdir(fs, dd, &de)) > 0) {
        if (!strcmp(de.name, ".") || !strcmp(de.name, "..")) {
            /* an entry an older core let through: no path reaches it */
            fprintf(stderr, "steady %s: %s: skipped an entry named \"%s\" (no path reaches "
                    "it; `steady fsck` reports it)\n", cmd, dir, de.name);
            continue;
        }
        if (*n == cap) {
            ent *g = realloc(*out, (cap *= 2) * sizeof **out);
            if (!g)
                break;
            *out = g;
        }
        memcpy((*out)[*n].name, de.name, de.name_len + 1u);
        (*out)[*n].type = de.type;
        (*out)[*n].id = de.id;
        (*n)++;
    }
    steadyfs_closedir(fs, dd);
    if (!*out)
        return STEADYFS_ENOSPC;
    if (rc < 0) {
        free(*out);
        *out = NULL;
        return rc;
    }
    qsort(*out, *n, sizeof **out, by_name);
    return 0;
}

/* ---- copying files in and out -------------------------------------------- */

static int put_file(steadyfs *fs, const char *local, const char *ipath)
{
    FILE *f = fopen(local, "rb");
    static uint8_t buf[CHUNK];
    size_t n;
    int fd, rc = 0;
    if (!f)
        return err("%s: %s", local, strerror(errno));
    fd = steadyfs_open(fs, ipath, STEADYFS_O_WRONLY | STEADYFS_O_CREAT | STEADYFS_O_TRUNC);
    if (fd < 0) {
        fclose(f);
        return err("%s: %s", ipath, steadyfs_strerror(fd));
    }
    while (!rc && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        int32_t w = steadyfs_write(fs, fd, buf, (uint32_t)n);
        if (w < 0 || (size_t)w != n)
            rc = err("%s: write: %s", ipath, steadyfs_strerror(w < 0 ? w : STEADYFS_ENOSPC));
    }
    if (!rc && ferror(f))
        rc = err("%s: read error", local);
    fclose(f);
    fd = steadyfs_close(fs, fd);
    if (!rc && fd < 0)
        rc = err("%s: close: %s", ipath, steadyfs_strerror(fd));
    return rc;
}

/* Appended to a read error's line (get: how to recover what reads). */
static const char *read_hint = "";

/* Copy file ipath to a stdio stream. */
static int read_to(steadyfs *fs, const char *ipath, FILE *out, const char *outname)
{
    static uint8_t buf[CHUNK];
    int fd = steadyfs_open(fs, ipath, STEADYFS_O_RDONLY), rc = 0;
    int32_t n;
    if (fd < 0)
        return err("%s: %s", ipath, steadyfs_strerror(fd));
    while ((n = steadyfs_read(fs, fd, buf, sizeof buf)) > 0)
        if (fwrite(buf, 1, (size_t)n, out) != (size_t)n) {
            rc = err("%s: %s", outname, strerror(errno));
            break;
        }
    if (n < 0)
        rc = err("%s: read: %s%s", ipath, steadyfs_strerror(n), read_hint);
    steadyfs_close(fs, fd);
    return rc;
}

static int get_file(steadyfs *fs, const char *ipath, const char *local)
{
    FILE *f = fopen(local, "wb");
    int rc;
    if (!f)
        return err("%s: %s", local, strerror(errno));
    rc = read_to(fs, ipath, f, local);
    if (fclose(f) && !rc)
        rc = err("%s: %s", local, strerror(errno));
    return rc;
}

/* Mode, owner and mtime of a host file onto its copy in the image (after
 * its content: writing sets the times; for a directory after its
 * entries). */
static int put_meta(steadyfs *fs, const char *ipath, const struct stat *sb)
{
    steadyfs_attr a;
    int r;
    memset(&a, 0, sizeof a);
    a.mask = STEADYFS_ATTR_MODE | STEADYFS_ATTR_UID | STEADYFS_ATTR_GID | STEADYFS_ATTR_MTIME;
    a.mode = (uint16_t)(sb->st_mode & 07777);
    a.uid = (uint32_t)sb->st_uid;
    a.gid = (uint32_t)sb->st_gid;
    a.mtime = (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
    r = steadyfs_setattr(fs, ipath, &a);
    return r ? err("%s: setattr: %s", ipath, steadyfs_strerror(r)) : 0;
}

/* A host symlink -> an image symlink with the same target. */
static int put_link(steadyfs *fs, const char *local, const char *ipath, const struct stat *sb)
{
    char t[PATHMAX];
    ssize_t n = readlink(local, t, sizeof t - 1);
    int r;
    if (n < 0)
        return err("%s: %s", local, strerror(errno));
    t[n] = 0;
    r = steadyfs_symlink(fs, t, ipath, NULL);
    return r ? err("%s: symlink: %s", ipath, steadyfs_strerror(r)) : put_meta(fs, ipath, sb);
}

/* Host directory tree -> image directory (already existing). */
static int put_tree(steadyfs *fs, const char *local, const char *ipath)
{
    struct dirent **names;
    int n = scandir(local, &names, NULL, alphasort), i, rc = 0;
    if (n < 0)
        return err("%s: %s", local, strerror(errno));
    for (i = 0; i < n; i++) {
        char lp[PATHMAX], ip[PATHMAX];
        struct stat sb;
        const char *nm = names[i]->d_name;
        if (rc || !strcmp(nm, ".") || !strcmp(nm, ".."))
            continue;
        if (join(lp, local, nm) || join(ip, ipath, nm)) {
            rc = err("%s/%s: path too long", local, nm);
            continue;
        }
        if (strlen(nm) > STEADYFS_NAME_MAX) {
            rc = err("%s: name longer than %d bytes", lp, STEADYFS_NAME_MAX);
        } else if (lstat(lp, &sb)) {
            rc = err("%s: %s", lp, strerror(errno));
        } else if (S_ISDIR(sb.st_mode)) {
            int r = steadyfs_mkdir(fs, ip);
            rc = r ? err("%s: mkdir: %s", ip, steadyfs_strerror(r)) : put_tree(fs, lp, ip);
            if (!rc)
                rc = put_meta(fs, ip, &sb);
        } else if (S_ISREG(sb.st_mode)) {
            rc = put_file(fs, lp, ip);
            if (!rc)
                rc = put_meta(fs, ip, &sb);
        } else if (S_ISLNK(sb.st_mode)) {
            rc = put_link(fs, lp, ip, &sb);
        } else {
            rc = err("%s: not a regular file, directory or symlink (steadyfs stores only "
                     "those)", lp);
        }
    }
    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* Mode, owner (when run as root: others cannot give files away) and mtime
 * of an image file onto its host copy; atime = mtime (not kept). */
static int get_meta(steadyfs *fs, const char *ipath, const char *local)
{
    steadyfs_stat st;
    struct timespec ts[2];
    int r = steadyfs_stat_path(fs, ipath, &st);
    if (r)
        return err("%s: %s", ipath, steadyfs_strerror(r));
    if (geteuid() == 0 && lchown(local, st.uid, st.gid))
        return err("%s: chown: %s", local, strerror(errno));
    if (st.type != STEADYFS_TYPE_SYMLINK && chmod(local, st.mode))
        return err("%s: chmod: %s", local, strerror(errno));
    ts[0].tv_sec = ts[1].tv_sec = (time_t)(st.mtime / 1000000000);
    ts[0].tv_nsec = ts[1].tv_nsec = (long)(st.mtime % 1000000000);
    if (ts[1].tv_nsec < 0) {
        ts[0].tv_sec = --ts[1].tv_sec;
        ts[0].tv_nsec = ts[1].tv_nsec += 1000000000;
    }
    if (utimensat(AT_FDCWD, local, ts, AT_SYMLINK_NOFOLLOW))
        return err("%s: times: %s", local, strerror(errno));
    return 0;
}

/* Image directory -> host directory (already existing). */
static int get_tree(steadyfs *fs, const char *ipath, const char *local)
{
    ent *e;
    size_t n, i;
    int rc = list(fs, ipath, &e, &n);
    if (rc)
        return err("%s: %s", ipath, steadyfs_strerror(rc));
    for (i = 0; i < n && !rc; i++) {
        char lp[PATHMAX], ip[PATHMAX];
        if (join(lp, local, e[i].name) || join(ip, ipath, e[i].name)) {
            rc = err("%s/%s: path too long", local, e[i].name);
        } else if (e[i].type == STEADYFS_TYPE_DIR) {
            if (mkdir(lp, 0700) && errno != EEXIST)
                rc = err("%s: %s", lp, strerror(errno));
            else
                rc = get_tree(fs, ip, lp);
        } else if (e[i].type == STEADYFS_TYPE_SYMLINK) {
            char t[PATHMAX];
            int32_t tl = steadyfs_readlink(fs, ip, t, sizeof t - 1);
            if (tl < 0) {
                rc = err("%s: readlink: %s", ip, steadyfs_strerror(tl));
            } else {
                t[tl] = 0;
                if (symlink(t, lp))
                    rc = err("%s: %s", lp, strerror(errno));
            }
        } else {
            rc = get_file(fs, ip, lp);
        }
        /* last, so that a directory's entries and a file's data do not
         * change the times restored (and a read-only directory filled) */
        if (!rc)
            rc = get_meta(fs, ip, lp);
    }
    free(e);
    return rc;
}

/* ---- commands -------------------------------------------------------------- */

static int open_or_fail(imgfs *m, const char *img, int writable)
{
    if (imgfs_open(m, img, NULL, writable))
        return err("%s", m->err);
    return 0;
}

static int close_or_fail(imgfs *m, int rc)
{
    if (imgfs_close(m) && !rc)
        return err("%s", m->err);
    return rc;
}

static int parse_u(const char *s, uint64_t max, uint64_t *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return errno || !*s || *end || *v > max ? -1 : 0;
}

/* Options shared by mkfs and image create.  Returns 1 if argv[*i] was one. */
static int format_opt(int argc, char **argv, int *i, const char **device, uint32_t *blocks,
                      uint64_t *seed, imgfs_format *f, int *force, int *bad)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    uint64_t x = 0;
    static const struct { const char *name; uint64_t max; } num[] = {
        {"--blocks", 0xFFFFFFFFu}, {"--seed", ~0ull}, {"--max-inodes", 0xFFF0u},
        {"--fill-permille", 950}, {"--file-pages-log2", 24}, {"--dir-pages", 255},
        {"--sector-size", 65536}, {"--erase-mult", 1024}, {"--ring-units", 0xFFFFu},
        {"--ring-sectors", 0xFFFFu},
    };
    unsigned k;
    if (!strcmp(a, "--force")) {
        *force = 1;
        return 1;
    }
    if (!strcmp(a, "--device") && v) {
        *device = v;
        (*i)++;
        return 1;
    }
    for (k = 0; k < sizeof num / sizeof num[0]; k++)
        if (!strcmp(a, num[k].name))
            break;
    if (k == sizeof num / sizeof num[0])
        return 0;
    if (!v || parse_u(v, num[k].max, &x)) {
        err("%s needs a number <= %llu", a, (unsigned long long)num[k].max);
        *bad = 1;
        return 1;
    }
    (*i)++;
    switch (k) {
    case 0: *blocks = (uint32_t)x; break;
    case 1: *seed = x; break;
    case 2: f->max_inodes = (uint16_t)x; break;
    case 3: f->fill_permille = (uint16_t)x; break;
    case 4: f->file_pages_log2 = (uint8_t)x; break;
    case 5: f->dir_pages = (uint8_t)x; break;
    case 6: f->sector_size = (uint32_t)x; break;
    case 7: f->erase_mult = (uint32_t)x; break;
    case 8: f->ring_units = (uint16_t)x; break;
    default: f->ring_sectors = (uint16_t)x; break;
    }
    return 1;
}

#define FORMAT_USAGE "--device P [--blocks N] [--seed N] [--force] [--max-inodes N] " \
                     "[--fill-permille N] [--file-pages-log2 N] [--dir-pages N] " \
                     "[--sector-size N] [--erase-mult N] [--ring-units N] [--ring-sectors N]"

static void print_info(imgfs *m, const char *img)
{
    steadyfs_info in;
    if (steadyfs_info_get(&m->fs, &in) == 0)
        printf("%s: %s, %u blocks: %u units of %u sectors of %u bytes, capacity %llu bytes, "
               "used %llu\n", img, m->prof->name, m->blocks, in.blocks, in.block_sectors,
               in.sector_size, (unsigned long long)in.capacity, (unsigned long long)in.used);
}

#define MKFS_USAGE "mkfs IMAGE " FORMAT_USAGE " [--raw OUT]   (IMAGE may be left out with --raw)"

/* Export the image m just made (and closed) to a raw file. */
static int write_raw(const char *image, const char *raw, int force)
{
    char e[600];
    uint32_t blocks, bad;
    if (imgraw_export(image, raw, force, &blocks, &bad, e, sizeof e))
        return err("%s", e);
    printf("%s: raw image, %u blocks, %u marked bad\n", raw, blocks, bad);
    return 0;
}

static int cmd_mkfs(int argc, char **argv)
{
    const char *device = NULL, *image = NULL, *raw = NULL;
    char tmpimg[PATHMAX];
    uint32_t blocks = 0;
    uint64_t seed = 0;
    imgfs_format f;
    imgfs m;
    int i, force = 0, bad = 0, rc;
    memset(&f, 0, sizeof f);
    for (i = 1; i < argc && !bad; i++) {
        if (format_opt(argc, argv, &i, &device, &blocks, &seed, &f, &force, &bad))
            continue;
        if (!strcmp(argv[i], "--image") && i + 1 < argc && !image)
            image = argv[++i];
        else if (!strcmp(argv[i], "--raw") && i + 1 < argc && !raw)
            raw = argv[++i];
        else if (argv[i][0] != '-' && !image)
            image = argv[i];
        else
            return usage(MKFS_USAGE);
    }
    if (bad)
        return 2;
    if (!device || (!image && !raw))
        return usage(MKFS_USAGE);
    if (raw) {
        struct stat sb;
        if (lstat(raw, &sb) == 0 && (!force || S_ISDIR(sb.st_mode)))
            return err("%s: %s", raw, S_ISDIR(sb.st_mode) ? "is a directory" :
                       "exists (use --force to replace it)");
    }
    if (!image) {
        /* raw only: the image is made beside OUT and removed after */
        int w = snprintf(tmpimg, sizeof tmpimg, "%s.steady-mkfs-%ld.img", raw, (long)getpid());
        if (w < 0 || w >= (int)sizeof tmpimg)
            return err("%s: path too long", raw);
    }
    if (imgfs_create(&m, image ? image : tmpimg, device, blocks, seed, &f, image ? force : 0))
        return err("%s", m.err);
    print_info(&m, image ? image : raw);
    rc = close_or_fail(&m, 0);
    if (!rc && raw)
        rc = write_raw(image ? image : tmpimg, raw, force);
    if (!image)
        unlink(tmpimg);
    return rc;
}

typedef struct fsck_out {
    int json, first;
    uint32_t shown, hidden;
} fsck_out;

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void fsck_msg(void *ctx, const char *msg)
{
    fsck_out *o = ctx;
    if (o->shown >= 200) {
        o->hidden++;
        return;
    }
    o->shown++;
    if (o->json) {
        printf("%s\n    ", o->first ? "" : ",");
        json_str(msg);
        o->first = 0;
    } else {
        printf("%s\n", msg);
    }
}

/* fsck --repair: steadyfs_repair on the image, mounted writable, before
 * the check.  0; 2 if it does not mount; 1 if the repair stopped (the
 * image may then be partly repaired: each fix is committed on its own);
 * each failure one line on stderr. */
static int repair_image(const char *image, const char *device, steadyfs_repair_report *r)
{
    imgfs m;
    void *work;
    uint32_t ws;
    int rc;
    if (imgfs_open(&m, image, device, 1))
        return err("%s", m.err), 2;
    ws = steadyfs_repair_work_size(&m.fs);
    work = malloc(ws ? ws : 1);
    if (!work) {
        imgfs_close(&m);
        return err("cannot allocate the repair work area");
    }
    rc = steadyfs_repair(&m.fs, work, ws, r);
    free(work);
    if (rc) {
        imgfs_close(&m);
        return err("%s: repair stopped: %s", image, steadyfs_strerror(rc));
    }
    if (imgfs_close(&m))
        return err("%s", m.err);
    return 0;
}

static int cmd_fsck(int argc, char **argv)
{
    const char *image = NULL, *device = NULL;
    steadyfs_fsck_report r;
    steadyfs_repair_report rr;
    fsck_out o;
    imgfs m;
    void *work;
    uint32_t ws;
    int i, rc, repair = 0;
    memset(&o, 0, sizeof o);
    o.first = 1;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--image") && i + 1 < argc && !image)
            image = argv[++i];
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--json"))
            o.json = 1;
        else if (!strcmp(argv[i], "--repair"))
            repair = 1;
        else if (argv[i][0] != '-' && !image)
            image = argv[i];
        else
            return usage("fsck IMAGE [--device P] [--json] [--repair]");
    }
    if (!image)
        return usage("fsck IMAGE [--device P] [--json] [--repair]");
    memset(&rr, 0, sizeof rr);
    if (repair && (rc = repair_image(image, device, &rr)) != 0)
        return rc;
    if (repair && !o.json)
        printf("%s: repaired: %u map sectors rebuilt, %u holes restored, %u buckets reset, %u names "
               "removed, %u files rebuilt, %u symlinks removed, %u directories rebuilt, %u inodes into "
               "/lost+found, %u lost inodes removed, %u chunks freed, %u unit counts set\n",
               image, rr.map_rebuilt, rr.holes_restored, rr.buckets_reset, rr.names_removed,
               rr.files_rebuilt, rr.files_removed, rr.dirs_rebuilt, rr.reconnected, rr.lost_removed,
               rr.chunks_freed, rr.counts_fixed);
    rc = imgfs_attach(&m, image, device, 0);
    if (rc) {
        if (o.json) {
            printf("{\n  \"image\": ");
            json_str(image);
            printf(",\n  \"readable\": false,\n  \"clean\": false,\n  \"messages\": [");
            json_str(m.err);
            printf("]\n}\n");
        } else {
            fprintf(stderr, "steady fsck: %s\n", m.err);
        }
        return 2;
    }
    ws = steadyfs_fsck_work_size(&m.cfg);
    work = ws ? malloc(ws) : NULL;
    if (!work) {
        imgfs_close(&m);
        return err("cannot size the fsck work area"), 2;
    }
    if (o.json) {
        printf("{\n  \"image\": ");
        json_str(image);
        printf(",\n  \"device\": \"%s\",\n", m.prof->name);
        if (repair)
            printf("  \"repaired\": {\"map_rebuilt\": %u, \"holes_restored\": %u, \"buckets_reset\": %u, "
                   "\"names_removed\": %u, \"files_rebuilt\": %u, \"symlinks_removed\": %u, "
                   "\"dirs_rebuilt\": %u, \"reconnected\": %u, \"lost_removed\": %u, \"chunks_freed\": %u, "
                   "\"counts_fixed\": %u},\n",
                   rr.map_rebuilt, rr.holes_restored, rr.buckets_reset, rr.names_removed, rr.files_rebuilt,
                   rr.files_removed, rr.dirs_rebuilt, rr.reconnected, rr.lost_removed, rr.chunks_freed,
                   rr.counts_fixed);
        printf("  \"messages\": [");
    }
    rc = steadyfs_fsck(&m.fs, &m.cfg, work, ws, fsck_msg, &o, &r);
    free(work);
    if (o.hidden && !o.json)
        printf("... and %u more messages\n", o.hidden);
    if (o.json) {
        printf("],\n  \"hidden_messages\": %u,\n  \"readable\": %s,\n  \"clean\": %s,\n"
               "  \"errors\": %u,\n  \"files\": %u,\n  \"dirs\": %u,\n  \"bytes\": %llu,\n"
               "  \"live_sectors\": %u,\n  \"data_sectors\": %u,\n  \"map_sectors\": %u,\n"
               "  \"checkpoints\": %u,\n  \"bad_blocks\": %u,\n  \"notes\": %u\n}\n",
               o.hidden, rc < 0 ? "false" : "true", rc == 0 ? "true" : "false", r.errors,
               r.files, r.dirs, (unsigned long long)r.bytes, r.live_sectors, r.data_sectors,
               r.map_sectors, r.checkpoints, r.bad_blocks, r.notes);
    } else if (rc >= 0) {
        printf("%s: %s: %u error%s; %u files, %u directories, %llu bytes; %u live sectors "
               "(%u data, %u map), %u checkpoints, %u bad units, %u notes\n",
               image, rc ? "DAMAGED" : "clean", r.errors, r.errors == 1 ? "" : "s", r.files,
               r.dirs, (unsigned long long)r.bytes, r.live_sectors, r.data_sectors,
               r.map_sectors, r.checkpoints, r.bad_blocks, r.notes);
    } else {
        printf("%s: cannot check: %s\n", image, steadyfs_strerror(rc));
    }
    imgfs_close(&m);
    return rc < 0 ? 2 : rc ? 1 : 0;
}

/* -l: type and mode as ls(1) prints them, owner, group, size, mtime
 * (UTC, to the second), inode number, name (a symlink's: "-> target"). */
static void ls_line(const ent *e, const char *shown, int lng, steadyfs *fs, const char *ipath)
{
    steadyfs_stat st;
    char m[11], when[32], t[PATHMAX];
    const char *slash = e->type == STEADYFS_TYPE_DIR ? "/" : "";
    time_t sec;
    struct tm tm;
    int i;
    if (!lng) {
        printf("%s%s\n", shown, slash);
        return;
    }
    if (steadyfs_stat_path(fs, ipath, &st))
        memset(&st, 0, sizeof st);
    m[0] = e->type == STEADYFS_TYPE_DIR ? 'd' : e->type == STEADYFS_TYPE_SYMLINK ? 'l' : '-';
    for (i = 0; i < 9; i++)
        m[1 + i] = (st.mode >> (8 - i)) & 1 ? "rwxrwxrwx"[i] : '-';
    if (st.mode & 04000)
        m[3] = m[3] == 'x' ? 's' : 'S';
    if (st.mode & 02000)
        m[6] = m[6] == 'x' ? 's' : 'S';
    if (st.mode & 01000)
        m[9] = m[9] == 'x' ? 't' : 'T';
    m[10] = 0;
    sec = (time_t)(st.mtime / 1000000000 - (st.mtime % 1000000000 < 0));
    if (!gmtime_r(&sec, &tm) || !strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm))
        snprintf(when, sizeof when, "?");
    t[0] = 0;
    if (e->type == STEADYFS_TYPE_SYMLINK) {
        int32_t n = steadyfs_readlink(fs, ipath, t, sizeof t - 1);
        t[n > 0 ? n : 0] = 0;
    }
    printf("%s %5u %5u %12llu %s %10llu %s%s%s%s\n", m, st.uid, st.gid,
           (unsigned long long)st.size, when, (unsigned long long)(st.id & 0xFFFFFFFFu), shown,
           slash, t[0] ? " -> " : "", t);
}

static int ls_dir(steadyfs *fs, const char *ipath, const char *rel, int lng, int rec)
{
    ent *e;
    size_t n, i;
    int rc = list(fs, ipath, &e, &n);
    if (rc)
        return err("%s: %s", ipath, steadyfs_strerror(rc));
    for (i = 0; i < n && !rc; i++) {
        char ip[PATHMAX], rp[PATHMAX];
        if (join(ip, ipath, e[i].name) ||
            snprintf(rp, sizeof rp, "%s%s%s", rel, *rel ? "/" : "", e[i].name) >= PATHMAX) {
            rc = err("%s: path too long", ipath);
            break;
        }
        ls_line(&e[i], rp, lng, fs, ip);
        if (rec && e[i].type == STEADYFS_TYPE_DIR)
            rc = ls_dir(fs, ip, rp, lng, rec);
    }
    free(e);
    return rc;
}

static int cmd_ls(int argc, char **argv)
{
    char img[PATHMAX], path[PATHMAX];
    const char *spec = NULL;
    steadyfs_stat st;
    imgfs m;
    int i, lng = 0, rec = 0, rc;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-l"))
            lng = 1;
        else if (!strcmp(argv[i], "-R"))
            rec = 1;
        else if ((!strcmp(argv[i], "-lR") || !strcmp(argv[i], "-Rl")))
            lng = rec = 1;
        else if (!spec && argv[i][0] != '-')
            spec = argv[i];
        else
            return usage("ls IMAGE[:/path] [-l] [-R]");
    }
    if (!spec || split_spec(spec, img, path))
        return usage("ls IMAGE[:/path] [-l] [-R]");
    if (open_or_fail(&m, img, 0))
        return 1;
    rc = steadyfs_stat_path(&m.fs, path, &st);
    if (rc) {
        rc = err("%s: %s", path, steadyfs_strerror(rc));
    } else if (st.type == STEADYFS_TYPE_DIR) {
        rc = ls_dir(&m.fs, path, "", lng, rec);
    } else {
        ent e;
        memset(&e, 0, sizeof e);
        e.type = st.type;
        ls_line(&e, path, lng, &m.fs, path);
    }
    return close_or_fail(&m, rc);
}

static int cmd_cat(int argc, char **argv)
{
    char img[PATHMAX], path[PATHMAX];
    imgfs m;
    int i, rc = 0;
    if (argc < 2)
        return usage("cat IMAGE:/path...");
    for (i = 1; i < argc && !rc; i++) {
        if (split_spec(argv[i], img, path))
            return usage("cat IMAGE:/path...");
        if (open_or_fail(&m, img, 0))
            return 1;
        rc = read_to(&m.fs, path, stdout, "stdout");
        rc = close_or_fail(&m, rc);
    }
    return rc;
}

static int cmd_put(int argc, char **argv)
{
    char img[PATHMAX], path[PATHMAX], full[PATHMAX];
    steadyfs_stat st;
    imgfs m;
    int rc;
    if (argc != 3 || split_spec(argv[2], img, path))
        return usage("put LOCAL IMAGE:/path");
    if (open_or_fail(&m, img, 1))
        return 1;
    /* into a directory: keep the local name */
    if (steadyfs_stat_path(&m.fs, path, &st) == 0 && st.type == STEADYFS_TYPE_DIR) {
        if (join(full, path, base_name(argv[1])))
            return close_or_fail(&m, err("%s: path too long", path));
    } else {
        strcpy(full, path);
    }
    /* written under a temporary name, then renamed over the target in one
     * atomic step: a failed put (no space, unreadable source) leaves the
     * old file as it was */
    {
        char tmp[PATHMAX], *slash;
        snprintf(tmp, sizeof tmp, "%s", full);
        slash = strrchr(tmp, '/');
        if (!slash || slash[1] == 0 || (size_t)(slash - tmp) + 18 >= sizeof tmp)
            return close_or_fail(&m, err("%s: not a file path", full));
        strcpy(slash + 1, ".steady-put.tmp");
        (void)steadyfs_unlink(&m.fs, tmp);
        rc = put_file(&m.fs, argv[1], tmp);
        if (!rc && (rc = steadyfs_rename(&m.fs, tmp, full)) != 0)
            rc = err("%s: %s", full, steadyfs_strerror(rc));
        if (rc)
            (void)steadyfs_unlink(&m.fs, tmp);
    }
    return close_or_fail(&m, rc);
}

/* get --salvage: the file sector by sector; what reads is written, what
 * does not is written as zeros and reported as a byte range (adjacent
 * unreadable sectors merged).  0, or 1 when a range did not read. */
static int salvage_to(steadyfs *fs, const char *ipath, FILE *out, const char *outname)
{
    steadyfs_info in;
    uint64_t size, off, bad_from = 0, bad_bytes = 0, ranges = 0;
    uint32_t chunk;
    int fd, in_bad = 0, bad_rc = 0, rc = 0;
    uint8_t *buf;
    int64_t sz;
    if (steadyfs_info_get(fs, &in) || !in.data_per_sector)
        return err("%s: cannot read the file system's geometry", ipath);
    chunk = in.data_per_sector;
    fd = steadyfs_open(fs, ipath, STEADYFS_O_RDONLY);
    if (fd < 0)
        return err("%s: %s", ipath, steadyfs_strerror(fd));
    sz = steadyfs_size(fs, fd);
    buf = malloc(chunk);
    if (sz < 0 || !buf) {
        steadyfs_close(fs, fd);
        free(buf);
        return err("%s: %s", ipath, sz < 0 ? steadyfs_strerror((int)sz) : "out of memory");
    }
    size = (uint64_t)sz;
    for (off = 0; off < size && !rc;) {
        uint32_t n = (uint32_t)(chunk - off % chunk);
        int32_t r;
        if (n > size - off)
            n = (uint32_t)(size - off);
        r = steadyfs_seek(fs, fd, (int64_t)off, STEADYFS_SEEK_SET) < 0 ? STEADYFS_EIO
            : steadyfs_read(fs, fd, buf, n);
        if (r == (int32_t)n) {
            if (in_bad) {
                err("%s: bytes %llu-%llu (%llu bytes) unreadable: %s; written as zeros", ipath,
                    (unsigned long long)bad_from, (unsigned long long)(off - 1),
                    (unsigned long long)(off - bad_from), steadyfs_strerror(bad_rc));
                in_bad = 0;
            }
        } else {
            memset(buf, 0, n);
            if (!in_bad) {
                in_bad = 1;
                bad_from = off;
                bad_rc = r < 0 ? r : STEADYFS_EIO;
                ranges++;
            }
            bad_bytes += n;
        }
        if (fwrite(buf, 1, n, out) != n)
            rc = err("%s: %s", outname, strerror(errno));
        off += n;
    }
    if (in_bad && !rc)
        err("%s: bytes %llu-%llu (%llu bytes) unreadable: %s; written as zeros", ipath,
            (unsigned long long)bad_from, (unsigned long long)(size - 1),
            (unsigned long long)(size - bad_from), steadyfs_strerror(bad_rc));
    steadyfs_close(fs, fd);
    free(buf);
    if (!rc && ranges)
        rc = err("%s: salvaged %llu of %llu bytes into %s; %llu unreadable range%s", ipath,
                 (unsigned long long)(size - bad_bytes), (unsigned long long)size, outname,
                 (unsigned long long)ranges, ranges == 1 ? "" : "s");
    return rc;
}

static int cmd_get(int argc, char **argv)
{
    char img[PATHMAX], path[PATHMAX], local[PATHMAX];
    const char *spec = NULL, *dst = NULL;
    steadyfs_stat st;
    struct stat sb;
    imgfs m;
    int i, rc, salvage = 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--salvage"))
            salvage = 1;
        else if (!spec)
            spec = argv[i];
        else if (!dst)
            dst = argv[i];
        else
            return usage("get [--salvage] IMAGE:/path LOCAL");
    }
    if (!spec || !dst || split_spec(spec, img, path))
        return usage("get [--salvage] IMAGE:/path LOCAL");
    if (!stat(dst, &sb) && S_ISDIR(sb.st_mode)) {
        if (join(local, dst, base_name(path)))
            return err("%s: path too long", dst);
    } else {
        snprintf(local, sizeof local, "%s", dst);
    }
    if (open_or_fail(&m, img, 0))
        return 1;
    /* nothing is written on the host unless the file is there */
    rc = steadyfs_stat_path(&m.fs, path, &st);
    if (rc)
        return close_or_fail(&m, err("%s: %s", path, steadyfs_strerror(rc)));
    if (st.type == STEADYFS_TYPE_DIR)
        return close_or_fail(&m, err("%s: is a directory (`steady image extract` copies a "
                                     "tree)", path));
    if (salvage) {
        FILE *f = fopen(local, "wb");
        if (!f)
            return close_or_fail(&m, err("%s: %s", local, strerror(errno)));
        rc = salvage_to(&m.fs, path, f, local);
        if (fclose(f) && !rc)
            rc = err("%s: %s", local, strerror(errno));
    } else {
        read_hint = "; not copied (`steady get --salvage` writes what reads and reports the "
                    "rest)";
        rc = get_file(&m.fs, path, local);
        if (rc)
            unlink(local);   /* no partial copy that looks like the file */
    }
    return close_or_fail(&m, rc);
}

static int rm_tree(steadyfs *fs, const char *ipath)
{
    ent *e;
    size_t n, i;
    int rc = list(fs, ipath, &e, &n);
    if (rc)
        return err("%s: %s", ipath, steadyfs_strerror(rc));
    for (i = 0; i < n && !rc; i++) {
        char ip[PATHMAX];
        if (join(ip, ipath, e[i].name)) {
            rc = err("%s: path too long", ipath);
        } else if (e[i].type == STEADYFS_TYPE_DIR) {
            rc = rm_tree(fs, ip);
        } else if ((rc = steadyfs_unlink(fs, ip)) != 0) {
            rc = err("%s: %s", ip, steadyfs_strerror(rc));
        }
    }
    free(e);
    if (!rc && (rc = steadyfs_rmdir(fs, ipath)) != 0)
        rc = err("%s: %s", ipath, steadyfs_strerror(rc));
    return rc;
}

/* "CMD [FLAG] IMAGE:/path" (rm -r, mkdir -p): 0, or -1 for a usage error. */
static int flag_and_spec(int argc, char **argv, const char *flag, int *set, char *img, char *path)
{
    const char *spec = NULL;
    int i;
    *set = 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], flag))
            *set = 1;
        else if (!spec)
            spec = argv[i];
        else
            return -1;
    }
    return !spec || split_spec(spec, img, path) ? -1 : 0;
}

static int cmd_rm(int argc, char **argv)
{
    char img[PATHMAX], path[PATHMAX];
    steadyfs_stat st;
    imgfs m;
    int rec, rc;
    if (flag_and_spec(argc, argv, "-r", &rec, img, path))
        return usage("rm [-r] IMAGE:/path");
    if (open_or_fail(&m, img, 1))
        return 1;
    rc = steadyfs_stat_path(&m.fs, path, &st);
    if (rc)
        rc = err("%s: %s", path, steadyfs_strerror(rc));
    else if (st.type == STEADYFS_TYPE_DIR && !strcmp(path, "/"))
        rc = err("/: the root cannot be removed");
    else if (st.type == STEADYFS_TYPE_DIR && rec)
        rc = rm_tree(&m.fs, path);
    else if (st.type == STEADYFS_TYPE_DIR && (rc = steadyfs_rmdir(&m.fs, path)) != 0)
        rc = err("%s: %s%s", path, steadyfs_strerror(rc),
                 rc == STEADYFS_ENOTEMPTY ? " (use -r)" : "");
    else if (st.type != STEADYFS_TYPE_DIR && (rc = steadyfs_unlink(&m.fs, path)) != 0)
        rc = err("%s: %s", path, steadyfs_strerror(rc));
    return close_or_fail(&m, rc);
}

static int cmd_mkdir(int argc, char **argv)
{
    char img[PATHMAX], path[PATHMAX];
    imgfs m;
    int parents, rc = 0;
    if (flag_and_spec(argc, argv, "-p", &parents, img, path))
        return usage("mkdir [-p] IMAGE:/path");
    if (open_or_fail(&m, img, 1))
        return 1;
    if (parents) {
        /* each prefix ending before a '/' and the whole path */
        char *p;
        for (p = path + 1; !rc; p++) {
            if (*p == '/' || !*p) {
                char c = *p;
                steadyfs_stat st;
                *p = 0;
                if (steadyfs_stat_path(&m.fs, path, &st)) {
                    rc = steadyfs_mkdir(&m.fs, path);
                    if (rc)
                        rc = err("%s: %s", path, steadyfs_strerror(rc));
                } else if (st.type != STEADYFS_TYPE_DIR) {
                    rc = err("%s: exists and is not a directory", path);
                }
                *p = c;
                if (!c)
                    break;
            }
        }
    } else if ((rc = steadyfs_mkdir(&m.fs, path)) != 0) {
        rc = err("%s: %s", path, steadyfs_strerror(rc));
    }
    return close_or_fail(&m, rc);
}

static int cmd_mv(int argc, char **argv)
{
    char img[PATHMAX], img2[PATHMAX], from[PATHMAX], to[PATHMAX], full[PATHMAX];
    steadyfs_stat st;
    imgfs m;
    int rc;
    if (argc != 3 || split_spec(argv[1], img, from))
        return usage("mv IMAGE:/from IMAGE:/to   (or IMAGE:/from /to)");
    if (!strstr(argv[2], ":/") && argv[2][0] == '/') {
        snprintf(to, sizeof to, "%s", argv[2]);   /* a path in the same image */
        resolve_dots(to);
    } else if (split_spec(argv[2], img2, to) || strcmp(img, img2)) {
        return err("source and destination must be in the same image");
    }
    if (open_or_fail(&m, img, 1))
        return 1;
    /* like mv(1): into an existing directory keeps the name */
    if (steadyfs_stat_path(&m.fs, to, &st) == 0 && st.type == STEADYFS_TYPE_DIR &&
        strcmp(to, from) != 0) {
        steadyfs_stat sst;
        if (steadyfs_stat_path(&m.fs, from, &sst) == 0 && sst.id != st.id) {
            if (join(full, to, base_name(from)))
                return close_or_fail(&m, err("%s: path too long", to));
            strcpy(to, full);
        }
    }
    rc = steadyfs_rename(&m.fs, from, to);
    if (rc)
        rc = err("%s -> %s: %s", from, to, steadyfs_strerror(rc));
    return close_or_fail(&m, rc);
}

/* Files and directories under ipath (ipath itself not counted). */
static int count_tree(steadyfs *fs, const char *ipath, uint64_t *files, uint64_t *dirs)
{
    ent *e;
    size_t n, i;
    int rc = list(fs, ipath, &e, &n);
    if (rc)
        return err("%s: %s", ipath, steadyfs_strerror(rc));
    for (i = 0; i < n && !rc; i++) {
        char ip[PATHMAX];
        if (e[i].type != STEADYFS_TYPE_DIR) {
            (*files)++;
        } else if (join(ip, ipath, e[i].name)) {
            rc = err("%s: path too long", ipath);
        } else {
            (*dirs)++;
            rc = count_tree(fs, ip, files, dirs);
        }
    }
    free(e);
    return rc;
}

/* The record ring (format 15): its span, the records' lengths, their bytes
 * (in order, concatenated) or records appended from a file. */
#define RING_USAGE "ring IMAGE [--list] [--dump OUT|-] [--from N] [--count K] [--append FILE]"
static int cmd_ring(int argc, char **argv)
{
    const char *img = NULL, *dump = NULL, *append = NULL;
    uint64_t from = 0, count = ~0ull, first = 0, next = 0, n, shown = 0, lost = 0;
    int list = 0, i, rc = 0, have_from = 0;
    uint8_t *buf;
    uint32_t cap;
    imgfs m;
    FILE *out = NULL;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--list")) {
            list = 1;
        } else if (!strcmp(a, "--dump") && v) {
            dump = v;
            i++;
        } else if (!strcmp(a, "--append") && v) {
            append = v;
            i++;
        } else if ((!strcmp(a, "--from") || !strcmp(a, "--count")) && v) {
            uint64_t x;
            if (parse_u(v, ~0ull, &x))
                return err("%s needs a number", a);
            if (a[2] == 'f') {
                from = x;
                have_from = 1;
            } else {
                count = x;
            }
            i++;
        } else if (a[0] != '-' && !img) {
            img = a;
        } else {
            return usage(RING_USAGE);
        }
    }
    if (!img)
        return usage(RING_USAGE);
    if (open_or_fail(&m, img, append != NULL))
        return 1;
    if (!m.cfg.ring_units)
        return close_or_fail(&m, err("%s: formatted without a record ring (mkfs --ring-units N)", img));
    cap = (uint32_t)m.cfg.ring_sectors * m.fs.geo.payload;
    buf = malloc(cap);
    if (!buf)
        return close_or_fail(&m, err("out of memory"));
    if (append) {
        FILE *in = fopen(append, "rb");
        size_t got;
        if (!in) {
            free(buf);
            return close_or_fail(&m, err("%s: %s", append, strerror(errno)));
        }
        while (!rc && (got = fread(buf, 1, cap, in)) > 0) {
            uint64_t num;
            int r = steadyfs_ring_append(&m.fs, buf, (uint32_t)got, &num);
            if (r)
                rc = err("%s: append: %s", img, sh_fs_strerror(r));
            else
                shown++;
        }
        if (ferror(in))
            rc = err("%s: %s", append, strerror(errno));
        fclose(in);
        if (!rc)
            printf("%s: %llu records appended\n", img, (unsigned long long)shown);
        free(buf);
        return close_or_fail(&m, rc);
    }
    steadyfs_ring_span(&m.fs, &first, &next);
    if (!dump && !list) {
        printf("%s: record ring of %u units, %u sectors a record (up to %u bytes), ", img,
               m.cfg.ring_units, m.cfg.ring_sectors, cap);
        if (next > first)
            printf("records %llu .. %llu (%llu numbers)\n", (unsigned long long)first,
                   (unsigned long long)(next - 1), (unsigned long long)(next - first));
        else
            printf("no record yet\n");
        free(buf);
        return close_or_fail(&m, 0);
    }
    if (dump) {
        out = strcmp(dump, "-") ? fopen(dump, "wb") : stdout;
        if (!out) {
            free(buf);
            return close_or_fail(&m, err("%s: %s", dump, strerror(errno)));
        }
    }
    for (n = have_from && from > first ? from : first; n < next && shown < count && !rc; n++) {
        int32_t len = steadyfs_ring_read(&m.fs, n, buf, cap);
        if (len == STEADYFS_ENOENT) {
            lost++;
            if (list)
                printf("%llu absent\n", (unsigned long long)n);
            continue;
        }
        if (len < 0) {
            rc = err("%s: record %llu: %s", img, (unsigned long long)n, sh_fs_strerror(len));
            break;
        }
        shown++;
        if (list)
            printf("%llu %d\n", (unsigned long long)n, (int)len);
        if (out && fwrite(buf, 1, (size_t)len, out) != (size_t)len)
            rc = err("%s: %s", dump, strerror(errno));
    }
    if (out && out != stdout && fclose(out) && !rc)
        rc = err("%s: %s", dump, strerror(errno));
    if (!rc && dump && out != stdout)
        printf("%s: %llu records written to %s (%llu absent)\n", img, (unsigned long long)shown,
               dump, (unsigned long long)lost);
    free(buf);
    return close_or_fail(&m, rc);
}

static int cmd_df(int argc, char **argv)
{
    const char *image = NULL;
    steadyfs_info in;
    uint64_t files = 0, dirs = 0, dev_bytes;
    uint32_t b, bad = 0, fill;
    imgfs m;
    int i, json = 0, rc;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--image") && i + 1 < argc && !image)
            image = argv[++i];
        else if (argv[i][0] != '-' && !image)
            image = argv[i];
        else
            return usage("df IMAGE [--json]");
    }
    if (!image)
        return usage("df IMAGE [--json]");
    if (open_or_fail(&m, image, 0))
        return 1;
    rc = steadyfs_info_get(&m.fs, &in);
    if (rc)
        return close_or_fail(&m, err("%s: %s", image, steadyfs_strerror(rc)));
    rc = count_tree(&m.fs, "/", &files, &dirs);
    if (rc)
        return close_or_fail(&m, rc);
    for (b = 0; b < m.blocks; b++)
        bad += sbd_is_bad(&m.sim.bd, b) > 0;
    dev_bytes = (uint64_t)m.blocks * m.prof->geo.pages_per_block * m.prof->geo.page_size;
    fill = m.cfg.fill_permille ? m.cfg.fill_permille : 750;
    if (json) {
        printf("{\n  \"image\": ");
        json_str(image);
        printf(",\n  \"device\": \"%s\",\n  \"blocks\": %u,\n  \"bad_blocks\": %u,\n"
               "  \"device_bytes\": %llu,\n  \"capacity_bytes\": %llu,\n  \"used_bytes\": %llu,\n"
               "  \"free_bytes\": %llu,\n  \"files\": %llu,\n  \"dirs\": %llu,\n"
               "  \"max_inodes\": %u,\n  \"fill_permille\": %u,\n  \"sector_size\": %u,\n"
               "  \"data_per_sector\": %u,\n  \"ring_units\": %u,\n  \"ring_sectors\": %u\n}\n",
               m.prof->name, m.blocks, bad, (unsigned long long)dev_bytes,
               (unsigned long long)in.capacity, (unsigned long long)in.used,
               (unsigned long long)in.free, (unsigned long long)files,
               (unsigned long long)dirs + 1, m.cfg.max_inodes, fill, in.sector_size,
               in.data_per_sector, m.cfg.ring_units, m.cfg.ring_sectors);
    } else {
        printf("%s: %s, %u blocks (%u bad), %llu bytes of device\n", image, m.prof->name,
               m.blocks, bad, (unsigned long long)dev_bytes);
        printf("capacity %llu bytes (%.1f %% of the device; fill limit %u.%u %% of the sectors "
               "outside the reserve, or less where the pace needs it)\n", (unsigned long long)in.capacity,
               dev_bytes ? 100.0 * (double)in.capacity / (double)dev_bytes : 0.0, fill / 10,
               fill % 10);
        printf("used %llu bytes (%.1f %%), free %llu bytes\n", (unsigned long long)in.used,
               in.capacity ? 100.0 * (double)in.used / (double)in.capacity : 0.0,
               (unsigned long long)in.free);
        printf("%llu files, %llu directories (root included); at most %u files and "
               "directories\n", (unsigned long long)files, (unsigned long long)dirs + 1,
               m.cfg.max_inodes);
        if (m.cfg.ring_units)
            printf("record ring: the last %u units, records of up to %u bytes (steady ring)\n",
                   m.cfg.ring_units, (uint32_t)m.cfg.ring_sectors * in.data_per_sector);
    }
    return close_or_fail(&m, 0);
}

/* image export IMAGE --raw OUT [--force] | image import RAW --device P OUT [--force] */
static int image_raw(int argc, char **argv, int import)
{
    const char *in = NULL, *out = NULL, *device = NULL, *raw = NULL;
    const char *u = import ? "image import RAW --device P OUT [--force]"
                           : "image export IMAGE --raw OUT [--force]";
    char e[600];
    uint32_t blocks = 0, bad = 0;
    int i, force = 0;
    for (i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--force"))
            force = 1;
        else if (import && !strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!import && !strcmp(argv[i], "--raw") && i + 1 < argc)
            raw = argv[++i];
        else if (argv[i][0] != '-' && !in)
            in = argv[i];
        else if (argv[i][0] != '-' && import && !out)
            out = argv[i];
        else
            return usage(u);
    }
    if (!import)
        out = raw;
    if (!in || !out || (import && !device))
        return usage(u);
    if (import ? imgraw_import(in, device, out, force, &blocks, &bad, e, sizeof e)
               : imgraw_export(in, out, force, &blocks, &bad, e, sizeof e))
        return err("%s", e);
    printf("%s: %s, %u blocks, %u marked bad\n", out, import ? "device image" : "raw image",
           blocks, bad);
    return 0;
}

static int cmd_image(int argc, char **argv)
{
    const char *sub = argc > 1 ? argv[1] : "";
    if (!strcmp(sub, "create")) {
        const char *device = NULL, *pos[2] = {NULL, NULL}, *raw = NULL;
        uint32_t blocks = 0;
        uint64_t seed = 0;
        imgfs_format f;
        imgfs m;
        struct stat sb;
        int i, np = 0, force = 0, bad = 0, rc;
        memset(&f, 0, sizeof f);
        for (i = 2; i < argc && !bad; i++) {
            if (format_opt(argc, argv, &i, &device, &blocks, &seed, &f, &force, &bad))
                continue;
            if (!strcmp(argv[i], "--raw") && i + 1 < argc && !raw)
                raw = argv[++i];
            else if (np < 2 && argv[i][0] != '-')
                pos[np++] = argv[i];
            else
                return usage("image create DIR IMAGE " FORMAT_USAGE " [--raw OUT]");
        }
        if (bad)
            return 2;
        if (np != 2 || !device)
            return usage("image create DIR IMAGE " FORMAT_USAGE " [--raw OUT]");
        if (stat(pos[0], &sb) || !S_ISDIR(sb.st_mode))
            return err("%s: not a directory", pos[0]);
        if (raw && lstat(raw, &sb) == 0 && (!force || S_ISDIR(sb.st_mode)))
            return err("%s: %s", raw, S_ISDIR(sb.st_mode) ? "is a directory" :
                       "exists (use --force to replace it)");
        if (imgfs_create(&m, pos[1], device, blocks, seed, &f, force))
            return err("%s", m.err);
        rc = put_tree(&m.fs, pos[0], "/");
        if (!rc) {
            /* the tree's root: its mode, owner and times on "/" */
            struct stat rsb;
            rc = stat(pos[0], &rsb) ? err("%s: %s", pos[0], strerror(errno))
                                    : put_meta(&m.fs, "/", &rsb);
        }
        if (rc) {
            imgfs_discard(&m);   /* a partial production image is worse than none */
            return rc;
        }
        print_info(&m, pos[1]);
        rc = close_or_fail(&m, 0);
        return !rc && raw ? write_raw(pos[1], raw, force) : rc;
    }
    if (!strcmp(sub, "export") || !strcmp(sub, "import"))
        return image_raw(argc, argv, !strcmp(sub, "import"));
    if (!strcmp(sub, "extract")) {
        imgfs m;
        int rc;
        if (argc != 4)
            return usage("image extract IMAGE DIR");
        if (mkdir(argv[3], 0755) && errno != EEXIST)
            return err("%s: %s", argv[3], strerror(errno));
        if (open_or_fail(&m, argv[2], 0))
            return 1;
        rc = get_tree(&m.fs, "/", argv[3]);
        return close_or_fail(&m, rc);
    }
    return usage("image create DIR IMAGE --device P ... | image extract IMAGE DIR | "
                 "image export IMAGE --raw OUT | image import RAW --device P OUT");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"mkfs", cmd_mkfs}, {"fsck", cmd_fsck}, {"ls", cmd_ls},   {"cat", cmd_cat},
        {"put", cmd_put},   {"get", cmd_get},   {"rm", cmd_rm},   {"mkdir", cmd_mkdir},
        {"mv", cmd_mv},     {"image", cmd_image}, {"df", cmd_df}, {"ring", cmd_ring},
    };
    unsigned i;
    /* a user's device profile first (`steady ... --profile-file FILE`):
     * the image header names it, the tool must know it */
    while (argc > 2 && !strcmp(argv[1], "--profile-def")) {
        if (sh_profile_option("steady", argv[2]))
            return 2;
        argc -= 2;
        argv += 2;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: steady-img [--profile-def KIND:NAME:N0,...] "
                        "mkfs|fsck|df|ls|cat|put|get|rm|mkdir|mv|image|ring ...\n");
        return 2;
    }
    for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name)) {
            cmd = cmds[i].name;
            return cmds[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "steady-img: unknown command '%s'\n", argv[1]);
    return 2;
}
