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

}  // namespace sandshim
