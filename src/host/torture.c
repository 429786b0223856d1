/*
 * Power-loss torture for steadyfs: a random mix of every API call, run
 * against an in-memory model, with power cut at (nearly) every program or
 * erase, or every Nth.  After each cut the device is powered back on,
 * mounted, and every file and directory is checked against the model: a
 * file must be exactly as at its last commit (sync, close, shrinking
 * truncate, or a write's implicit commit: the state before one of the
 * writes since, where the file's transaction may have been full enough to
 * commit it, never an older one); a namespace operation that was cut may
 * have happened or not, never half.  Bit flips within the ECC's strength and grown bad blocks are
 * injected on NAND.  Deterministic for a seed: a failure prints the seed and
 * op index that replay it.
 */
#include "host/torture.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "steadyfs/sim.h"
#include "steadyfs/sim_spinand.h"
#include "steadyfs/spinand.h"
#include "steadyfs/steadyfs.h"

#define ME 24       /* model entries */
#define MF 6000     /* largest model file by default: three pages (--file-max
                       makes them larger: files of many chunks) */
#define MF_MAX (1u << 20)   /* --file-max at most */
#define TP 512      /* pages a transaction's page bits follow (MF_MAX / 2048) */
#define MH TORTURE_HANDLES_MAX   /* open handles the model has room for
                                   (--handles: how many it uses) */
#define PL 96
#define NS 8        /* states an implicit commit may leave that a model file
                       keeps (a write adds one for each place where its file's
                       transaction may be full enough: its start, and the
                       starts of its pages after the first; past NS - 3 kept,
                       a sync instead; the retries of a short write use the
                       rest) */

/* A model file's content: shared by the models (cur, pre, post) and by
 * the states of one file until one of them changes it (copy on write), so
 * that copying a model costs no file content however large its files. */
typedef struct mbuf {
    uint32_t refs, cap;
    uint8_t d[];
} mbuf;

typedef struct ment {
    char path[PL];
    uint8_t used, type;
    uint32_t csize, wsize;
    uint8_t dirty;
    uint8_t orphan;   /* unlinked or renamed over while open: no name (used 0),
                         the slot kept for its handles until the last closes */
    uint64_t txn_pages[TP / 64];   /* pages written since the last commit (a bit each) */
    uint8_t ns;           /* implicit-commit states kept (s, ssize) */
    uint8_t unknown;      /* more of them than NS: content not checked until a commit */
    uint32_t ssize[NS];
    uint16_t mode;        /* --meta: permission bits, uid and gid (setattr is */
    uint32_t uid, gid;    /* durable on return: no working copy) */
    mbuf *c, *w;          /* committed and working content (NULL: empty); a
                             symlink's target is its content */
    mbuf *s[NS];          /* the file before each write that may have committed it
                             implicitly since its last commit, oldest first */
} ment;

typedef struct mhandle {
    int fd;       /* -1: closed */
    int e;        /* model entry */
    uint32_t pos;
    uint8_t append, wr, dsync;
} mhandle;

typedef struct model {
    ment e[ME];
    mhandle h[MH];
} model;

typedef struct tctx {
    const steady_torture_opts *o;
    steady_torture_result *r;
    FILE *out;
    sim_dev dev;
    /* --spinand: the file system on the SPI NAND driver, on the chip model,
     * on dev */
    sim_spinand chip;
    spinand drv;
    spinand_config dcfg;
    uint8_t *cache;
    uint32_t *bad_map;
    uint8_t *image;
    uint64_t image_len;
    steadyfs fs;
    steadyfs_config cfg;
    void *work;
    uint8_t sector[TORTURE_SECTOR_MAX + 32];   /* (NOR, MRAM: the tag beside it) */
    uint8_t hold[TORTURE_SECTOR_MAX];          /* --hold: the held sector's buffer */
    uint64_t rng;
    model cur, pre, post;
    uint32_t cap;   /* the model's largest file (--file-max) */
    uint8_t *data, *wbefore, *st, *rbuf;   /* scratch of cap bytes (rbuf: rbuf_size) */
    uint32_t rbuf_size;                    /* the largest file + 16 (--fill's may pass cap) */
    uint64_t op;
    int armed;
    uint32_t emerg, victims, threaded;   /* summed over mounts */
    uint64_t may_commit_writes;   /* writes that may have committed their file first */
    uint32_t largest;             /* --file-max: the largest file the model held */
    uint32_t most_live;           /* the most live sectors after an op */
    uint64_t setattrs, symlinks;  /* --meta: those calls that succeeded */
    uint64_t held;                /* --hold: writes that left a sector held */
    uint64_t growth_stopped;      /* --file-max: ops where files could not grow (near the limit) */
    /* --fsck: a file system, work areas and sector buffer of its own (fsck
     * mounts the device; the torture's file system keeps its buffers) */
    struct {
        steadyfs fs;
        void *fs_work, *work;
        uint32_t fs_work_size, work_size;
        uint8_t sector[TORTURE_SECTOR_MAX + 32];
        char first_error[200];
        uint64_t runs;
    } fsck;
    /* the record ring (--ring-units): the last RL records appended (number,
     * length, content key), the next number at least, appends made */
    struct {
        uint64_t n;
        uint32_t len, key;
    } rlog[256];
    uint32_t rlog_n;
    uint64_t ring_next, ring_appends;
    int ring_worn;
} tctx;
#define RL 256u

/* The file system's counters restart at each mount: keep their sums. */
static void keep_stats(tctx *t)
{
    t->emerg += t->fs.stats.catch_up;
    t->victims += t->fs.stats.victim;
    t->threaded += t->fs.stats.threaded;
}

static uint64_t rnd(tctx *t)
{
    t->rng ^= t->rng >> 12;
    t->rng ^= t->rng << 25;
    t->rng ^= t->rng >> 27;
    return t->rng * 2685821657736338717ull;
}
static uint32_t rn(tctx *t, uint32_t n) { return n ? (uint32_t)(rnd(t) % n) : 0; }

static void fail(tctx *t, const char *what, const char *path, long a, long b)
{
    t->r->failures++;
    if (t->r->failures == 1)
        t->r->fail_op = t->op;
    fprintf(t->out, "FAIL seed %llu op %llu: %s %s (%ld vs %ld)\n", (unsigned long long)t->o->seed,
            (unsigned long long)t->op, what, path ? path : "", a, b);
}

static void fsck_say(void *ctx, const char *msg)
{
    tctx *t = ctx;
    if (!strncmp(msg, "error", 5) && !t->fsck.first_error[0])
        snprintf(t->fsck.first_error, sizeof t->fsck.first_error, "%s", msg);
}

/* --fsck: the device as the torture's file system left it, checked by
 * steadyfs_fsck (which mounts it read-only: mount programs nothing). */
static int fsck_clean(tctx *t, const char *when)
{
    steadyfs_config c = t->cfg;
    steadyfs_fsck_report rep;
    int rc;
    if (!t->o->fsck)
        return 1;
    c.work = t->fsck.fs_work;
    c.work_size = t->fsck.fs_work_size;
    c.sector_buf = t->fsck.sector;
    c.sector_buf_size = sizeof t->fsck.sector;
    c.hold_buf = NULL;   /* fsck writes nothing */
    t->fsck.first_error[0] = 0;
    rc = steadyfs_fsck(&t->fsck.fs, &c, t->fsck.work, t->fsck.work_size, fsck_say, t, &rep);
    t->fsck.runs++;
    t->r->checks++;
    if (rc || rep.errors) {
        fail(t, "fsck", when, rc, (long)rep.errors);
        fprintf(t->out, "  fsck: %s\n", t->fsck.first_error);
        return 0;
    }
    return 1;
}

/* ---- the model ------------------------------------------------------------ */

static const uint8_t mb_empty[1];

static mbuf *mb_new(uint32_t cap)
{
    mbuf *b = malloc(sizeof *b + cap);
    if (!b) {
        fputs("torture: out of memory for the model\n", stderr);
        exit(3);
    }
    b->refs = 1;
    b->cap = cap;
    return b;
}

static mbuf *mb_ref(mbuf *b)
{
    if (b)
        b->refs++;
    return b;
}

static void mb_drop(mbuf **b)
{
    if (*b && --(*b)->refs == 0)
        free(*b);
    *b = NULL;
}

static const uint8_t *mb_r(const mbuf *b) { return b ? b->d : mb_empty; }

/* The content to change: its own copy (the first keep bytes of the
 * shared one), or a new one of cap bytes. */
static uint8_t *mb_w(mbuf **b, uint32_t keep, uint32_t cap)
{
    if (!*b)
        *b = mb_new(cap);
    else if ((*b)->refs > 1) {
        mbuf *n = mb_new((*b)->cap);
        memcpy(n->d, (*b)->d, keep);
        (*b)->refs--;
        *b = n;
    }
    return (*b)->d;
}

