// TPC-H Q1 and Q6 and a memory-bandwidth sum over lineitem's columns, in C with OpenMP: the
// physical limit the engine is compared with. Reads dbgen's lineitem.tbl into columns (not timed),
// then times each kernel: one warm-up, then `runs` timed runs. One JSON object per output line.
// With `serve`, it warms each kernel up once and then answers requests on stdin, one a line
// (`q1 3`: three timed runs of q1), so a harness can time it between its own runs, under the
// same conditions, instead of minutes apart.
//
// usage: tpch-native <lineitem.tbl> [threads (default: all)] [runs (default 3)] [serve]

#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  size_t n;
  double *quantity, *extendedprice, *discount, *tax;
  int32_t *shipdate; // days since 1970-01-01, as the engine's DATE
  uint8_t *returnflag, *linestatus;
} Lineitem;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
static int32_t days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// dbgen money/quantity text: -?digits(.digits)?
static double parse_number(const char **p) {
  const char *s = *p;
  int neg = 0;
  if (*s == '-') neg = 1, s++;
  int64_t whole = 0;
  while (*s >= '0' && *s <= '9') whole = whole * 10 + (*s++ - '0');
  double v = (double)whole;
  if (*s == '.') {
    s++;
    int64_t frac = 0, scale = 1;
    while (*s >= '0' && *s <= '9') frac = frac * 10 + (*s++ - '0'), scale *= 10;
    // Same rounding as parsing the decimal text: an exact integer divided by a power of ten.
    v = (double)(whole * scale + frac) / (double)scale;
  }
  *p = s;
  return neg ? -v : v;
}

static const char *skip_fields(const char *s, int k) {
  while (k > 0) {
    if (*s++ == '|') k--;
  }
  return s;
}

static void *xmalloc(size_t bytes) {
  void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  return p;
}

static Lineitem load(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)size + 1);
  if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  buf[size] = 0;
  fclose(f);
  size_t n = 0;
  for (long i = 0; i < size; i++) n += buf[i] == '\n';
  Lineitem li = {.n = n};
  li.quantity = xmalloc(n * sizeof(double));
  li.extendedprice = xmalloc(n * sizeof(double));
  li.discount = xmalloc(n * sizeof(double));
  li.tax = xmalloc(n * sizeof(double));
  li.shipdate = xmalloc(n * sizeof(int32_t));
  li.returnflag = xmalloc(n);
  li.linestatus = xmalloc(n);
  const char *s = buf;
  for (size_t i = 0; i < n; i++) {
    // orderkey|partkey|suppkey|linenumber|quantity|extendedprice|discount|tax|returnflag|linestatus|shipdate|...
    s = skip_fields(s, 4);
    li.quantity[i] = parse_number(&s), s++;
    li.extendedprice[i] = parse_number(&s), s++;
    li.discount[i] = parse_number(&s), s++;
    li.tax[i] = parse_number(&s), s++;
    li.returnflag[i] = (uint8_t)s[0];
    li.linestatus[i] = (uint8_t)s[2];
    s += 4;
    li.shipdate[i] = days_from_civil(atoi(s), atoi(s + 5), atoi(s + 8));
    s = strchr(s, '\n') + 1;
  }
  free(buf);
  return li;
}

// ── Q1: group by (returnflag, linestatus) over shipdate <= 1998-12-01 - 90 days ─────────────────
#define GROUPS 8 // returnflag A/N/R x linestatus F/O, padded
typedef struct {
  double sum_qty, sum_base, sum_disc_price, sum_charge, sum_disc;
  int64_t count;
} Q1Acc;

static Q1Acc q1_result[GROUPS];

static double run_q1(const Lineitem *li, double *check) {
  const int32_t cutoff = days_from_civil(1998, 12, 1) - 90;
  uint8_t rf_code[256] = {0}, ls_code[256] = {0};
  rf_code['A'] = 0, rf_code['N'] = 1, rf_code['R'] = 2;
  ls_code['F'] = 0, ls_code['O'] = 1;
  memset(q1_result, 0, sizeof q1_result);
#pragma omp parallel
  {
    Q1Acc acc[GROUPS];
    memset(acc, 0, sizeof acc);
#pragma omp for schedule(static) nowait
    for (size_t i = 0; i < li->n; i++) {
      if (li->shipdate[i] <= cutoff) {
        Q1Acc *a = &acc[rf_code[li->returnflag[i]] * 2 + ls_code[li->linestatus[i]]];
        const double price = li->extendedprice[i], disc = li->discount[i];
        const double disc_price = price * (1 - disc);
        a->sum_qty += li->quantity[i];
        a->sum_base += price;
        a->sum_disc_price += disc_price;
        a->sum_charge += disc_price * (1 + li->tax[i]);
        a->sum_disc += disc;
        a->count++;
      }
    }
#pragma omp critical
    for (int g = 0; g < GROUPS; g++) {
      q1_result[g].sum_qty += acc[g].sum_qty;
      q1_result[g].sum_base += acc[g].sum_base;
      q1_result[g].sum_disc_price += acc[g].sum_disc_price;
      q1_result[g].sum_charge += acc[g].sum_charge;
      q1_result[g].sum_disc += acc[g].sum_disc;
      q1_result[g].count += acc[g].count;
    }
  }
  int rows = 0;
  int64_t total = 0;
  for (int g = 0; g < GROUPS; g++) rows += q1_result[g].count > 0, total += q1_result[g].count;
  *check = (double)total;
  return rows;
}

