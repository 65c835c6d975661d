/*
 * harness.c — child-process management for integration tests and benchmarks.
 */
#include "tests/harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/health_client.h"
#include "common/time.h"
#include "tests/testlib.h"

const char *const eg_daemon_names[EG_N_DAEMONS] = {"ingestd", "graphd", "vectord", "recalld"};

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

void eg_dump_file(const char *path, size_t max_bytes) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  if (size > (long)max_bytes)
    fseek(f, size - (long)max_bytes, SEEK_SET);
  else
    fseek(f, 0, SEEK_SET);
  fprintf(stderr, "---- %s ----\n", path);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, stderr);
  fprintf(stderr, "---- end ----\n");
  fclose(f);
}

static bool read_ports(const char *path, int *grpc, int *metrics) {
  FILE *f = fopen(path, "r");
  if (!f) return false;
  int ok = fscanf(f, "grpc=%d\nmetrics=%d", grpc, metrics);
  fclose(f);
  return ok == 2;
}

eg_code eg_health_at(const char *addr, const char *service, int *status, eg_err *err) {
  return eg_health_at_tls(addr, service, NULL, status, err);
}

eg_code eg_health_at_tls(const char *addr, const char *service, const char *ca_file, int *status,
                         eg_err *err) {
  eg_rpc_client *c = NULL;
  eg_rpc_client_opts o = {
      .timeout_us = 2 * EG_US_PER_SEC, .max_attempts = 1, .tls_ca_file = ca_file};
  eg_code rc = eg_rpc_client_open(addr, &o, &c, err);
  if (rc) return rc;
  rc = eg_health_status(c, service, status, err);
  eg_rpc_client_close(c);
  return rc;
}

static eg_code spawn(eg_proc *p, const char *const *extra, eg_err *err) {
  char bin[600], ports[600];
  snprintf(bin, sizeof bin, "%s/%s", EG_BINARY_DIR, p->name);
  snprintf(ports, sizeof ports, "%s.ports", p->data);
  unlink(ports);
  const char *argv[64];
  int n = 0;
  /* Port 0 the first time; a restart keeps the ports, so peers find it again. */
  char grpc_addr[40], metrics_addr[40];
  snprintf(grpc_addr, sizeof grpc_addr, "127.0.0.1:%d", p->grpc_port);
  snprintf(metrics_addr, sizeof metrics_addr, "127.0.0.1:%d", p->metrics_port);
  argv[n++] = bin;
  argv[n++] = "--grpc-addr";
  argv[n++] = grpc_addr;
  argv[n++] = "--metrics-addr";
  argv[n++] = metrics_addr;
  argv[n++] = "--data-dir";
  argv[n++] = p->data;
  argv[n++] = "--ports-file";
  argv[n++] = ports;
  bool tokens = false;
  const char *ca = NULL; /* a daemon given --tls-ca-file= serves TLS: check its health with it */
  for (; extra && *extra && n < 61; extra++) {
    tokens |= strncmp(*extra, "--auth-tokens", 13) == 0;
    if (!strncmp(*extra, "--tls-ca-file=", 14)) ca = *extra + 14;
    argv[n++] = *extra;
  }
  if (!tokens) argv[n++] = "--insecure-no-auth";
  argv[n] = NULL;
  pid_t pid = fork();
  if (pid < 0) return eg_err_set(err, EG_EINTERNAL, "fork failed");
  if (pid == 0) {
    /* a test that dies (abort, sanitizer) takes its daemons with it */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = open(p->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 2);
      dup2(fd, 1);
      close(fd);
    }
    /* Models installed by scripts/install-deps.sh into the source tree. */
    setenv("ENGRAM_MODELS_DIR", EG_SOURCE_DIR "/var/models", 0);
    setenv("ENGRAM_STATE_PROTOTYPES", EG_SOURCE_DIR "/lang/state_prototypes.txt", 0);
    setenv("ENGRAM_DERIVE_RULES", EG_SOURCE_DIR "/services/graphd/derive_rules.txt", 0);
    execv(bin, (char *const *)argv);
    _exit(127);
  }
  p->pid = pid;
  int64_t until = eg_time_mono_us() + 20 * EG_US_PER_SEC;
  while (eg_time_mono_us() < until) {
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      p->pid = 0;
      eg_dump_file(p->log, 4000);
      return eg_err_set(err, EG_EUNAVAIL, "%s exited during start-up", p->name);
    }
    if (read_ports(ports, &p->grpc_port, &p->metrics_port)) {
      snprintf(p->addr, sizeof p->addr, "127.0.0.1:%d", p->grpc_port);
      int status = 0;
      if (eg_health_at_tls(p->addr, "", ca, &status, NULL) == EG_OK && status == 1) return EG_OK;
    }
    sleep_ms(20);
  }
  eg_harness_stop(p, SIGKILL);
  eg_dump_file(p->log, 4000);
  return eg_err_set(err, EG_ETIMEOUT, "%s did not become SERVING in 20 s", p->name);
}