static void ment_refs(ment *e, int take)
{
    int k;
    if (take) {
        mb_ref(e->c);
        mb_ref(e->w);
        for (k = 0; k < NS; k++)
            mb_ref(e->s[k]);
    } else {
        mb_drop(&e->c);
        mb_drop(&e->w);
        for (k = 0; k < NS; k++)
            mb_drop(&e->s[k]);
    }
}

/* dst = src, sharing the content */
static void mcopy(model *dst, const model *src)
{
    int i;
    if (dst == src)
        return;
    for (i = 0; i < ME; i++)
        ment_refs(&dst->e[i], 0);
    *dst = *src;
    for (i = 0; i < ME; i++)
        ment_refs(&dst->e[i], 1);
}

static void mfree(model *m)
{
    int i;
    for (i = 0; i < ME; i++)
        ment_refs(&m->e[i], 0);
}

static int mfind(const model *m, const char *path)
{
    int i;
    if (!strcmp(path, "/"))
        return -2;   /* root */
    for (i = 0; i < ME; i++)
        if (m->e[i].used && !strcmp(m->e[i].path, path))
            return i;
    return -1;
}

static void parent_of(const char *path, char *par)
{
    const char *s = strrchr(path, '/');
    size_t n = (size_t)(s - path);
    if (n == 0) {
        strcpy(par, "/");
        return;
    }
    memcpy(par, path, n);
    par[n] = 0;
}

static int is_dir(const model *m, const char *path)
{
    int i = mfind(m, path);
    return i == -2 || (i >= 0 && m->e[i].type == STEADYFS_TYPE_DIR);
}

static int has_children(const model *m, const char *path)
{
    size_t n = strlen(path);
    int i;
    for (i = 0; i < ME; i++)
        if (m->e[i].used && !strncmp(m->e[i].path, path, n) && m->e[i].path[n] == '/')
            return 1;
    return 0;
}

static int is_open(const model *m, int e)
{
    int k;
    for (k = 0; k < (int)MH; k++)
        if (m->h[k].fd >= 0 && m->h[k].e == e)
            return 1;
    return 0;
}

/* Handle k is closed: a nameless entry dies with its last handle. */
static void mclose(model *m, int k)
{
    int e = m->h[k].e;
    m->h[k].fd = -1;
    if (m->e[e].orphan && !is_open(m, e))
        m->e[e].orphan = 0;
}

/* Entry e loses its name: it dies, or lives on nameless while open. */
static void mremove(model *m, int e)
{
    m->e[e].used = 0;
    m->e[e].orphan = (uint8_t)is_open(m, e);
}

static int mnew(model *m, const char *path, uint8_t type)
{
    int i;
    for (i = 0; i < ME; i++)
        if (!m->e[i].used && !m->e[i].orphan) {
            memset(&m->e[i], 0, offsetof(ment, c));   /* (its content buffers are reused) */
            m->e[i].used = 1;
            m->e[i].type = type;
            snprintf(m->e[i].path, PL, "%s", path);
            m->e[i].csize = m->e[i].wsize = 0;
            m->e[i].dirty = 0;
            m->e[i].mode = type == STEADYFS_TYPE_DIR ? 0755u : type == STEADYFS_TYPE_SYMLINK ? 0777u : 0644u;
            return i;
        }
    return -1;
}

static void mcommit(ment *e)
{
    e->csize = e->wsize;
    mb_drop(&e->c);
    e->c = mb_ref(e->w);
    e->dirty = 0;
    memset(e->txn_pages, 0, sizeof e->txn_pages);
    e->ns = 0;
    e->unknown = 0;
}

/* The file as it is now may become its committed state at the start of
 * the next write (an implicit commit): keep it as a state a cut may leave. */
static void mkeep(ment *e, const uint8_t *content, uint32_t size, uint32_t cap)
{
    if (e->ns == NS) {
        e->unknown = 1;
        return;
    }
    memcpy(mb_w(&e->s[e->ns], 0, cap), content, size);
    e->ssize[e->ns++] = size;
}

static uint32_t popcount32(uint32_t x)
{
    uint32_t n = 0;
    for (; x; x &= x - 1u)
        n++;
    return n;
}

static uint32_t pages_touched(const ment *e)
{
    uint32_t n = 0, i;
    for (i = 0; i < TP / 64; i++)
        n += popcount32((uint32_t)e->txn_pages[i]) + popcount32((uint32_t)(e->txn_pages[i] >> 32));
    return n;
}

/* Where a write of len bytes at pos may commit the file (file.c,
 * steadyfs.h "Durability"): bit 0, at its start, when the transaction
 * holds txn entries, or when the pages before the write's last (each a
 * change, and a chunk's for each chunk they take) would take it there;
 * bit j, before its page j (a write that alone needs more than a
 * transaction holds commits partway), when the entries reach txn.  The
 * model does not know the file system's count, only a bound on it: two
 * changes for each page written since the commit (its own and its
 * chunk's) and two more (size, a chunk that a growing truncate took), and
 * two for each page of the write before page j. */
static uint32_t may_commit_at(const ment *e, uint32_t pos, uint32_t len, const steadyfs *fs)
{
    uint32_t ub = e->dirty ? 2u * pages_touched(e) + 2u : 0u;
    uint32_t before = (pos % fs->geo.payload + len - 1u) / fs->geo.payload;
    uint32_t chunks = before ? (before - 1u) / fs->geo.C + 2u : 0u;
    uint32_t more = before + (chunks < before ? chunks : before), txn = fs->geo.txn_max;
    uint32_t mask = ub && (ub >= txn || (more < txn && ub + more >= txn)) ? 1u : 0u, j;
    for (j = 1; j <= before && j < 32u; j++)
        if (ub + 2u * j >= txn)
            mask |= 1u << j;
    return mask;
}

/* For a write of len bytes of data at pos on a file that was base
 * (base_size bytes) before it: the states the commits of `mask`
 * (may_commit_at) would leave -- the file before it, or before its page
 * j with the write's bytes before that page in place -- kept in post's
 * entry (if any) and in pre's, as states a cut may leave whether the
 * write then succeeds or not. */
static void keep_states(tctx *t, ment *post, ment *pre, const uint8_t *base, uint32_t base_size, uint32_t pos,
                        const uint8_t *data, uint32_t mask)
{
    uint8_t *st = t->st;
    uint32_t pay = t->fs.geo.payload, j, b, size;
    for (j = 0; j < 32u && mask >> j; j++) {
        if (!(mask >> j & 1u))
            continue;
        b = j ? (pos / pay + j) * pay - pos : 0u;   /* the write's bytes before page j */
        memcpy(st, base, base_size);
        size = base_size;
        if (b) {
            if (pos > size)
                memset(st + size, 0, pos - size);
            memcpy(st + pos, data, b);
            if (pos + b > size)
                size = pos + b;
        }
        if (post)
            mkeep(post, st, size, t->cap);
        mkeep(pre, st, size, t->cap);
    }
}

static void mtouch(ment *e, uint32_t from, uint32_t to, uint32_t payload)
{
    uint32_t pg;
    for (pg = from / payload; to > from && pg <= (to - 1u) / payload && pg < TP; pg++)
        e->txn_pages[pg / 64] |= 1ull << (pg % 64);
}

/* After a power cut: handles are gone, working state falls back (to the
 * last commit; check_state() then finds which kept state the file holds). */
static void mcrash(model *m)
{
    int i;
    for (i = 0; i < (int)MH; i++)
        m->h[i].fd = -1;
    for (i = 0; i < ME; i++)
        m->e[i].orphan = 0;   /* no handle left: orphans die */
    for (i = 0; i < ME; i++)
        if (m->e[i].used) {
            m->e[i].wsize = m->e[i].csize;
            mb_drop(&m->e[i].w);
            m->e[i].w = mb_ref(m->e[i].c);
            m->e[i].dirty = 0;
        }
}

/* ---- checking --------------------------------------------------------------- */

/* Every entry of m against the mounted file system: a file holds its last
 * commit, or one of the states a write's implicit commit may have left
 * since (oldest first), or anything where more of those came than the
 * model keeps.  If all match, m takes what was found as each file's
 * committed state and working state (the states kept go: the uncommitted
 * writes after the one found are lost with the power). */
