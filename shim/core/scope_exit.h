// ScopeExit runs a callback when it leaves scope unless dismissed: the rollback guard that
// every create arms as soon as it starts and disarms only after success.
#pragma once

#include <utility>

namespace sandshim {

template <typename F>
class ScopeExit {
 public:
  explicit ScopeExit(F f) : f_(std::move(f)) {}
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;
  ~ScopeExit() {
    if (armed_) f_();
  }
  void Dismiss() { armed_ = false; }

 private:
  F f_;
  bool armed_ = true;
};

}  // namespace sandshim
