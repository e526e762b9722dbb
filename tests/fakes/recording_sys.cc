#include "tests/fakes/recording_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sandshim::testing {
namespace {

std::string Str(const char* s) { return s && *s ? s : "-"; }

}  // namespace

std::string MountFlagNames(unsigned long flags) {
  static const std::pair<unsigned long, const char*> kNames[] = {
      {MS_BIND, "bind"},     {MS_MOVE, "move"},       {MS_REMOUNT, "remount"}, {MS_REC, "rec"},
      {MS_RDONLY, "ro"},     {MS_NOSUID, "nosuid"},   {MS_NODEV, "nodev"},     {MS_NOEXEC, "noexec"},
      {MS_SLAVE, "slave"},   {MS_PRIVATE, "private"}, {MS_SHARED, "shared"},   {MS_UNBINDABLE, "unbindable"},
      {MS_RELATIME, "relatime"}, {MS_STRICTATIME, "strictatime"}, {MS_NOATIME, "noatime"}};
  std::string out;
  for (auto [bit, name] : kNames)
    if (flags & bit) out += (out.empty() ? "" : "|") + std::string(name);
  return out.empty() ? "0" : out;
}

RecordingSys::~RecordingSys() = default;

void RecordingSys::FailOn(std::string prefix, int err, int nth) { failures_.push_back({std::move(prefix), err, nth, 0}); }

std::vector<std::string> RecordingSys::Calls(const std::set<std::string>& verbs) const {
  std::vector<std::string> out;
  for (const auto& c : calls)
    if (verbs.contains(c.substr(0, c.find(' ')))) out.push_back(c);
  return out;
}

int RecordingSys::IndexOf(const std::string& prefix) const {
  for (size_t i = 0; i < calls.size(); ++i)
    if (calls[i].rfind(prefix, 0) == 0) return static_cast<int>(i);
  return -1;
}

int RecordingSys::Record(std::string line) {
  calls.push_back(line);
  for (auto& f : failures_)
    if (line.rfind(f.prefix, 0) == 0 && ++f.seen == f.nth) {
      errno = f.err;
      return -1;
    }
  return 0;
}

int RecordingSys::NewFd(const std::string& path) {
  if (absent.contains(path)) {
    errno = ENOENT;
    return -1;
  }
  int fd = ::open("/dev/null", O_PATH | O_CLOEXEC);
  fds_[fd] = path;
  return fd;
}

std::string RecordingSys::Name(int fd) const {
  auto it = fds_.find(fd);
  if (it != fds_.end()) return it->second;
  // A real descriptor the code opened itself (OwnHome's fchown through it): what it names.
  char buf[4096];
  ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "fd" + std::to_string(fd);
}

std::string RecordingSys::Resolve(const char* path) const {
  std::string p = Str(path);
  const std::string prefix = "/proc/self/fd/";
  if (p.rfind(prefix, 0) != 0) return p;
  size_t end = p.find('/', prefix.size());
  int fd = std::atoi(p.substr(prefix.size(), end - prefix.size()).c_str());
  return Name(fd) + (end == std::string::npos ? "" : p.substr(end));
}

std::string RecordingSys::Join(int dirfd, const char* name) const {
  std::string n = Str(name);
  if (n == "." || n == "-") return Name(dirfd);  // "-": an empty name (AT_EMPTY_PATH)
  if (!n.empty() && n[0] == '/') return n;
  std::string base = dirfd == AT_FDCWD ? "" : Name(dirfd);
  return base == "/" ? "/" + n : base + "/" + n;
}

int RecordingSys::Open(const char* path, int, mode_t) {
  if (Record("open " + Str(path)) != 0) return -1;
  return NewFd(path);
}

int RecordingSys::Openat(int dirfd, const char* path, int flags, mode_t) {
  std::string p = Join(dirfd, path);
  if (flags & O_CREAT) {
    if (Record("create " + p) != 0) return -1;
    absent.erase(p);
    files.insert(p);
  } else if (Record("openat " + p) != 0) {
    return -1;
  }
  return NewFd(p);
}

int RecordingSys::Openat2(int dirfd, const char* path, uint64_t, uint64_t) {
  std::string p = Join(dirfd, path);
  if (Record("openat2 " + p) != 0) return -1;
  return NewFd(p);
}

int RecordingSys::Mkdirat(int dirfd, const char* name, mode_t mode) {
  std::string p = Join(dirfd, name);
  char m[8];
  std::snprintf(m, sizeof m, "%04o", mode);
  if (Record("mkdir " + p + " " + m) != 0) return -1;
  absent.erase(p);
  return real_files ? ::mkdir(p.c_str(), mode) : 0;
}

int RecordingSys::Mknodat(int dirfd, const char* name, mode_t mode, dev_t dev) {
  std::string p = Join(dirfd, name);
  return Record("mknod " + p + " " + std::to_string(major(dev)) + ":" + std::to_string(minor(dev)) +
                (S_ISBLK(mode) ? " b" : S_ISFIFO(mode) ? " p" : " c"));
}

