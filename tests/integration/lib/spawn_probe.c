// What a program using glibc's process starts sees: posix_spawn and system() (glibc 2.34+
// tries clone3 first and falls back to clone only on ENOSYS). Prints "spawn-ok", or what failed.
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char** environ;

int main(void) {
  pid_t pid;
  char* argv[] = {"/bin/true", NULL};
  int rc = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
  if (rc != 0) {
    printf("posix_spawn: %s\n", strerror(rc));
    return 1;
  }
  int status;
  waitpid(pid, &status, 0);
  status = system("exit 7");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 7) {
    printf("system: wait status %d\n", status);
    return 1;
  }
  puts("spawn-ok");
  return 0;
}
