/*
 * log.c — one line per event, written with a single fputs so lines from several
 * threads never interleave.
 */
#include "common/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/time.h"

static atomic_int log_min_level = EG_LOG_INFO;
static char log_daemon[32] = "engram";

void eg_log_init(const char *daemon, eg_log_level level) {
  if (daemon) snprintf(log_daemon, sizeof log_daemon, "%s", daemon);
  atomic_store(&log_min_level, (int)level);
}

int eg_log_level_parse(const char *s) {
  static const char *names[] = {"debug", "info", "warn", "error"};
  for (int i = 0; i < 4; i++)
    if (s && strcasecmp(s, names[i]) == 0) return i;
  return -1;
}

int eg_log_enabled(eg_log_level level) { return (int)level >= atomic_load(&log_min_level); }

void eg_log_write(eg_log_level level, const char *module, const char *msg, const char *kvfmt, ...) {
  static const char *names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
  char line[2048], ts[EG_TIME_ISO_MAX];
  eg_time_format(eg_time_now_us(), ts, sizeof ts);
  int n = snprintf(line, sizeof line, "%s %s %s %s msg=\"%s\"", ts, names[level & 3], log_daemon,
                   module ? module : "-", msg ? msg : "");
  if (n < 0) return;
  if (kvfmt && *kvfmt && (size_t)n < sizeof line - 2) {
    line[n++] = ' ';
    va_list ap;
    va_start(ap, kvfmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n, kvfmt, ap);
    va_end(ap);
    if (m > 0) n += m;
  }
  if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
  line[n++] = '\n';
  line[n] = '\0';
  fputs(line, stderr);
}
