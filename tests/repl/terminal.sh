# tests/repl/terminal.sh: the REPL on a terminal, typed at through tmux
# (a private server, a fresh HOME for the history): a function over
# several lines with a let, Ctrl-C at a continuation prompt and during a
# long evaluation, `it`, `:type` of a function, Ctrl-D at a continuation
# prompt, and the history written at the end.  The definitions must
# survive every Ctrl-C.  tmux is in tools/setup.sh's packages: without it
# this test fails, as it must run everywhere `make test` runs.
set -u
command -v tmux > /dev/null 2>&1 || { echo "tmux is not installed (make setup installs it)"; exit 1; }
work=$(mktemp -d)
sock=$work/tmux.sock
T() { tmux -S "$sock" "$@"; }
trap 'T kill-server 2> /dev/null; rm -rf "$work"' EXIT
mkdir "$work/home"
T new-session -d -s repl -x 120 -y 50 "env HOME='$work/home' TERM=xterm '$PWD/$NESSIE'" ||
  { echo "tmux cannot start a session"; exit 1; }
T set-option -t repl remain-on-exit on > /dev/null

screen() { T capture-pane -p -t repl -S -2000; }
# waits (up to 60 s: a loaded 2-core CI machine is slow) until the screen has 'count' lines matching 'pattern'
wait_for() { # pattern [count]
  n=0
  while [ $n -lt 600 ]; do
    [ "$(screen | grep -c -- "$1")" -ge "${2:-1}" ] && return 0
    sleep 0.1; n=$((n + 1))
  done
  echo "timed out waiting for '$1' (${2:-1} times); the screen:"; screen; exit 1
}
# (a ';' ending an argument separates tmux commands: it goes alone, escaped)
type_line() {
  case $1 in
  *\;) T send-keys -t repl -l "${1%;}"; T send-keys -t repl '\;' Enter ;;
  *) T send-keys -t repl -l "$1"; T send-keys -t repl Enter ;;
  esac
}

wait_for '^nesl>'
# a function over four lines, with a let whose bindings end in ';'
type_line 'function f2(n) ='
wait_for '^\.\.\.'
type_line '  let a = n + 1;'
type_line '      b = a * 2'
type_line '  in a + b;'
wait_for '^f2 = fn : int -> int'
type_line 'f2(3);'
wait_for '^it = 12 : int'

# Ctrl-C at a continuation prompt abandons the statement
type_line 'function g(x) ='
wait_for '^\.\.\.' 4
T send-keys -t repl C-c
wait_for '\^C$'
type_line 'f2(4);'
wait_for '^it = 15 : int'

# Ctrl-C during a long evaluation stops it; definitions stay
type_line 'function fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2);'
wait_for '^fib = fn : int -> int'
type_line 'fib(40);'
sleep 1
T send-keys -t repl C-c
wait_for 'interrupted'
type_line 'f2(5);'
wait_for '^it = 18 : int'

# it is bound; :type of a function; :type alone says what it wants
type_line 'it * 2;'
wait_for '^it = 36 : int'
type_line ':type fib'
wait_for '^fib : int -> int'
type_line ':type'
wait_for ':type needs an expression'
type_line 'g(1);'
wait_for "'g' is undefined"

# Ctrl-D at a continuation prompt: the error on a line of its own, and
# the session goes on
type_line '1 +'
wait_for '^\.\.\.' 5
T send-keys -t repl C-d
wait_for 'unexpected end of file'
if screen | grep -q '\^Derror'; then echo "Ctrl-D: the error is on the prompt's line"; screen; exit 1; fi
type_line 'f2(1);'
wait_for '^it = 6 : int'

# a run-time error shows the line and a caret
type_line '[1, 2][7];'
wait_for '^error: <input [0-9]*>:1:7: subscript 7 is out of range'
wait_for '^  \[1, 2\]\[7\];$'

type_line ':quit'
# the pane's own state, not the "Pane is dead" line tmux draws on the
# screen: on a loaded machine that line was missing from the capture
# while the REPL had long exited
n=0
until [ "$(T display -p -t repl '#{pane_dead}')" = 1 ]; do
  n=$((n + 1))
  [ $n -lt 600 ] || { echo "the REPL did not exit after :quit; the screen:"; screen; exit 1; }
  sleep 0.1
done
grep -q 'f2(3);' "$work/home/.nessie_history" || { echo "no history written"; exit 1; }
grep -q 'fib(40);' "$work/home/.nessie_history" || { echo "history lacks fib(40)"; exit 1; }
exit 0
