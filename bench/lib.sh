# shellcheck shell=bash
# Benchmark helpers: time a command N times, report the median, and print ratios of
# runs measured in the same session (never absolute targets: the machine is shared).

# Raw runsc fchowns the stdio it is handed to the container's user: given the host's /dev/null
# it leaves it owned by nobody for the whole run, which every other user's leak check on the
# machine then reports. Timed commands get a private node of the same device instead, made
# when this file is sourced and removed at exit (on_exit, if the bench set up its traps).
BENCH_NULL_DIR=$(mktemp -d /tmp/sandshim-bnull.XXXXXX)
BENCH_NULL=$BENCH_NULL_DIR/null
mknod -m 666 "$BENCH_NULL" c 1 3
declare -F on_exit >/dev/null && on_exit 'rm -rf "$BENCH_NULL_DIR"'

# time_runs N CMD...: prints one wall time in milliseconds per run (float).
time_runs() {
  local n=$1 i t0 t1; shift
  for ((i = 0; i < n; i++)); do
    t0=$(date +%s%N)
    "$@" <"$BENCH_NULL" >"$BENCH_NULL" 2>&1 || echo "bench: run $i of '$*' failed" >&2
    t1=$(date +%s%N)
    echo "scale=3; ($t1 - $t0) / 1000000" | bc
  done
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# report NAME BASE_NAME BASE_MS OURS_MS [LIMIT_RATIO] [LIMIT_ADD_MS]
report() {
  local name=$1 base_name=$2 base=$3 ours=$4 max_ratio=${5:-} max_add=${6:-}
  local ratio add verdict=""
  ratio=$(echo "scale=3; $ours / $base" | bc)
  add=$(echo "scale=1; $ours - $base" | bc)
  if [ -n "$max_ratio" ]; then
    if [ "$(echo "$ratio <= $max_ratio" | bc)" = 1 ]; then verdict="OK (<= ${max_ratio}x)"; else verdict="OVER (> ${max_ratio}x)"; fi
  fi
  if [ -n "$max_add" ]; then
    if [ "$(echo "$add <= $max_add" | bc)" = 1 ]; then verdict="OK (<= +${max_add} ms)"; else verdict="OVER (> +${max_add} ms)"; fi
  fi
  printf '%-34s %-22s %9.1f ms  sandshim %9.1f ms  ratio %6.3f  %+7.1f ms  %s\n' \
    "$name" "$base_name" "$base" "$ours" "$ratio" "$add" "$verdict"
}