static int check_state(tctx *t, model *m, int report)
{
    uint8_t *buf = t->rbuf;
    int i, k, bad = 0, fd, n, found;
    uint64_t implicit = 0;
    steadyfs_stat st;
    for (i = 0; i < ME && !bad; i++) {
        ment *e = &m->e[i];
        if (!e->used)
            continue;
        t->r->checks++;
        if (steadyfs_stat_path(&t->fs, e->path, &st) != 0 || st.type != e->type) {
            if (report)
                fail(t, "missing or wrong type", e->path, st.type, e->type);
            bad = 1;
            break;
        }
        if (t->o->meta && (st.mode != e->mode || st.uid != e->uid || st.gid != e->gid)) {
            if (report)
                fail(t, "mode, uid or gid differs", e->path, st.mode, e->mode);
            bad = 1;
            break;
        }
        if (e->type == STEADYFS_TYPE_SYMLINK) {
            n = steadyfs_readlink(&t->fs, e->path, (char *)buf, t->rbuf_size);
            if (n != (int)e->csize || memcmp(buf, mb_r(e->c), e->csize)) {
                if (report)
                    fail(t, "symlink target differs", e->path, n, (long)e->csize);
                bad = 1;
                break;
            }
            continue;
        }
        if (e->type != STEADYFS_TYPE_FILE)
            continue;
        fd = steadyfs_open(&t->fs, e->path, STEADYFS_O_RDONLY);
        if (fd < 0) {
            if (report)
                fail(t, "open for check", e->path, fd, 0);
            bad = 1;
            break;
        }
        n = steadyfs_read(&t->fs, fd, buf, t->rbuf_size);
        steadyfs_close(&t->fs, fd);
        found = n == (int)e->csize && !memcmp(buf, mb_r(e->c), e->csize);
        for (k = 0; !found && k < e->ns; k++)
            found = n == (int)e->ssize[k] && !memcmp(buf, mb_r(e->s[k]), e->ssize[k]);
        if (!found && e->unknown && n >= 0 && (uint32_t)n <= t->cap)
            found = 1;
        if (!found) {
            if (report)
                fail(t, "content differs from last commit", e->path, n, (long)e->csize);
            bad = 1;
            break;
        }
        /* (m is dropped if any check fails) */
        if (n != (int)e->csize || memcmp(buf, mb_r(e->c), e->csize)) {
            implicit++;
            e->csize = (uint32_t)n;
            memcpy(mb_w(&e->c, 0, t->cap), buf, (uint32_t)n);
        }
        /* the state found is the file's commit, and its working state */
        e->wsize = e->csize;
        mb_drop(&e->w);
        e->w = mb_ref(e->c);
        mcommit(e);
    }
    /* directories hold exactly the model's names */
    for (i = -1; i < ME && !bad; i++) {
        const char *dpath = i < 0 ? "/" : m->e[i].path;
        steadyfs_dirent de;
        int dd, cnt = 0, want = 0, j;
        size_t dl = strlen(dpath);
        if (i >= 0 && (!m->e[i].used || m->e[i].type != STEADYFS_TYPE_DIR))
            continue;
        t->r->checks++;
        dd = steadyfs_opendir(&t->fs, dpath);
        if (dd < 0) {
            if (report)
                fail(t, "opendir", dpath, dd, 0);
            bad = 1;
            break;
        }
        for (j = 0; j < ME; j++) {
            const char *p = m->e[j].path;
            if (m->e[j].used && !strncmp(p, dpath, dl) && strchr(p + (dl == 1 ? 1 : dl + 1), '/') == NULL &&
                (dl == 1 || p[dl] == '/'))
                want++;
        }
        while (steadyfs_readdir(&t->fs, dd, &de) == 1) {
            char full[PL + 300];
            snprintf(full, sizeof full, "%s/%s", dl == 1 ? "" : dpath, de.name);
            cnt++;
            if (mfind(m, full) < 0) {
                if (report)
                    fail(t, "unexpected directory entry", full, 0, 0);
                bad = 1;
            }
        }
        steadyfs_closedir(&t->fs, dd);
        if (!bad && cnt != want) {
            if (report)
                fail(t, "directory entry count", dpath, cnt, want);
            bad = 1;
        }
    }
    if (!bad)
        t->r->implicit_found += implicit;
    return bad;
}

/* The record ring: a record's bytes from its key; every acknowledged
 * record the ring's span still holds reads back exact, and the span goes
 * past the last one. */
static void ring_bytes(uint8_t *b, uint32_t key, uint32_t len)
{
    uint32_t i;
    for (i = 0; i < len; i++)
        b[i] = (uint8_t)(key + i * 31u + (i >> 7));
}

static int check_ring(tctx *t, int report)
{
    static uint8_t want[8192], got[8192];
    uint64_t first, next;
    uint32_t i;
    int rc;
    if (!t->o->ring_units)
        return 0;
    rc = steadyfs_ring_span(&t->fs, &first, &next);
    t->r->checks++;
    if (rc || next < t->ring_next) {
        if (report)
            fail(t, "ring span", "", rc ? rc : (long)next, (long)t->ring_next);
        return 1;
    }
    for (i = 0; i < t->rlog_n && i < RL; i++) {
        uint64_t n = t->rlog[i].n;
        int32_t len;
        if (n < first)
            continue;
        t->r->checks++;
        len = steadyfs_ring_read(&t->fs, n, got, sizeof got);
        ring_bytes(want, t->rlog[i].key, t->rlog[i].len);
        if (len != (int32_t)t->rlog[i].len || memcmp(got, want, t->rlog[i].len)) {
            if (report)
                fail(t, "ring record", "differs or lost", len, (long)t->rlog[i].len);
            return 1;
        }
    }
    return 0;
}

static void arm(tctx *t)
{
    sim_faults f;
    memset(&f, 0, sizeof f);
    f.seed = t->o->seed * 7919u + t->op;
    if (t->o->powercut_every) {
        /* NOR programs a sector as many page programs: widen the window */
        uint32_t w = t->dev.bd.geo.spare_size || !t->dev.bd.geo.needs_erase
                         ? 8u : 8u * (2048u / t->dev.bd.geo.page_size);
        f.powercut_after = 1 + rn(t, w);
    }
    else if (t->o->powercut)
        f.powercut_after = t->o->powercut;
    /* through the chip model, every other arming cuts at an SPI transaction
     * instead: mid-load, mid-poll, while an operation is busy */
    if (t->o->spinand && t->o->powercut_every && rn(t, 2)) {
        f.powercut_after = 0;
        t->chip.cut_after_xfers = t->chip.stats.xfers + 1u + rn(t, 600);
    }
    if (t->o->faults && t->dev.bd.geo.ecc_bits) {
        f.flip_ppm = 3000;
        f.flip_bits = (uint16_t)(t->dev.bd.geo.ecc_bits / 2);
        f.fail_ppm = 1500;
    }
    f.read_io_ppm = t->o->read_errors;
    f.read_io_burst = 6;   /* the media layer tries 3 times: longer bursts reach the calls */
    f.wear_limit = t->o->wear_limit;
    sim_set_faults(&t->dev, &f);
    t->armed = 1;
}

static void disarm(tctx *t)
{
    sim_faults f;
    memset(&f, 0, sizeof f);
    f.wear_limit = t->o->wear_limit;   /* (worn units stay worn) */
    sim_set_faults(&t->dev, &f);
    t->chip.cut_after_xfers = 0;
    t->armed = 0;
}

/* After a cut (cut 1), or a call that failed with EIO for a device read
 * that returned no bytes (cut 0: nothing was lost, but what the call left
 * on the medium is checked as a cut's -- the files as before the call or
 * after it), or the call that found the device worn out (cut 2, checked
 * the same way): mount again without unmount, check, go on. */
/* --wear-limit: has the device reached its end?  A unit of the anchor
 * area at the limit (the checkpoints' ring loses units down to two, then
 * fails), or the other units at 90 % of it on average (they fail their
 * programs and erases one after another). */
static int wear_end(tctx *t)
{
    uint32_t wl = t->o->wear_limit, b, n = 0;
    /* (the anchor area: A + 2 units, steadyfs.h) */
    uint32_t anchor_blocks = (t->fs.geo.anchors + 2u) * t->fs.geo.dev_per_block;
    uint64_t sum = 0;
    for (b = 0; b < t->dev.bd.geo.block_count; b++) {
        uint32_t c = sim_erase_count(&t->dev, b);
        if (b < anchor_blocks) {
            if (c >= wl)
                return 1;
            continue;
        }
        if (!c && sbd_is_bad(&t->dev.bd, b) > 0)
            continue;   /* factory bad */
        sum += c < wl ? c : wl;
        n++;
    }
    return n && 10u * sum >= 9u * (uint64_t)n * wl;
}

