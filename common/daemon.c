/*
 * daemon.c — shared main() of the four daemons.
 */
#include "common/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/scope.h"
#include "common/time.h"

#ifndef EG_VERSION_STR
#define EG_VERSION_STR "0.0.0"
#endif
#ifndef EG_COMMIT_STR
#define EG_COMMIT_STR "unknown"
#endif

extern char **environ;

enum { MAX_COMMON = 24 };

struct eg_daemon {
  const eg_daemon_spec *spec;
  eg_cfg *cfg;
  eg_metrics *metrics;
  eg_auth *auth;              /* NULL with insecure_no_auth */
  eg_series *auth_refused[2]; /* UNAUTHENTICATED, PERMISSION_DENIED */
  void *state;                /* the daemon's own (spec->open) */
  eg_buf tls_cert, tls_key;   /* PEM when serving TLS */
  bool opened;
  eg_cfg_opt common[MAX_COMMON]; /* the common options (the configuration points into it) */
  size_t n_common;
  char grpc_def[32], metrics_def[32], data_def[64];
};

const char *eg_version(void) { return EG_VERSION_STR; }
const char *eg_build_commit(void) { return EG_COMMIT_STR; }
const eg_cfg *eg_daemon_cfg(const eg_daemon *d) { return d->cfg; }
eg_metrics *eg_daemon_metrics(const eg_daemon *d) { return d->metrics; }
const char *eg_daemon_name(const eg_daemon *d) { return d->spec->name; }

static double resident_bytes(void *arg) {
  (void)arg;
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, rss = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
    fclose(f);
  }
  return (double)rss * (double)sysconf(_SC_PAGESIZE);
}

/* The file system of the data directory (arg: its path), for disk-usage alerts. */
static double disk_free_bytes(void *arg) {
  struct statvfs v;
  return statvfs(arg, &v) == 0 ? (double)v.f_bavail * (double)v.f_frsize : 0;
}

static double disk_size_bytes(void *arg) {
  struct statvfs v;
  return statvfs(arg, &v) == 0 ? (double)v.f_blocks * (double)v.f_frsize : 0;
}

static double start_time_secs;
static double start_time(void *arg) {
  (void)arg;
  return start_time_secs;
}

/* mkdir -p */
static eg_code make_dirs(const char *path, eg_err *err) {
  char tmp[1024];
  if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
    return eg_err_set(err, EG_EINVAL, "data_dir path too long");
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(tmp, 0750) != 0 && errno != EEXIST)
      return eg_err_set(err, EG_EIO, "cannot create directory (errno %d)", errno);
    *p = '/';
  }
  if (mkdir(tmp, 0750) != 0 && errno != EEXIST)
    return eg_err_set(err, EG_EIO, "cannot create data_dir (errno %d)", errno);
  return EG_OK;
}

eg_code eg_daemon_write_ports(const char *path, const char *const *names, const int *ports,
                              size_t n, eg_err *err) {
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return eg_err_set(err, EG_EIO, "cannot write ports_file");
  for (size_t i = 0; i < n; i++) fprintf(f, "%s=%d\n", names[i], ports[i]);
  fprintf(f, "pid=%d\n", (int)getpid());
  if (fclose(f) != 0 || rename(tmp, path) != 0)
    return eg_err_set(err, EG_EIO, "cannot write ports_file");
  return EG_OK;
}

/* The server's authorize hook: the bearer token against the request's tenant. */
static eg_code authorize(void *ctx, eg_rpc_call *call, const ProtobufCMessage *req, eg_err *err) {
  eg_daemon *d = ctx;
  const char *tenant = eg_scope_tenant_of(req);
  const char *method = eg_rpc_method_path(call) + 1;
  eg_code rc = eg_auth_check(d->auth, eg_rpc_metadata(call, "authorization"), method,
                             tenant ? tenant : "", NULL, err);
  if (rc) {
    eg_series_add(d->auth_refused[rc == EG_EPERM], 1);
    EG_DEBUG("auth", "refused", "method=%s code=%s error=\"%s\"", method, eg_code_name(rc),
             err->msg);
  }
  return rc;
}

