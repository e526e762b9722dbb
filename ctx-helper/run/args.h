// Included by run.cc inside its anonymous namespace (its syscall stubs, Usage, ParseU32): the
// client's options, in wire order (uid, gid, groups, cwd), then the command after "--".

// --lifeline FD: the read end of a pipe whose only writer is the host's `session exec`. When
// it closes (that process ended, even by SIGKILL) nobody waits for this exec any more, and the
// command goes with what it started. -1: none (set so by ParseArgs: zero-initialised here, it
// leaves the program without a data segment, one page fault less per exec in the Sentry).
int g_lifeline;
bool LifelineGone(short revents) { return (revents & (kPOLLHUP | kPOLLERR)) != 0; }

struct ClientArgs {
  uint32_t uid = 0, gid = 0;
  const char *groups = nullptr, *cwd = nullptr;
  // --end-leftovers: what the command starts ends with it (the broker's sweep.h); without it
  // it may outlive it (as with a client from before the flag).
  bool end = false;
  int first = 0;  // argv's index of the command
};

// Exits with the usage line on anything malformed. Sets g_creds.drop and g_lifeline.
ClientArgs ParseArgs(int argc, char** argv) {
  ClientArgs a;
  g_lifeline = -1;
  bool have_uid = false, have_gid = false;
  int i = 1;
  for (; i < argc && !Eq(argv[i], "--"); i += 2) {
    if (Eq(argv[i], "--end-leftovers")) {
      a.end = true;
      --i;  // (a flag: no value)
      continue;
    }
    if (i + 1 >= argc) Usage();
    const char* v = argv[i + 1];
    if (Eq(argv[i], "--uid")) have_uid = ParseU32(v, a.uid);
    else if (Eq(argv[i], "--gid")) have_gid = ParseU32(v, a.gid);
    else if (Eq(argv[i], "--groups")) a.groups = v;
    else if (Eq(argv[i], "--cwd")) a.cwd = v;
    else if (Eq(argv[i], "--lifeline")) {
      uint32_t fd = 0;
      if (!ParseU32(v, fd) || fd < 3 || Sys(__NR_fcntl, fd, kF_SETFD, kFD_CLOEXEC) != 0) Usage();
      g_lifeline = static_cast<int>(fd);  // (close-on-exec: the command never holds it)
    } else if (Eq(argv[i], "--drop-caps")) {
      uint64_t m = 0;
      for (const char* q = v; *q; ++q) {
        int x = *q >= '0' && *q <= '9' ? *q - '0' : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10 : -1;
        if (x < 0) Usage();
        m = m * 16 + static_cast<uint64_t>(x);
      }
      g_creds.drop = m;
    } else {
      Usage();
    }
    if ((Eq(argv[i], "--uid") && !have_uid) || (Eq(argv[i], "--gid") && !have_gid)) Usage();
  }
  a.first = i + 1;
  if (i >= argc || a.first >= argc || !a.cwd) Usage();
  return a;
}