static int recover(tctx *t, int cut)
{
    int rc;
    if (!cut) {
        t->r->read_error_stops++;
    } else if (cut == 1) {
        t->r->cuts++;
        if (t->o->spinand)
            sim_spinand_power_restore(&t->chip);
        else
            sim_power_restore(&t->dev);
    }
    disarm(t);
    keep_stats(t);
    if (t->o->spinand && (rc = spinand_init(&t->drv, &t->dcfg)) != 0) {
        fail(t, "spinand_init after power cut", sbd_strerror(rc), rc, 0);
        return -1;
    }
    rc = steadyfs_mount(&t->fs, &t->cfg);
    if (rc) {
        fail(t, "mount after power cut", steadyfs_strerror(rc), rc, 0);
        return -1;
    }
    mcrash(&t->pre);
    mcrash(&t->post);
    if (t->o->verbose) {
        int i;
        for (i = 0; i < ME; i++)
            if (t->pre.e[i].used)
                fprintf(t->out, "  pre: %s type %u\n", t->pre.e[i].path, t->pre.e[i].type);
        for (i = 0; i < ME; i++)
            if (t->post.e[i].used)
                fprintf(t->out, "  post: %s type %u\n", t->post.e[i].path, t->post.e[i].type);
    }
    if (!check_state(t, &t->post, 0))
        mcopy(&t->cur, &t->post);
    else if (!check_state(t, &t->pre, 1))
        mcopy(&t->cur, &t->pre);
    else
        return -1;
    if (check_ring(t, 1) || !fsck_clean(t, "after a cut"))
        return -1;
    arm(t);
    return 0;
}

/* ---- operations -------------------------------------------------------------- */

static const char *names[] = {"f0", "f1", "f2", "f3", "d0", "d1", "long_file_name_0123456789_abcdefghij"};

static void rand_path(tctx *t, char *out, int want_dir_parent_depth)
{
    int dirs[ME + 1], nd = 0, i;
    const char *par;
    (void)want_dir_parent_depth;
    dirs[nd++] = -2;
    for (i = 0; i < ME; i++)
        if (t->cur.e[i].used && t->cur.e[i].type == STEADYFS_TYPE_DIR && strlen(t->cur.e[i].path) < 40)
            dirs[nd++] = i;
    i = dirs[rn(t, (uint32_t)nd)];
    par = i == -2 ? "" : t->cur.e[i].path;
    snprintf(out, PL, "%s/%s", par, names[rn(t, sizeof names / sizeof names[0])]);
}

/* The handles the run uses: --handles, 2 by default. */
static int handles_of(const tctx *t)
{
    return t->o->handles ? (int)t->o->handles : 2;
}

static int free_handle(const model *m, int handles)
{
    int k;
    for (k = 0; k < handles; k++)
        if (m->h[k].fd < 0)
            return k;
    return -1;
}

static int open_handle(tctx *t)
{
    int k, c = 0, pick[MH];
    for (k = 0; k < (int)MH; k++)
        if (t->cur.h[k].fd >= 0)
            pick[c++] = k;
    return c ? pick[rn(t, (uint32_t)c)] : -1;
}

/* Runs one op: fills post (the model if it succeeds), calls the FS.
 * Returns the FS rc; *expect_ok says whether the model predicts success. */
