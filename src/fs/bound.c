/* The worst-case cost of every call (DESIGN.md §6 derives each term).
 *
 * Built from the costs of the few primitives every call is made of, each
 * counted at its worst: a map lookup (two small reads), a merge of pending
 * map changes (worst: a kill merge, 5 reads and 2 programs), making room in
 * the pending table (at most 2 merges per entry to free), a paced garbage
 * collection step (a tag read, a lookup, a copy and the room its change
 * needs), a checkpoint (one program), and the host sector itself.  Nothing
 * depends on the fill level (the pace comes from the format-time fill
 * limit) or on history. */
#include "fs/fs_internal.h"

typedef union acc {
    struct {
        uint64_t r, p, e, rb, pb;
        uint64_t c;   /* of the programs: collection copies (collection head) */
    };
    uint64_t v[6];   /* the same, for add() */
} acc;

typedef struct model {
    uint32_t S, spare, pps, small, nl, K, R, D, s, P, txn, depth;
} model;

static void add(acc *a, const acc *b, uint64_t times)
{
    uint32_t i;
    for (i = 0; i < 6; i++)
        a->v[i] += b->v[i] * times;
}

static void rd(const model *m, acc *a, uint32_t n)   /* full sector reads */
{
    a->r += n;
    a->rb += (uint64_t)n * (m->S + m->spare);
}

static void rds(const model *m, acc *a, uint32_t n)  /* small reads (tag, word, run) */
{
    a->r += n;
    a->rb += (uint64_t)n * m->small;
}

static void pr(const model *m, acc *a, uint32_t n)   /* sector programs */
{
    a->p += (uint64_t)n * m->pps;
    a->pb += (uint64_t)n * (m->S + m->spare);
}

/* Freeing one pending entry: at worst a size written into its inode
 * sector (a lookup, the inode read, a program: it adds an L1 change), the
 * L1 merge of that inode's sector (it adds an L2 change) and the L2 merge
 * after it; or a kill merge (boundary L1 and L2): 3 small reads, 3 sector
 * reads, 3 programs.  Every sector's changes take at most
 * one entry net (a kill commit three, paid for in the same call), and
 * make-room keeps the same slack before each sector, so a sector frees one
 * entry (DESIGN.md §6). */
static acc free_one(const model *m)
{
    acc a = {{0, 0, 0, 0, 0, 0}};
    rds(m, &a, 3);
    rd(m, &a, 3);
    pr(m, &a, 3);
    return a;
}

/* Examine one victim sector: tag and liveness lookup, then at worst a copy
 * (read, program), the lookup its self-commit does and the entry it adds. */
static acc exam(const model *m)
{
    acc a = {{0, 0, 0, 0, 0, 0}}, f = free_one(m);
    rds(m, &a, 1 + 2 + 2);
    rd(m, &a, 1);
    pr(m, &a, 1);
    a.c = 1;
    add(&a, &f, 1);
    return a;
}

/* A host sector: the paced collection steps, its own entry (and its
 * chunk's), where its page is (the chunk: the inode's lookup and one word
 * of it), read-modify-write, the program. */
static acc host_sector(const model *m, int rmw)
{
    acc a = {{0, 0, 0, 0, 0, 0}}, ex = exam(m), f = free_one(m);
    add(&a, &ex, (uint64_t)m->s * SFS_DEBT_STEP);   /* for itself and a merge before it */
    add(&a, &f, 2);
    rds(m, &a, 3);
    pr(m, &a, 1);
    if (rmw) {
        rds(m, &a, 2);
        rd(m, &a, 1);
    }
    return a;
}

/* Commit: the inode sector (the committed one read first, sfs_inode_edit:
 * mode, owner and times stay), the lookups of the committed locations the
 * transaction replaces. */
static acc commit(const model *m)
{
    acc a = host_sector(m, 0);
    rds(m, &a, 2 * m->txn + 2);
    rd(m, &a, 1);
    return a;
}

/* A kill (unlink, shrink): the inode sector as it was (its chunk list),
 * the lookups of its shared sectors and their "none" changes, a trim (a
 * directory's block or the tail of the chunk a shrink cuts through: one L1
 * sector read and programmed, its L2 change), the chunk of that tail, and
 * the checkpoint that commits it all (sfs_commit_kill). */
