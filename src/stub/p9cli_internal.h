/* What the p9cli files share: one request/reply exchange (p9cli_conn.c),
 * fid allocation, and path walking (p9cli_path.c). */
#ifndef STEADYFS_P9CLI_INTERNAL_H
#define STEADYFS_P9CLI_INTERNAL_H

#include "steadyfs/p9cli.h"

#define P9CLI_ROOT_FID 0u
/* Synchronous requests use this tag; non-blocking reads use the others. */
#define P9CLI_SYNC_TAG 0u

/* Sends c->m (its type and fields set by the caller) on the synchronous
 * tag and waits for the reply, decoded into c->m.  Returns 0 if the reply
 * is of type rtype, the server's -errno for Rlerror, -P9CLI_EPROTO for
 * anything else, or the connection's death. */
int p9cli_rpc(struct p9cli *c, uint8_t rtype);
/* Sends c->m as is (tag set by the caller).  0 or the connection's death. */
int p9cli_send_msg(struct p9cli *c);
/* Reads and dispatches one reply (synchronous or a non-blocking read's). */
int p9cli_pump(struct p9cli *c);

/* A free fid (marked used), or -P9CLI_EMFILE. */
int64_t p9cli_fid_alloc(struct p9cli *c);
void p9cli_fid_free(struct p9cli *c, uint32_t fid);
/* Tclunk and free; the fid is gone whatever the server says. */
int p9cli_clunk(struct p9cli *c, uint32_t fid);

/* Walks from the root along path[0..len) to a new fid.  Returns the fid
 * (>= 0) or an error (-ENOENT if a component is missing). */
int64_t p9cli_walk(struct p9cli *c, const char *path, size_t len);
/* Splits path into its parent (walked to a new fid, returned) and last
 * component (*name, *namelen).  -EINVAL if path has no last component
 * (the root) or it is "." or "..". */
int64_t p9cli_walk_parent(struct p9cli *c, const char *path,
                          const char **name, uint16_t *namelen);

/* -errno for an Rlerror code (out-of-range codes become -EPROTO). */
int p9cli_lerror(uint32_t ecode);

#endif
