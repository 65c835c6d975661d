/*
 * log.h — structured log lines on stderr:
 *   2026-11-21T21:40:00.123456Z INFO graphd rpc msg="server started" addr=127.0.0.1:7102
 *
 * The level is checked before anything is formatted. Callers never log payloads (user
 * text, tokens): only ids, sizes, codes and timings.
 */
#ifndef EG_LOG_H
#define EG_LOG_H

typedef enum eg_log_level {
  EG_LOG_DEBUG = 0,
  EG_LOG_INFO = 1,
  EG_LOG_WARN = 2,
  EG_LOG_ERROR = 3,
} eg_log_level;

/* Set the daemon name (copied) and minimum level. Safe to call again. */
void eg_log_init(const char *daemon, eg_log_level level);
/* Parse "debug"/"info"/"warn"/"error"; returns -1 if unknown. */
int eg_log_level_parse(const char *s);
int eg_log_enabled(eg_log_level level);

/* msg is a short constant phrase; kvfmt formats trailing key=value pairs (may be NULL). */
void eg_log_write(eg_log_level level, const char *module, const char *msg, const char *kvfmt, ...)
    __attribute__((format(printf, 4, 5)));

#define EG_LOG(level, module, msg, ...)                                       \
  do {                                                                        \
    if (eg_log_enabled(level)) eg_log_write(level, module, msg, __VA_ARGS__); \
  } while (0)
#define EG_DEBUG(module, msg, ...) EG_LOG(EG_LOG_DEBUG, module, msg, __VA_ARGS__)
#define EG_INFO(module, msg, ...) EG_LOG(EG_LOG_INFO, module, msg, __VA_ARGS__)
#define EG_WARN(module, msg, ...) EG_LOG(EG_LOG_WARN, module, msg, __VA_ARGS__)
#define EG_ERROR(module, msg, ...) EG_LOG(EG_LOG_ERROR, module, msg, __VA_ARGS__)

#endif