static acc kill(const model *m)
{
    acc a = {{0, 0, 0, 0, 0, 0}}, f = free_one(m);
    rds(m, &a, 2 + 2 + 2 + 3);
    rd(m, &a, 2);
    add(&a, &f, 3);
    pr(m, &a, 2);
    return a;
}

/* A trim step (chunk.c): room for its L2 change, the L1 sector read and
 * programmed, the checkpoint that must follow it. */
static acc trim(const model *m)
{
    acc a = {{0, 0, 0, 0, 0, 0}}, f = free_one(m);
    add(&a, &f, 2);
    rds(m, &a, 1);
    rd(m, &a, 1);
    pr(m, &a, 2);
    return a;
}

static acc lookup_name(const model *m)
{
    acc a = {{0, 0, 0, 0, 0, 0}};
    rds(m, &a, 2 * m->D);
    rd(m, &a, m->D);
    return a;
}

static acc inode_read(const model *m)
{
    acc a = {{0, 0, 0, 0, 0, 0}};
    rds(m, &a, 2);
    rd(m, &a, 1);
    return a;
}

static acc resolve(const model *m)
{
    acc a = {{0, 0, 0, 0, 0, 0}}, l = lookup_name(m);
    add(&a, &l, m->depth);
    return a;
}

/* Directory insert or remove: every probed bucket loaded, an overflow mark
 * and the edited bucket written. */
static acc dir_edit(const model *m)
{
    acc a = {{0, 0, 0, 0, 0, 0}}, h = host_sector(m, 0);
    rds(m, &a, 2 * m->D);
    rd(m, &a, m->D);
    add(&a, &h, 2);
    return a;
}

static acc ns_create(const model *m)
{
    acc a = resolve(m), d = dir_edit(m), c = commit(m);
    add(&a, &d, 1);
    add(&a, &c, 1);
    return a;
}

static acc ns_unlink(const model *m)
{
    acc a = resolve(m), d = dir_edit(m), c = commit(m), k = kill(m);
    add(&a, &d, 1);
    add(&a, &c, 1);
    add(&a, &k, 1);
    return a;
}

static acc write_n(const model *m, uint64_t n, int with_sync)
{
    acc a = {{0, 0, 0, 0, 0, 0}}, h = host_sector(m, 1), c = commit(m);
    uint64_t w = (n + m->S - 1) / m->S + 1, commits = w / (m->txn ? m->txn : 1) + (with_sync ? 1 : 0);
    add(&a, &h, w);
    add(&a, &c, commits);

    return a;
}

/* What every changing call adds: checkpoints (one per replay_max sectors,
 * one per head block, the first after mount), the erases (the erase-ahead,
 * one per head block filled, an anchor switch). */
static void finish(const model *m, acc *a)
{
    /* a checkpoint may follow its relocation sector: two programs */
    uint64_t sectors = a->p / m->pps, ck = 2 * (sectors / m->R + sectors / m->P + 2);
    uint64_t moves = (sectors - a->c) / m->P + 1;   /* of the host head */
    acc ex = exam(m), k = kill(m), tr = trim(m);
    pr(m, a, (uint32_t)ck);
    /* trim steps: the pace's, the light call's, a write short of room */
    add(a, &tr, SFS_TRIMS_PER_CALL);
    add(a, &k, 1);  /* or the light call's orphan kill */
    a->e += 2 + sectors / m->P + 1;
    /* catch-up collection, at most once per move of the host head (it
     * does not nest): 2 s examinations (m->s counts the wear-levelling
     * step too), a checkpoint per victim it finishes (each takes >= 2
     * steps) and the anchor erase they may need.  Only reached when
     * pacing fell behind (DESIGN.md §6). */
    add(a, &ex, moves * 2 * m->s);
    pr(m, a, (uint32_t)(moves * (m->s + 1)));
    a->e += moves;
}

