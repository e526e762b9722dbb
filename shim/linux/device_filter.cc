#include "shim/linux/device_filter.h"

#include <fcntl.h>

#include <algorithm>

#include "bundle/spec.h"
#include "shim/core/unique_fd.h"

namespace sandshim::native {
namespace json = boost::json;
namespace {

// struct bpf_cgroup_dev_ctx { u32 access_type; u32 major; u32 minor; }: access_type is
// (BPF_DEVCG_ACC_* << 16) | BPF_DEVCG_DEV_*.
constexpr int16_t kCtxAccessType = 0, kCtxMajor = 4, kCtxMinor = 8;

bpf_insn Insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn i{};
  i.code = code;
  i.dst_reg = dst & 0xf;
  i.src_reg = src & 0xf;
  i.off = off;
  i.imm = imm;
  return i;
}
bpf_insn LoadW(uint8_t dst, uint8_t src, int16_t off) { return Insn(BPF_LDX | BPF_W | BPF_MEM, dst, src, off, 0); }
bpf_insn Alu(uint8_t op, uint8_t dst, int32_t imm) { return Insn(BPF_ALU64 | op | BPF_K, dst, 0, 0, imm); }
bpf_insn MovReg(uint8_t dst, uint8_t src) { return Insn(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0); }
bpf_insn JneImm(uint8_t dst, int32_t imm, int16_t off) { return Insn(BPF_JMP | BPF_JNE | BPF_K, dst, 0, off, imm); }
bpf_insn Exit() { return Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }

int32_t AccessBits(const std::string& access) {
  int32_t a = 0;
  for (char c : access) a |= c == 'r' ? BPF_DEVCG_ACC_READ : c == 'w' ? BPF_DEVCG_ACC_WRITE : c == 'm' ? BPF_DEVCG_ACC_MKNOD : 0;
  return a;
}

constexpr int32_t kAllAccess = BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD;

}  // namespace

std::vector<DeviceRule> DeviceRules(const json::object* resources) {
  std::vector<DeviceRule> out;
  if (const auto* devs = resources ? bundle::GetArray(*resources, "devices") : nullptr)
    for (const auto& d : *devs) {
      if (!d.is_object()) continue;
      const auto& o = d.get_object();
      DeviceRule r;
      std::string type = bundle::GetString(o, "type", "a");
      r.type = type.empty() ? 'a' : type[0];
      for (auto [key, dst] : {std::pair{"major", &r.major}, std::pair{"minor", &r.minor}}) {
        auto it = o.find(key);
        if (it != o.end() && it->value().is_number()) *dst = it->value().to_number<int64_t>();
        if (*dst < 0) *dst = -1;
      }
      r.access = bundle::GetString(o, "access", "rwm");
      r.allow = bundle::GetBool(o, "allow");
      out.push_back(std::move(r));
    }
  // What runc always allows on top of the spec: mknod of anything (opening is what counts),
  // the default devices, ptys and tun.
  out.push_back({'c', -1, -1, "m", true});
  out.push_back({'b', -1, -1, "m", true});
  for (auto [major, minor] : {std::pair{1, 3}, {1, 5}, {1, 7}, {1, 8}, {1, 9}, {5, 0}, {5, 2}, {136, -1}, {10, 200}})
    out.push_back({'c', major, minor, "rwm", true});
  return out;
}

std::string V1Rule(const DeviceRule& r) {
  if (r.type == 'a' && r.major < 0 && r.minor < 0 && AccessBits(r.access) == kAllAccess) return "a";
  auto num = [](int64_t n) { return n < 0 ? std::string("*") : std::to_string(n); };
  return std::string(1, r.type) + " " + num(r.major) + ":" + num(r.minor) + " " + r.access;
}

