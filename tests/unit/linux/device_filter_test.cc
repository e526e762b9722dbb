// The cgroup v2 device filter: the rule list (spec + runc's defaults), the v1 lines made from
// it, and the eBPF program, instruction by instruction; as root the kernel's verifier is
// asked too (BPF_PROG_LOAD, nothing attached).
#include <doctest/doctest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "shim/core/unique_fd.h"
#include "shim/linux/device_filter.h"
#include "tests/fakes/recording_sys.h"

using namespace sandshim;
using namespace sandshim::native;

namespace {

boost::json::object Resources(const char* json) { return boost::json::parse(json).as_object(); }

// docker's default: deny everything, then its allow list.
const char* kDocker = R"({"devices":[{"allow":false,"access":"rwm"},
  {"allow":true,"type":"c","major":1,"minor":3,"access":"rwm"},
  {"allow":true,"type":"c","major":136,"access":"rwm"},
  {"allow":true,"type":"c","major":10,"minor":200,"access":"rwm"}]})";

// A tiny interpreter for what DeviceFilterProgram emits, so the verdicts are tested, not
// only the shape: ctx = {access << 16 | type, major, minor}.
int Run(const std::vector<bpf_insn>& p, int type, int access, uint32_t major, uint32_t minor) {
  uint64_t r[11] = {};
  uint32_t ctx[3] = {static_cast<uint32_t>(access << 16 | type), major, minor};
  for (size_t pc = 0; pc < p.size(); ++pc) {
    const auto& i = p[pc];
    switch (i.code) {
      case BPF_LDX | BPF_W | BPF_MEM: r[i.dst_reg] = ctx[i.off / 4]; break;
      case BPF_ALU64 | BPF_AND | BPF_K: r[i.dst_reg] &= static_cast<uint64_t>(static_cast<int64_t>(i.imm)); break;
      case BPF_ALU64 | BPF_RSH | BPF_K: r[i.dst_reg] >>= i.imm; break;
      case BPF_ALU64 | BPF_MOV | BPF_X: r[i.dst_reg] = r[i.src_reg]; break;
      case BPF_ALU64 | BPF_MOV | BPF_K: r[i.dst_reg] = static_cast<uint64_t>(static_cast<int64_t>(i.imm)); break;
      case BPF_JMP | BPF_JNE | BPF_K:
        if (r[i.dst_reg] != static_cast<uint64_t>(static_cast<int64_t>(i.imm))) pc += i.off;
        break;
      case BPF_JMP | BPF_EXIT: return static_cast<int>(r[0]);
      default: FAIL("unexpected opcode " << int(i.code)); return -1;
    }
  }
  FAIL("ran off the end");
  return -1;
}

constexpr int kChr = BPF_DEVCG_DEV_CHAR, kBlk = BPF_DEVCG_DEV_BLOCK;
constexpr int kR = BPF_DEVCG_ACC_READ, kW = BPF_DEVCG_ACC_WRITE, kM = BPF_DEVCG_ACC_MKNOD;

}  // namespace

TEST_CASE("device rules: the spec's, then runc's unconditional allows; their v1 lines") {
  auto r = Resources(kDocker);
  auto rules = DeviceRules(&r);
  REQUIRE(rules.size() == 4 + 11);
  CHECK(V1Rule(rules[0]) == "a");
  CHECK_FALSE(rules[0].allow);
  CHECK(V1Rule(rules[2]) == "c 136:* rwm");
  CHECK(V1Rule(rules[4]) == "c *:* m");
  CHECK(V1Rule(rules[5]) == "b *:* m");
  CHECK(V1Rule(rules.back()) == "c 10:200 rwm");
  CHECK(DeviceRules(nullptr).size() == 11);
}

TEST_CASE("device filter: docker's policy allows the default devices and denies the rest") {
  auto r = Resources(kDocker);
  auto p = DeviceFilterProgram(DeviceRules(&r));
  // The deny-all rule is the first in the spec, so the last checked: it ends the program
  // (no unreachable default after it; the verifier refuses dead code).
  CHECK(p.back().code == (BPF_JMP | BPF_EXIT));
  CHECK(p[p.size() - 2].code == (BPF_ALU64 | BPF_MOV | BPF_K));
  CHECK(p[p.size() - 2].imm == 0);
  CHECK(Run(p, kChr, kR | kW, 1, 3) == 1);     // /dev/null
  CHECK(Run(p, kChr, kR | kW, 136, 4) == 1);   // a pty
  CHECK(Run(p, kChr, kR, 1, 11) == 0);         // /dev/kmsg
  CHECK(Run(p, kChr, kR | kW, 1, 1) == 0);     // /dev/mem
  CHECK(Run(p, kBlk, kR, 8, 0) == 0);          // a disk
  CHECK(Run(p, kBlk, kM, 8, 0) == 1);          // mknod is allowed, opening is not
  CHECK(Run(p, kChr, kM, 1, 11) == 1);
  CHECK(Run(p, kChr, kM | kR, 1, 11) == 0);
}