int steadyfs_bound(const steadyfs_config *cfg, const sbd_geometry *geo, steadyfs_call call,
                   uint64_t n, steadyfs_cost *out)
{
    steadyfs fs;
    steadyfs_config c;
    sbd dummy_bd;
    static const sbd_ops no_ops;
    model m;
    acc a = {{0, 0, 0, 0, 0, 0}}, t;
    uint32_t v, closed;
    if (!cfg || !geo || !out)
        return STEADYFS_EINVAL;
    c = *cfg;
    c.work = NULL;
    dummy_bd.ops = &no_ops;
    dummy_bd.ctx = NULL;
    dummy_bd.geo = *geo;
    c.bd = &dummy_bd;
    if (sfs_setup(&fs, &c))
        return STEADYFS_EINVAL;
    m.S = fs.geo.sector_size;
    m.spare = fs.geo.tag_inline ? 0 : SFS_TAG_SIZE;
    m.pps = fs.geo.tag_inline && geo->needs_erase ? fs.geo.sector_size / geo->page_size : 1;
    m.nl = 1;
    m.small = SFS_TAG_SIZE;   /* a tag; map words and a chunk word are fewer bytes */
    m.K = fs.cfg.pending_max;
    m.R = fs.cfg.replay_max;
    m.D = fs.cfg.dir_pages;
    m.P = fs.geo.P;
    m.txn = fs.geo.txn_max;
    m.depth = call == STEADYFS_CALL_READ || call == STEADYFS_CALL_WRITE ||
                      call == STEADYFS_CALL_WRITE_SYNC || call == STEADYFS_CALL_GC_STEP || !n
                  ? 4u : (uint32_t)(n > 64 ? 64 : n);
    /* the pace, as derive() computes it at mount (the same function),
     * from the format fill limit with every good block usable (fewer good
     * blocks only lower v) */
    closed = fs.geo.nblocks - SFS_RESERVED_BLOCKS;
    fs.geo.usable = closed;
    v = sfs_live_limit(&fs);
    m.s = sfs_pace_steps(&fs, closed, v);
    m.s += 1;   /* the static wear-levelling step a sector may also do */
    switch (call) {
    case STEADYFS_CALL_MOUNT: {
        uint32_t lg = 0;
        while ((1u << lg) < fs.geo.P)
            lg++;
        rds(&m, &a, 2 + lg + 1);          /* anchors, binary search */
        rd(&m, &a, 2 * 3 + 1);            /* newest valid checkpoint, two back (a torn one and
                                             its relocation sector); both anchors; the
                                             relocation sector it names */
        rds(&m, &a, m.R * 3 + 2);         /* replay: a tag per sector (+ one per head at
                                             the end), commit lookups */
        /* no kill: kills are committed by a checkpoint (sfs_commit_kill) */
        rds(&m, &a, 2 * 4);               /* aborted creates: at most one namespace */
        rd(&m, &a, 4 + 2 * 2);            /* transaction's inodes; where each head resumes */
        break;
    }
    case STEADYFS_CALL_UNMOUNT:
        t = commit(&m);
        add(&a, &t, fs.cfg.open_max);
        t = kill(&m);   /* the orphans, no handle left to hold them, die */
        add(&a, &t, fs.geo.orphan_max);
        t = trim(&m);     /* every dying chunk trimmed: one step per L1 sector */
        add(&a, &t, fs.geo.n_l1);
        finish(&m, &a);
        a.e += fs.cfg.open_max;
        break;
    case STEADYFS_CALL_INFO:
    case STEADYFS_CALL_SEEK:
    case STEADYFS_CALL_CLOSEDIR:
        break;
    case STEADYFS_CALL_STAT:
        a = lookup_name(&m);   /* a directory's link count: its buckets */
        /* fall through */
    case STEADYFS_CALL_OPEN:
    case STEADYFS_CALL_OPENDIR:
        t = resolve(&m);
        add(&a, &t, 1);
        t = inode_read(&m);
        add(&a, &t, 1);   /* no program, no erase: nothing changes (sfs_end) */
        break;
    case STEADYFS_CALL_SETATTR:
        /* the inode read after the room is made, one inode program */
        a = resolve(&m);
        t = inode_read(&m);
        add(&a, &t, 1);
        t = commit(&m);
        add(&a, &t, 1);
        finish(&m, &a);
        break;
    case STEADYFS_CALL_CREATE:
    case STEADYFS_CALL_MKDIR:
        a = ns_create(&m);
        t = inode_read(&m);
        add(&a, &t, 1);
        finish(&m, &a);
        break;
    case STEADYFS_CALL_CLOSE:   /* or the last close of an orphan: its kill */
        a = commit(&m);
        t = kill(&m);
        add(&a, &t, 1);
        finish(&m, &a);
        break;
    case STEADYFS_CALL_SYNC:
        a = commit(&m);
        finish(&m, &a);
        break;
    case STEADYFS_CALL_READ: {
        uint64_t pages = n / fs.geo.payload + 2;
        rds(&m, &a, (uint32_t)(5 * pages));   /* its chunk, its map words */
        rd(&m, &a, (uint32_t)pages);
        break;
    }
    case STEADYFS_CALL_WRITE:
        a = write_n(&m, n, 0);
        finish(&m, &a);
        break;
    case STEADYFS_CALL_WRITE_SYNC:
        a = write_n(&m, n, 1);
        finish(&m, &a);
        break;
    case STEADYFS_CALL_TRUNCATE: {
        acc h = host_sector(&m, 1), k = kill(&m);
        a = commit(&m);
        add(&a, &h, 1);
        add(&a, &k, 1);
        finish(&m, &a);
        break;
    }
    case STEADYFS_CALL_UNLINK:
    case STEADYFS_CALL_RMDIR:
        a = ns_unlink(&m);
        t = lookup_name(&m);   /* rmdir: the emptiness check */
        add(&a, &t, 1);
        finish(&m, &a);
        break;
    case STEADYFS_CALL_RENAME: {
        acc d = dir_edit(&m), h = commit(&m), k = kill(&m);
        a = resolve(&m);
        add(&a, &a, 1);               /* both paths */
        t = inode_read(&m);
        add(&a, &t, m.depth + 1);     /* the loop check walks parents */
        t = lookup_name(&m);
        add(&a, &t, 1);               /* replaced directory empty? */
        add(&a, &d, 2);
        add(&a, &h, 2);               /* moved directory's inode, tombstone */
        add(&a, &k, 1);
        finish(&m, &a);
        break;
    }
    case STEADYFS_CALL_READDIR:
        a = lookup_name(&m);
        t = inode_read(&m);
        add(&a, &t, 1);
        break;
    case STEADYFS_CALL_GC_STEP: {
        acc ex = exam(&m);
        add(&a, &ex, n);
        finish(&m, &a);
        a.e += n;
        break;
    }
    default:
        return STEADYFS_EINVAL;
    }
    out->reads = (uint32_t)(a.r > 0xFFFFFFFFu ? 0xFFFFFFFFu : a.r);
    out->progs = (uint32_t)(a.p > 0xFFFFFFFFu ? 0xFFFFFFFFu : a.p);
    out->erases = (uint32_t)a.e;
    out->read_bytes = a.rb;
    out->prog_bytes = a.pb;
    return 0;
}

