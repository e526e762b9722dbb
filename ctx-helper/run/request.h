// Included by run.cc inside its anonymous namespace (its syscall stubs, Len, ParseU32, Usage,
// g_creds): the request to the broker, in wire.h's format written here by hand (NUL-terminated
// fields, numbers in hex), built in a static buffer field by field in wire order: uid, gid,
// groups, cwd, flags, credentials, command, environment.
constexpr uint32_t kMaxRequest = 4u << 20;  // wire.h's kMaxRequest: the broker refuses more
char g_body[kMaxRequest];                   // (.bss: only the pages written are ever touched)
size_t g_len = 0;
bool g_overflow = false;

void PutBytes(const char* s, size_t n) {
  if (g_len + n + 1 > sizeof(g_body)) {
    g_overflow = true;
    return;
  }
  memcpy(g_body + g_len, s, n);
  g_len += n;
  g_body[g_len++] = '\0';
}
void Put(const char* s) { PutBytes(s, Len(s)); }
void PutHex(uint64_t v) {
  char buf[17];
  int n = 0;
  char rev[17];
  do rev[n++] = "0123456789abcdef"[v & 15];
  while (v >>= 4);
  for (int i = 0; i < n; ++i) buf[i] = rev[n - 1 - i];
  PutBytes(buf, static_cast<size_t>(n));
}

// /proc/self/status's "NAME:" line as a number (hex, or decimal for NoNewPrivs); false
// where the file has no such line (an older Sentry may not show CapAmb or NoNewPrivs).
bool StatusField(const char* buf, long n, const char* name, int base, uint64_t& out) {
  size_t k = Len(name);
  for (long i = 0; i + static_cast<long>(k) + 1 < n; ++i) {
    if (i > 0 && buf[i - 1] != '\n') continue;
    size_t j = 0;
    while (j < k && buf[i + static_cast<long>(j)] == name[j]) ++j;
    if (j < k || buf[i + static_cast<long>(k)] != ':') continue;
    const char* p = buf + i + k + 1;
    while (*p == ' ' || *p == '\t') ++p;
    uint64_t v = 0;
    int digits = 0;
    for (;; ++p, ++digits) {
      char c = *p;
      int x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (x < 0 || x >= base) break;
      v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(x);
    }
    if (digits == 0 || digits > 16 || (*p != '\n' && *p != '\0')) return false;
    out = v;
    return true;
  }
  return false;
}

// Our credentials are the ones the exec asked for, but for the user: the broker gives the
// command the same capability sets and no_new_privs. All five sets and no_new_privs are in
// /proc/self/status (three syscalls); a set it lacks is asked for as before (capget, one
// prctl per capability), each a trip through the Sentry.
void PutCredentials() {
  char buf[4096];
  long n = 0;
  int fd = static_cast<int>(Sys(__NR_openat, kAT_FDCWD, reinterpret_cast<long>("/proc/self/status"), kO_RDONLY | kO_CLOEXEC));
  if (fd >= 0) {
    n = Sys(__NR_read, fd, reinterpret_cast<long>(buf), sizeof(buf) - 1);
    Sys(__NR_close, fd);
  }
  if (n < 0) n = 0;
  buf[n] = '\0';
  uint64_t eff = 0, perm = 0, inh = 0, bound = 0, amb = 0, nnp = 0;
  if (!StatusField(buf, n, "CapEff", 16, eff) || !StatusField(buf, n, "CapPrm", 16, perm) ||
      !StatusField(buf, n, "CapInh", 16, inh)) {
    __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct d[2] = {};
    eff = perm = inh = 0;
    if (Sys(__NR_capget, reinterpret_cast<long>(&h), reinterpret_cast<long>(d)) == 0) {
      eff = d[0].effective | (uint64_t{d[1].effective} << 32);
      perm = d[0].permitted | (uint64_t{d[1].permitted} << 32);
      inh = d[0].inheritable | (uint64_t{d[1].inheritable} << 32);
    }
  }
  if (!StatusField(buf, n, "CapBnd", 16, bound)) {
    bound = 0;
    for (int c = 0; c < 64; ++c) {
      long b = Sys(__NR_prctl, PR_CAPBSET_READ, c);
      if (b < 0) break;
      if (b) bound |= uint64_t{1} << c;
    }
  }
  if (!StatusField(buf, n, "CapAmb", 16, amb)) {
    // An ambient capability is permitted and inheritable: only those can be set (usually none).
    amb = 0;
    uint64_t could = perm & inh;
    for (int c = 0; c < 64; ++c)
      if (((could >> c) & 1) && Sys(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) == 1) amb |= uint64_t{1} << c;
  }
  if (!StatusField(buf, n, "NoNewPrivs", 10, nnp)) nnp = Sys(__NR_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
  PutHex(nnp != 0);
  // The init's own capabilities the exec was given for us (--drop-caps): never the command's.
  uint64_t keep = ~g_creds.drop;
  g_creds.eff = eff & keep, g_creds.perm = perm & keep, g_creds.inh = inh & keep, g_creds.amb = amb & keep;
  g_creds.bound = bound;  // (direct.h drops what is in both)
  for (uint64_t c : {g_creds.eff, g_creds.perm, g_creds.inh, bound & keep, g_creds.amb}) PutHex(c);
}

// The groups, as wire.h has them: the count first, then the ids. The direct path (direct.h)
// keeps them too, up to 256.
void PutGroups(const char* groups) {
  uint32_t n = 0, g;
  char one[12];
  for (int pass = 0; pass < 2; ++pass) {  // the count first, then the ids
    if (pass == 1) {
      PutHex(n);
      g_creds.ngroups = n < 256 ? n : 256;
    }
    n = 0;
    for (const char* p = groups; p && *p;) {
      size_t k = 0;
      while (p[k] && p[k] != ',' && k < sizeof(one) - 1) one[k] = p[k], ++k;
      one[k] = '\0';
      if ((p[k] && p[k] != ',') || !ParseU32(one, g)) Usage();
      if (pass == 1) PutHex(g);
      if (pass == 1 && n < 256) g_creds.groups[n] = g;
      ++n;
      p += k + (p[k] == ',');
    }
  }
}

// The command's arguments and our environment (the exec's), each counted first.
void PutCommand(char** args, int nargs, char** envp) {
  PutHex(static_cast<uint64_t>(nargs));
  for (int a = 0; a < nargs; ++a) Put(args[a]);
  uint64_t nenv = 0;
  for (char** e = envp; *e; ++e) ++nenv;
  PutHex(nenv);
  for (char** e = envp; *e; ++e) Put(*e);
}