TEST_CASE("device filter: the last matching rule wins; access must be a subset; no match denies") {
  std::vector<DeviceRule> rules = {{'c', 4, -1, "rw", true}, {'c', 4, 2, "rwm", false}};
  auto p = DeviceFilterProgram(rules);
  CHECK(Run(p, kChr, kR, 4, 1) == 1);
  CHECK(Run(p, kChr, kR, 4, 2) == 0);       // the later deny
  CHECK(Run(p, kChr, kM, 4, 1) == 0);       // mknod not in "rw"
  CHECK(Run(p, kBlk, kR, 4, 1) == 0);       // type differs
  CHECK(Run(p, kChr, kR, 5, 1) == 0);       // nothing matches: deny
  // An allow-all rule at the end allows everything; one at the start is overridden.
  CHECK(Run(DeviceFilterProgram({{'c', 4, 2, "rwm", false}, {'a', -1, -1, "rwm", true}}), kChr, kR, 4, 2) == 1);
  CHECK(Run(DeviceFilterProgram({{'a', -1, -1, "rwm", true}, {'c', 4, 2, "rwm", false}}), kChr, kR, 4, 2) == 0);
  CHECK(Run(DeviceFilterProgram({{'a', -1, -1, "rwm", true}, {'c', 4, 2, "rwm", false}}), kBlk, kR, 8, 0) == 1);
}

TEST_CASE("device filter: the exact instructions of one rule") {
  auto p = DeviceFilterProgram({{'b', 8, 0, "r", true}});
  // prologue (6) + type, access (3), major, minor tests + verdict (2) + default deny (2)
  REQUIRE(p.size() == 6 + 1 + 3 + 2 + 2 + 2);
  CHECK(p[0].code == (BPF_LDX | BPF_W | BPF_MEM));
  CHECK(p[1].imm == 0xFFFF);
  CHECK(p[3].imm == 16);
  CHECK(p[4].off == 4);
  CHECK(p[5].off == 8);
  // Every test jumps to the default deny, past the verdict.
  CHECK(p[6].code == (BPF_JMP | BPF_JNE | BPF_K));
  CHECK(p[6].imm == BPF_DEVCG_DEV_BLOCK);
  CHECK(6 + 1 + p[6].off == 14);
  CHECK(p[8].imm == (BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD));
  CHECK(p[8].off == 0);  // BPF_AND shares BPF_JNE's op bits: only jumps get offsets
  CHECK(9 + 1 + p[9].off == 14);
  CHECK(p[10].imm == 8);
  CHECK(11 + 1 + p[11].off == 14);
  CHECK(p[12].imm == 1);
}

TEST_CASE("device filter: attach is load then attach through Sys, and a failure says which") {
  sandshim::testing::RecordingSys sys;
  REQUIRE(AttachDeviceFilter(sys, "/sys/fs/cgroup/unified/x", DeviceFilterProgram({})).ok());
  CHECK(sys.calls == std::vector<std::string>{"bpf load", "open /sys/fs/cgroup/unified/x", "bpf attach"});
  sandshim::testing::RecordingSys failing;
  failing.FailOn("bpf attach", EPERM);
  auto s = AttachDeviceFilter(failing, "/cg", DeviceFilterProgram({}));
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().msg.find("attach the device filter to /cg") != std::string::npos);
}

TEST_CASE("device filter: update attaches the new program before detaching the old ones") {
  sandshim::testing::RecordingSys sys;
  sys.bpf_progs = {41, 42};
  REQUIRE(ReplaceDeviceFilter(sys, "/cg", DeviceFilterProgram({})).ok());
  CHECK(sys.calls == std::vector<std::string>{"open /cg", "bpf query", "bpf load", "open /cg", "bpf attach",
                                              "bpf get_fd_by_id 41", "bpf detach", "bpf get_fd_by_id 42", "bpf detach"});
  sandshim::testing::RecordingSys failing;
  failing.bpf_progs = {41};
  failing.FailOn("bpf attach", EPERM);
  REQUIRE_FALSE(ReplaceDeviceFilter(failing, "/cg", DeviceFilterProgram({})).ok());
  CHECK(failing.IndexOf("bpf detach") < 0);  // the old filter stays when the new one is not in
}

TEST_CASE("device filter: the kernel's verifier accepts docker's policy (root only)") {
  if (::geteuid() != 0) return;
  auto r = Resources(kDocker);
  for (const auto& prog : {DeviceFilterProgram(DeviceRules(&r)), DeviceFilterProgram({}),
                           DeviceFilterProgram({{'a', -1, -1, "rwm", true}})}) {
    static const char kLicense[] = "GPL";
    union bpf_attr load {};
    load.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
    load.insns = reinterpret_cast<uint64_t>(prog.data());
    load.insn_cnt = static_cast<uint32_t>(prog.size());
    load.license = reinterpret_cast<uint64_t>(kLicense);
    static char log[65536];
    load.log_buf = reinterpret_cast<uint64_t>(log);
    load.log_size = sizeof log;
    load.log_level = 1;
    UniqueFd fd(static_cast<int>(::syscall(SYS_bpf, BPF_PROG_LOAD, &load, sizeof load)));
    CHECK_MESSAGE(fd.valid(), "BPF_PROG_LOAD (" << prog.size() << " insns): " << std::string(std::strerror(errno)) << "\n" << std::string(log));
  }
}
