// #33 step 3, measured before it is built: what a seccomp user-notification supervisor on
// execve/execveat costs per exec, and whether it can refuse an exec by its final argv.
// A child installs a filter that sends execve/execveat to a supervisor (the parent) and runs
// N fork+exec of /bin/true; the supervisor reads the argv from /proc/PID/mem, checks the
// notification is still valid (SECCOMP_IOCTL_NOTIF_ID_VALID) after reading, and answers
// CONTINUE, or EPERM when argv[0]'s name is the denied one. Printed: ns per exec without
// and with the supervisor, same run, interleaved; and that a denied exec got EPERM.
// Build: cc -O2 -o exec_notify_probe exec_notify_probe.c   Run: ./exec_notify_probe [N]
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int InstallFilter(void) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
  };
  struct sock_fprog prog = {sizeof f / sizeof f[0], f};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

static void SendFd(int sock, int fd) {
  char c = 0, buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {&c, 1};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof buf};
  struct cmsghdr* h = CMSG_FIRSTHDR(&m);
  h->cmsg_level = SOL_SOCKET;
  h->cmsg_type = SCM_RIGHTS;
  h->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(h), &fd, sizeof fd);
  sendmsg(sock, &m, 0);
}

static int RecvFd(int sock) {
  char c, buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {&c, 1};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof buf};
  if (recvmsg(sock, &m, 0) <= 0) return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof fd);
  return fd;
}

// argv[0] of the exec being notified: the argv pointer is the 2nd (execve) or 3rd (execveat) arg.
static int ReadArgv0(pid_t pid, const struct seccomp_data* d, char* out, size_t n) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", pid);
  int mem = open(path, O_RDONLY | O_CLOEXEC);
  if (mem < 0) return -1;
  uint64_t argvp = d->nr == __NR_execve ? d->args[1] : d->args[2], a0 = 0;
  int ok = pread(mem, &a0, sizeof a0, (off_t)argvp) == sizeof a0 && a0 && pread(mem, out, n - 1, (off_t)a0) > 0;
  close(mem);
  out[n - 1] = 0;
  return ok ? 0 : -1;
}

static void Supervise(int listener, const char* denied) {
  struct seccomp_notif* req = calloc(1, 4096);
  struct seccomp_notif_resp* resp = calloc(1, 4096);
  for (;;) {
    memset(req, 0, sizeof *req);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) return;  // the child is gone
    char a0[256] = "";
    int readable = ReadArgv0(req->pid, &req->data, a0, sizeof a0) == 0;
    // Still the same exec (the pid was not reused, the thread is still waiting)?
    int valid = ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) == 0;
    const char* name = strrchr(a0, '/') ? strrchr(a0, '/') + 1 : a0;
    memset(resp, 0, sizeof *resp);
    resp->id = req->id;
    if (!readable || !valid || strcmp(name, denied) == 0) {
      resp->error = -EPERM;  // fail closed: an argv we could not read is refused
    } else {
      resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
  }
}

static long Execs(int n) {
  long t0 = Now();
  for (int i = 0; i < n; ++i) {
    pid_t p = fork();
    if (p == 0) {
      execl("/bin/true", "true", (char*)NULL);
      _exit(127);
    }
    waitpid(p, NULL, 0);
  }
  return (Now() - t0) / n;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 300, rounds = 5;
  long plain = 0, notified = 0;
  int denied_ok = 0;
  for (int r = 0; r < rounds; ++r) {
    plain += Execs(n);
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    int pipefd[2];
    if (pipe(pipefd) != 0) return 1;
    pid_t child = fork();
    if (child == 0) {
      close(sv[0]);
      int l = InstallFilter();
      if (l < 0) { perror("seccomp"); _exit(2); }
      SendFd(sv[1], l);
      close(l);
      long ns = Execs(n);
      // The denied one: a "copy" named deniedcmd must get EPERM.
      int ok = execl("/bin/true", "deniedcmd", (char*)NULL) == -1 && errno == EPERM;
      if (write(pipefd[1], &ns, sizeof ns) < 0 || write(pipefd[1], &ok, sizeof ok) < 0) _exit(3);
      _exit(0);
    }
    close(sv[1]);
    int listener = RecvFd(sv[0]);
    if (listener < 0) return 1;
    Supervise(listener, "deniedcmd");
    waitpid(child, NULL, 0);
    long ns = 0;
    int ok = 0;
    if (read(pipefd[0], &ns, sizeof ns) != sizeof ns || read(pipefd[0], &ok, sizeof ok) != sizeof ok) return 1;
    notified += ns;
    denied_ok += ok;
    close(listener);
    close(sv[0]);
    close(pipefd[0]);
    close(pipefd[1]);
  }
  printf("fork+exec /bin/true: %ld ns plain, %ld ns under the supervisor (+%.1f%%); denied argv refused with EPERM: %d/%d\n",
         plain / rounds, notified / rounds, 100.0 * (notified - plain) / plain, denied_ok, rounds);
  return denied_ok == rounds ? 0 : 1;
}
