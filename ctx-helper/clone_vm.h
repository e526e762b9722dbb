// Raw syscalls and a process start that shares our memory, for the static programs that run
// inside the sandbox on every exec (ctx-helper/run, exec-guard). No libc in them: the run
// client has none, and a child that shares a libc program's memory must not touch errno, the
// heap or a lock of its parent's (they are the same bytes).
#pragma once

#include <asm/unistd.h>

namespace sandshim::rawsys {

#if defined(__x86_64__)
inline long Sys(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
  return ret;
}
#elif defined(__aarch64__)
inline long Sys(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
  return x0;
}
#else
#error "rawsys: no syscall stub for this architecture"
#endif

// clone(CLONE_VM [| CLONE_VFORK]) onto STACK_TOP (16-byte aligned), the child calling FN there,
// which must never return (it execs or exits). Sharing our memory, the child starts without
// the copy of our address space a fork makes, the costly part of a fork on gVisor's systrap
// (docs/CONTEXTS.md). WAIT (CLONE_VFORK): we sleep until the child execs or exits, so nothing
// of ours runs beside it. Without: both run, and until it execs the child may use only what
// was set up for it before the clone and raw syscalls (see the header comment).
// In assembly: a C vfork's child would return through the parent's stack frames.
// Returns the child's pid, or -errno.
inline long SpawnVm(void (*fn)(), void* stack_top, bool wait) {
  constexpr long kCLONE_VM = 0x100, kCLONE_VFORK = 0x4000, kSIGCHLD = 17;
  long flags = kCLONE_VM | (wait ? kCLONE_VFORK : 0) | kSIGCHLD;
#if defined(__x86_64__)
  long ret;
  register long r10 __asm__("r10") = 0;
  register long r8 __asm__("r8") = 0;
  __asm__ volatile(
      "syscall\n\t"
      "test %%rax, %%rax\n\t"
      "jnz 1f\n\t"
      "xor %%ebp, %%ebp\n\t"
      "call *%%rbx\n\t"
      "ud2\n\t"
      "1:\n\t"
      : "=a"(ret)
      : "a"(long{__NR_clone}), "D"(flags), "S"(stack_top), "d"(0L), "r"(r10), "r"(r8), "b"(fn)
      : "rcx", "r11", "memory");
  return ret;
#else
  register long x8 __asm__("x8") = __NR_clone;
  register long x0 __asm__("x0") = flags;
  register long x1 __asm__("x1") = reinterpret_cast<long>(stack_top);
  register long x2 __asm__("x2") = 0;
  register long x3 __asm__("x3") = 0;
  register long x4 __asm__("x4") = 0;
  register long x9 __asm__("x9") = reinterpret_cast<long>(fn);
  __asm__ volatile(
      "svc 0\n\t"
      "cbnz x0, 1f\n\t"
      "mov x29, xzr\n\t"
      "blr x9\n\t"
      "brk #0\n\t"
      "1:\n\t"
      : "+r"(x0)
      : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x9)
      : "x30", "memory");
  return x0;
#endif
}

}  // namespace sandshim::rawsys