/* Tokens, or the loud opt-out. */
static eg_code auth_open(eg_daemon *d, eg_err *err) {
  const eg_cfg *c = d->cfg;
  const char *file = eg_cfg_str(c, "auth_tokens_file"), *inl = eg_cfg_str(c, "auth_tokens");
  if (eg_cfg_bool(c, "insecure_no_auth")) {
    if (*file || *inl)
      return eg_err_set(err, EG_EINVAL,
                        "insecure_no_auth and auth tokens are both set: choose one");
    EG_WARN("auth",
            "AUTHENTICATION IS OFF (insecure_no_auth): any caller can read, write and erase every "
            "tenant. For local development on loopback only; never expose this port",
            NULL);
    return EG_OK;
  }
  eg_auth_opts ao = {file, inl, eg_cfg_str(c, "service_token")};
  eg_code rc = eg_auth_open(&ao, &d->auth, err);
  if (rc) return rc;
  char name[128];
  snprintf(name, sizeof name, "engram_%s_auth_refused_total", d->spec->name);
  eg_metric *m = eg_metrics_counter(d->metrics, name,
                                    "Calls refused by authentication or authorization.", "code");
  const char *codes[2] = {"UNAUTHENTICATED", "PERMISSION_DENIED"};
  for (int i = 0; i < 2; i++) d->auth_refused[i] = eg_metric_series(m, &codes[i], 1);
  EG_INFO("auth", "bearer tokens required", "tokens=%d", eg_auth_count(d->auth));
  return EG_OK;
}

/* The certificate and key to serve with, both or neither. */
static eg_code tls_open(eg_daemon *d, eg_err *err) {
  const char *cert = eg_cfg_str(d->cfg, "tls_cert_file"), *key = eg_cfg_str(d->cfg, "tls_key_file");
  if (!*cert != !*key)
    return eg_err_set(err, EG_EINVAL, "tls_cert_file and tls_key_file go together");
  if (!*cert) return EG_OK;
  eg_code rc = eg_buf_read_file(&d->tls_cert, cert, err);
  if (!rc) rc = eg_buf_read_file(&d->tls_key, key, err);
  if (!rc && (!strstr(d->tls_cert.data, "-----BEGIN") || !strstr(d->tls_key.data, "-----BEGIN")))
    rc = eg_err_set(err, EG_EINVAL, "tls_cert_file and tls_key_file must hold PEM");
  if (!rc) EG_INFO("tls", "serving TLS", "cert=%s", cert);
  return rc;
}

