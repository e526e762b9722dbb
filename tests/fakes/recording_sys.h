// RecordingSys: a fake Sys for unit tests. Every call is recorded as one readable line
// ("mount proc /r/proc proc nosuid|nodev|noexec", "pivot_root . .", "sethostname web"),
// with paths that were reached through descriptors ("/proc/self/fd/7") shown as what the
// descriptor names, so tests can assert the order of effects. FailOn makes a chosen call
// fail with a chosen errno, to test each error path and its message.
//
// Descriptors it hands out are real (O_PATH opens of /dev/null), so UniqueFd closes them
// without touching anything else of the test process.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "shim/linux/sys.h"

namespace sandshim::testing {

class RecordingSys final : public native::Sys {
 public:
  ~RecordingSys() override;

  // The n-th (1-based) call whose line starts with prefix fails with err; the line is
  // still recorded (it is the last one when the code stops there).
  void FailOn(std::string prefix, int err, int nth = 1);
  // Lines whose first word is one of verbs (e.g. {"mount", "pivot_root"}), in order.
  std::vector<std::string> Calls(const std::set<std::string>& verbs) const;
  // Index of the first line starting with prefix, or -1.
  int IndexOf(const std::string& prefix) const;

  std::vector<std::string> calls;
  std::set<std::string> absent;  // paths that do not exist (until mkdir/create makes them)
  std::set<std::string> files;   // paths that stat as regular files (the rest are directories)
  // fstat of a descriptor naming a path ending in /dev/null reports a char device 1:3
  // (unless the path is in files): what the mask step checks before trusting it.
  // statvfs reports the flags the last bind remount (or mount_setattr) of a path set, so
  // the step that verifies them passes; unverified lists paths whose flags never stick.
  std::map<std::string, unsigned long> mount_flags;
  std::set<std::string> unverified;
  std::vector<uint32_t> bpf_progs;  // ids BPF_PROG_QUERY reports as attached
  // The session layer's tests (tests/unit/session/...) run the factories over a real temp
  // directory: with real_files, the calls that only name files there (mkdir, symlink,
  // rename, unlink, utimensat) are also made for real after they are recorded, so what the
  // next step reads is there; mounts, ids and namespaces stay recorded only.
  bool real_files = false;

  int Open(const char* path, int flags, mode_t mode) override;
  int Openat(int dirfd, const char* path, int flags, mode_t mode) override;
  int Openat2(int dirfd, const char* path, uint64_t flags, uint64_t resolve) override;
  int Mkdirat(int dirfd, const char* name, mode_t mode) override;
  int Mknodat(int dirfd, const char* name, mode_t mode, dev_t dev) override;
  int Fchownat(int dirfd, const char* name, uid_t uid, gid_t gid, int flags) override;
  int Fchmodat(int dirfd, const char* name, mode_t mode, int flags) override;
  int Symlinkat(const char* target, int dirfd, const char* name) override;
  ssize_t Write(int fd, const void* buf, size_t len) override;
  int Stat(const char* path, struct stat* st) override;
  int Lstat(const char* path, struct stat* st) override;
  int Access(const char* path, int mode) override;
  int Statvfs(const char* path, struct statvfs* st) override;
  int Fstat(int fd, struct stat* st) override;
  int Renameat2(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, unsigned flags) override;
  int Unlinkat(int dirfd, const char* path, int flags) override;
  int Utimensat(int dirfd, const char* path, const struct timespec* times, int flags) override;
  int Mount(const char* source, const char* target, const char* type, unsigned long flags,
            const void* data) override;
  int Umount2(const char* target, int flags) override;
  int MountSetattr(int dirfd, const char* path, unsigned flags, uint64_t attr_set, uint64_t attr_clr) override;
  int PivotRoot(const char* new_root, const char* put_old) override;
  int Chroot(const char* path) override;
  int OpenTree(int dirfd, const char* path, unsigned flags) override;
  int MoveMount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path, unsigned flags) override;
  int Chdir(const char* path) override;
  int Fchdir(int fd) override;
  int Setns(int fd, int nstype) override;
  int Unshare(int flags) override;
  int Setresuid(uid_t r, uid_t e, uid_t s) override;
  int Setresgid(gid_t r, gid_t e, gid_t s) override;
  int Sethostname(const char* name, size_t len) override;
  int Setdomainname(const char* name, size_t len) override;
  int SetLinkUp(const char* ifname) override;
  long Bpf(int cmd, void* attr, unsigned size) override;

 private:
  struct Failure {
    std::string prefix;
    int err = 0, nth = 1, seen = 0;
  };
  // Records line; -1 with errno set if a FailOn rule fires for it, else 0.
  int Record(std::string line);
  // A new descriptor naming path (or -1/ENOENT if path is absent).
  int NewFd(const std::string& path);
  std::string Name(int fd) const;         // what an fd we handed out names
  std::string Resolve(const char* path) const;  // "/proc/self/fd/N/x" -> name of N + "/x"
  std::string Join(int dirfd, const char* name) const;

  std::vector<Failure> failures_;
  std::map<int, std::string> fds_;
};

// "bind|rec|ro" for MS_* flags (the names the tests spell).
std::string MountFlagNames(unsigned long flags);

}  // namespace sandshim::testing