std::vector<bpf_insn> DeviceFilterProgram(const std::vector<DeviceRule>& rules) {
  // r2 = device type, r3 = requested access, r4 = major, r5 = minor (r1 is the context).
  std::vector<bpf_insn> p = {
      LoadW(BPF_REG_2, BPF_REG_1, kCtxAccessType), Alu(BPF_AND, BPF_REG_2, 0xFFFF),
      LoadW(BPF_REG_3, BPF_REG_1, kCtxAccessType), Alu(BPF_RSH, BPF_REG_3, 16),
      LoadW(BPF_REG_4, BPF_REG_1, kCtxMajor),      LoadW(BPF_REG_5, BPF_REG_1, kCtxMinor),
  };
  // Last rule first: the first block that matches returns its verdict.
  for (auto it = rules.rbegin(); it != rules.rend(); ++it) {
    const auto& r = *it;
    int32_t access = AccessBits(r.access);
    std::vector<bpf_insn> tests;  // each jumps to the next block when it does not match
    if (r.type == 'b' || r.type == 'c')
      tests.push_back(JneImm(BPF_REG_2, r.type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR, 0));
    if (access != kAllAccess) {
      // Every requested bit must be one the rule names: (r3 & ~access) == 0.
      tests.push_back(MovReg(BPF_REG_1, BPF_REG_3));
      tests.push_back(Alu(BPF_AND, BPF_REG_1, ~access & kAllAccess));
      tests.push_back(JneImm(BPF_REG_1, 0, 0));
    }
    if (r.major >= 0) tests.push_back(JneImm(BPF_REG_4, static_cast<int32_t>(r.major), 0));
    if (r.minor >= 0) tests.push_back(JneImm(BPF_REG_5, static_cast<int32_t>(r.minor), 0));
    size_t n = tests.size();
    for (size_t i = 0; i < n; ++i)
      if (tests[i].code == (BPF_JMP | BPF_JNE | BPF_K)) tests[i].off = static_cast<int16_t>(n - i - 1 + 2);  // past the verdict
    p.insert(p.end(), tests.begin(), tests.end());
    p.push_back(Alu(BPF_MOV, BPF_REG_0, r.allow ? 1 : 0));
    p.push_back(Exit());
    // A rule that matches everything ends the program: the verifier refuses dead code.
    if (n == 0) return p;
  }
  p.push_back(Alu(BPF_MOV, BPF_REG_0, 0));
  p.push_back(Exit());
  return p;
}

Status AttachDeviceFilter(Sys& sys, const std::filesystem::path& dir, const std::vector<bpf_insn>& prog) {
  static const char kLicense[] = "GPL";
  union bpf_attr load {};
  load.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  load.insns = reinterpret_cast<uint64_t>(prog.data());
  load.insn_cnt = static_cast<uint32_t>(prog.size());
  load.license = reinterpret_cast<uint64_t>(kLicense);
  UniqueFd prog_fd(static_cast<int>(sys.Bpf(BPF_PROG_LOAD, &load, sizeof load)));
  if (!prog_fd.valid()) return ErrnoError("load the device filter (bpf BPF_PROG_LOAD)");
  UniqueFd cg(sys.Open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0));
  if (!cg.valid()) return ErrnoError("open " + dir.string());
  union bpf_attr attach {};
  attach.target_fd = static_cast<uint32_t>(cg.get());
  attach.attach_bpf_fd = static_cast<uint32_t>(prog_fd.get());
  attach.attach_type = BPF_CGROUP_DEVICE;
  attach.attach_flags = BPF_F_ALLOW_MULTI;
  if (sys.Bpf(BPF_PROG_ATTACH, &attach, sizeof attach) != 0)
    return ErrnoError("attach the device filter to " + dir.string());
  return Ok();
}

Status ReplaceDeviceFilter(Sys& sys, const std::filesystem::path& dir, const std::vector<bpf_insn>& prog) {
  UniqueFd cg(sys.Open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0));
  if (!cg.valid()) return ErrnoError("open " + dir.string());
  uint32_t ids[64] = {};
  union bpf_attr query {};
  query.query.target_fd = static_cast<uint32_t>(cg.get());
  query.query.attach_type = BPF_CGROUP_DEVICE;
  query.query.prog_ids = reinterpret_cast<uint64_t>(ids);
  query.query.prog_cnt = 64;
  if (sys.Bpf(BPF_PROG_QUERY, &query, sizeof query) != 0) return ErrnoError("list the device filters of " + dir.string());
  uint32_t old = std::min<uint32_t>(query.query.prog_cnt, 64);
  TRY(AttachDeviceFilter(sys, dir, prog));
  for (uint32_t i = 0; i < old; ++i) {
    union bpf_attr get {};
    get.prog_id = ids[i];
    UniqueFd fd(static_cast<int>(sys.Bpf(BPF_PROG_GET_FD_BY_ID, &get, sizeof get)));
    if (!fd.valid()) {
      if (errno == ENOENT) continue;  // gone meanwhile
      return ErrnoError("open device filter " + std::to_string(ids[i]));
    }
    union bpf_attr detach {};
    detach.target_fd = static_cast<uint32_t>(cg.get());
    detach.attach_bpf_fd = static_cast<uint32_t>(fd.get());
    detach.attach_type = BPF_CGROUP_DEVICE;
    if (sys.Bpf(BPF_PROG_DETACH, &detach, sizeof detach) != 0 && errno != ENOENT)
      return ErrnoError("detach the old device filter from " + dir.string());
  }
  return Ok();
}

}  // namespace sandshim::native
