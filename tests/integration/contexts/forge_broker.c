// An attacker's client for the context broker (ctx-helper/): root in a context connects to
// the broker's socket itself and asks for a command with the capability sets it names
// (argv[1]: hex mask for effective/permitted/bounding), no_new_privs off. The command prints
// its own CapPrm. Used by contexts_test.sh, built static on the host and run inside.
// `forge_broker stall SECONDS`: connects, says "connected", and sends nothing for that long
// (a client that holds the broker's attention; no other exec may wait for it).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static size_t put(char* b, size_t at, const char* s) { size_t n = strlen(s) + 1; memcpy(b + at, s, n); return at + n; }

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "stall") == 0) {
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, "/tmp/.sshim/broker.sock");
    if (s < 0 || connect(s, (struct sockaddr*)&a, sizeof(a)) != 0) { perror("connect"); return 3; }
    printf("connected\n");
    fflush(stdout);
    sleep((unsigned)atoi(argv[2]));
    return 0;
  }
  if (argc != 2) return 2;
  const char* caps = argv[1];
  char body[512];
  size_t n = 0;
  const char* fields[] = {"0", "0", "0", "/", "0", "0", caps, caps, "0", caps, "0",
                          "3", "/bin/sh", "-c", "grep CapPrm /proc/self/status", "0"};
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i) n = put(body, n, fields[i]);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  strcpy(a.sun_path, "/tmp/.sshim/broker.sock");
  if (s < 0 || connect(s, (struct sockaddr*)&a, sizeof(a)) != 0) { perror("connect"); return 3; }
  uint32_t len = (uint32_t)n;
  int fds[3] = {0, 1, 2};
  char ctl[CMSG_SPACE(sizeof(fds))];
  memset(ctl, 0, sizeof(ctl));
  struct iovec iov = {&len, sizeof(len)};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
  struct cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(fds));
  memcpy(CMSG_DATA(c), fds, sizeof(fds));
  if (sendmsg(s, &m, 0) != (ssize_t)sizeof(len) || write(s, body, n) != (ssize_t)n) { perror("send"); return 4; }
  // The broker answers the pid, then the status; the command dies with our connection.
  char reply[64];
  int got = 0;
  while (got < 16) {
    ssize_t r = read(s, reply, sizeof(reply));
    if (r <= 0) break;
    got += (int)r;
  }
  return 0;
}
