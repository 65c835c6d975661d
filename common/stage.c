/*
 * stage.c — see stage.h.
 */
#include "common/stage.h"

#include <string.h>

#include "common/time.h"

int64_t eg_stage_done(eg_arena *a, Engram__V1__StageTiming ***stages, size_t *n, const char *name,
                      int64_t t0, eg_metric *hist) {
  int64_t now = eg_time_mono_us(), us = now - t0;
  Engram__V1__StageTiming **ns = eg_arena_alloc(a, (*n + 1) * sizeof *ns);
  Engram__V1__StageTiming *st = eg_arena_calloc(a, 1, sizeof *st);
  if (ns && st) {
    engram__v1__stage_timing__init(st);
    st->stage = (char *)name;
    st->micros = us;
    if (*n) memcpy(ns, *stages, *n * sizeof *ns);
    ns[(*n)++] = st;
    *stages = ns;
  }
  if (hist) {
    const char *l[1] = {name};
    eg_series_observe(eg_metric_series(hist, l, 1), (double)us / 1e6);
  }
  return now;
}
