// prototype of the in-sandbox exec stub: install the filter read from argv[1], then execvp argv[2..]
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>
static struct sock_filter prog[4096];
int main(int argc, char** argv) {
  int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 126;
  long n = read(fd, prog, sizeof prog);
  close(fd);
  if (n <= 0 || n % sizeof(struct sock_filter)) return 126;
  struct sock_fprog f = {.len = (unsigned short)(n / sizeof(struct sock_filter)), .filter = prog};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) return 126;
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &f)) return 126;
  execvp(argv[2], argv + 2);
  return 127;
}
