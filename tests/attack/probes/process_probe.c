// process_probe: one attack per argument, one line of output each, for
// tests/attack/native_process_test.sh. Built static, so it runs in a busybox rootfs.
//   "<name> reached (<errno or ok>)": the kernel handled the call (the attack surface is there)
//   "<name> blocked (<errno>)":       EPERM or ENOSYS before the kernel's own checks
// Arguments are chosen so a reached call answers something other than EPERM where the
// kernel would refuse an unprivileged caller anyway (NULL pointers: EFAULT), so a positive
// control can see the call reach the kernel.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void report(const char* name, long rc) {
  if (rc >= 0) printf("%s reached (ok)\n", name);
  else if (errno == EPERM || errno == ENOSYS) printf("%s blocked (%s)\n", name, strerrorname_np(errno));
  else printf("%s reached (%s)\n", name, strerrorname_np(errno));
}

static void unshare_user(void) {
  pid_t p = fork();  // in a child: unshare(CLONE_NEWUSER) must not change this process
  if (p == 0) _exit(unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : errno);
  int st = 0;
  waitpid(p, &st, 0);
  errno = WEXITSTATUS(st);
  report("unshare", errno ? -1 : 0);
}

static void keyread(const char* desc) {
  long k = syscall(SYS_keyctl, 10 /*KEYCTL_SEARCH*/, -3 /*@s*/, "user", desc, 0);
  if (k < 0) {
    report("keyctl", k);
    return;
  }
  char buf[128] = {0};
  long n = syscall(SYS_keyctl, 11 /*KEYCTL_READ*/, k, buf, sizeof buf - 1);
  printf("keyctl found (%s)\n", n > 0 ? buf : "unreadable");
}

static void tty(void) {
  FILE* f = fopen("/proc/self/stat", "r");
  char line[1024] = {0};
  if (f) fgets(line, sizeof line, f), fclose(f);
  const char* p = strrchr(line, ')');
  int state_ppid_pgrp_session_tty[5] = {0};
  char st = 0;
  if (p) sscanf(p + 1, " %c %d %d %d %d", &st, &state_ppid_pgrp_session_tty[1], &state_ppid_pgrp_session_tty[2],
                &state_ppid_pgrp_session_tty[3], &state_ppid_pgrp_session_tty[4]);
  printf("tty_nr %d\n", state_ppid_pgrp_session_tty[4]);
  int fd = open("/dev/tty", O_RDWR);
  if (fd >= 0) printf("devtty open (ok)\n"), close(fd);
  else printf("devtty open (%s)\n", strerrorname_np(errno));
}

// Pushes text + "\n" into the controlling terminal's input (or stdin's terminal).
static void tiocsti(const char* text) {
  int fd = open("/dev/tty", O_RDWR);
  if (fd < 0) fd = 0;
  int ok = 1;
  for (const char* c = text; ok && *c; ++c) ok = ioctl(fd, TIOCSTI, c) == 0;
  if (ok) ok = ioctl(fd, TIOCSTI, "\n") == 0;
  printf("tiocsti %s\n", ok ? "pushed" : strerrorname_np(errno));
}

// withkey DESC DATA CMD...: a fresh session keyring (the host's own is left alone) with a
// "user" key planted in it, then CMD: the caller whose keyring the sandbox must not reach.
static int withkey(char** argv) {
  if (syscall(SYS_keyctl, 1 /*KEYCTL_JOIN_SESSION_KEYRING*/, NULL) < 0) return perror("join"), 125;
  if (syscall(SYS_add_key, "user", argv[0], argv[1], strlen(argv[1]), -3 /*@s*/) < 0) return perror("add_key"), 125;
  execvp(argv[2], argv + 2);
  perror("exec");
  return 127;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc > 4 && !strcmp(argv[1], "withkey")) return withkey(argv + 2);
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "unshare")) unshare_user();
    else if (!strcmp(a, "keyctl") && i + 1 < argc) keyread(argv[++i]);
    else if (!strcmp(a, "io_uring")) {
      char params[120] = {0};
      report("io_uring_setup", syscall(425 /*io_uring_setup*/, 1, params));
    } else if (!strcmp(a, "bpf")) report("bpf", syscall(SYS_bpf, 0 /*MAP_CREATE*/, NULL, 72));
    else if (!strcmp(a, "perf")) report("perf_event_open", syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
    else if (!strcmp(a, "userfaultfd")) report("userfaultfd", syscall(SYS_userfaultfd, 1 /*UFFD_USER_MODE_ONLY*/ | O_CLOEXEC));
    else if (!strcmp(a, "mount")) report("mount", syscall(SYS_mount, NULL, NULL, NULL, 0, NULL));
    else if (!strcmp(a, "tty")) tty();
    else if (!strcmp(a, "tiocsti") && i + 1 < argc) tiocsti(argv[++i]);
    else if (!strcmp(a, "status")) {  // the lines of /proc/self/status the hook checks read
      FILE* f = fopen("/proc/self/status", "r");
      char l[256];
      while (f && fgets(l, sizeof l, f))
        if (!strncmp(l, "CapEff", 6) || !strncmp(l, "NoNewPrivs", 10) || !strncmp(l, "Seccomp:", 8)) fputs(l, stdout);
      if (f) fclose(f);
    } else if (!strcmp(a, "sleep")) sleep(300);
    else printf("unknown probe %s\n", a);
  }
  return 0;
}
