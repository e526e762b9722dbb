// exec-guard/proc_path.cc: an execve path the tracer looks up as the tracee means it (polred2 F8).
#include <doctest/doctest.h>

#include "exec-guard/guard.h"

using sandshim::guard::InTracee;

TEST_CASE("InTracee: /proc/self and /proc/thread-self are the tracee's") {
  CHECK(InTracee("/proc/self/fd/3", 42) == "/proc/42/fd/3");
  CHECK(InTracee("/proc/thread-self/fd/3", 42) == "/proc/42/fd/3");
  CHECK(InTracee("/proc/self/cwd/curl", 42) == "/proc/42/cwd/curl");
  CHECK(InTracee("/proc/self", 42) == "/proc/42");
  CHECK(InTracee("/proc/self/root/usr/bin/curl", 7) == "/proc/7/root/usr/bin/curl");
}

TEST_CASE("InTracee: /dev/fd and /dev/std* are the tracee's descriptors") {
  CHECK(InTracee("/dev/fd/3", 42) == "/proc/42/fd/3");
  CHECK(InTracee("/dev/fd/3/x", 42) == "/proc/42/fd/3/x");
  CHECK(InTracee("/dev/stdin", 42) == "/proc/42/fd/0");
  CHECK(InTracee("/dev/stdout", 42) == "/proc/42/fd/1");
  CHECK(InTracee("/dev/stderr", 42) == "/proc/42/fd/2");
}

TEST_CASE("InTracee: spellings the kernel reads the same way") {
  CHECK(InTracee("//proc//self/./fd/3", 42) == "/proc/42/fd/3");
  CHECK(InTracee("/./dev/fd/3", 42) == "/proc/42/fd/3");
  CHECK(InTracee("/proc/self/", 42) == "/proc/42");
}

TEST_CASE("InTracee: other paths are left as they are") {
  CHECK(InTracee("/usr/bin/curl", 42) == "/usr/bin/curl");
  CHECK(InTracee("/proc/selfish/x", 42) == "/proc/selfish/x");
  CHECK(InTracee("/proc/1/fd/3", 42) == "/proc/1/fd/3");
  CHECK(InTracee("/dev/null", 42) == "/dev/null");
  CHECK(InTracee("/devx/fd/3", 42) == "/devx/fd/3");
  CHECK(InTracee("proc/self/fd/3", 42) == "proc/self/fd/3");  // relative: the caller joins it to the cwd first
  CHECK(InTracee("", 42) == "");
}
