/*
 * stage.h — per-stage timings of one request: appended to a response's repeated
 * StageTiming field and observed in a histogram labelled by stage.
 */
#ifndef EG_STAGE_H
#define EG_STAGE_H

#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/metrics.h"
#include "proto/engram/v1/common.pb-c.h"

/* Append (name, now − t0 µs) to *stages (n of them, arena-grown); observe it in hist
 * (a histogram with one label, "stage"; may be NULL). Returns now. name is borrowed. */
int64_t eg_stage_done(eg_arena *a, Engram__V1__StageTiming ***stages, size_t *n, const char *name,
                      int64_t t0, eg_metric *hist);

#endif
