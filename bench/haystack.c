/*
 * haystack.c — see haystack.h.
 */
#include "bench/haystack.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/testlib.h"

int eg_haystack_load(const char *data, long questions, const char *embedder, int parallel,
                     double max_failed_pct, eg_haystack *h) {
  char *dir = eg_test_tempdir("bench-haystack");
  char path[4200];
  snprintf(path, sizeof path, "%s/sessions.jsonl", dir);
  if (eg_lme_write_sessions(data, questions, path, &h->written)) {
    fprintf(stderr, "cannot read %s or write %s\n", data, path);
    return -1;
  }
  setenv("ENGRAM_EMBEDDER", embedder, 1);
  eg_err e;
  if (eg_cluster_start(&h->cl, NULL, &e)) {
    fprintf(stderr, "cluster: %s\n", e.msg);
    return -1;
  }
  eg_rpc_client *c = NULL;
  eg_rpc_client_opts co = {.timeout_us = 600 * 1000000LL};
  eg_code rc = eg_rpc_client_open(h->cl.d[EG_INGESTD].addr, &co, &c, &e);
  if (!rc) {
    eg_bulk_opts o = {
        .path = path, .client = c, .tenant = "bench", .parallel = parallel, .progress = isatty(2)};
    rc = eg_bulk_run(&o, &h->ingest, &e);
    eg_rpc_client_close(c);
  }
  if (rc || (double)h->ingest.failed * 100.0 > max_failed_pct * (double)h->ingest.lines) {
    fprintf(stderr, "ingest: %s, %llu sessions refused\n", rc ? e.msg : "ok",
            (unsigned long long)h->ingest.failed);
    eg_cluster_stop(&h->cl, true);
    return -1;
  }
  eg_test_rmtree(dir);
  free(dir);
  return 0;
}
