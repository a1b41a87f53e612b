# Sourced by scripts/test: each step's wall time against its budget, kept as the steps end and printed as one table on
# stderr when the run ends, so a run that drifts shows it (docs/ci.md). It reports only; it decides no exit status.
#   step_row NAME WALL_S BUDGET_S EXIT BOUNDED   one row (EXIT: the step's status, or "skipped"; BOUNDED=1: the step
#                                                runs under `timeout`, so 124/137 mean it was stopped at its budget)
#   step_table                                   the table, with the whole run's time (bash's SECONDS)
step_rows=()

step_mmss() { printf '%dm %02ds' $(($1 / 60)) $(($1 % 60)); }

step_row() {
  local name=$1 wall=$2 budget=$3 rc=$4 bounded=$5 state
  if [ "$rc" = skipped ]; then
    state="skipped"
  elif [ "$bounded" = 1 ] && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then
    state="stopped at budget"
  elif [ "$rc" != 0 ]; then
    state="failed (exit $rc)"
  else
    state="ok"
  fi
  if [ "$rc" != skipped ] && [ "$state" != "stopped at budget" ] && [ "$wall" -gt "$budget" ]; then
    state="$state, over budget"
  fi
  if [ "$rc" = skipped ]; then
    step_rows+=("$(printf '%-30s %9s %9s   %s' "$name" "-" "-" "$state")")
  else
    step_rows+=("$(printf '%-30s %9s %9s   %s' "$name" "$(step_mmss "$wall")" "$(step_mmss "$budget")" "$state")")
  fi
}

step_table() {
  {
    echo "scripts/test: each step's wall time against its budget"
    printf '%-30s %9s %9s   %s\n' "step" "wall" "budget" "status"
    printf '%s\n' "${step_rows[@]}"
    printf '%-30s %9s\n' "whole run (installs included)" "$(step_mmss "$SECONDS")"
  } >&2
}
