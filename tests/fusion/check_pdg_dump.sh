# --dump=pdg and --dump=ilp print what fusion made: norm2's one region as
# a Graphviz digraph that dot reads (where dot is installed), with its
# five runs and its FILTER-REDUCE edge, and its model in CPLEX LP format.
# (Both dumps once came out empty: the text of the memory streams was
# read before fclose had written it.)
set -u
pdg=$("$NESSIE" --check-ir --dump=pdg tests/lcu/norm2.nesl) || { echo "--dump=pdg failed"; exit 1; }
printf '%s\n' "$pdg" | head -1 | grep -q '^digraph pdg {$' || { echo "no digraph: $pdg"; exit 1; }
nodes=$(printf '%s\n' "$pdg" | grep -c '^ *r1_n[0-9]* \[label=')
[ "$nodes" -eq 5 ] || { echo "expected 5 runs in norm2's region, got $nodes"; printf '%s\n' "$pdg"; exit 1; }
printf '%s\n' "$pdg" | grep -q 'label="FILTER-REDUCE"' || { echo "no FILTER-REDUCE edge"; printf '%s\n' "$pdg"; exit 1; }
if command -v dot > /dev/null 2>&1; then
  printf '%s\n' "$pdg" | dot -Tsvg > /dev/null || { echo "dot rejects the dump"; exit 1; }
fi
ilp=$("$NESSIE" --check-ir --dump=ilp tests/lcu/norm2.nesl) || { echo "--dump=ilp failed"; exit 1; }
printf '%s\n' "$ilp" | grep -q '^Minimize' || { echo "no LP model: $ilp"; exit 1; }
printf '%s\n' "$ilp" | grep -q '^End' || { echo "the LP model does not end: $ilp"; exit 1; }
exit 0
