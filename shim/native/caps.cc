#include "shim/native/caps.h"

#include <grp.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>

namespace sandshim::native {

static int LastCap() {
  int last = CAP_LAST_CAP;
  while (last > 0 && ::prctl(PR_CAPBSET_READ, last, 0, 0, 0) < 0) --last;
  // Newer kernels know more capabilities than these headers: read them too.
  while (::prctl(PR_CAPBSET_READ, last + 1, 0, 0, 0) >= 0) ++last;
  return last;
}

Status DropBounding(const CapSets& caps) {
  // Probed once: in the loop's condition it cost ~3 prctls per capability (130 of the init's
  // ~600 syscalls in the native bench's strace).
  const int last = LastCap();
  for (int c = 0; c <= last; ++c) {
    if (std::find(caps.bounding.begin(), caps.bounding.end(), c) != caps.bounding.end()) continue;
    if (::prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno != EINVAL) return ErrnoError("drop capability " + std::to_string(c));
  }
  return Ok();
}

Status SwitchUser(const ProcessPlan& p) {
  if (::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) return ErrnoError("keepcaps");
  std::vector<gid_t> groups(p.additional_gids.begin(), p.additional_gids.end());
  if (::setgroups(groups.size(), groups.data()) != 0 && errno != EPERM) return ErrnoError("setgroups");
  if (::setresgid(p.gid, p.gid, p.gid) != 0) return ErrnoError("setresgid " + std::to_string(p.gid));
  if (::setresuid(p.uid, p.uid, p.uid) != 0) return ErrnoError("setresuid " + std::to_string(p.uid));
  ::prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
  return Ok();
}

Status ApplyCaps(const CapSets& caps) {
  cap_t c = cap_init();
  if (!c) return ErrnoError("cap_init");
  auto set = [&](const std::vector<int>& list, cap_flag_t flag) {
    std::vector<cap_value_t> v(list.begin(), list.end());
    if (!v.empty()) cap_set_flag(c, flag, static_cast<int>(v.size()), v.data(), CAP_SET);
  };
  set(caps.effective, CAP_EFFECTIVE);
  set(caps.permitted, CAP_PERMITTED);
  set(caps.inheritable, CAP_INHERITABLE);
  int rc = cap_set_proc(c);
  cap_free(c);
  if (rc != 0) return ErrnoError("set capabilities");
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  // An ambient capability must also be inheritable; specs since runc's CVE-2022-29162 fix list
  // ambient without inheritable, and runc then skips them: so do we.
  for (int a : caps.ambient)
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, a, 0, 0) != 0 && errno != EPERM)
      return ErrnoError("raise ambient capability");
  return Ok();
}

}  // namespace sandshim::native
