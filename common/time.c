/*
 * time.c — clocks, civil-date arithmetic and ISO-8601 for µs timestamps.
 *
 * days_from_civil / civil_from_days follow the well-known era-based algorithm
 * (400-year cycles), exact for every proleptic Gregorian date in int64 range.
 */
#include "common/time.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t eg_time_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * EG_US_PER_SEC + ts.tv_nsec / 1000;
}

int64_t eg_time_mono_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * EG_US_PER_SEC + ts.tv_nsec / 1000;
}

int64_t eg_days_from_civil(int year, int month, int day) {
  int64_t y = (int64_t)year - (month <= 2);
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t mp = (month + 9) % 12; /* March = 0 */
  int64_t doy = (153 * mp + 2) / 5 + day - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void eg_civil_from_days(int64_t days, int *year, int *month, int *day, int *wday) {
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (year) *year = (int)(y + (m <= 2));
  if (month) *month = (int)m;
  if (day) *day = (int)d;
  if (wday) {
    int64_t w = (days + 4) % 7; /* 1970-01-01 was a Thursday */
    *wday = (int)(w < 0 ? w + 7 : w);
  }
}

int eg_days_in_month(int year, int month) {
  static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return 0;
  if (month == 2 && ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0)) return 29;
  return dm[month - 1];
}

int64_t eg_time_from_civil(const eg_civil *c) {
  int64_t days = eg_days_from_civil(c->year, c->month, c->day);
  int64_t secs = days * 86400 + c->hour * 3600 + c->minute * 60 + c->second;
  return secs * EG_US_PER_SEC + c->usec;
}

void eg_time_to_civil(int64_t us, eg_civil *c) {
  int64_t days = us / EG_US_PER_DAY;
  int64_t rem = us % EG_US_PER_DAY;
  if (rem < 0) {
    rem += EG_US_PER_DAY;
    days -= 1;
  }
  eg_civil_from_days(days, &c->year, &c->month, &c->day, NULL);
  int64_t secs = rem / EG_US_PER_SEC;
  c->usec = (int)(rem % EG_US_PER_SEC);
  c->hour = (int)(secs / 3600);
  c->minute = (int)(secs / 60 % 60);
  c->second = (int)(secs % 60);
}

/* Read exactly n digits at *p; advances *p. Returns -1 if not n digits. */
static int read_digits(const char **p, int n) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (!isdigit((unsigned char)(*p)[i])) return -1;
    v = v * 10 + ((*p)[i] - '0');
  }
  *p += n;
  return v;
}

eg_code eg_time_parse(const char *s, int64_t *out_us, eg_err *err) {
  if (!s || !*s) return eg_err_set(err, EG_EINVAL, "empty time");
  if (s[0] == '@') {
    char *end;
    long long v = strtoll(s + 1, &end, 10);
    if (end == s + 1 || *end) return eg_err_set(err, EG_EINVAL, "bad µs timestamp");
    *out_us = v;
    return EG_OK;
  }
  eg_civil c = {0, 1, 1, 0, 0, 0, 0};
  const char *p = s;
  if ((c.year = read_digits(&p, 4)) < 0) goto bad;
  if (*p == '-') {
    p++;
    if ((c.month = read_digits(&p, 2)) < 0) goto bad;
    if (*p == '-') {
      p++;
      if ((c.day = read_digits(&p, 2)) < 0) goto bad;
    }
  }
  if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > eg_days_in_month(c.year, c.month))
    return eg_err_set(err, EG_EINVAL, "date out of range in time '%.40s'", s);
  if (*p == 'T' || *p == 't' || (*p == ' ' && isdigit((unsigned char)p[1]))) {
    p++;
    if ((c.hour = read_digits(&p, 2)) < 0 || *p++ != ':') goto bad;
    if ((c.minute = read_digits(&p, 2)) < 0) goto bad;
    if (*p == ':') {
      p++;
      if ((c.second = read_digits(&p, 2)) < 0) goto bad;
      if (*p == '.' || *p == ',') {
        p++;
        int digits = 0;
        while (isdigit((unsigned char)*p)) {
          if (digits < 6) c.usec = c.usec * 10 + (*p - '0');
          digits++;
          p++;
        }
        if (!digits) goto bad;
        for (int i = digits; i < 6; i++) c.usec *= 10;
      }
    }
    if (c.hour > 23 || c.minute > 59 || c.second > 60)
      return eg_err_set(err, EG_EINVAL, "clock out of range in time '%.40s'", s);
  }
  int64_t offset = 0;
  if (*p == 'Z' || *p == 'z') {
    p++;
  } else if (*p == '+' || *p == '-') {
    int sign = *p++ == '-' ? -1 : 1;
    int oh = read_digits(&p, 2), om = 0;
    if (oh < 0) goto bad;
    if (*p == ':') p++;
    if (isdigit((unsigned char)*p) && (om = read_digits(&p, 2)) < 0) goto bad;
    if (oh > 23 || om > 59) goto bad;
    offset = sign * ((int64_t)oh * 3600 + om * 60) * EG_US_PER_SEC;
  }
  if (*p) goto bad;
  *out_us = eg_time_from_civil(&c) - offset;
  return EG_OK;
bad:
  return eg_err_set(err, EG_EINVAL, "not an ISO-8601 time: '%.40s'", s);
}

bool eg_time_iso_range(int64_t us) {
  static const int64_t day = 86400LL * EG_US_PER_SEC;
  return us >= eg_days_from_civil(0, 1, 1) * day && us < eg_days_from_civil(10000, 1, 1) * day;
}

/* Outside the four-digit years: "@<µs>", which eg_time_parse reads back. */
static size_t format_raw(int64_t us, char *buf, size_t len) {
  int n = snprintf(buf, len, "@%lld", (long long)us);
  return n < 0 ? 0 : (size_t)n;
}

size_t eg_time_format(int64_t us, char *buf, size_t len) {
  if (!eg_time_iso_range(us)) return format_raw(us, buf, len);
  eg_civil c;
  eg_time_to_civil(us, &c);
  int n;
  if (c.usec)
    n = snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", c.year, c.month, c.day, c.hour,
                 c.minute, c.second, c.usec);
  else
    n = snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02dZ", c.year, c.month, c.day, c.hour,
                 c.minute, c.second);
  return n < 0 ? 0 : (size_t)n;
}

size_t eg_time_format_date(int64_t us, char *buf, size_t len) {
  if (!eg_time_iso_range(us)) return format_raw(us, buf, len);
  eg_civil c;
  eg_time_to_civil(us, &c);
  int n = snprintf(buf, len, "%04d-%02d-%02d", c.year, c.month, c.day);
  return n < 0 ? 0 : (size_t)n;
}

size_t eg_time_format_auto(int64_t us, char *buf, size_t len) {
  return us % EG_US_PER_DAY == 0 ? eg_time_format_date(us, buf, len) : eg_time_format(us, buf, len);
}
