// The defence against the runc CVE-2019-5736 class: a container must never get a writable
// path to the sandshim binary on the host. Container processes can reach the binary of any
// sandshim process that joins them through /proc/<pid>/exe (or run it via a #!/proc/self/exe
// interpreter before we exec the workload). So the native runtime first re-executes sandshim
// through a handle nobody can write (sealed_exe.h): a private read-only overlay of the
// binary's directory, or, where overlayfs is unavailable, a sealed memfd copy.
#pragma once

namespace sandshim {

// Remembers main's argv and environment for a later re-exec.
void RememberArgv(int argc, char** argv, char** envp);
// Re-executes from a sealed handle unless already running from one. Returns only if that
// is impossible (then the caller carries on from the file, with a warning).
void EnsureSealedSelf();
// True when /proc/self/exe cannot be written: a sealed memfd or a read-only mount.
bool RunningFromSealedCopy();
// After the overlay re-exec: the overlay's mount fd, carried across the execveat (close-on-
// exec again from then on) so that its last close, which waits for an RCU grace period, can
// happen where nobody waits for it: the native launcher closes ours right after the clone
// and the init closes its copy while the runtime sets up cgroups. -1 if there is none.
// Elsewhere it is simply closed at exit, as the overlay's superblock always was. The fd is
// handed over once: a second call returns -1.
int TakeSealedMountFd();

}  // namespace sandshim
