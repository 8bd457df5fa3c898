#!/usr/bin/env bash
# What the machine charges any process for the work a chart render cannot
# avoid, measured with small C programs (gcc), to judge how fast a render
# can be here at all (docs/benchmarks.md, "The floor on this machine"):
#
# - a process that starts and exits at once (static C), and /bin/true;
# - a fresh page of anonymous memory touched (a page fault), alone and
#   with the process's exit (which frees it);
# - a fault on a page of an executable file in the page cache (the kernel
#   maps a 64 KiB window at each);
# - one CPUID instruction (a virtual machine traps it);
# - opening, reading and closing every template of a chart (all files
#   under templates/ directories), in one process.
#
# Usage: bench/os-costs.sh [CHART_DIR] [EXECUTABLE]
#   CHART_DIR   default: fixtures/helm/036-app-with-library
#   EXECUTABLE  the file whose pages are faulted (default: /bin/bash)
set -euo pipefail
cd "$(dirname "$0")/.."
chart=${1:-fixtures/helm/036-app-with-library}
exe=${2:-/bin/bash}
command -v gcc >/dev/null || { echo "os-costs: gcc is needed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/probe.c" <<'EOF'
#include <cpuid.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#define ROUNDS 21
static double median(double *v) {
  qsort(v, ROUNDS, sizeof *v, cmp);
  return v[ROUNDS / 2];
}

/* Wall time of running argv to its end, in microseconds. */
static double run(char **argv) {
  double t0 = now();
  pid_t p = fork();
  if (p == 0) {
    execv(argv[0], argv);
    _exit(127);
  }
  int st;
  waitpid(p, &st, 0);
  return now() - t0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "touch") == 0) {
    /* The child of the page-and-exit probe. */
    size_t n = atoi(argv[2]);
    char *p = mmap(0, n * 4096 + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (size_t i = 0; i < n; i++) p[i * 4096] = 1;
    _exit(0);
  }
  const char *self = argv[1], *exe = argv[2], *list = argv[3];
  double v[ROUNDS];

  char *t0a[] = {(char *)self, "touch", "0", 0}, *t1a[] = {(char *)self, "touch", "512", 0};
  char *truea[] = {"/bin/true", 0};
  for (int r = 0; r < ROUNDS; r++) v[r] = run(t0a);
  double bare = median(v);
  for (int r = 0; r < ROUNDS; r++) v[r] = run(truea);
  printf("process start and exit, static C: %.0f us; /bin/true: %.0f us\n", bare, median(v));
  for (int r = 0; r < ROUNDS; r++) v[r] = run(t1a);
  printf("a fresh page touched, with the exit that frees it: %.2f us (512 pages)\n", (median(v) - bare) / 512);

  for (int r = 0; r < ROUNDS; r++) {
    size_t n = 512;
    char *p = mmap(0, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    double a = now();
    for (size_t i = 0; i < n; i++) p[i * 4096] = 1;
    v[r] = (now() - a) / n;
    munmap(p, n * 4096);
  }
  printf("a fresh page touched: %.2f us\n", median(v));

  int fd = open(exe, O_RDONLY);
  size_t len = lseek(fd, 0, SEEK_END);
  for (int r = 0; r < ROUNDS; r++) {
    volatile char *p = mmap(0, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    size_t n = 0;
    long s = 0;
    double a = now();
    for (size_t o = 0; o + 4096 < len; o += 65536, n++) s += p[o];
    v[r] = (now() - a) / n;
    munmap((void *)p, len);
  }
  printf("a page of %s faulted in (64 KiB apart): %.2f us\n", exe, median(v));

  for (int r = 0; r < ROUNDS; r++) {
    unsigned a, b, c, d;
    double t = now();
    for (int i = 0; i < 100; i++) __cpuid_count(7, 0, a, b, c, d);
    v[r] = (now() - t) / 100;
  }
  printf("one CPUID: %.2f us\n", median(v));

  char *names[4096];
  int n = 0;
  char line[4096];
  FILE *f = fopen(list, "r");
  while (n < 4096 && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    names[n++] = strdup(line);
  }
  static char buf[65536];
  long bytes = 0;
  for (int r = 0; r < ROUNDS; r++) {
    bytes = 0;
    double a = now();
    for (int i = 0; i < n; i++) {
      int g = open(names[i], O_RDONLY | O_CLOEXEC);
      ssize_t k;
      while ((k = read(g, buf, sizeof buf)) > 0) bytes += k;
      close(g);
    }
    v[r] = now() - a;
  }
  printf("reading the chart's %d templates (%ld bytes): %.0f us\n", n, bytes, median(v));
  return 0;
}
EOF
gcc -O2 -static "$work/probe.c" -o "$work/probe" 2>/dev/null || gcc -O2 "$work/probe.c" -o "$work/probe"
find "$chart" -type f -path '*/templates/*' | sort >"$work/templates.txt"
echo "chart: $chart; executable faulted: $exe"
"$work/probe" "$work/probe" "$exe" "$work/templates.txt"