/* Configuration only (so --help needs no state). */
static eg_code daemon_new(const eg_daemon_spec *spec, int argc, char **argv, eg_daemon **out,
                          eg_err *err) {
  eg_daemon *d = calloc(1, sizeof *d);
  if (!d) return eg_err_set(err, EG_ENOMEM, "out of memory");
  d->spec = spec;
  snprintf(d->grpc_def, sizeof d->grpc_def, "127.0.0.1:%d", spec->grpc_port);
  snprintf(d->metrics_def, sizeof d->metrics_def, "127.0.0.1:%d", spec->metrics_port);
  snprintf(d->data_def, sizeof d->data_def, "./var/%s", spec->name);
  const char *grpc_def = d->grpc_def, *metrics_def = d->metrics_def, *data_def = d->data_def;
  const eg_cfg_opt common[] = {
      {"grpc_addr", EG_CFG_STR, grpc_def, "gRPC listen address host:port (port 0 = any)", 0, 0, 0},
      {"metrics_addr", EG_CFG_STR, metrics_def,
       "Prometheus /metrics listen address host:port (empty = off)", 0, 0, 0},
      {"data_dir", EG_CFG_STR, data_def, "directory for this daemon's data", 0, 0, 0},
      {"cq_threads", EG_CFG_INT, "2", "gRPC completion-queue threads", 0, 1, 16},
      {"workers", EG_CFG_INT, "4", "handler worker threads", 0, 1, 256},
      {"queue_max", EG_CFG_INT, "1024", "calls waiting for a worker before RESOURCE_EXHAUSTED", 0,
       1, 1 << 20},
      {"max_message_bytes", EG_CFG_INT, "4m", "largest request or response message", 0, 1024,
       1 << 30},
      {"shutdown_grace_ms", EG_CFG_INT, "10000",
       "how long in-flight calls may finish on SIGTERM before they are cancelled", 0, 0, 3600000},
      {"log_level", EG_CFG_STR, "info", "debug, info, warn or error", 0, 0, 0},
      {"ports_file", EG_CFG_STR, "", "write the bound ports here after start (for tests)", 0, 0, 0},
      {"auth_tokens_file", EG_CFG_STR, "",
       "token lines '<tenant> sha256:<hex> [user|admin]' (reloaded on SIGHUP)", 0, 0, 0},
      {"auth_tokens", EG_CFG_STR, "", "token lines as in the file, separated by ';'", EG_CFG_SECRET,
       0, 0},
      {"service_token", EG_CFG_STR, "",
       "daemon-to-daemon token: sent to peers, accepted for any tenant", EG_CFG_SECRET, 0, 0},
      {"insecure_no_auth", EG_CFG_BOOL, "false",
       "serve without authentication (local development only)", 0, 0, 0},
      {"tls_cert_file", EG_CFG_STR, "", "PEM certificate (chain): serve gRPC and /metrics over TLS",
       0, 0, 0},
      {"tls_key_file", EG_CFG_STR, "", "PEM private key of tls_cert_file", 0, 0, 0},
      {"tls_ca_file", EG_CFG_STR, "",
       "PEM roots: call peers over TLS and verify their certificates", 0, 0, 0},
      {"tls_server_name", EG_CFG_STR, "",
       "name peers' certificates must carry (default: the address's host)", 0, 0, 0},
  };
  _Static_assert(sizeof common / sizeof *common <= MAX_COMMON, "MAX_COMMON too small");
  memcpy(d->common, common, sizeof common);
  d->n_common = sizeof common / sizeof *common;
  const eg_cfg_opt *tables[2] = {d->common, spec->opts};
  size_t sizes[2] = {d->n_common, spec->n_opts};
  eg_code rc = eg_cfg_load(tables, sizes, spec->opts ? 2 : 1, argc, argv, environ, &d->cfg, err);
  if (rc) {
    free(d);
    return rc;
  }
  *out = d;
  return EG_OK;
}

/* Logging, data directory, metrics, auth, then the daemon's own state. */
static eg_code daemon_start(eg_daemon *d, eg_err *err) {
  const eg_daemon_spec *spec = d->spec;
  int level = eg_log_level_parse(eg_cfg_str(d->cfg, "log_level"));
  if (level < 0) return eg_err_set(err, EG_EINVAL, "log_level must be debug, info, warn or error");
  eg_log_init(spec->name, (eg_log_level)level);
  EG_INFO("main", "starting", "version=%s commit=%s", eg_version(), eg_build_commit());
  eg_cfg_log(d->cfg, "config");
  eg_code rc = make_dirs(eg_cfg_str(d->cfg, "data_dir"), err);
  if (rc) return rc;
  d->metrics = eg_metrics_new();
  start_time_secs = (double)eg_time_now_us() / 1e6;
  char name[128];
  snprintf(name, sizeof name, "engram_%s_process_resident_memory_bytes", spec->name);
  eg_metrics_gauge_fn(d->metrics, name, "Resident set size of the daemon.", resident_bytes, NULL);
  snprintf(name, sizeof name, "engram_%s_data_disk_free_bytes", spec->name);
  eg_metrics_gauge_fn(d->metrics, name,
                      "Bytes available to the daemon on the file system of its data_dir.",
                      disk_free_bytes, (void *)eg_cfg_str(d->cfg, "data_dir"));
  snprintf(name, sizeof name, "engram_%s_data_disk_size_bytes", spec->name);
  eg_metrics_gauge_fn(d->metrics, name, "Size of the file system of its data_dir.", disk_size_bytes,
                      (void *)eg_cfg_str(d->cfg, "data_dir"));
  snprintf(name, sizeof name, "engram_%s_start_time_seconds", spec->name);
  eg_metrics_gauge_fn(d->metrics, name, "Start time since the Unix epoch.", start_time, NULL);
  const char *bi[3] = {spec->name, eg_version(), eg_build_commit()};
  eg_series_set(
      eg_metric_series(eg_metrics_gauge(d->metrics, "engram_build_info",
                                        "Build information (always 1).", "daemon,version,commit"),
                       bi, 3),
      1);
  if ((rc = auth_open(d, err)) || (rc = tls_open(d, err))) return rc;
  if (spec->open && (rc = spec->open(d, &d->state, err))) return rc;
  d->opened = true;
  return EG_OK;
}