static int do_op(tctx *t, int *expect_ok, const char **what)
{
    model *m = &t->post;
    char path[PL], path2[PL], par[PL];
    uint8_t *data = t->data, *wbefore = t->wbefore;
    uint32_t kind = rn(t, 100), len, i, wbefore_size = 0, wpos = 0;
    /* --file-max, --fill: near the live limit files stop growing and no
     * new name is made (writes inside files, shrinks and removals go
     * on), so that the device does not fill and end the run */
    int near = (t->cap > MF || t->o->fill) && (uint64_t)t->fs.live * 100u > (uint64_t)t->fs.live_max * 85u;
    uint32_t grow_to = near ? 0u : t->cap;
    int e, e2, k, rc = 0;
    *expect_ok = 1;
    if (near)
        t->growth_stopped++;
    if (t->o->ring_units && !t->ring_worn && rn(t, 8) == 0) {   /* a ring append */
        uint64_t n = 0;
        uint32_t key = (uint32_t)rnd(t), max = 2u * t->fs.geo.payload;
        *what = "ring_append";
        len = 1 + rn(t, max);
        if (rn(t, 3) == 0)
            len = max;
        ring_bytes(data, key, len);
        rc = steadyfs_ring_append(&t->fs, data, len, &n);
        if (rc == STEADYFS_ENOSPC) {
            /* worn out (fewer than two good units): the ring refuses, the
             * files go on; no more appends in this run */
            if (!t->ring_worn)
                fprintf(t->out, "record ring worn out after %llu appends (its units gone bad)\n",
                        (unsigned long long)t->ring_appends);
            t->ring_worn = 1;
            return 0;
        }
        if (!rc) {
            uint32_t slot = t->rlog_n % RL;
            t->rlog[slot].n = n;
            t->rlog[slot].len = len;
            t->rlog[slot].key = key;
            t->rlog_n++;
            t->ring_next = n + 1;
            t->ring_appends++;
        }
        return rc;
    }
    /* with a small table (--pending-max) three syncs and closes of four
     * become writes, so that transactions fill and commit implicitly
     * (with --file-max too) */
    if ((t->o->pending_max || t->cap > MF) && kind >= 60 && kind < 78 && rn(t, 4))
        kind = 16 + rn(t, 28);   /* (and so that large files grow) */
    if (kind < 16) {                                /* open / create */
        int flags;
        *what = "open";
        k = free_handle(m, handles_of(t));
        if (k < 0)
            return 0;
        rand_path(t, path, 0);
        flags = rn(t, 4) ? STEADYFS_O_RDWR : STEADYFS_O_RDONLY;
        if (flags != STEADYFS_O_RDONLY) {
            if (rn(t, 3))
                flags |= STEADYFS_O_CREAT;
            if (!rn(t, t->cap > MF ? 20 : 5))   /* (large files: rarely, so that they fill the device) */
                flags |= STEADYFS_O_TRUNC;
            if (!rn(t, 8))
                flags |= STEADYFS_O_EXCL;
            if (!rn(t, 6))
                flags |= STEADYFS_O_APPEND;
            if (!rn(t, 3))
                flags |= STEADYFS_O_DSYNC;   /* each write commits in its own tag */
        }
        e = mfind(m, path);
        parent_of(path, par);
        if (near && e == -1 && (flags & STEADYFS_O_CREAT))
            return 0;
        if (e == -1 && (!(flags & STEADYFS_O_CREAT) || !is_dir(m, par)))
            *expect_ok = 0;
        else if (e >= 0 && m->e[e].type != STEADYFS_TYPE_FILE)
            *expect_ok = 0;   /* a directory, or a symlink (ELOOP) */
        else if (e >= 0 && (flags & STEADYFS_O_CREAT) && (flags & STEADYFS_O_EXCL))
            *expect_ok = 0;
        else if (e == -1 && (e = mnew(m, path, STEADYFS_TYPE_FILE)) < 0)
            return 0;
        if (*expect_ok && (flags & STEADYFS_O_TRUNC) && m->e[e].wsize) {   /* (a shrink commits) */
            m->e[e].wsize = 0;
            mcommit(&m->e[e]);
        }
        if (t->o->verbose)
            fprintf(t->out, "  open %s flags %x h%d\n", path, flags, k);
        rc = steadyfs_open(&t->fs, path, flags);
        if (rc >= 0) {
            m->h[k].fd = rc;
            m->h[k].e = e;
            m->h[k].pos = 0;
            m->h[k].append = (flags & STEADYFS_O_APPEND) != 0;
            m->h[k].dsync = (flags & STEADYFS_O_DSYNC) != 0;
            m->h[k].wr = flags != STEADYFS_O_RDONLY;
            rc = 0;
        }
        return rc;
    }
    if (kind < 44) {                                /* write */
        *what = "write";
        k = open_handle(t);
        if (k < 0 || !m->h[k].wr)
            return 0;
        e = m->h[k].e;
        if (m->h[k].append)
            m->h[k].pos = m->e[e].wsize;
        if (t->cap > MF && m->h[k].pos > m->e[e].wsize && rn(t, 16))
            m->h[k].pos = m->e[e].wsize;   /* large files mostly without holes: they fill the device */
        if (m->h[k].pos >= t->cap - 1)
            return 0;
        /* (with a small table, writes of up to 3000 bytes only: pages fill
         * the transaction, not bytes; larger files take half their writes
         * of up to three pages, which keep at most four states, as 3000
         * bytes do on 1024-byte sectors) */
        if (t->cap > MF)
            len = 1 + rn(t, rn(t, 2) ? 3000 : 3u * t->fs.geo.payload);
        else
            len = 1 + rn(t, rn(t, 4) && !t->o->pending_max ? 700 : 3000);
        if (m->h[k].pos + len > t->cap)
            len = t->cap - m->h[k].pos;
        if (m->h[k].pos + len > m->e[e].wsize && m->h[k].pos + len > grow_to) {
            if (m->h[k].pos >= m->e[e].wsize)
                return 0;
            len = m->e[e].wsize - m->h[k].pos;
        }
        for (i = 0; i < len; i++)
            data[i] = (uint8_t)rnd(t);
        {
            /* an O_DSYNC write commits the file's transaction even when it
             * fails before writing a byte (its short-write commit, of
             * nothing: seed 404 --pending-max 16 --powercut 20, a grown
             * size committed by a write that met ENOSPC): the state before
             * it is one a failed call may leave */
            uint32_t mask = may_commit_at(&m->e[e], m->h[k].pos, len, &t->fs) |
                            (m->h[k].dsync && m->e[e].dirty ? 1u : 0u);
            assert(popcount32(mask) <= NS - 3u);
            if (mask && m->e[e].ns + popcount32(mask) > NS - 3u) {
                /* the states kept would not leave three slots for the
                 * retries of a short write: sync instead */
                *what = "sync";
                mcommit(&m->e[e]);
                return steadyfs_sync(&t->fs, m->h[k].fd);
            }
            if (mask) {
                keep_states(t, &m->e[e], &t->pre.e[e], mb_r(m->e[e].w), m->e[e].wsize, m->h[k].pos, data, mask);
                t->may_commit_writes++;
            }
        }
        memcpy(wbefore, mb_r(m->e[e].w), m->e[e].wsize);
        wbefore_size = m->e[e].wsize;
        wpos = m->h[k].pos;
        mtouch(&m->e[e], wpos, wpos + len, t->fs.geo.payload);
        mtouch(&t->pre.e[e], wpos, wpos + len, t->fs.geo.payload);
        t->pre.e[e].dirty = 1;
        {
            uint8_t *w = mb_w(&m->e[e].w, m->e[e].wsize, t->cap);
            if (m->h[k].pos > m->e[e].wsize)
                memset(w + m->e[e].wsize, 0, m->h[k].pos - m->e[e].wsize);
            memcpy(w + m->h[k].pos, data, len);
        }
        m->h[k].pos += len;
        if (m->h[k].pos > m->e[e].wsize)
            m->e[e].wsize = m->h[k].pos;
        m->e[e].dirty = 1;
        if (m->h[k].dsync)
            mcommit(&m->e[e]);   /* the file's whole transaction commits */
        if (!m->h[k].append)
            steadyfs_seek(&t->fs, m->h[k].fd, wpos, STEADYFS_SEEK_SET);
        if (t->o->verbose)
            fprintf(t->out, "  write %s h%d pos %u len %u\n", m->e[e].path, k, m->h[k].pos - len, len);
        rc = steadyfs_write(&t->fs, m->h[k].fd, data, len);
        /* a short write returns what it wrote (near the live limit the
         * sectors kept for removals stop it): the rest is written again,
         * as a POSIX caller would, and its error, if any, is the call's */
        while (rc > 0 && (uint32_t)rc < len) {
            int r2;
            /* the rest is a write of its own, which may commit the file
             * as the first part left it (a short O_DSYNC write has
             * committed it so already) */
            ment *pe = &t->pre.e[e];
            int dsync = m->h[k].dsync;
            uint32_t mask = may_commit_at(pe, wpos + (uint32_t)rc, len - (uint32_t)rc, &t->fs) |
                            (dsync ? 1u : 0u);
            if (mask) {
                uint32_t end = wpos + (uint32_t)rc, size = wbefore_size > end ? wbefore_size : end;
                if (wpos > wbefore_size)
                    memset(wbefore + wbefore_size, 0, wpos - wbefore_size);
                memcpy(wbefore + wpos, data, (uint32_t)rc);
                wbefore_size = size;
                keep_states(t, dsync ? NULL : &m->e[e], pe, wbefore, size, end, data + rc, mask);
            }
            r2 = steadyfs_write(&t->fs, m->h[k].fd, (const uint8_t *)data + rc, len - (uint32_t)rc);
            if (r2 <= 0) {
                rc = r2 < 0 ? r2 : -1000;
                break;
            }
            rc += r2;
        }
        t->held += t->fs.hold.ino != 0;   /* --hold: the write left its last sector held */
        return rc == (int)len ? 0 : rc < 0 ? rc : -1000;
    }
    if (kind < 50) {                                /* read and compare */
        *what = "read";
        k = open_handle(t);
        if (k < 0)
            return 0;
        e = m->h[k].e;
        len = 1 + rn(t, 3000);
        steadyfs_seek(&t->fs, m->h[k].fd, m->h[k].pos, STEADYFS_SEEK_SET);
        rc = steadyfs_read(&t->fs, m->h[k].fd, data, len);
        if (rc >= 0) {
            uint32_t want = m->h[k].pos >= m->e[e].wsize ? 0 : m->e[e].wsize - m->h[k].pos;
            if (want > len)
                want = len;
            if ((uint32_t)rc != want || memcmp(data, mb_r(m->e[e].w) + m->h[k].pos, want))
                fail(t, "read differs from working state", m->e[e].path, rc, (long)want);
            m->h[k].pos += (uint32_t)rc;
            rc = 0;
        }
        return rc;
    }
    if (kind < 54) {                                /* seek */
        *what = "seek";
        k = open_handle(t);
        if (k < 0)
            return 0;
        if (t->cap > MF)   /* large files: mostly inside the file */
            m->h[k].pos = rn(t, 4) ? rn(t, m->e[m->h[k].e].wsize + 1u) : rn(t, t->cap);
        else
            m->h[k].pos = rn(t, t->cap / 2);
        rc = (int)steadyfs_seek(&t->fs, m->h[k].fd, m->h[k].pos, STEADYFS_SEEK_SET);
        return rc < 0 ? rc : 0;
    }
    if (kind < 60) {                                /* truncate */
        *what = "truncate";
        k = open_handle(t);
        if (k < 0 || !m->h[k].wr)
            return 0;
        e = m->h[k].e;
        len = rn(t, t->cap);
        if (t->cap > MF && rn(t, 8))   /* (large files: mostly a shrink of a little, few holes) */
            len = m->e[e].wsize - rn(t, m->e[e].wsize / 8u + 1u);
        if (len > m->e[e].wsize && len > grow_to)
            len = rn(t, m->e[e].wsize + 1u);
        if (len < m->e[e].wsize) {
            m->e[e].wsize = len;
            mcommit(&m->e[e]);
        } else {
            memset(mb_w(&m->e[e].w, m->e[e].wsize, t->cap) + m->e[e].wsize, 0, len - m->e[e].wsize);
            m->e[e].wsize = len;
            m->e[e].dirty = 1;
        }
        return steadyfs_truncate(&t->fs, m->h[k].fd, len);
    }
    if (kind < 68 || kind < 78) {                   /* sync or close */
        int close = kind >= 68;
        *what = close ? "close" : "sync";
        k = open_handle(t);
        if (k < 0)
            return 0;
        e = m->h[k].e;
        if (t->o->verbose)
            fprintf(t->out, "  %s %s h%d dirty %d wsize %u\n", *what, m->e[e].path, k, m->e[e].dirty, m->e[e].wsize);
        if (m->e[e].dirty)
            mcommit(&m->e[e]);
        if (close) {
            rc = steadyfs_close(&t->fs, m->h[k].fd);
            mclose(m, k);
            return rc;
        }
        return steadyfs_sync(&t->fs, m->h[k].fd);
    }
    if (kind < 83) {                                /* unlink / rmdir */
        int dir = rn(t, 3) == 0;
        *what = dir ? "rmdir" : "unlink";
        rand_path(t, path, 0);
        if (dir && rn(t, 2)) {
            for (i = 0; i < ME; i++)
                if (m->e[i].used && m->e[i].type == STEADYFS_TYPE_DIR) {
                    snprintf(path, PL, "%s", m->e[i].path);
                    break;
                }
        }
        e = mfind(m, path);
        if (e < 0 || (dir && m->e[e].type != STEADYFS_TYPE_DIR) ||
            (!dir && m->e[e].type == STEADYFS_TYPE_DIR) || (dir && has_children(m, path)))
            *expect_ok = 0;
        else
            mremove(m, e);   /* open: its handles go on (steadyfs orphans) */
        return dir ? steadyfs_rmdir(&t->fs, path) : steadyfs_unlink(&t->fs, path);
    }
    if (kind < 90) {                                /* rename */
        *what = "rename";
        rand_path(t, path, 0);
        rand_path(t, path2, 0);
        e = mfind(m, path);
        e2 = mfind(m, path2);
        /* the model keeps paths below PL bytes: skip renames that would
         * make a descendant's path longer */
        for (i = 0; e >= 0 && i < ME; i++)
            if (m->e[i].used && !strncmp(m->e[i].path, path, strlen(path)) &&
                strlen(m->e[i].path) - strlen(path) + strlen(path2) >= PL - 1)
                return 0;
        parent_of(path2, par);
        if (e < 0 || !is_dir(m, par))
            *expect_ok = 0;
        else if (e == e2)
            ;
        else if (e2 >= 0 && (m->e[e].type == STEADYFS_TYPE_DIR) != (m->e[e2].type == STEADYFS_TYPE_DIR))
            *expect_ok = 0;   /* (a symlink is renamed as a file is) */
        else if (e2 >= 0 && has_children(m, path2))
            *expect_ok = 0;
        else if (m->e[e].type == STEADYFS_TYPE_DIR &&
                 (!strncmp(par, path, strlen(path)) &&
                  (par[strlen(path)] == 0 || par[strlen(path)] == '/')))
            *expect_ok = 0;
        else {
            size_t n = strlen(path);
            if (e2 >= 0)
                mremove(m, e2);
            for (i = 0; i < ME; i++) {
                char np[PL * 2];
                if (!m->e[i].used || (int)i == e)
                    continue;
                if (!strncmp(m->e[i].path, path, n) && m->e[i].path[n] == '/') {
                    size_t l;
                    snprintf(np, sizeof np, "%s%s", path2, m->e[i].path + n);
                    l = strlen(np) < PL - 1 ? strlen(np) : PL - 1;
                    memcpy(m->e[i].path, np, l);
                    m->e[i].path[l] = 0;
                }
            }
            snprintf(m->e[e].path, PL, "%s", path2);
        }
        if (t->o->verbose)
            fprintf(t->out, "  rename %s -> %s (expect %d)\n", path, path2, *expect_ok);
        return steadyfs_rename(&t->fs, path, path2);
    }
    if (kind < 95) {                                /* mkdir */
        *what = "mkdir";
        if (near)
            return 0;
        rand_path(t, path, 0);
        e = mfind(m, path);
        parent_of(path, par);
        if (e != -1 || !is_dir(m, par))
            *expect_ok = 0;
        else if (mnew(m, path, STEADYFS_TYPE_DIR) < 0)
            return 0;
        return steadyfs_mkdir(&t->fs, path);
    }
    if (t->o->meta && (kind == 95 || kind == 97)) {   /* --meta: setattr or symlink */
        rand_path(t, path, 0);
        e = mfind(m, path);
        if (rn(t, 2)) {
            steadyfs_attr a;
            int have[ME], nh = 0;
            *what = "setattr";
            for (i = 0; i < ME; i++)
                if (m->e[i].used)
                    have[nh++] = (int)i;
            if (nh && rn(t, 4)) {   /* mostly an entry that exists */
                e = have[rn(t, (uint32_t)nh)];
                snprintf(path, PL, "%s", m->e[e].path);
            }
            memset(&a, 0, sizeof a);
            a.mask = 1u + rn(t, 7);   /* some of MODE, UID, GID */
            a.mode = (uint16_t)rn(t, 010000);
            a.uid = (uint32_t)rnd(t);
            a.gid = rn(t, 3) ? (uint32_t)rn(t, 1000) : (uint32_t)rnd(t);
            if (e < 0)
                *expect_ok = 0;
            else {
                if (a.mask & STEADYFS_ATTR_MODE)
                    m->e[e].mode = a.mode;
                if (a.mask & STEADYFS_ATTR_UID)
                    m->e[e].uid = a.uid;
                if (a.mask & STEADYFS_ATTR_GID)
                    m->e[e].gid = a.gid;
            }
            return steadyfs_setattr(&t->fs, path, &a);
        } else {
            uint32_t tl = 1u + (rn(t, 4) ? rn(t, 64) : rn(t, steadyfs_symlink_max(&t->fs)));
            *what = "symlink";
            if (near)
                return 0;
            parent_of(path, par);
            for (i = 0; i < tl; i++)
                data[i] = (uint8_t)(1u + rn(t, 255));   /* any byte but NUL */
            data[tl] = 0;
            if (e != -1 || !is_dir(m, par))
                *expect_ok = 0;
            else if ((e = mnew(m, path, STEADYFS_TYPE_SYMLINK)) < 0)
                return 0;
            else {
                memcpy(mb_w(&m->e[e].w, 0, t->cap), data, tl);
                m->e[e].wsize = tl;
                mcommit(&m->e[e]);
            }
            return steadyfs_symlink(&t->fs, (const char *)data, path, NULL);
        }
    }
    if (kind < 97) {                                /* stat */
        steadyfs_stat st;
        *what = "stat";
        rand_path(t, path, 0);
        e = mfind(m, path);
        *expect_ok = e >= 0;
        rc = steadyfs_stat_path(&t->fs, path, &st);
        if (!rc && e >= 0 && st.type != m->e[e].type)
            fail(t, "stat type", path, st.type, m->e[e].type);
        return rc;
    }
    if (kind < 99) {                                /* idle-time collection */
        *what = "gc_step";
        rc = steadyfs_gc_step(&t->fs, 1 + rn(t, 64));
        return rc < 0 ? rc : 0;
    }
    /* clean remount; open files are closed one per op first, so that a cut
     * leaves one commit in doubt, never two */
    for (k = 0; k < (int)MH; k++)
        if (m->h[k].fd >= 0) {
            *what = "close";
            e = m->h[k].e;
            if (m->e[e].dirty)
                mcommit(&m->e[e]);
            rc = steadyfs_close(&t->fs, m->h[k].fd);
            mclose(m, k);
            return rc;
        }
    *what = "remount";
    rc = steadyfs_unmount(&t->fs);
    keep_stats(t);
    if (!rc)
        rc = steadyfs_mount(&t->fs, &t->cfg);
    return rc;
}

