/* Group membership for steady serve's permission checks (p9srv_config
 * in_group): the host's user database, as diod's access=user uses it.
 * A 9P2000.L attach names a user id only; its groups are the primary
 * group of that user in the passwd database and the groups that list it
 * (getgrouplist).  A uid the host does not know is in no group.  The last
 * user's list is kept: the server is single-threaded and asks once per
 * permission check. */
#define _GNU_SOURCE
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/types.h>

#include "host/serve.h"

#define GROUPS_MAX 256

int serve_in_group(void *ctx, uint32_t uid, uint32_t gid)
{
    static uint32_t cached_uid = 0xFFFFFFFFu;
    static gid_t groups[GROUPS_MAX];
    static int ngroups;
    int i;
    (void)ctx;
    if (uid != cached_uid) {
        struct passwd *pw = getpwuid((uid_t)uid);
        ngroups = GROUPS_MAX;
        if (!pw || getgrouplist(pw->pw_name, pw->pw_gid, groups, &ngroups) < 0)
            ngroups = pw ? 1 : 0;   /* more than GROUPS_MAX: the primary group only */
        if (pw && ngroups == 1)
            groups[0] = pw->pw_gid;
        cached_uid = uid;
    }
    for (i = 0; i < ngroups; i++)
        if ((uint32_t)groups[i] == gid)
            return 1;
    return 0;
}
