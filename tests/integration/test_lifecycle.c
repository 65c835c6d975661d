/*
 * test_lifecycle.c — a daemon's life as a process: the stop signals are handled on one
 * thread whichever thread the kernel picks (vectord loads OpenBLAS, whose threads start
 * before main), SIGINT and SIGTERM in quick succession or in a burst still end in a clean
 * exit 0 with "stopped" logged, SIGHUP reloads without stopping, and a second instance on
 * a locked data directory or a taken port exits non-zero saying which.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/testlib.h"

static char *dir;

/* The handled signals as a /proc status mask (bit n-1 for signal n). */
static const unsigned long long stop_mask =
    (1ull << (SIGINT - 1)) | (1ull << (SIGTERM - 1)) | (1ull << (SIGHUP - 1));

/* The hex mask on line `field` ("SigCgt:") of a /proc status file; 0 when absent. */
static unsigned long long status_mask(const char *path, const char *field) {
  char *text = eg_test_slurp(path);
  unsigned long long mask = 0;
  const char *at = strstr(text, field);
  if (at) mask = strtoull(at + strlen(field), NULL, 16);
  free(text);
  return mask;
}

static bool log_has(const eg_proc *p, const char *needle) {
  char *text = eg_test_slurp(p->log);
  bool found = strstr(text, needle) != NULL;
  free(text);
  return found;
}

/* Start vectord (it loads OpenBLAS through FAISS) in its own subdirectory. */
static bool start_vectord(const char *sub, eg_proc *p) {
  char d[600];
  snprintf(d, sizeof d, "%s/%s", dir, sub);
  if (eg_test_system("mkdir -p %s", d) != 0) return false;
  eg_err e;
  if (eg_harness_start("vectord", d, NULL, p, &e) == EG_OK) return true;
  fprintf(stderr, "vectord start: %s\n", e.msg);
  return false;
}

/* Send the signals back to back, then wait for the exit (eg_harness_stop with signal 0
 * sends nothing). A clean stop exits 0 and logs "stopped". */
static void signal_and_check_clean_exit(eg_proc *p, const int *sigs, int n) {
  for (int i = 0; i < n; i++) kill(p->pid, sigs[i]);
  eg_proc copy = *p;
  EG_CHECK_INT(eg_harness_stop(p, 0), 0);
  EG_CHECK(log_has(&copy, "msg=\"stopped\""));
  if (eg_test_failed()) eg_dump_file(copy.log, 3000);
}

/* The handler is installed for all three, and every thread gRPC and RocksDB start (named by
 * them) blocks them, so only the main thread and threads older than main can take one. */
static void test_signals_routed(void) {
  eg_proc p;
  EG_REQUIRE(start_vectord("routed", &p));
  char path[128];
  snprintf(path, sizeof path, "/proc/%d/status", (int)p.pid);
  EG_CHECK_INT(status_mask(path, "SigCgt:") & stop_mask, stop_mask);
  snprintf(path, sizeof path, "/proc/%d/task", (int)p.pid);
  DIR *tasks = opendir(path);
  EG_REQUIRE(tasks != NULL);
  int library_threads = 0;
  for (struct dirent *t; (t = readdir(tasks));) {
    if (t->d_name[0] == '.') continue;
    char file[300];
    snprintf(file, sizeof file, "/proc/%d/task/%s/comm", (int)p.pid, t->d_name);
    char *comm = eg_test_slurp(file);
    bool named = strncmp(comm, "vectord", 7) != 0;
    free(comm);
    if (!named) continue;
    library_threads++;
    snprintf(file, sizeof file, "/proc/%d/task/%s/status", (int)p.pid, t->d_name);
    EG_CHECK_INT(status_mask(file, "SigBlk:") & stop_mask, stop_mask);
  }
  closedir(tasks);
  EG_CHECK(library_threads > 0);
  EG_CHECK_INT(eg_harness_stop(&p, SIGTERM), 0);
}

static void test_int_then_term(void) {
  eg_proc p;
  EG_REQUIRE(start_vectord("int_term", &p));
  const int sigs[] = {SIGINT, SIGTERM};
  signal_and_check_clean_exit(&p, sigs, 2);
}

