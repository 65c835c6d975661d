/*
 * dates.h — the date grammar of the offline enricher: find date expressions in text and
 * resolve them against a reference time (the message's, else the session's).
 *
 * Understood (case-insensitive): today, tonight, yesterday, last night, tomorrow, the day
 * before yesterday; N days/weeks/months/years ago (digits, number words, "a", "a couple
 * of", "a few", "several"); last/this/next week, weekend, month, year; last/this/on
 * <weekday>; last <month>, in <month> [<year>], <month> <year>, in <year>; <month> <day>
 * [, <year>], <day> <month> [<year>], the <day> of <month>, on the <day>; [the]
 * early/mid/late/start/end/spring/summer/autumn/fall [of] <year>; ISO 2023-05-20
 * and 2023/05/20 and 5/20/2023; the holidays of a fixed day said as a time (at/since/over/
 * last … Christmas, Christmas Eve, Boxing Day, New Year's [Eve|Day], Halloween, Valentine's
 * Day); since <any of these>; for N days/weeks/months/years
 * (a duration, resolved as the span ending at the reference).
 * Undated months and days are the most recent past occurrence (conversations report
 * the past more than they plan the future); "next …" and "tomorrow" look forward.
 */
#ifndef EG_LANG_DATES_H
#define EG_LANG_DATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum eg_date_kind {
  EG_DATE_DAY = 0,   /* one day: [from, from + 1 day) */
  EG_DATE_RANGE = 1, /* a week, weekend, month or year: [from, to) */
  EG_DATE_SINCE = 2, /* from `from` on: to = 0 */
  EG_DATE_SPAN = 3,  /* a duration ending at the reference: [ref − length, ref) */
} eg_date_kind;

typedef struct eg_date {
  size_t start, end; /* byte span in the text */
  eg_date_kind kind;
  int64_t from, to;   /* µs, UTC; to = 0 for SINCE */
  char label[48];     /* "2023-05-19", "2023-05", "2023", "week of 2023-05-15", "since 2023-03" */
  bool year_guessed;  /* a month or day said without its year: its latest past occurrence */
  bool week_guessed;  /* a weekday said alone ("on Monday"): its latest past occurrence */
  bool month_guessed; /* a day of the month said alone ("on the 3rd"): … its latest too */
  bool through;       /* a range from one year through another ("from 2015 to 2019") */
} eg_date;

/* Find up to max date expressions in text, resolved against ref (µs). Returns how many. */
size_t eg_dates_find(const char *text, int64_t ref, eg_date *out, size_t max);

/* Where d begins read forward from ref (the start of the day it was said), as words that
 * look ahead mean it ("I'm moving there in January", said in November): a month or day said
 * without its year and over by ref is its next occurrence, and so is a weekday said alone
 * ("Starting on Monday") or a day of the month ("I start on the 3rd"); any other date is where
 * it is. */
int64_t eg_date_ahead(const eg_date *d, int64_t ref);

#endif