eg_code eg_harness_start(const char *name, const char *dir, const char *const *extra, eg_proc *out,
                         eg_err *err) {
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", name);
  snprintf(out->data, sizeof out->data, "%s/%s", dir, name);
  snprintf(out->log, sizeof out->log, "%s/%s.log", dir, name);
  return spawn(out, extra, err);
}

eg_code eg_harness_restart(eg_proc *p, const char *const *extra, eg_err *err) {
  if (p->pid) eg_harness_stop(p, SIGTERM);
  return spawn(p, extra, err);
}

int eg_harness_stop(eg_proc *p, int sig) {
  if (!p->pid) return -1;
  kill(p->pid, sig);
  int st = 0;
  int64_t until = eg_time_mono_us() + 30 * EG_US_PER_SEC;
  for (;;) {
    pid_t r = waitpid(p->pid, &st, WNOHANG);
    if (r == p->pid) break;
    if (r < 0 && errno != EINTR) break;
    if (eg_time_mono_us() > until) {
      kill(p->pid, SIGKILL);
      waitpid(p->pid, &st, 0);
      break;
    }
    sleep_ms(5);
  }
  p->pid = 0;
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

eg_code eg_cluster_start(eg_cluster *c, const char *const *extra, eg_err *err) {
  memset(c, 0, sizeof *c);
  c->dir = eg_test_tempdir("cluster");
  if (!c->dir) return eg_err_set(err, EG_EIO, "cannot create temp dir");
  eg_code rc;
  if ((rc = eg_harness_start("graphd", c->dir, extra, &c->d[EG_GRAPHD], err))) return rc;
  if ((rc = eg_harness_start("vectord", c->dir, extra, &c->d[EG_VECTORD], err))) return rc;
  char graphd_addr[80], vectord_addr[80];
  snprintf(graphd_addr, sizeof graphd_addr, "%s", c->d[EG_GRAPHD].addr);
  snprintf(vectord_addr, sizeof vectord_addr, "%s", c->d[EG_VECTORD].addr);
  const char *front[64];
  int n = 0;
  front[n++] = "--graphd-addr";
  front[n++] = graphd_addr;
  front[n++] = "--vectord-addr";
  front[n++] = vectord_addr;
  for (; extra && *extra && n < 63; extra++) front[n++] = *extra;
  front[n] = NULL;
  if ((rc = eg_harness_start("ingestd", c->dir, front, &c->d[EG_INGESTD], err))) return rc;
  if ((rc = eg_harness_start("recalld", c->dir, front, &c->d[EG_RECALLD], err))) return rc;
  return EG_OK;
}

void eg_cluster_stop(eg_cluster *c, bool keep) {
  for (int i = EG_N_DAEMONS - 1; i >= 0; i--)
    if (c->d[i].pid) eg_harness_stop(&c->d[i], SIGTERM);
  if (!c->dir) return;
  if (keep) {
    fprintf(stderr, "logs kept in %s\n", c->dir);
    for (int i = 0; i < EG_N_DAEMONS; i++) eg_dump_file(c->d[i].log, 3000);
  } else {
    eg_test_rmtree(c->dir);
  }
  free(c->dir);
  c->dir = NULL;
}

int eg_http_get(int port, const char *path, eg_buf *out) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  struct sockaddr_in sa = {0};
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
    close(fd);
    return -1;
  }
  char req[512];
  int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
  if (write(fd, req, (size_t)n) != n) {
    close(fd);
    return -1;
  }
  eg_buf raw = EG_BUF_INIT;
  char buf[8192];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) > 0) eg_buf_append(&raw, buf, (size_t)r);
  close(fd);
  int status = -1;
  if (raw.data && sscanf(raw.data, "HTTP/1.%*d %d", &status) == 1) {
    char *body = strstr(raw.data, "\r\n\r\n");
    if (body) eg_buf_append(out, body + 4, raw.len - (size_t)(body + 4 - raw.data));
  }
  eg_buf_free(&raw);
  return status;
}

double eg_metric_value(int port, const char *series) {
  eg_buf b = EG_BUF_INIT;
  double v = -1;
  if (eg_http_get(port, "/metrics", &b) == 200 && eg_buf_append(&b, "", 1) == EG_OK) {
    char key[256];
    snprintf(key, sizeof key, "\n%s ", series);
    const char *p = strstr(b.data, key);
    if (p) v = strtod(p + strlen(key), NULL);
  }
  eg_buf_free(&b);
  return v;
}

int eg_promtool_scrape(int metrics_port, const char *dir, const char *name, eg_buf *body) {
  eg_buf local = EG_BUF_INIT, *b = body ? body : &local;
  int rc = -1;
  if (eg_http_get(metrics_port, "/metrics", b) == 200 && b->data) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s.metrics", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
      fwrite(b->data, 1, b->len, f);
      fclose(f);
      rc = eg_test_system("promtool check metrics < %s", path);
    }
  }
  eg_buf_free(&local);
  return rc;
}
