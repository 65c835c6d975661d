/*
 * harness.h — start real Engram daemons for integration tests and benchmarks.
 *
 * Each daemon runs as a child process on 127.0.0.1 with gRPC and metrics on port 0
 * (the kernel picks free ports; the daemon writes them to a ports file, so there is
 * no race), its data and log in a temp directory. Logs are kept when a test failed.
 */
#ifndef EG_HARNESS_H
#define EG_HARNESS_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/err.h"

typedef struct eg_proc {
  char name[16]; /* "graphd" */
  pid_t pid;     /* 0 when not running */
  int grpc_port;
  int metrics_port;
  char addr[64];  /* "127.0.0.1:<grpc_port>" */
  char log[512];  /* path of its stderr log */
  char data[512]; /* its data_dir */
} eg_proc;

enum { EG_INGESTD = 0, EG_GRAPHD = 1, EG_VECTORD = 2, EG_RECALLD = 3, EG_N_DAEMONS = 4 };

typedef struct eg_cluster {
  char *dir;               /* temp dir holding data and logs (owned) */
  eg_proc d[EG_N_DAEMONS]; /* indexed by EG_INGESTD … */
} eg_cluster;

/* Daemon names, indexed as above. */
extern const char *const eg_daemon_names[EG_N_DAEMONS];

/*
 * Start one daemon `name` with data under dir, extra flags appended (NULL-terminated,
 * may be NULL). Without an --auth-tokens… flag in extra it runs with --insecure-no-auth;
 * with --tls-ca-file=F the health check that waits for it goes over TLS, trusting F. Waits until
 * its ports file appears and Health/Check says SERVING (up to 20 s). On failure the process is
 * killed and its log printed.
 */
eg_code eg_harness_start(const char *name, const char *dir, const char *const *extra, eg_proc *out,
                         eg_err *err);
/* Restart a stopped daemon with the same data dir and ports (so the daemons calling it
 * reconnect), the flags given again. */
eg_code eg_harness_restart(eg_proc *p, const char *const *extra, eg_err *err);
/* Send sig and wait for exit (up to 30 s, then SIGKILL). Returns the exit status
 * (128+signal when killed by one). */
int eg_harness_stop(eg_proc *p, int sig);

/* All four in a fresh temp dir: graphd and vectord first, then ingestd and recalld
 * pointed at them. extra flags go to every daemon. */
eg_code eg_cluster_start(eg_cluster *c, const char *const *extra, eg_err *err);
/* SIGTERM all; remove the temp dir unless keep (then print where the logs are). */
void eg_cluster_stop(eg_cluster *c, bool keep);

/* Health/Check of `service` ("" = server) at addr; *status is the ServingStatus. */
eg_code eg_health_at(const char *addr, const char *service, int *status, eg_err *err);
/* The same over TLS, verifying the server with the PEM roots in ca_file (NULL = plaintext). */
eg_code eg_health_at_tls(const char *addr, const char *service, const char *ca_file, int *status,
                         eg_err *err);

/* GET http://127.0.0.1:port/path into out (body only); returns the HTTP status or -1. */
int eg_http_get(int port, const char *path, eg_buf *out);
/* The value of a series ("name" or "name{labels}") on a daemon's /metrics; -1 if absent. */
double eg_metric_value(int metrics_port, const char *series);

/* GET /metrics of a daemon, write it to <dir>/<name>.metrics and run `promtool check
 * metrics` on it. Returns promtool's exit status (-1 when the scrape failed); the body is
 * left in *body (caller frees) when body is non-NULL. */
int eg_promtool_scrape(int metrics_port, const char *dir, const char *name, eg_buf *body);

/* Print a file to stderr (for logs of failed tests). */
void eg_dump_file(const char *path, size_t max_bytes);

#endif
