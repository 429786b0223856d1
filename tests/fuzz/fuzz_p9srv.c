/* libFuzzer harness for the 9P2000.L server: message sequences against a
 * server over a small formatted simulated NAND.
 *
 * Input: flags[1] then records len[2] (little-endian) bytes[len]; each
 * record is handed to p9srv_handle as one message, whatever its size field
 * says (a mismatch must give a disconnect, never an out-of-bounds read:
 * each message is copied into a buffer of exactly its length, so ASan sees
 * any over-read).  Before the records the harness opens a session
 * (Tversion msize 1024, Tattach fid 0), and again after every disconnect.
 * flags bit 0: reply in place (out == in); bit 1: read-only export.
 *
 * Checked on every reply: length within out_cap and msize, decodes as a
 * message of the codec, an R-type, on the request's tag.  The device image
 * is restored from a snapshot for every input, so runs are reproducible. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "steadyfs/p9srv.h"
#include "steadyfs/sim.h"

#define MSIZE 1024u
#define BLOCKS 16u

static sim_dev dev;
static uint8_t *image, *snapshot;
static uint64_t image_len;
static steadyfs fs;
static steadyfs_config cfg;
static uint8_t *work, sector[2048];
static p9srv srv;
static uint32_t mem[2048];
static uint8_t out[MSIZE];

static void setup(void)
{
    const sim_profile *p = sim_profile_find("mt29f1g01");
    uint32_t ws;
    image_len = sim_image_size(p, BLOCKS);
    image = calloc(1, (size_t)image_len);
    snapshot = calloc(1, (size_t)image_len);
    if (!image || !snapshot || sim_init(&dev, p, BLOCKS, image, image_len, SIM_TYPICAL, 1, 1))
        abort();
    cfg.bd = &dev.bd;
    cfg.open_max = 4;
    cfg.max_inodes = 64;
    ws = steadyfs_work_size(&cfg);
    work = calloc(1, ws);
    cfg.work = work;
    cfg.work_size = ws;
    cfg.sector_buf = sector;
    cfg.sector_buf_size = sizeof sector;
    if (steadyfs_format(&fs, &cfg) || steadyfs_mount(&fs, &cfg))
        abort();
    /* a few files and directories to walk into */
    steadyfs_mkdir(&fs, "/d");
    steadyfs_mkdir(&fs, "/d/e");
    {
        int fd = steadyfs_open(&fs, "/d/f", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        steadyfs_write(&fs, fd, "hello, 9p", 9);
        steadyfs_close(&fs, fd);
        fd = steadyfs_open(&fs, "/g", STEADYFS_O_WRONLY | STEADYFS_O_CREAT);
        steadyfs_close(&fs, fd);
    }
    if (steadyfs_unmount(&fs))
        abort();
    memcpy(snapshot, image, (size_t)image_len);
}

static void check_reply(int32_t r, const uint8_t *req, uint32_t len)
{
    struct p9_msg m;
    uint32_t size;
    uint8_t type;
    uint16_t tag;
    if (r < 0)
        return;
    if ((uint32_t)r > MSIZE || (uint32_t)r > p9srv_msize(&srv) || r < 7)
        abort();
    if (p9_peek(req, len, MSIZE, &size, &type, &tag) || size != len)
        abort();   /* the server answered a message it should have refused */
    if (p9_decode(out, (size_t)r, MSIZE, &m) != r || (m.type & 1u) == 0 || m.tag != tag)
        abort();
}

static int32_t deliver(const uint8_t *msg, uint32_t len, int inplace)
{
    uint8_t *in;
    int32_t r;
    if (inplace) {
        /* the request in the reply buffer: the server must finish with it
         * before writing */
        if (len > MSIZE)
            return P9SRV_E_FRAME;   /* a transport would not read past msize */
        memcpy(out, msg, len);
        r = p9srv_handle(&srv, out, len, out, MSIZE);
        if (r >= 0 && ((uint32_t)r > MSIZE || r < 7))
            abort();
    } else {
        in = malloc(len ? len : 1);
        memcpy(in, msg, len);
        r = p9srv_handle(&srv, in, len, out, MSIZE);
        check_reply(r, in, len);
        free(in);
    }
    if (r < 0)
        p9srv_disconnect(&srv);
    return r;
}

/* flags byte bit 2: attach as uid 1000 with access_user (the permission
 * checks), else as no user (uid 0: everything allowed) */
static uint32_t attach_uid;

static void session(int inplace)
{
    uint8_t b[64];
    struct p9_msg m;
    int n;
    memset(&m, 0, sizeof m);
    m.type = P9_TVERSION;
    m.tag = P9_NOTAG;
    m.u.version.msize = MSIZE;
    m.u.version.version = p9_cstr(P9SRV_VERSION);
    n = p9_encode(&m, b, sizeof b);
    deliver(b, (uint32_t)n, inplace);
    memset(&m, 0, sizeof m);
    m.type = P9_TATTACH;
    m.tag = 1;
    m.u.tattach.fid = 0;
    m.u.tattach.afid = P9_NOFID;
    m.u.tattach.n_uname = attach_uid;
    n = p9_encode(&m, b, sizeof b);
    deliver(b, (uint32_t)n, inplace);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    p9srv_config pc;
    size_t pos = 1;
    int inplace, msgs = 0;
    int32_t r;
    if (!image)
        setup();
    if (size < 1)
        return 0;
    inplace = data[0] & 1;
    memcpy(image, snapshot, (size_t)image_len);
    if (sim_init(&dev, sim_profile_find("mt29f1g01"), BLOCKS, image, image_len, SIM_TYPICAL, 1, 0) ||
        steadyfs_mount(&fs, &cfg))
        abort();
    memset(&pc, 0, sizeof pc);
    pc.fs = &fs;
    pc.mem = mem;
    pc.mem_size = sizeof mem;
    pc.msize_max = MSIZE;
    pc.fid_max = 8;
    pc.path_max = 64;
    pc.read_only = (data[0] >> 1) & 1;
    pc.access_user = (data[0] >> 2) & 1;
    attach_uid = pc.access_user ? 1000u : P9_NONUNAME;
    if (p9srv_init(&srv, &pc))
        abort();
    session(inplace);
    while (pos + 2 <= size && msgs < 64) {
        uint32_t len = (uint32_t)data[pos] | (uint32_t)data[pos + 1] << 8;
        pos += 2;
        if (len > size - pos)
            len = (uint32_t)(size - pos);
        r = deliver(data + pos, len, inplace);
        pos += len;
        msgs++;
        if (r < 0)
            session(inplace);   /* the transport reconnects */
    }
    p9srv_disconnect(&srv);
    if (steadyfs_unmount(&fs))
        abort();
    return 0;
}