// ── Q6: sum(extendedprice * discount) over a year of shipdate, discount 0.05..0.07, quantity < 24 ─
static double run_q6(const Lineitem *li, double *check) {
  const int32_t lo = days_from_civil(1994, 1, 1), hi = days_from_civil(1995, 1, 1);
  const double *price = li->extendedprice, *disc = li->discount, *qty = li->quantity;
  const int32_t *ship = li->shipdate;
  double revenue = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : revenue)
  for (size_t i = 0; i < li->n; i++) {
    const int keep = ship[i] >= lo && ship[i] < hi && disc[i] >= 0.05 && disc[i] <= 0.07 && qty[i] < 24;
    revenue += keep ? price[i] * disc[i] : 0.0;
  }
  *check = revenue;
  return 1;
}

// ── Bandwidth: read every byte of the seven columns once ─────────────────────────────────────────
static double run_bandwidth(const Lineitem *li, double *check) {
  double sum = 0;
  int64_t isum = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum, isum)
  for (size_t i = 0; i < li->n; i++) {
    sum += li->quantity[i] + li->extendedprice[i] + li->discount[i] + li->tax[i];
    isum += li->shipdate[i] + li->returnflag[i] + li->linestatus[i];
  }
  *check = sum + (double)isum;
  return (double)li->n;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef double (*Kernel)(const Lineitem *, double *);

static void bench(const char *name, Kernel k, const Lineitem *li, int threads, int runs, int warm_up) {
  double check = 0;
  if (warm_up) k(li, &check); // page faults, caches, thread start
  double *ms = malloc(sizeof(double) * (size_t)runs), *sorted = malloc(sizeof(double) * (size_t)runs);
  double rows = 0;
  for (int r = 0; r < runs; r++) {
    const double t0 = now_ms();
    rows = k(li, &check);
    ms[r] = now_ms() - t0;
  }
  memcpy(sorted, ms, sizeof(double) * (size_t)runs);
  qsort(sorted, (size_t)runs, sizeof(double), cmp_double);
  const double median = runs % 2 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
  printf("{\"kind\":\"kernel\",\"name\":\"%s\",\"threads\":%d,\"rows\":%.0f,\"median_ms\":%.4f,\"runs_ms\":[", name, threads, rows, median);
  for (int r = 0; r < runs; r++) printf("%s%.4f", r ? "," : "", ms[r]);
  printf("],\"check\":%.4f", check);
  if (strcmp(name, "bandwidth") == 0) {
    const double bytes = (double)li->n * (4 * sizeof(double) + sizeof(int32_t) + 2);
    printf(",\"bytes\":%.0f,\"gb_per_s\":%.3f", bytes, bytes / (median / 1e3) / 1e9);
  }
  printf("}\n");
  fflush(stdout);
  free(ms);
  free(sorted);
}

static const struct {
  const char *name;
  Kernel kernel;
} KERNELS[] = {{"q1", run_q1}, {"q6", run_q6}, {"bandwidth", run_bandwidth}};
#define KERNEL_COUNT (sizeof(KERNELS) / sizeof(KERNELS[0]))

// Answers `<kernel> <runs>` lines until stdin ends; an unknown request gets an error object.
static int serve(const Lineitem *li, int threads) {
  double check = 0;
  for (size_t i = 0; i < KERNEL_COUNT; i++) KERNELS[i].kernel(li, &check);
  printf("{\"kind\":\"ready\"}\n");
  fflush(stdout);
  char line[128], name[32];
  int runs;
  while (fgets(line, sizeof line, stdin)) {
    size_t i = KERNEL_COUNT;
    if (sscanf(line, "%31s %d", name, &runs) == 2 && runs > 0 && runs <= 1000)
      for (i = 0; i < KERNEL_COUNT && strcmp(KERNELS[i].name, name) != 0; i++) {
      }
    if (i == KERNEL_COUNT) {
      printf("{\"kind\":\"error\",\"message\":\"expected <q1|q6|bandwidth> <runs 1-1000>\"}\n");
      fflush(stdout);
      continue;
    }
    bench(KERNELS[i].name, KERNELS[i].kernel, li, threads, runs, 0);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <lineitem.tbl> [threads] [runs]\n", argv[0]);
    return 2;
  }
  const int threads = argc > 2 ? atoi(argv[2]) : omp_get_max_threads();
  const int runs = argc > 3 ? atoi(argv[3]) : 3;
  if (threads < 1 || runs < 1) {
    fprintf(stderr, "threads and runs must be positive\n");
    return 2;
  }
  omp_set_num_threads(threads);
  const double t0 = now_ms();
  const Lineitem li = load(argv[1]);
  printf("{\"kind\":\"load\",\"rows\":%zu,\"ms\":%.1f}\n", li.n, now_ms() - t0);
  fflush(stdout);
  if (argc > 4 && strcmp(argv[4], "serve") == 0) return serve(&li, threads);
  bench("q1", run_q1, &li, threads, runs, 1);
  bench("q6", run_q6, &li, threads, runs, 1);
  bench("bandwidth", run_bandwidth, &li, threads, runs, 1);
  return 0;
}