/* --fill P: a file of static data, written before the first cut, that
 * takes the live sectors to P % of the live limit, so that collection's
 * victims hold it and copy it under the cuts; no call but setattr names
 * it (its name is not one rand_path makes), and after every cut it must
 * read back whole, as any file at its commit. */
static int static_fill(tctx *t)
{
    uint64_t want = (uint64_t)t->fs.live_max * t->o->fill / 100u;
    uint32_t size, off, n;
    int fd, e, rc = 0;
    uint8_t *d;
    if (want <= t->fs.live) {
        fprintf(t->out, "torture: --fill %u: the file system already holds %u of %u live sectors\n",
                t->o->fill, t->fs.live, t->fs.live_max);
        return -1;
    }
    /* (a chunk entry's map sector and the inode come with the data) */
    size = (uint32_t)((want - t->fs.live) * t->fs.geo.payload * 15u / 16u);
    e = mnew(&t->cur, "/static", STEADYFS_TYPE_FILE);
    d = e < 0 ? NULL : mb_w(&t->cur.e[e].w, 0, size > t->cap ? size : t->cap);
    if (!d) {
        fprintf(t->out, "torture: --fill: no model entry\n");
        return -1;
    }
    for (off = 0; off < size; off++)
        d[off] = (uint8_t)rnd(t);
    fd = steadyfs_open(&t->fs, "/static", STEADYFS_O_RDWR | STEADYFS_O_CREAT);
    for (off = 0; fd >= 0 && off < size && rc >= 0; off += n) {
        n = size - off < 8192u ? size - off : 8192u;
        rc = steadyfs_write(&t->fs, fd, d + off, n);
        if (rc >= 0 && (uint32_t)rc != n)
            rc = STEADYFS_ENOSPC;
    }
    if (fd >= 0 && rc >= 0)
        rc = steadyfs_close(&t->fs, fd);
    if (fd < 0 || rc < 0) {
        fprintf(t->out, "torture: --fill %u: writing %u bytes of static data: %s\n", t->o->fill, size,
                steadyfs_strerror(fd < 0 ? fd : rc));
        return -1;
    }
    t->cur.e[e].wsize = size;
    mcommit(&t->cur.e[e]);
    if (size + 16u > t->rbuf_size) {
        free(t->rbuf);
        t->rbuf_size = size + 16u;
        t->rbuf = malloc(t->rbuf_size);
        if (!t->rbuf) {
            fprintf(t->out, "torture: out of memory for --fill\n");
            return -1;
        }
    }
    fprintf(t->out, "static data: %u bytes, %u of %u live sectors\n", size, t->fs.live, t->fs.live_max);
    return 0;
}

