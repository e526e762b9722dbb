// Included by run.cc inside its anonymous namespace: the exec's credentials as the client read
// them (its user from its arguments, its capabilities from /proc/self/status less
// --drop-caps), for the broker's request and for direct.h, which applies them itself.
struct Creds {
  uint32_t uid, gid, ngroups;
  uint32_t groups[256];
  uint64_t eff, perm, inh, bound, amb, drop;
};
Creds g_creds{};

