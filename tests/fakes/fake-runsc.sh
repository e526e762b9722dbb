#!/bin/sh
# A stand-in for runsc in unit tests: records each command line, writes the pid file that
# create is given (the pid comes from FAKE_RUNSC_PID), and fails when FAKE_RUNSC_FAIL names
# the verb, printing FAKE_RUNSC_ERR to stderr and to the --log file as runsc does. Like runsc
# it keeps <root>/<id>_sandbox:<id>.state from create (or restore) until delete; `state`
# prints FAKE_RUNSC_STATE.
printf '%s\n' "$*" >> "${FAKE_RUNSC_LOG:-/dev/null}"
verb="" log="" pidfile="" root="" last=""
for a in "$@"; do
  case "$a" in
    --log=*) log="${a#--log=}" ;;
    --pid-file=*) pidfile="${a#--pid-file=}" ;;
    --root=*) root="${a#--root=}" ;;
    --version) echo "runsc version fake"; exit 0 ;;
    -*) ;;
    *) [ -z "$verb" ] && verb="$a"; last="$a" ;;
  esac
done
if [ "$verb" = "help" ]; then echo "ptrace"; exit 0; fi
if [ -n "${FAKE_RUNSC_FAIL:-}" ] && [ "$verb" = "$FAKE_RUNSC_FAIL" ]; then
  msg="${FAKE_RUNSC_ERR:-fake failure}"
  echo "$msg" >&2
  [ -n "$log" ] && printf '{"msg":"%s","level":"error","time":"2026-01-01T00:00:00Z"}' "$msg" > "$log"
  exit 128
fi
if [ -n "$pidfile" ]; then echo "${FAKE_RUNSC_PID:-$$}" > "$pidfile"; fi
case "$verb" in
  create | restore) [ -n "$root" ] && mkdir -p "$root" && : > "$root/${last}_sandbox:${last}.state" ;;
  delete) [ -n "$root" ] && rm -f "$root/${last}_sandbox:${last}.state" ;;
  ps) echo '[1]' ;;
  state) [ -n "${FAKE_RUNSC_STATE:-}" ] && echo "$FAKE_RUNSC_STATE" ;;
  events) echo '{"type":"stats","id":"x","data":{}}' ;;
esac
exit 0