eg_code eg_daemon_open(const eg_daemon_spec *spec, int argc, char **argv, eg_daemon **out,
                       eg_err *err) {
  eg_daemon *d = NULL;
  eg_code rc = daemon_new(spec, argc, argv, &d, err);
  if (!rc && (rc = daemon_start(d, err))) {
    eg_daemon_close(d);
    d = NULL;
  }
  *out = d;
  return rc;
}

size_t eg_daemon_services(eg_daemon *d, const eg_rpc_service **out) {
  *out = NULL;
  return d->opened && d->spec->services ? d->spec->services(d->state, out) : 0;
}

void eg_daemon_close(eg_daemon *d) {
  if (!d) return;
  if (d->opened && d->spec->close) d->spec->close(d->state);
  eg_metrics_free(d->metrics);
  eg_auth_free(d->auth);
  eg_cfg_free(d->cfg);
  if (d->tls_key.data) OPENSSL_cleanse(d->tls_key.data, d->tls_key.len);
  eg_buf_free(&d->tls_key);
  eg_buf_free(&d->tls_cert);
  free(d);
}

/*
 * Signals. SIGINT, SIGTERM and SIGHUP are blocked in the main thread before it starts any
 * thread, so every thread of ours (and of gRPC, RocksDB, OpenMP, created later) inherits
 * the mask. Threads that a library starts while it is being loaded (OpenBLAS's pool, before
 * any constructor of the program runs) cannot be reached that way: a process-directed
 * signal may land on one of them, and with the default action it would kill the process
 * mid-shutdown. So the signals also get a real handler, which only writes the signal's
 * number to a pipe (write is async-signal-safe); the main thread reads the pipe and does
 * the work. Whatever thread a signal lands on, it ends up as one byte on the pipe.
 * The pipe is a process global because a signal handler has no other way to find it.
 */
static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP};
static int signal_pipe[2] = {-1, -1};

static void forward_signal(int sig) {
  int saved = errno;
  unsigned char b = (unsigned char)sig;
  /* Non-blocking: if the pipe is full, enough wake-ups are already queued. */
  ssize_t n = write(signal_pipe[1], &b, 1);
  (void)n;
  errno = saved;
}

static void handled_set(sigset_t *set) {
  sigemptyset(set);
  for (size_t i = 0; i < sizeof handled_signals / sizeof *handled_signals; i++)
    sigaddset(set, handled_signals[i]);
}

