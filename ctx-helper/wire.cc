#include "ctx-helper/wire.h"

#include <cstdio>
#include <cstdlib>

namespace sandshim::ctx {
namespace {

void Put(std::string& out, const std::string& field) {
  out += field;
  out.push_back('\0');
}

// Reads fields one after another; any malformed field fails the whole decode.
class Reader {
 public:
  explicit Reader(const std::string& b) : b_(b) {}
  bool Str(std::string& out) {
    auto end = b_.find('\0', at_);
    if (end == std::string::npos) return false;
    out.assign(b_, at_, end - at_);
    at_ = end + 1;
    return true;
  }
  bool U64(uint64_t& out) {
    std::string s;
    if (!Str(s) || s.empty()) return false;
    char* end = nullptr;
    out = std::strtoull(s.c_str(), &end, 16);
    return *end == '\0';
  }
  bool U32(uint32_t& out) {
    uint64_t v;
    if (!U64(v) || v > 0xffffffffull) return false;
    out = static_cast<uint32_t>(v);
    return true;
  }
  bool List(std::vector<std::string>& out) {
    uint32_t n;
    // Each entry takes at least its NUL: a count the rest of the request cannot hold is a lie
    // (and would have us allocate for it first).
    if (!U32(n) || n > b_.size() - at_) return false;
    out.resize(n);
    for (auto& s : out)
      if (!Str(s)) return false;
    return true;
  }
  bool Done() const { return at_ == b_.size(); }

 private:
  const std::string& b_;
  size_t at_ = 0;
};

std::string Hex(uint64_t v) {
  char buf[20];
  int n = std::snprintf(buf, sizeof(buf), "%llx", static_cast<unsigned long long>(v));
  return std::string(buf, n);
}

}  // namespace

std::string Encode(const Request& r) {
  std::string out;
  Put(out, Hex(r.uid));
  Put(out, Hex(r.gid));
  Put(out, Hex(r.groups.size()));
  for (auto g : r.groups) Put(out, Hex(g));
  Put(out, r.cwd);
  Put(out, Hex(uint64_t{r.tty} | (uint64_t{r.end_leftovers} << 1)));  // flags: 1 terminal, 2 end leftovers
  Put(out, Hex(r.no_new_privs));
  for (auto c : {r.cap_eff, r.cap_perm, r.cap_inh, r.cap_bound, r.cap_amb}) Put(out, Hex(c));
  Put(out, Hex(r.argv.size()));
  for (const auto& a : r.argv) Put(out, a);
  Put(out, Hex(r.env.size()));
  for (const auto& e : r.env) Put(out, e);
  return out;
}

bool Decode(const std::string& bytes, Request& r) {
  Reader in(bytes);
  uint32_t ngroups;
  uint64_t tty, nnp;
  if (!in.U32(r.uid) || !in.U32(r.gid) || !in.U32(ngroups) || ngroups > 65536) return false;
  r.groups.resize(ngroups);
  for (auto& g : r.groups)
    if (!in.U32(g)) return false;
  if (!in.Str(r.cwd) || !in.U64(tty) || !in.U64(nnp)) return false;
  r.tty = (tty & 1) != 0;
  r.end_leftovers = (tty & 2) != 0;
  r.no_new_privs = nnp != 0;
  for (auto* c : {&r.cap_eff, &r.cap_perm, &r.cap_inh, &r.cap_bound, &r.cap_amb})
    if (!in.U64(*c)) return false;
  return in.List(r.argv) && !r.argv.empty() && in.List(r.env) && in.Done();
}

}  // namespace sandshim::ctx