static void test_burst(void) {
  eg_proc p;
  EG_REQUIRE(start_vectord("burst", &p));
  int sigs[40];
  for (int i = 0; i < 40; i++) sigs[i] = i % 2 ? SIGTERM : SIGINT;
  signal_and_check_clean_exit(&p, sigs, 40);
}

static void test_hup_reloads_and_keeps_serving(void) {
  eg_proc p;
  EG_REQUIRE(start_vectord("hup", &p));
  for (int i = 0; i < 5; i++) kill(p.pid, SIGHUP);
  bool reloaded = false;
  for (int i = 0; i < 200 && !reloaded; i++) {
    reloaded = log_has(&p, "SIGHUP: reloading");
    if (!reloaded) usleep(10000);
  }
  EG_CHECK(reloaded);
  int st = 0;
  eg_err e;
  EG_CHECK_INT(eg_health_at(p.addr, "", &st, &e), EG_OK);
  EG_CHECK_INT(st, 1);
  const int sigs[] = {SIGTERM};
  signal_and_check_clean_exit(&p, sigs, 1);
}

/* A second graphd: its exit status, and its log in *log_text (caller frees). */
static int second_graphd(const char *data_dir, const char *grpc_addr, const char *metrics_addr,
                         char **log_text) {
  char log[600];
  snprintf(log, sizeof log, "%s/second.log", dir);
  unlink(log);
  int rc = eg_test_system(
      "%s/graphd --insecure-no-auth --data-dir '%s' --grpc-addr '%s' --metrics-addr '%s' "
      ">'%s' 2>&1",
      EG_BINARY_DIR, data_dir, grpc_addr, metrics_addr, log);
  *log_text = eg_test_slurp(log);
  return rc;
}

static void test_second_instance_refused(void) {
  char d[600];
  snprintf(d, sizeof d, "%s/first", dir);
  EG_REQUIRE(eg_test_system("mkdir -p %s", d) == 0);
  eg_proc first;
  eg_err e;
  EG_REQUIRE(eg_harness_start("graphd", d, NULL, &first, &e) == EG_OK);
  char *text = NULL, other[600], want[700], taken[64];

  /* the same data directory, free ports */
  EG_CHECK(second_graphd(first.data, "127.0.0.1:0", "", &text) != 0);
  snprintf(want, sizeof want, "data directory %s/graph is locked by another running instance",
           first.data);
  EG_CHECK(strstr(text, want) != NULL);
  if (eg_test_failed()) fprintf(stderr, "%s\n", text);
  free(text);

  /* the first one's gRPC port */
  snprintf(other, sizeof other, "%s/other-grpc", dir);
  snprintf(taken, sizeof taken, "127.0.0.1:%d", first.grpc_port);
  EG_CHECK(second_graphd(other, taken, "", &text) != 0);
  snprintf(want, sizeof want, "cannot listen on '%s'", taken);
  EG_CHECK(strstr(text, want) != NULL);
  free(text);

  /* the first one's metrics port */
  snprintf(other, sizeof other, "%s/other-metrics", dir);
  snprintf(taken, sizeof taken, "127.0.0.1:%d", first.metrics_port);
  EG_CHECK(second_graphd(other, "127.0.0.1:0", taken, &text) != 0);
  snprintf(want, sizeof want, "cannot listen for metrics on '%s'", taken);
  EG_CHECK(strstr(text, want) != NULL);
  free(text);

  /* and the first one still serves */
  int st = 0;
  EG_CHECK_INT(eg_health_at(first.addr, "", &st, &e), EG_OK);
  EG_CHECK_INT(st, 1);
  EG_CHECK_INT(eg_harness_stop(&first, SIGTERM), 0);
}

int main(void) {
  dir = eg_test_tempdir("lifecycle");
  if (!dir) return 1;
  EG_RUN(test_signals_routed);
  EG_RUN(test_int_then_term);
  EG_RUN(test_burst);
  EG_RUN(test_hup_reloads_and_keeps_serving);
  EG_RUN(test_second_instance_refused);
  int rc = eg_test_finish();
  if (rc)
    fprintf(stderr, "logs kept in %s\n", dir);
  else
    eg_test_rmtree(dir);
  free(dir);
  return rc;
}
