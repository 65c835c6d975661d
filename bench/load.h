/*
 * load.h — `engram-bench load`: many clients, mixed ingest and Recall with tokens, for a
 * fixed time; errors, p50/p99 and each daemon's RSS over the run. argv[0] is "load".
 */
#ifndef EG_BENCH_LOAD_H
#define EG_BENCH_LOAD_H

int eg_bload_main(int argc, char **argv);

#endif
