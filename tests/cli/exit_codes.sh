# Exit status: 0 on success, 1 on compile errors, 2 on bad usage.
set -u
check() { # expected-status description command...
  want=$1; what=$2; shift 2
  "$@" > /dev/null 2>&1; got=$?
  [ "$got" = "$want" ] || { echo "$what: exit $got, expected $want ($*)"; exit 1; }
}
tmp=$(mktemp -d)
printf 'function sqr(x) = x * x;\nsqr(3);\n' > "$tmp/ok.nesl"
printf 'x = 1 +;\n' > "$tmp/bad.nesl"
check 0 "--help" "$NESSIE" --help
check 0 "--version" "$NESSIE" --version
check 0 "--types" "$NESSIE" --types "$tmp/ok.nesl"
check 0 "--dump=ast" "$NESSIE" --dump=ast "$tmp/ok.nesl"
check 0 "--dump=typed" "$NESSIE" --dump=typed "$tmp/ok.nesl"
check 1 "syntax error" "$NESSIE" --types "$tmp/bad.nesl"
check 1 "missing file" "$NESSIE" --types "$tmp/none.nesl"
check 2 "unknown option" "$NESSIE" --frobnicate "$tmp/ok.nesl"
check 2 "unknown stage" "$NESSIE" --dump=nothing "$tmp/ok.nesl"
check 2 "missing --dump argument" "$NESSIE" "$tmp/ok.nesl" --dump
check 2 "two files" "$NESSIE" --types "$tmp/ok.nesl" "$tmp/ok.nesl"
rm -rf "$tmp"
# --interp: 0 even when a statement stops with a run-time error; 1 on compile errors
tmp=$(mktemp -d)
printf 'x = [1, 2];\nx[5];\n' > "$tmp/rt.nesl"
check 0 "--interp with a run-time error" "$NESSIE" --interp "$tmp/rt.nesl"
check 0 "--interp=eval" "$NESSIE" --interp=eval "$tmp/rt.nesl"
printf 'y = 1 + t;\n' > "$tmp/bad.nesl"
check 1 "--interp with a type error" "$NESSIE" --interp "$tmp/bad.nesl"
check 2 "unknown interpreter" "$NESSIE" --interp=nothing "$tmp/rt.nesl"
check 0 "-i FILE with no input" sh -c "'$NESSIE' -i '$tmp/rt.nesl' < /dev/null"
"$NESSIE" --interp "$tmp/rt.nesl" | grep -q '^error: .*rt.nesl:2:' || { echo "run-time error line"; exit 1; }
rm -rf "$tmp"
# FILE.lcu: λcu read back; it can only be printed or run
tmp=$(mktemp -d)
printf 'function sqr(x) = x * x;\nsqr(3);\n' > "$tmp/ok.nesl"
"$NESSIE" --dump=lcu "$tmp/ok.nesl" > "$tmp/ok.lcu"
printf 'kernel K1 (\n' > "$tmp/bad.lcu"
check 0 "--dump=lcu FILE.lcu" "$NESSIE" --dump=lcu "$tmp/ok.lcu"
check 0 "--interp=lcu FILE.lcu" "$NESSIE" --check-ir --interp=lcu "$tmp/ok.lcu"
check 1 "a malformed .lcu" "$NESSIE" --dump=lcu "$tmp/bad.lcu"
check 2 "--interp=flat FILE.lcu" "$NESSIE" --interp=flat "$tmp/ok.lcu"
check 2 "--dump=flat FILE.lcu" "$NESSIE" --dump=flat "$tmp/ok.lcu"
check 2 "FILE.lcu alone" "$NESSIE" "$tmp/ok.lcu"
"$NESSIE" --interp=lcu "$tmp/ok.lcu" | grep -q '^it = 9 : int$' || { echo "--interp=lcu FILE.lcu: the transcript"; exit 1; }
rm -rf "$tmp"
