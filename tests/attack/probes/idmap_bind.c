// idmap_bind BASE SRC DST: bind SRC at DST seen through a user namespace mapping ids
// 0..65535 to host BASE.. (on-disk 0 reads as BASE), as sandshim's IdmappedBind does for
// native sessions. For tests/attack/probes/sentry_uid.sh: a runsc that runs the Sentry in
// the spec's user namespace needs its rootfs owned by the mapped ids.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int put(pid_t pid, const char* file, const char* text) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/%s", pid, file);
  int fd = open(path, O_WRONLY);
  int ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
  if (fd >= 0) close(fd);
  return ok ? 0 : -1;
}

int main(int argc, char** argv) {
  if (argc != 4) return fprintf(stderr, "usage: idmap_bind BASE SRC DST\n"), 2;
  int sync[2];
  if (pipe(sync)) return perror("pipe"), 1;
  pid_t child = fork();
  if (child == 0) {  // holds the namespace until killed
    if (unshare(CLONE_NEWUSER)) _exit(1);
    (void)!write(sync[1], "x", 1);
    pause();
    _exit(0);
  }
  char c, map[64], ns[64];
  if (read(sync[0], &c, 1) != 1) return fprintf(stderr, "unshare failed\n"), 1;
  snprintf(map, sizeof map, "0 %s 65536\n", argv[1]);
  snprintf(ns, sizeof ns, "/proc/%d/ns/user", child);
  int rc = 1, nsfd = -1, tree = -1;
  if (put(child, "uid_map", map) || put(child, "setgroups", "deny") || put(child, "gid_map", map)) {
    perror("id maps");
  } else if ((nsfd = open(ns, O_RDONLY)) < 0 ||
             (tree = syscall(SYS_open_tree, AT_FDCWD, argv[2], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) < 0) {
    perror("open");
  } else {
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_IDMAP, .userns_fd = (unsigned)nsfd};
    if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr))
      perror("mount_setattr");
    else if (syscall(SYS_move_mount, tree, "", AT_FDCWD, argv[3], MOVE_MOUNT_F_EMPTY_PATH))
      perror("move_mount");
    else
      rc = 0;
  }
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  return rc;
}