int RecordingSys::Fchownat(int dirfd, const char* name, uid_t uid, gid_t gid, int) {
  return Record("chown " + Join(dirfd, name) + " " + std::to_string(uid) + ":" + std::to_string(gid));
}

int RecordingSys::Fchmodat(int dirfd, const char* name, mode_t mode, int) {
  char m[8];
  std::snprintf(m, sizeof m, "%04o", mode);
  return Record("chmod " + Join(dirfd, name) + " " + m);
}

int RecordingSys::Symlinkat(const char* target, int dirfd, const char* name) {
  std::string p = Join(dirfd, name);
  if (Record("symlink " + p + " -> " + Str(target)) != 0) return -1;
  return real_files ? ::symlink(target, p.c_str()) : 0;
}

int RecordingSys::Renameat2(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, unsigned flags) {
  std::string from = Join(olddirfd, oldpath), to = Join(newdirfd, newpath);
  if (Record("rename " + from + " " + to + (flags & RENAME_NOREPLACE ? " noreplace" : "")) != 0) return -1;
  return real_files ? ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags) : 0;
}

int RecordingSys::Unlinkat(int dirfd, const char* path, int flags) {
  std::string p = Join(dirfd, path);
  if (Record("unlink " + p) != 0) return -1;
  return real_files ? ::unlinkat(AT_FDCWD, p.c_str(), flags) : 0;
}

int RecordingSys::Utimensat(int dirfd, const char* path, const struct timespec* times, int flags) {
  std::string p = Join(dirfd, path);
  if (Record("utimes " + p) != 0) return -1;
  return real_files ? ::utimensat(AT_FDCWD, p.c_str(), times, flags) : 0;
}

ssize_t RecordingSys::Write(int fd, const void* buf, size_t len) {
  if (Record("write " + Name(fd) + " " + std::string(static_cast<const char*>(buf), len)) != 0) return -1;
  return static_cast<ssize_t>(len);
}

int RecordingSys::Stat(const char* path, struct stat* st) {
  std::memset(st, 0, sizeof *st);
  if (absent.contains(path)) {
    errno = ENOENT;
    return -1;
  }
  st->st_mode = files.contains(path) ? S_IFREG | 0644 : S_IFDIR | 0755;
  return 0;
}

int RecordingSys::Lstat(const char* path, struct stat* st) { return Stat(path, st); }

int RecordingSys::Access(const char* path, int) {
  if (absent.contains(path)) {
    errno = ENOENT;
    return -1;
  }
  return 0;
}

int RecordingSys::Statvfs(const char* path, struct statvfs* st) {
  std::memset(st, 0, sizeof *st);
  std::string p = Resolve(path);
  if (unverified.contains(p)) return 0;
  auto it = mount_flags.find(p);
  if (it == mount_flags.end()) return 0;
  unsigned long f = it->second;
  if (f & MS_RDONLY) st->f_flag |= ST_RDONLY;
  if (f & MS_NOSUID) st->f_flag |= ST_NOSUID;
  if (f & MS_NODEV) st->f_flag |= ST_NODEV;
  if (f & MS_NOEXEC) st->f_flag |= ST_NOEXEC;
  return 0;
}

int RecordingSys::Fstat(int fd, struct stat* st) {
  std::memset(st, 0, sizeof *st);
  std::string p = Name(fd);
  bool null = p.size() >= 9 && p.compare(p.size() - 9, 9, "/dev/null") == 0;
  if (files.contains(p)) st->st_mode = S_IFREG | 0644;
  else if (null) st->st_mode = S_IFCHR | 0666, st->st_rdev = makedev(1, 3);
  else st->st_mode = S_IFDIR | 0755;
  return 0;
}

int RecordingSys::MountSetattr(int dirfd, const char* path, unsigned flags, uint64_t attr_set, uint64_t attr_clr) {
  std::string p = path && *path ? Join(dirfd, path) : Name(dirfd);
  std::string line = "mount_setattr " + p + (flags & AT_RECURSIVE ? " recursive" : "");
  static const std::pair<uint64_t, const char*> kAttrs[] = {{MOUNT_ATTR_RDONLY, "ro"},
                                                            {MOUNT_ATTR_NOSUID, "nosuid"},
                                                            {MOUNT_ATTR_NODEV, "nodev"},
                                                            {MOUNT_ATTR_NOEXEC, "noexec"}};
  std::string set, clr;
  for (auto [bit, name] : kAttrs) {
    if (attr_set & bit) set += (set.empty() ? "" : "|") + std::string(name);
    if (attr_clr & bit) clr += (clr.empty() ? "" : "|") + std::string(name);
  }
  line += " +" + (set.empty() ? std::string("0") : set);
  if (!clr.empty()) line += " -" + clr;
  if (Record(line) != 0) return -1;
  auto& f = mount_flags[p];
  if (attr_set & MOUNT_ATTR_RDONLY) f |= MS_RDONLY;
  if (attr_set & MOUNT_ATTR_NOSUID) f |= MS_NOSUID;
  if (attr_set & MOUNT_ATTR_NODEV) f |= MS_NODEV;
  if (attr_set & MOUNT_ATTR_NOEXEC) f |= MS_NOEXEC;
  return 0;
}

