/* the check of quicksort and radixsort (their check(a)) */
static int sort_check(const int32_t *a, long n, double *v) {
  long descents = 0;
  double s = 0.0;
  for (long i = 0; i < n; i++) {
    if (i + 1 < n && a[i] > a[i + 1]) descents++;
    s += (double)nesl_mod(a[i], 1000);
  }
  v[0] = (double)n;
  v[1] = a[0];
  v[2] = a[n / 2];
  v[3] = a[n - 1];
  v[4] = (double)descents;
  v[5] = s;
  return 6;
}
