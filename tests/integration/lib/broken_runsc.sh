# shellcheck shell=bash
# A host where gVisor cannot run, made without touching the host's runsc: a private
# sandshim config names a runsc that is missing or that cannot boot a sandbox, so
# sandshim's `auto` mode must fall back to the native runtime. (Hiding runsc from PATH
# is not enough: sandshim also looks in the standard sbin/bin directories.)
#
#   break_runsc DIR missing|failing   # writes DIR/config.json, exports SANDSHIM_CONFIG
#
# The config reaches every sandshim the clients start through the environment
# (containerd passes its own to the shims it starts, and they to the runtime), so call
# it before the daemons start. The checks then prove the fallback really happened.

# shellcheck disable=SC2034 # used by the scripts that source this file
FALLBACK_WARNING="falling back to the native runtime"
# shellcheck disable=SC2034
GVISOR_REFUSAL="refusing to fall back"

break_runsc() { # DIR MODE
  local dir=$1 mode=$2 runsc
  mkdir -p "$dir"
  case $mode in
    missing) runsc=$dir/no-such-runsc ;;
    failing)
      runsc=$dir/runsc
      # Installs fine (--version works) but every sandbox fails to boot, as on a
      # kernel gVisor cannot use.
      cat >"$runsc" <<'EOF'
#!/bin/sh
case " $* " in *" --version "*) echo "runsc version fake-broken"; exit 0 ;; esac
echo "fake runsc: cannot boot a sandbox on this host" >&2
exit 1
EOF
      chmod +x "$runsc"
      ;;
    *) echo "break_runsc: mode must be missing or failing, not '$mode'" >&2; return 2 ;;
  esac
  jq -n --arg r "$runsc" --arg c "$dir/cache" '{runsc: $r, cache_dir: $c}' >"$dir/config.json"
  export SANDSHIM_CONFIG=$dir/config.json
}

# The kernel release a container sees: gVisor reports 4.4.0, the native runtime the host's.
assert_host_kernel() { # KERNEL_SEEN_INSIDE
  assert_ne 4.4.0 "$1" "kernel inside (gVisor's is 4.4.0)" &&
    assert_eq "$(uname -r)" "$1" "kernel inside is the host's"
}

# assert_native_state STATE_JSON: the container's OCI state says it got the native backend.
assert_native_state() {
  local b
  b=$(jq -r '.annotations["dev.sandshim.backend"] // "none"' <<<"$1" 2>/dev/null)
  assert_eq native "$b" "state annotation dev.sandshim.backend (state: $(head -c 300 <<<"$1"))"
}