int RecordingSys::Unshare(int flags) {
  return Record(std::string("unshare ") + (flags == CLONE_NEWCGROUP ? "cgroup" : std::to_string(flags)));
}

long RecordingSys::Bpf(int cmd, void* attr, unsigned) {
  static const std::map<int, std::string> kNames = {
      {BPF_PROG_LOAD, "load"}, {BPF_PROG_ATTACH, "attach"}, {BPF_PROG_DETACH, "detach"},
      {BPF_PROG_QUERY, "query"}, {BPF_PROG_GET_FD_BY_ID, "get_fd_by_id"}};
  auto* a = static_cast<union bpf_attr*>(attr);
  std::string line = "bpf " + (kNames.contains(cmd) ? kNames.at(cmd) : std::to_string(cmd));
  if (cmd == BPF_PROG_GET_FD_BY_ID) line += " " + std::to_string(a->prog_id);
  if (Record(line) != 0) return -1;
  if (cmd == BPF_PROG_QUERY) {  // bpf_progs are "attached" already
    auto* ids = reinterpret_cast<uint32_t*>(a->query.prog_ids);
    uint32_t n = 0;
    for (uint32_t id : bpf_progs)
      if (n < a->query.prog_cnt) ids[n++] = id;
    a->query.prog_cnt = n;
  }
  // Loads and lookups give descriptors.
  return cmd == BPF_PROG_LOAD || cmd == BPF_PROG_GET_FD_BY_ID ? NewFd("bpf-prog") : 0;
}

int RecordingSys::Mount(const char* source, const char* target, const char* type, unsigned long flags,
                        const void* data) {
  std::string line = "mount " + Resolve(source) + " " + Resolve(target) + " " + Str(type) + " " + MountFlagNames(flags);
  if (data && *static_cast<const char*>(data)) line += " " + std::string(static_cast<const char*>(data));
  if (Record(line) != 0) return -1;
  if ((flags & MS_REMOUNT) || !(flags & MS_BIND)) mount_flags[Resolve(target)] = flags;
  // real_files: an overlay shows its lower layer at the target (a link in place of the empty
  // mount point), so what reads the root through it (the backend's exec check) finds it.
  std::string opts = data ? static_cast<const char*>(data) : "";
  if (real_files && Str(type) == "overlay" && opts.rfind("lowerdir=", 0) == 0) {
    std::string lower = opts.substr(9, opts.find(',') - 9);
    if (::rmdir(target) == 0 && ::symlink(lower.c_str(), target) != 0) return -1;
  }
  return 0;
}

int RecordingSys::Umount2(const char* target, int flags) {
  return Record("umount " + Resolve(target) + (flags & MNT_DETACH ? " detach" : ""));
}

int RecordingSys::PivotRoot(const char* new_root, const char* put_old) {
  return Record("pivot_root " + Str(new_root) + " " + Str(put_old));
}

int RecordingSys::Chroot(const char* path) { return Record("chroot " + Str(path)); }
int RecordingSys::OpenTree(int dirfd, const char* path, unsigned) {
  std::string p = dirfd == AT_FDCWD ? Str(path) : Join(dirfd, path);
  if (Record("open_tree " + p) != 0) return -1;
  return NewFd("tree:" + p);
}
int RecordingSys::MoveMount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path, unsigned) {
  std::string from = from_path && *from_path ? Join(from_dirfd, from_path) : Name(from_dirfd);
  return Record("move_mount " + from + " " + Join(to_dirfd, to_path));
}
int RecordingSys::Chdir(const char* path) { return Record("chdir " + Str(path)); }
int RecordingSys::Fchdir(int fd) { return Record("fchdir " + Name(fd)); }

int RecordingSys::Setns(int fd, int nstype) {
  return Record("setns " + Name(fd) + (nstype == CLONE_NEWNET ? " net" : " " + std::to_string(nstype)));
}

int RecordingSys::Setresuid(uid_t r, uid_t e, uid_t s) {
  return Record("setresuid " + std::to_string(r) + " " + std::to_string(e) + " " + std::to_string(s));
}

int RecordingSys::Setresgid(gid_t r, gid_t e, gid_t s) {
  return Record("setresgid " + std::to_string(r) + " " + std::to_string(e) + " " + std::to_string(s));
}

int RecordingSys::Sethostname(const char* name, size_t len) { return Record("sethostname " + std::string(name, len)); }

int RecordingSys::SetLinkUp(const char* ifname) { return Record("link up " + std::string(ifname)); }

int RecordingSys::Setdomainname(const char* name, size_t len) {
  return Record("setdomainname " + std::string(name, len));
}

}  // namespace sandshim::testing
