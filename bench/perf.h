/*
 * perf.h — `engram-bench perf`: the haystacks of the first N LongMemEval-S questions
 * ingested into one tenant through ingestd (tokens/min), then Recall p50/p99 under N
 * concurrent clients with the time per stage. argv[0] is "perf".
 */
#ifndef EG_BENCH_PERF_H
#define EG_BENCH_PERF_H

int eg_bperf_main(int argc, char **argv);

#endif
