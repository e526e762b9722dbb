// The defence against the runc CVE-2019-5736 class: a container must never get a writable
// path to the sandshim binary on the host. Container processes can reach the binary of any
// sandshim process that joins them through /proc/<pid>/exe (or run it via a #!/proc/self/exe
// interpreter before we exec the workload). So the native runtime first re-executes sandshim
// from a sealed, read-only memfd copy: /proc/<pid>/exe then names that copy, not the file.
#pragma once

namespace sandshim {

// Remembers main's argv and environment for a later re-exec.
void RememberArgv(int argc, char** argv, char** envp);
// Re-executes from a sealed memfd copy unless already running from one. Returns only if
// that is impossible (then the caller carries on from the file, with a warning).
void EnsureSealedSelf();
// True when /proc/self/exe is a sealed sandshim copy.
bool RunningFromSealedCopy();

}  // namespace sandshim
