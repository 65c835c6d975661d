/*
 * daemon.h — the lifecycle every Engram daemon shares.
 *
 * eg_daemon_main: parse configuration (the common table below + the daemon's own),
 * log the effective config, open the daemon's state, start /metrics and the gRPC
 * server (with health), write the bound ports when asked, then wait for a signal.
 * SIGTERM/SIGINT shut down gracefully: health turns NOT_SERVING, in-flight calls finish
 * (up to shutdown_grace_ms), then state is closed and "stopped" is logged (exit 0).
 * SIGHUP calls the reload hook. Signals are handled on the main thread only, whichever
 * thread the kernel delivers them to (eg_daemon_signals_init).
 *
 * Common options (flags / ENGRAM_* env / config file):
 *   grpc_addr, metrics_addr, data_dir, cq_threads, workers, queue_max,
 *   max_message_bytes, shutdown_grace_ms, log_level, ports_file.
 */
#ifndef EG_DAEMON_H
#define EG_DAEMON_H

#include "common/cfg.h"
#include "common/metrics.h"
#include "common/rpc.h"

typedef struct eg_daemon eg_daemon;

typedef struct eg_daemon_spec {
  const char *name;       /* "graphd" */
  const char *summary;    /* one line for --help */
  int grpc_port;          /* default gRPC port (7101…) */
  int metrics_port;       /* default metrics port (9101…) */
  const eg_cfg_opt *opts; /* the daemon's own options (may be NULL) */
  size_t n_opts;
  /* Open state (storage, peers, models). *state is passed to the other hooks. */
  eg_code (*open)(eg_daemon *d, void **state, eg_err *err);
  /* The services to serve (besides health); the array is borrowed from state. */
  size_t (*services)(void *state, const eg_rpc_service **out);
  /* The gRPC server is up on grpc_port, not yet announced in ports_file (may be NULL):
   * for state that needs the address it serves on. A failure stops the daemon. */
  eg_code (*started)(void *state, int grpc_port, eg_err *err);
  /* SIGHUP (may be NULL). */
  void (*reload)(void *state);
  /* Close state after the server stopped (may be NULL). */
  void (*close)(void *state);
} eg_daemon_spec;

/* Run the daemon; returns the process exit code. */
int eg_daemon_main(const eg_daemon_spec *spec, int argc, char **argv);

/*
 * Route SIGINT, SIGTERM and SIGHUP to eg_daemon_main's loop: block them in the calling
 * thread (threads it starts afterwards inherit the mask) and install a handler that
 * forwards them through a pipe, for the threads libraries started before (OpenBLAS starts
 * its pool when it is loaded). Call it from the main thread before any thread of the
 * program starts; a daemon's main calls it from a constructor. Idempotent.
 */
void eg_daemon_signals_init(void);
/* Wait for the next SIGINT, SIGTERM or SIGHUP routed by eg_daemon_signals_init and return
 * its number (main thread only): for a program with a main loop of its own. */
int eg_daemon_next_signal(void);

/*
 * The daemon in this process without serving it (tests, fuzzing): configuration from
 * argv (argv[0] is skipped) and the environment, auth, metrics and the daemon's state,
 * exactly as eg_daemon_main opens them. Its services are then called in-process
 * (eg_rpc_invoke) or served by the caller.
 */
eg_code eg_daemon_open(const eg_daemon_spec *spec, int argc, char **argv, eg_daemon **out,
                       eg_err *err);
size_t eg_daemon_services(eg_daemon *d, const eg_rpc_service **out);
void eg_daemon_close(eg_daemon *d); /* accepts NULL */

/* Write "name=port" lines and "pid=<pid>" to path atomically (a temporary file renamed),
 * so that a reader never sees half of it: the ports_file of a test. */
eg_code eg_daemon_write_ports(const char *path, const char *const *names, const int *ports,
                              size_t n, eg_err *err);

/* For the hooks: borrowed for the daemon's lifetime. */
const eg_cfg *eg_daemon_cfg(const eg_daemon *d);
eg_metrics *eg_daemon_metrics(const eg_daemon *d);
const char *eg_daemon_name(const eg_daemon *d);

/* The build's version and commit (set by the build system). */
const char *eg_version(void);
const char *eg_build_commit(void);

#endif