int steadyfs_guarantee(const steadyfs_config *cfg, const sbd_geometry *geo, uint32_t record_size,
                       steadyfs_cost *per_record, steadyfs_cost *burst)
{
    int rc;
    if (!per_record || !burst || !record_size)
        return STEADYFS_EINVAL;
    /* The write_sync bound holds in every reachable state, so n calls in a
     * row cost at most n times it.  A tighter c needs the work of a window
     * amortised: map merges are at most three programs per entry created
     * and catch-up collection at most once per host-head move, but copies
     * can induce merges faster than collection frees space (DESIGN.md §10),
     * so no window total below n times the per-call worst is proven yet. */
    rc = steadyfs_bound(cfg, geo, STEADYFS_CALL_WRITE_SYNC, record_size, per_record);
    memset(burst, 0, sizeof *burst);
    return rc;
}

const char *steadyfs_call_name(steadyfs_call call)
{
    /* one string, names separated by NUL: no table of pointers */
    static const char names[] =
        "mount\0unmount\0info\0open\0create\0close\0read\0write\0sync\0"
        "write_sync\0truncate\0seek\0stat\0unlink\0rename\0mkdir\0rmdir\0"
        "opendir\0readdir\0closedir\0gc_step\0setattr";
    const char *p = names;
    unsigned i;
    if ((unsigned)call >= STEADYFS_CALL_COUNT)
        return NULL;
    for (i = 0; i < (unsigned)call; i++)
        p += strlen(p) + 1;
    return p;
}