static int setup(tctx *t)
{
    const sim_profile *p = sim_profile_find(t->o->device);
    uint32_t blocks = t->o->blocks, ws;
    int rc, k;
    if (!p) {
        fprintf(t->out, "torture: unknown device %s\n", t->o->device);
        return -1;
    }
    if (!blocks)
        blocks = p->kind == SIM_NAND ? 24 : p->kind == SIM_NOR ? 384 : 24;
    t->cap = t->o->file_max ? t->o->file_max : MF;
    if (t->cap < MF || t->cap > MF_MAX) {
        fprintf(t->out, "torture: --file-max %u: want %u..%u bytes\n", t->cap, MF, MF_MAX);
        return -1;
    }
    t->data = malloc(t->cap + 8192u);   /* (a ring record: two sectors) */
    t->wbefore = malloc(t->cap);
    t->st = malloc(t->cap);
    t->rbuf_size = t->cap + 16u;
    t->rbuf = malloc(t->rbuf_size);
    if (!t->data || !t->wbefore || !t->st || !t->rbuf) {
        fprintf(t->out, "torture: out of memory for files of %u bytes\n", t->cap);
        return -1;
    }
    if (blocks > p->geo.block_count) {
        fprintf(t->out, "torture: --blocks %u: %s has %u blocks\n", blocks, t->o->device, p->geo.block_count);
        return -1;
    }
    t->image_len = sim_image_size(p, blocks);
    t->image = calloc(1, (size_t)t->image_len);
    if (!t->image || sim_init(&t->dev, p, blocks, t->image, t->image_len, SIM_TYPICAL, t->o->seed, 1)) {
        fprintf(t->out, "torture: cannot create %s with %u blocks\n", t->o->device, blocks);
        return -1;
    }
    memset(&t->cfg, 0, sizeof t->cfg);
    t->cfg.bd = &t->dev.bd;
    if (t->o->spinand) {
        uint32_t clen = sim_spinand_cache_size(&t->dev);
        if (p->kind != SIM_NAND || strcmp(p->name, "mt29f1g01")) {
            fprintf(t->out, "torture: --spinand needs the mt29f1g01 device\n");
            return -1;
        }
        t->cache = calloc(1, clen);
        t->bad_map = calloc(SPINAND_MAP_WORDS(blocks), sizeof *t->bad_map);
        memset(&t->dcfg, 0, sizeof t->dcfg);
        t->dcfg.xfer = sim_spinand_xfer;
        t->dcfg.delay_us = sim_spinand_delay_us;
        t->dcfg.ctx = &t->chip;
        t->dcfg.blocks = blocks;
        t->dcfg.quad = 1;
        t->dcfg.bad_map = t->bad_map;
        t->dcfg.bad_map_words = SPINAND_MAP_WORDS(blocks);
        if (!t->cache || !t->bad_map ||
            sim_spinand_init(&t->chip, &t->dev, NULL, t->cache, clen, 0x2C, 0x14, t->o->seed) ||
            (rc = spinand_init(&t->drv, &t->dcfg)) != 0) {
            fprintf(t->out, "torture: SPI NAND driver on the chip model: init failed\n");
            return -1;
        }
        t->cfg.bd = &t->drv.bd;
    }
    t->cfg.max_inodes = 128;
    /* the model's handles (--handles, 2 by default): more open files make
     * transactions smaller (steadyfs.h: 4 sectors with four on NAND), so
     * more writes may commit implicitly, which the model follows
     * (may_commit_at) with the states it keeps; --pending-max gives them
     * room again */
    t->cfg.open_max = (uint16_t)handles_of(t);
    t->cfg.pending_max = (uint16_t)t->o->pending_max;
    t->cfg.erase_mult = t->o->erase_mult;
    t->cfg.sector_size = t->o->sector_size;
    t->cfg.ring_units = (uint16_t)t->o->ring_units;
    t->cfg.ring_sectors = t->o->ring_units ? 2 : 0;
    ws = steadyfs_work_size(&t->cfg);
    t->work = calloc(1, ws ? ws : 1);
    t->cfg.work = t->work;
    t->cfg.work_size = ws;
    t->cfg.sector_buf = t->sector;
    t->cfg.sector_buf_size = sizeof t->sector;
    t->cfg.hold_buf = t->o->hold ? t->hold : NULL;
    if (t->o->fsck) {
        t->fsck.fs_work_size = ws;
        t->fsck.fs_work = calloc(1, ws ? ws : 1);
        t->fsck.work_size = steadyfs_fsck_work_size(&t->cfg);
        t->fsck.work = calloc(1, t->fsck.work_size ? t->fsck.work_size : 1);
        if (!t->fsck.fs_work || !t->fsck.work) {
            fprintf(t->out, "torture: out of memory for --fsck\n");
            return -1;
        }
    }
    rc = steadyfs_format(&t->fs, &t->cfg);
    if (!rc)
        rc = steadyfs_mount(&t->fs, &t->cfg);
    if (rc == STEADYFS_EINVAL) {
        /* Bad arguments: one line on stderr, in the words of steady mkfs
         * and steady ram for the same refusal (the options that shape the
         * format, each only if given) */
        if (t->o->pending_max || t->o->erase_mult || t->o->sector_size || t->o->handles) {
            fprintf(stderr, "steady torture: --blocks %u", blocks);
            if (t->o->handles)
                fprintf(stderr, " --handles %u", t->o->handles);
            if (t->o->erase_mult)
                fprintf(stderr, " --erase-mult %u", t->o->erase_mult);
            if (t->o->sector_size)
                fprintf(stderr, " --sector-size %u", t->o->sector_size);
            if (t->o->pending_max)
                fprintf(stderr, " --pending-max %u", t->o->pending_max);
            fprintf(stderr, ": not a valid steadyfs configuration for %s\n", t->o->device);
        } else
            fprintf(stderr, "steady torture: --blocks %u: steadyfs does not fit %s with %u blocks\n",
                    blocks, t->o->device, blocks);
        return -1;
    }
    if (rc) {
        fprintf(t->out, "torture: format/mount: %s\n", steadyfs_strerror(rc));
        return -1;
    }
    {
        /* A write commits its file first, or partway before one of its
         * pages, where its transaction may reach txn_sectors changes
         * (steadyfs.h), which the model follows (may_commit_at,
         * keep_states): a write of at most 3000 bytes keeps at most a
         * state for its start and one for each page after its first,
         * four on sectors of 1024 bytes or more, within the NS - 3 slots
         * a write may fill. */
        steadyfs_info info;
        if (steadyfs_info_get(&t->fs, &info) || !info.data_per_sector) {
            fprintf(t->out, "torture: cannot read the file system's geometry\n");
            return -1;
        }
        if (info.data_per_sector < 1024u) {
            fprintf(t->out, "torture: %s: sectors of %u bytes: the model's writes of up to 3000 "
                    "bytes want sectors of 1024 at least\n", t->o->device, info.data_per_sector);
            return -1;
        }
        if (t->cap / info.data_per_sector >= TP) {
            fprintf(t->out, "torture: --file-max %u: more than %u sectors of %u bytes a file\n",
                    t->cap, TP - 1u, info.data_per_sector);
            return -1;
        }
    }
    memset(&t->cur, 0, sizeof t->cur);
    for (k = 0; k < (int)MH; k++)
        t->cur.h[k].fd = -1;
    return t->o->fill ? static_fill(t) : 0;
}

void steady_torture_replay(const steady_torture_opts *o, uint64_t ops, FILE *out)
{
    fprintf(out, "replay: steady torture --device %s --seed %llu --ops %llu --powercut ",
            o->device, (unsigned long long)o->seed, (unsigned long long)ops);
    if (o->powercut_every)
        fprintf(out, "every");
    else
        fprintf(out, "%lu", (unsigned long)o->powercut);
    if (o->blocks)
        fprintf(out, " --blocks %lu", (unsigned long)o->blocks);
    if (o->erase_mult)
        fprintf(out, " --erase-mult %lu", (unsigned long)o->erase_mult);
    if (o->sector_size)
        fprintf(out, " --sector-size %lu", (unsigned long)o->sector_size);
    if (o->ring_units)
        fprintf(out, " --ring-units %lu", (unsigned long)o->ring_units);
    if (o->pending_max)
        fprintf(out, " --pending-max %lu", (unsigned long)o->pending_max);
    if (o->file_max)
        fprintf(out, " --file-max %lu", (unsigned long)o->file_max);
    if (o->meta)
        fprintf(out, " --meta");
    if (o->hold)
        fprintf(out, " --hold");
    if (o->handles)
        fprintf(out, " --handles %lu", (unsigned long)o->handles);
    if (o->fill)
        fprintf(out, " --fill %lu", (unsigned long)o->fill);
    if (o->fsck)
        fprintf(out, " --fsck");
    if (o->read_errors)
        fprintf(out, " --read-errors %lu", (unsigned long)o->read_errors);
    if (o->wear_limit)
        fprintf(out, " --wear-limit %lu", (unsigned long)o->wear_limit);
    if (o->profile_file)
        fprintf(out, " --profile-file %s", o->profile_file);
    fprintf(out, "%s%s\n", o->faults ? "" : " --no-faults", o->spinand ? " --spinand" : "");
}

static void teardown(tctx *t)
{
    mfree(&t->cur);
    mfree(&t->pre);
    mfree(&t->post);
    free(t->data);
    free(t->wbefore);
    free(t->st);
    free(t->rbuf);
    free(t->cache);
    free(t->bad_map);
    free(t->image);
    free(t->work);
    free(t->fsck.fs_work);
    free(t->fsck.work);
    free(t);
}

