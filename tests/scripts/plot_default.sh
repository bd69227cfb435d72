#!/usr/bin/env bash
# What `tapegrad plot --run DIR` draws by default: the task's measure, named after the task ("bits per
# character" for text, never "error rate"; "error rate" for addition), and the training and validation
# loss against wall-clock time; nothing else. --all adds the metrics that change, never a constant
# (lr, momentum, sequences), which the caption lists instead. A gnuplot wrapper on PATH keeps each
# script and data file that tapegrad hands to gnuplot; the data file names each drawn series in a
# "# key" comment line.
# Usage: plot_default.sh path/to/tapegrad path/to/tiny.txt
set -uo pipefail
TG=$(realpath "$1")
TEXT=$(realpath "$2")
real_gnuplot=$(command -v gnuplot) || { echo "SKIP: needs gnuplot"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir bin
cat >bin/gnuplot <<EOF
#!/usr/bin/env bash
# Keeps the script and data of the last plot, then draws it with the real gnuplot.
rm -rf "$work/seen" && mkdir "$work/seen" && cp "\$(dirname "\$1")"/* "$work/seen/"
exec "$real_gnuplot" "\$@"
EOF
chmod +x bin/gnuplot
export PATH="$work/bin:$PATH"

"$TG" train --model lstm --data "$TEXT" --optimizer adam --set model_options.hidden=8 --set task_options.T=20 \
  --set batch=4 --set eval_every=2 --steps 6 --quiet --out text >/dev/null 2>err || { echo "FAIL: text run: $(cat err)"; exit 1; }
"$TG" train --model rnn --task addition --optimizer hf --set task_options.T=10 --set model_options.hidden=4 \
  --set batch=20 --set curvature_batch=10 --set eval_every=2 --steps 4 --quiet --out add >/dev/null 2>err ||
  { echo "FAIL: addition run: $(cat err)"; exit 1; }

fail=0
plot() {  # run, then plot's options; leaves the script in seen/curves.gp
  local run=$1
  shift
  rm -rf seen
  "$TG" plot --run "$run" "$@" >/dev/null 2>err || { echo "FAIL (plot $run $*): $(cat err)"; fail=1; return 1; }
  [ -s "$run/curves.png" ] || { echo "FAIL (plot $run $*): no PNG"; fail=1; return 1; }
}
titles() { grep -o "^set title '[^']*'" seen/curves.gp | sed "s/^set title //" | paste -sd' '; }
series() { grep '^# ' seen/metrics.dat | cut -c3- | sort | paste -sd' '; }
expect() {  # what, got, wanted
  if [ "$2" = "$3" ]; then echo "ok ($1): $2"; else echo "FAIL ($1): got [$2], want [$3]"; fail=1; fi
}
has() {  # what, pattern (grep -E) that the script must (1) or must not (0) contain
  if grep -qE "$2" seen/curves.gp; then found=1; else found=0; fi
  if [ "$found" = "$3" ]; then echo "ok ($1)"; else echo "FAIL ($1): /$2/ $([ "$3" = 1 ] && echo missing || echo present) in the script"; fail=1; fi
}

# A text run: bits per character, the loss, against time.
if plot text; then
  expect "text: panels" "$(titles)" "'validation bits per character' 'loss'"
  expect "text: series" "$(series)" "loss valid_error valid_loss"
  has "text: no 'error rate'" "error rate" 0
  has "text: x is wall-clock time" "^set xlabel 'wall-clock time \((s|min|h)\)'" 1
  has "text: constants in the caption" "^set label .*'constant: .*lr 0\.001" 1
fi
if plot text --all; then
  s=$(series)
  for key in lr momentum sequences; do
    case " $s " in *" $key "*) echo "FAIL (text --all): constant '$key' drawn"; fail=1 ;; esac
  done
  case " $s " in *" grad_norm "*) echo "ok (text --all): $s" ;; *) echo "FAIL (text --all): no grad_norm in [$s]"; fail=1 ;; esac
fi
if plot text --metrics lr,grad_norm --x iteration; then
  expect "text --metrics" "$(series)" "grad_norm lr"
  has "text --x iteration" "^set xlabel 'iteration'" 1
fi
# A pathological task: its error rate; Hessian-free's λ, ρ and CG iterations only on request.
if plot add; then
  expect "addition: panels" "$(titles)" "'validation error rate' 'loss'"
  expect "addition: series" "$(series)" "loss valid_error valid_loss"
fi
if plot add --all; then
  s=$(series)
  case " $s " in *" lambda "*" rho "*) echo "ok (addition --all): $s" ;; *) echo "FAIL (addition --all): no lambda, rho in [$s]"; fail=1 ;; esac
fi
[ "$fail" -eq 0 ] && echo "PASS: the default plot draws the task's measure and the loss, named; constants only in the caption"
exit "$fail"
