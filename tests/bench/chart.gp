# tests/bench/chart.gp: the chart of a benchmark run (make bench-chart):
#   gnuplot -e "datafile='ratios.dat'; outfile='ratios.png'" tests/bench/chart.gp
# ratios.dat (written by harness.py): per benchmark, the time of nessie,
# of nessie without fusion (-O0), of the best peer (JAX or CuPy; the
# call from Python) and of the best peer's device time (a fifth column
# that files written before it lack), each over the hand-written
# baseline's time; ? where there is none.
if (!exists("datafile")) datafile = 'tests/bench/ratios.dat'
if (!exists("outfile")) outfile = 'tests/bench/ratios.png'
title_line = system("sed -n '1s/^# //p' " . datafile)
set terminal pngcairo size 1100,520 font ",10"
set output outfile
set title title_line
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y 10
set yrange [*:*]
set ylabel "time / hand-written baseline (log scale; 1 = as fast; lower is better)"
set grid ytics mytics
set xtics rotate by -35 scale 0
set key top left
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb "black"
# the peers' bars only where a peer ran (not on the CPU); their device
# times where the file has them
has_peer = system("awk '!/^#/ && $4 != \"?\" { print 1; exit }' " . datafile) eq "1"
has_device = system("awk '!/^#/ && NF >= 5 && $5 != \"?\" { print 1; exit }' " . datafile) eq "1"
if (has_device) {
  plot datafile using 2:xtic(1) title "nessie" lc rgb "#1f77b4", \
       '' using 3 title "nessie -O0 (no fusion)" lc rgb "#9ecae1", \
       '' using 4 title "best of JAX and CuPy (call, from Python)" lc rgb "#ff7f0e", \
       '' using 5 title "best of JAX and CuPy (device time)" lc rgb "#fdd0a2"
}
if (has_peer && !has_device) {
  plot datafile using 2:xtic(1) title "nessie" lc rgb "#1f77b4", \
       '' using 3 title "nessie -O0 (no fusion)" lc rgb "#9ecae1", \
       '' using 4 title "best of JAX and CuPy" lc rgb "#ff7f0e"
}
if (!has_peer) {
  plot datafile using 2:xtic(1) title "nessie" lc rgb "#1f77b4", \
       '' using 3 title "nessie -O0 (no fusion)" lc rgb "#9ecae1"
}