int steady_torture_run(const steady_torture_opts *o, steady_torture_result *r, FILE *out)
{
    tctx *t = calloc(1, sizeof *t);
    int rc, ok, i;
    const char *what = "";
    memset(r, 0, sizeof *r);
    if (!t)
        return -1;
    t->o = o;
    t->r = r;
    t->out = out;
    t->rng = o->seed * 0x9E3779B97F4A7C15ull + 1;
    if (setup(t)) {
        r->failures++;
        teardown(t);
        return 1;
    }
    arm(t);
    for (t->op = 0; t->op < o->ops && !r->failures; t->op++) {
        uint64_t read_errors_before = t->dev.stats.read_errors;
        mcopy(&t->pre, &t->cur);
        mcopy(&t->post, &t->cur);
        rc = do_op(t, &ok, &what);
        if (t->fs.dead || (rc == STEADYFS_EIO && t->dev.stats.power_cuts > r->cuts)) {
            if (o->verbose)
                fprintf(out, "op %llu %s: power cut\n", (unsigned long long)t->op, what);
            if (recover(t, 1))
                break;
            continue;
        }
        if (rc == STEADYFS_EIO && t->dev.stats.read_errors > read_errors_before) {
            if (o->verbose)
                fprintf(out, "op %llu %s: EIO after a read that returned no bytes\n", (unsigned long long)t->op,
                        what);
            if (recover(t, 0))
                break;
            continue;
        }
        if ((rc == STEADYFS_EIO || rc == STEADYFS_ENOSPC) && o->wear_limit && wear_end(t)) {
            fprintf(out, "%s: device worn out after %llu ops (%s: %s; wear limit %u erases)\n", o->device,
                    (unsigned long long)t->op, what, steadyfs_strerror(rc), (unsigned)o->wear_limit);
            r->worn_out = 1;
            recover(t, 2);   /* (checked as after a cut; a failure is recorded) */
            break;
        }
        if (rc == STEADYFS_EIO && t->armed) {
            fail(t, what, "EIO without a power cut", rc, 0);
            break;
        }
        if (rc == STEADYFS_ENOSPC)
            fprintf(out, "ENOSPC: live %u of %u sectors, free blocks q%u f%u l%u, pending %u\n",
                    t->fs.live, t->fs.live_max, t->fs.log.nqueued, t->fs.log.nfree, t->fs.log.nlimbo, t->fs.npend);
        if (rc == STEADYFS_ENOSPC && o->verbose) {
            uint32_t b;
            for (b = 0; b < t->fs.geo.nblocks; b++)
                fprintf(out, "%u ", t->fs.blk[b]);
            fprintf(out, "\nhead %u/%u victim %u idx %u\n", t->fs.log.head_block, t->fs.log.head_idx,
                    t->fs.gc.victim, t->fs.gc.idx);
        }
        if (rc == STEADYFS_ENOSPC && ok && t->fs.live + 24u >= t->fs.live_max) {
            /* grown bad units took the capacity (the live limit shrinks
             * with them): the device is worn out, not the file system
             * wrong; nothing more can be tested on it */
            uint32_t b, bad = 0;
            for (b = 0; b < t->cfg.bd->geo.block_count; b++)
                bad += sbd_is_bad(t->cfg.bd, b) > 0;
            fprintf(out, "%s: device %s after %llu ops: live limit now %u sectors, %u live\n", o->device,
                    bad ? "worn out" : "full (the model's files reached the live limit)",
                    (unsigned long long)t->op, t->fs.live_max, t->fs.live);
            r->worn_out = 1;
            /* the call failed: the model as before it, with the states its
             * implicit commits may have left (seed 404 --pending-max 16
             * --powercut 20: an O_DSYNC write that committed the file at
             * its start, then met ENOSPC; the final check wanted the file
             * as at its last sync) */
            mcopy(&t->cur, &t->pre);
            break;
        }
        if ((rc == 0) != (ok != 0)) {
            fail(t, what, ok ? "failed, model expected success" : "succeeded, model expected failure", rc, ok);
            break;
        }
        mcopy(&t->cur, rc == 0 ? &t->post : &t->pre);
        if (rc == 0 && !strcmp(what, "setattr"))
            t->setattrs++;
        if (rc == 0 && !strcmp(what, "symlink"))
            t->symlinks++;
        if (t->fs.live > t->most_live)
            t->most_live = t->fs.live;
        for (i = 0; i < ME; i++)
            if (t->cur.e[i].used && t->cur.e[i].wsize > t->largest)
                t->largest = t->cur.e[i].wsize;
        if (o->verbose)
            fprintf(out, "op %llu %s rc %d pool %u+%u+%u head %u/%u victim %u/%u live %u\n", (unsigned long long)t->op, what, rc, t->fs.log.nqueued, t->fs.log.nfree, t->fs.log.nlimbo, t->fs.log.head_block, t->fs.log.head_idx, t->fs.gc.victim, t->fs.gc.idx, t->fs.live);
    }
    if (!r->failures) {
        /* final: everything synced must be there after a clean remount */
        disarm(t);
        mcrash(&t->cur);
        keep_stats(t);
        if (steadyfs_mount(&t->fs, &t->cfg) || check_state(t, &t->cur, 1) || check_ring(t, 1) ||
            !fsck_clean(t, "at the end"))
            if (!r->failures)
                fail(t, "final check", "", 0, 0);
    }
    {
        uint32_t b, bad = 0;
        for (b = 0; b < t->cfg.bd->geo.block_count; b++)
            bad += sbd_is_bad(t->cfg.bd, b) > 0;
        fprintf(out, "%s: %llu ops, %llu programs, %llu erases, %u bad blocks, %u GC victims, "
                "%u catch-up collections, %u threaded head moves\n",
                o->device, (unsigned long long)t->op, (unsigned long long)t->dev.stats.progs,
                (unsigned long long)t->dev.stats.erases, bad, t->victims, t->emerg, t->threaded);
    }
    if (o->spinand) {
        r->xfers = t->chip.stats.xfers;
        r->xfer_malformed = t->chip.stats.malformed;
        r->xfer_ignored = t->chip.stats.ignored;
        fprintf(out, "spinand: %llu SPI transactions (%llu status polls), %llu page reads, "
                "%llu programs, %llu erases; %llu malformed, %llu ignored, %llu NAND rule "
                "violations\n",
                (unsigned long long)t->chip.stats.xfers, (unsigned long long)t->chip.stats.polls,
                (unsigned long long)t->chip.stats.page_reads,
                (unsigned long long)t->chip.stats.programs,
                (unsigned long long)t->chip.stats.erases,
                (unsigned long long)t->chip.stats.malformed,
                (unsigned long long)t->chip.stats.ignored,
                (unsigned long long)t->chip.stats.rule_violations);
    }
    if (o->fsck)
        fprintf(out, "fsck: %llu runs, after every cut and at the end\n",
                (unsigned long long)t->fsck.runs);
    if (o->pending_max || t->cap > MF)
        fprintf(out, "pending_max %u, files up to %u bytes: %llu writes may have committed their "
                "file first; %llu files found after a cut at a state such a commit left\n",
                t->fs.cfg.pending_max, t->cap, (unsigned long long)t->may_commit_writes,
                (unsigned long long)r->implicit_found);
    if (t->cap > MF)
        fprintf(out, "files up to %u bytes: the largest %u bytes (%u chunks of %u sectors); "
                "live sectors at most %u of %u; %llu ops near the live limit, where files did "
                "not grow\n", t->cap, t->largest, t->largest / t->fs.geo.payload / t->fs.geo.C + 1u,
                t->fs.geo.C, t->most_live, t->fs.live_max, (unsigned long long)t->growth_stopped);
    if (o->meta)
        fprintf(out, "meta: %llu setattr and %llu symlink calls succeeded\n",
                (unsigned long long)t->setattrs, (unsigned long long)t->symlinks);
    if (o->hold)
        fprintf(out, "held sector: %llu writes left their last sector held\n",
                (unsigned long long)t->held);
    if (o->ring_units)
        fprintf(out, "record ring: %llu appends, next record %llu\n",
                (unsigned long long)t->ring_appends, (unsigned long long)t->ring_next);
    r->read_errors = t->dev.stats.read_errors;
    if (o->read_errors)
        fprintf(out, "read errors: %llu reads returned no bytes; %llu calls failed with EIO for them, each "
                "mounted again and checked as after a cut\n",
                (unsigned long long)r->read_errors, (unsigned long long)r->read_error_stops);
    fprintf(out, "%llu power cuts, %llu checks, %llu failures\n", (unsigned long long)r->cuts,
            (unsigned long long)r->checks, (unsigned long long)r->failures);
    if (r->failures)
        steady_torture_replay(o, r->fail_op + 1, out);
    r->largest_file = t->largest;
    r->most_live = t->most_live;
    r->live_max = t->fs.live_max;
    r->setattrs = t->setattrs;
    r->symlinks = t->symlinks;
    r->held = t->held;
    teardown(t);
    return r->failures ? 1 : 0;
}
