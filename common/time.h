/*
 * time.h — Engram's one representation of time: int64 microseconds since the Unix
 * epoch, UTC. ISO-8601 parsing and formatting for the CLI, logs and config.
 *
 * Civil-date arithmetic is done here (days-from-civil), not with timegm/localtime, so
 * results never depend on the process time zone.
 */
#ifndef EG_TIME_H
#define EG_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define EG_US_PER_SEC INT64_C(1000000)
#define EG_US_PER_DAY (INT64_C(86400) * EG_US_PER_SEC)

/* Wall clock (CLOCK_REALTIME) in µs. */
int64_t eg_time_now_us(void);
/* Monotonic clock in µs, for durations only. */
int64_t eg_time_mono_us(void);

/* A broken-down UTC time. */
typedef struct eg_civil {
  int year;   /* e.g. 2024 */
  int month;  /* 1..12 */
  int day;    /* 1..31 */
  int hour;   /* 0..23 */
  int minute; /* 0..59 */
  int second; /* 0..60 (60 is folded into the next minute) */
  int usec;   /* 0..999999 */
} eg_civil;

/* Days since 1970-01-01 for a proleptic Gregorian date (any year). */
int64_t eg_days_from_civil(int year, int month, int day);
/* The inverse; weekday 0 = Sunday when wday is non-NULL. */
void eg_civil_from_days(int64_t days, int *year, int *month, int *day, int *wday);
int eg_days_in_month(int year, int month);

int64_t eg_time_from_civil(const eg_civil *c);
void eg_time_to_civil(int64_t us, eg_civil *c);

/*
 * Parse ISO-8601: "YYYY", "YYYY-MM", "YYYY-MM-DD", then optionally 'T' or ' ' and
 * "HH:MM", "HH:MM:SS", "HH:MM:SS.ffffff", then optionally "Z" or "±HH:MM" / "±HHMM".
 * Without a zone the time is UTC. Also accepts a bare integer as µs ("@1700000000000000")
 * when prefixed with '@'. Fields are range-checked (Feb 30 is refused).
 */
eg_code eg_time_parse(const char *s, int64_t *out_us, eg_err *err);

/* Whether ISO-8601's four-digit years (0000–9999) can carry time us. */
bool eg_time_iso_range(int64_t us);
/* "2024-03-01T12:30:00Z", with ".ffffff" only when there are sub-second digits; a time
 * outside the years 0000–9999 as "@<µs>" (what eg_time_parse reads back).
 * Returns the length written (buf is always NUL-terminated when len > 0). */
#define EG_TIME_ISO_MAX 40
size_t eg_time_format(int64_t us, char *buf, size_t len);
/* "2024-03-01", the date only ("@<µs>" outside the years 0000–9999). */
size_t eg_time_format_date(int64_t us, char *buf, size_t len);
/* The date alone when us is midnight UTC, else as eg_time_format. */
size_t eg_time_format_auto(int64_t us, char *buf, size_t len);

#endif