void eg_daemon_signals_init(void) {
  if (signal_pipe[0] >= 0) return;
  sigset_t set;
  handled_set(&set);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  if (pipe2(signal_pipe, O_CLOEXEC) != 0) {
    /* Without the pipe the handler has nowhere to forward to: keep the default action. */
    signal_pipe[0] = signal_pipe[1] = -1;
    return;
  }
  fcntl(signal_pipe[1], F_SETFL, O_NONBLOCK);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = forward_signal;
  sa.sa_mask = set; /* one at a time */
  sa.sa_flags = SA_RESTART;
  for (size_t i = 0; i < sizeof handled_signals / sizeof *handled_signals; i++)
    sigaction(handled_signals[i], &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

/* The next signal forwarded by the handler. The main thread takes the signals itself only
 * while it waits here (so a signal never interrupts its start-up or shutdown work). */
int eg_daemon_next_signal(void) {
  sigset_t set;
  handled_set(&set);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  unsigned char b = 0;
  ssize_t n;
  do n = read(signal_pipe[0], &b, 1);
  while (n < 0 && errno == EINTR);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  return n == 1 ? b : SIGTERM; /* a broken pipe cannot happen; if it did, stop */
}

int eg_daemon_main(const eg_daemon_spec *spec, int argc, char **argv) {
  eg_err err;
  eg_err_clear(&err);
  eg_log_init(spec->name, EG_LOG_INFO);
  eg_daemon *d = NULL;
  if (daemon_new(spec, argc, argv, &d, &err)) {
    fprintf(stderr, "%s: %s\n", spec->name, err.msg);
    return 2;
  }
  if (eg_cfg_help_requested(d->cfg)) {
    printf("%s — %s\n\nusage: %s [--option value]…\n\noptions (flag, environment, default):\n",
           spec->name, spec->summary, spec->name);
    eg_cfg_usage(d->cfg, stdout);
    eg_daemon_close(d);
    return 0;
  }
  /* Done already by the daemon's constructor; again for a main() that has none. */
  eg_daemon_signals_init();
  if (signal_pipe[0] < 0) {
    fprintf(stderr, "%s: cannot create the signal pipe (errno %d)\n", spec->name, errno);
    eg_daemon_close(d);
    return 1;
  }

  int exit_code = 1;
  eg_rpc_server *server = NULL;
  eg_metrics_http *http = NULL;
  if (daemon_start(d, &err)) goto done;
  const eg_rpc_service *services = NULL;
  size_t n_services = eg_daemon_services(d, &services);
  const char *maddr = eg_cfg_str(d->cfg, "metrics_addr");
  int mport = 0;
  if (*maddr) {
    if (eg_metrics_https_start(d->metrics, maddr, d->tls_cert.data, d->tls_key.data, &http, &err))
      goto done;
    mport = eg_metrics_http_port(http);
  }
  eg_rpc_server_opts so = {
      .addr = eg_cfg_str(d->cfg, "grpc_addr"),
      .daemon = spec->name,
      .cq_threads = (int)eg_cfg_int(d->cfg, "cq_threads"),
      .workers = (int)eg_cfg_int(d->cfg, "workers"),
      .queue_max = (int)eg_cfg_int(d->cfg, "queue_max"),
      .max_message_bytes = (int)eg_cfg_int(d->cfg, "max_message_bytes"),
      .metrics = d->metrics,
      .tls_cert_pem = d->tls_cert.data,
      .tls_key_pem = d->tls_key.data,
      .authorize = d->auth ? authorize : NULL,
      .authorize_ctx = d,
  };
  if (eg_rpc_server_start(&so, services, n_services, &server, &err)) goto done;
  if (spec->started && spec->started(d->state, eg_rpc_server_port(server), &err)) goto done;
  const char *pf = eg_cfg_str(d->cfg, "ports_file");
  const char *port_names[2] = {"grpc", "metrics"};
  const int ports[2] = {eg_rpc_server_port(server), mport};
  if (*pf && eg_daemon_write_ports(pf, port_names, ports, 2, &err)) goto done;
  EG_INFO("main", "ready", "grpc_port=%d metrics_port=%d", eg_rpc_server_port(server), mport);

  for (;;) {
    int sig = eg_daemon_next_signal();
    if (sig == SIGHUP) {
      EG_INFO("main", "SIGHUP: reloading", NULL);
      eg_err rerr;
      if (d->auth && eg_auth_reload(d->auth, &rerr))
        EG_ERROR("auth", "reload failed; the previous tokens stay in force", "error=\"%s\"",
                 rerr.msg);
      else if (d->auth)
        EG_INFO("auth", "tokens reloaded", "tokens=%d", eg_auth_count(d->auth));
      if (spec->reload) spec->reload(d->state);
      continue;
    }
    EG_INFO("main", "signal received, shutting down", "signal=%d", sig);
    break;
  }
  eg_rpc_server_shutdown(server, eg_cfg_int(d->cfg, "shutdown_grace_ms") * 1000);
  exit_code = 0;

done:
  if (err.code) EG_ERROR("main", "fatal", "code=%s error=\"%s\"", eg_code_name(err.code), err.msg);
  eg_rpc_server_free(server);
  eg_metrics_http_stop(http);
  eg_daemon_close(d);
  if (!exit_code) EG_INFO("main", "stopped", NULL);
  return exit_code;
}
