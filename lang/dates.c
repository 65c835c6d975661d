/*
 * dates.c — date expressions by matching word patterns at each word position.
 *
 * The text is split into lower-case ASCII words with their byte spans (other characters
 * separate words). Matchers try the longest patterns first at each position; a match
 * consumes its words.
 */
#include "lang/dates.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/time.h"

#define MAXW 4096

typedef struct word {
  size_t start, end;
  char w[24];
  bool joined; /* the next word follows after one '-', '/' or en dash alone ("2019-20") */
} word;

static const char *const months[12] = {"january",   "february", "march",    "april",
                                       "may",       "june",     "july",     "august",
                                       "september", "october",  "november", "december"};
static const char *const wdays[7] = {"sunday",   "monday", "tuesday", "wednesday",
                                     "thursday", "friday", "saturday"};

static int month_of(const char *w) {
  for (int i = 0; i < 12; i++) {
    if (strcmp(w, months[i]) == 0) return i + 1;
    /* three-letter abbreviations and "sept" */
    if (strlen(w) >= 3 && strlen(w) <= 4 && strncmp(w, months[i], strlen(w)) == 0 &&
        (i != 4 || strlen(w) == 3))
      return i + 1;
  }
  return 0;
}

static int wday_of(const char *w) {
  for (int i = 0; i < 7; i++)
    if (strcmp(w, wdays[i]) == 0 || (strlen(w) == 3 && strncmp(w, wdays[i], 3) == 0)) return i;
  return -1;
}

/* A small count: digits, number words, "a"/"an". 0 when not a count. */
static int count_of(const char *w) {
  static const char *const n[] = {
      "zero",     "one",     "two",     "three",     "four",     "five",     "six",
      "seven",    "eight",   "nine",    "ten",       "eleven",   "twelve",   "thirteen",
      "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"};
  if (isdigit((unsigned char)w[0])) {
    char *end;
    long v = strtol(w, &end, 10);
    return *end || v <= 0 || v > 1000 ? 0 : (int)v;
  }
  if (strcmp(w, "a") == 0 || strcmp(w, "an") == 0) return 1;
  if (strcmp(w, "several") == 0) return 3;
  for (int i = 1; i <= 20; i++)
    if (strcmp(w, n[i]) == 0) return i;
  return 0;
}

typedef enum { U_NONE, U_DAY, U_WEEK, U_MONTH, U_YEAR } unit;

static unit unit_of(const char *w) {
  if (!strcmp(w, "day") || !strcmp(w, "days")) return U_DAY;
  if (!strcmp(w, "week") || !strcmp(w, "weeks")) return U_WEEK;
  if (!strcmp(w, "month") || !strcmp(w, "months")) return U_MONTH;
  if (!strcmp(w, "year") || !strcmp(w, "years")) return U_YEAR;
  return U_NONE;
}

/* Day number of a civil date and back. */
static int64_t day_of(int y, int m, int d) { return eg_days_from_civil(y, m, d); }
static int64_t us_of_day(int64_t day) { return day * EG_US_PER_DAY; }

/* Add months to (y, m), clamping the day. */
static int64_t add_months(int64_t day, int months_delta) {
  int y, m, d;
  eg_civil_from_days(day, &y, &m, &d, NULL);
  int total = y * 12 + (m - 1) + months_delta;
  y = total / 12;
  m = total % 12 + 1;
  int dim = eg_days_in_month(y, m);
  if (d > dim) d = dim;
  return day_of(y, m, d);
}

static void set_day(eg_date *o, int64_t day) {
  o->kind = EG_DATE_DAY;
  o->from = us_of_day(day);
  o->to = us_of_day(day + 1);
  eg_time_format_date(o->from, o->label, sizeof o->label);
}

static void set_range(eg_date *o, int64_t from_day, int64_t to_day, const char *what) {
  o->kind = EG_DATE_RANGE;
  o->from = us_of_day(from_day);
  o->to = us_of_day(to_day);
  char d[16];
  eg_time_format_date(o->from, d, sizeof d);
  if (!strcmp(what, "month"))
    snprintf(o->label, sizeof o->label, "%.7s", d);
  else if (!strcmp(what, "year"))
    snprintf(o->label, sizeof o->label, "%.4s", d);
  else
    snprintf(o->label, sizeof o->label, "%s of %s", what, d);
}

static void set_month(eg_date *o, int y, int m) {
  int64_t a = day_of(y, m, 1);
  set_range(o, a, add_months(a, 1), "month");
}

static void set_year(eg_date *o, int y) {
  set_range(o, day_of(y, 1, 1), day_of(y + 1, 1, 1), "year");
}

/* The reference's calendar fields. */
typedef struct refd {
  int64_t day;
  int y, m, d, wday; /* wday: 0 = Sunday */
} refd;

static bool is(const word *w, size_t n, size_t i, const char *s) {
  return i < n && strcmp(w[i].w, s) == 0;
}

static int day_number(const char *w) { /* "15", "15th", "1st", "22nd", "3rd" */
  if (!isdigit((unsigned char)w[0])) {
    static const char *const ord[] = {"",      "first",   "second", "third", "fourth", "fifth",
                                      "sixth", "seventh", "eighth", "ninth", "tenth"};
    for (int i = 1; i <= 10; i++)
      if (strcmp(w, ord[i]) == 0) return i;
    return 0;
  }
  char *end;
  long v = strtol(w, &end, 10);
  if (*end && strcmp(end, "st") && strcmp(end, "nd") && strcmp(end, "rd") && strcmp(end, "th"))
    return 0;
  return v >= 1 && v <= 31 ? (int)v : 0;
}

static int year_number(const char *w) {
  if (strlen(w) != 4 || !isdigit((unsigned char)w[0])) return 0;
  int v = atoi(w);
  return v >= 1900 && v <= 2200 ? v : 0;
}

/* Month m (and optional day d) without a year: the most recent past occurrence, o marked as
 * so guessed. */
static int past_year(const refd *r, int m, int d, eg_date *o) {
  o->year_guessed = true;
  if (m < r->m || (m == r->m && (d == 0 || d <= r->d))) return r->y;
  return r->y - 1;
}

/* The words of an approximation at word i before a count ("about", "almost", "more than",
 * "just over"): how many (0: none). The count it qualifies is said as it is. */
static size_t approximation(const word *w, size_t n, size_t i) {
  static const char *const one[] = {"about",   "around", "almost", "nearly",        "over",
                                    "roughly", "like",   "under",  "approximately", "some"};
  static const char *const two[][2] = {
      {"more", "than"}, {"less", "than"}, {"close", "to"}, {"just", "over"}, {"well", "over"}};
  if (is(w, n, i, "a") && is(w, n, i + 1, "little") &&
      (is(w, n, i + 2, "over") || is(w, n, i + 2, "under")))
    return 3;
  for (size_t k = 0; k < sizeof two / sizeof *two; k++)
    if (is(w, n, i, two[k][0]) && is(w, n, i + 1, two[k][1])) return 2;
  for (size_t k = 0; k < sizeof one / sizeof *one; k++)
    if (is(w, n, i, one[k])) return 1;
  return 0;
}

/* Do the words at i say "and a half"? */
static bool and_a_half(const word *w, size_t n, size_t i) {
  return is(w, n, i, "and") && is(w, n, i + 1, "a") && is(w, n, i + 2, "half");
}

/* The day cnt units (and a half) before day. */
static int64_t back(int64_t day, unit u, int cnt, bool half) {
  switch (u) {
    case U_DAY:
      return day - cnt;
    case U_WEEK:
      return day - 7 * cnt - (half ? 3 : 0);
    case U_MONTH:
      return add_months(day, -cnt) - (half ? 15 : 0);
    default:
      return add_months(day, -12 * cnt - (half ? 6 : 0));
  }
}

/* A holiday of a fixed day at word i, said as a time ("at Christmas", "since New Year's",
 * "over Christmas 2022", "last Halloween"; not "a Christmas tree"): the words it takes, o set
 * to its day — of the year given, else its latest past occurrence (year_guessed), the next one
 * after "next", this year's after "this". Movable feasts (Easter) are not read. */
static size_t holiday(const word *w, size_t n, size_t i, const refd *r, eg_date *o) {
  static const struct {
    const char *w[4];
    int m, d;
  } days[] = {{{"christmas", "eve"}, 12, 24},    {{"christmas", "day"}, 12, 25},
              {{"christmas"}, 12, 25},           {{"xmas"}, 12, 25},
              {{"boxing", "day"}, 12, 26},       {{"new", "year", "s", "eve"}, 12, 31},
              {{"new", "years", "eve"}, 12, 31}, {{"new", "year", "s", "day"}, 1, 1},
              {{"new", "years", "day"}, 1, 1},   {{"new", "year", "s"}, 1, 1},
              {{"new", "years"}, 1, 1},          {{"new", "year"}, 1, 1},
              {{"halloween"}, 10, 31},           {{"valentine", "s", "day"}, 2, 14},
              {{"valentines", "day"}, 2, 14},    {{"valentine", "s"}, 2, 14}};
  static const char *const as_time[] = {"at",    "on",   "over", "since",  "before", "after",
                                        "until", "till", "by",   "around", "during", "from",
                                        "for",   "last", "this", "next",   "til"};
  size_t p = i > 0 && is(w, n, i - 1, "the") ? i - 1 : i; /* "over the new year" */
  bool timed = false;
  for (size_t k = 0; p > 0 && k < sizeof as_time / sizeof *as_time; k++)
    timed |= is(w, n, p - 1, as_time[k]);
  for (size_t h = 0; h < sizeof days / sizeof *days; h++) {
    size_t k = 0;
    while (k < 4 && days[h].w[k] && is(w, n, i + k, days[h].w[k])) k++;
    if (k < 4 && days[h].w[k]) continue;
    int m = days[h].m, d = days[h].d, y = i + k < n ? year_number(w[i + k].w) : 0;
    if (!timed && !y) return 0;
    if (y)
      k++;
    else if (is(w, n, i - 1, "next"))
      y = m > r->m || (m == r->m && d > r->d) ? r->y : r->y + 1;
    else if (is(w, n, i - 1, "this"))
      y = r->y;
    else
      y = past_year(r, m, d, o);
    set_day(o, day_of(y, m, d));
    return k;
  }
  return 0;
}

/* Match at word i; on success fill o, return words consumed (0 = no match). */
static size_t match(const word *w, size_t n, size_t i, const refd *r, eg_date *o) {
  const char *a = w[i].w;
  /* single words */
  if (!strcmp(a, "today") || !strcmp(a, "tonight")) return set_day(o, r->day), 1;
  if (!strcmp(a, "yesterday")) return set_day(o, r->day - 1), 1;
  if (!strcmp(a, "tomorrow")) return set_day(o, r->day + 1), 1;
  if (is(w, n, i, "last") && is(w, n, i + 1, "night")) return set_day(o, r->day - 1), 2;
  if (is(w, n, i, "the") && is(w, n, i + 1, "day") && is(w, n, i + 2, "before") &&
      is(w, n, i + 3, "yesterday"))
    return set_day(o, r->day - 2), 4;
  if (is(w, n, i, "day") && is(w, n, i + 1, "after") && is(w, n, i + 2, "tomorrow"))
    return set_day(o, r->day + 2), 3;
  if (is(w, n, i, "this") &&
      (is(w, n, i + 1, "morning") || is(w, n, i + 1, "afternoon") || is(w, n, i + 1, "evening")))
    return set_day(o, r->day), 2;
  /* ISO and slash dates: the words split at punctuation, so look at the raw spans */
  {
    int y, m, d;
    if (i + 2 < n && (y = year_number(a)) && (m = atoi(w[i + 1].w)) >= 1 && m <= 12 &&
        (d = atoi(w[i + 2].w)) >= 1 && d <= eg_days_in_month(y, m) &&
        isdigit((unsigned char)w[i + 1].w[0]) && isdigit((unsigned char)w[i + 2].w[0]) &&
        w[i + 1].start == w[i].end + 1 && w[i + 2].start == w[i + 1].end + 1)
      return set_day(o, day_of(y, m, d)), 3;
    if (i + 2 < n && isdigit((unsigned char)a[0]) && (m = atoi(a)) >= 1 && m <= 12 &&
        (d = atoi(w[i + 1].w)) >= 1 && d <= 31 && (y = year_number(w[i + 2].w)) &&
        w[i + 1].start == w[i].end + 1 && w[i + 2].start == w[i + 1].end + 1 &&
        d <= eg_days_in_month(y, m))
      return set_day(o, day_of(y, m, d)), 3;
  }
  /* N units ago / a couple of units ago / a few units ago, N said about ("about", "almost",
   * "more than") and with a half ("a year and a half", "two and a half years") */
  {
    size_t j = i + approximation(w, n, i);
    int cnt = 0;
    if (is(w, n, j, "a") && is(w, n, j + 1, "couple") && is(w, n, j + 2, "of"))
      cnt = 2, j += 3;
    else if (is(w, n, j, "a") && is(w, n, j + 1, "few"))
      cnt = 3, j += 2;
    else if (j < n && (cnt = count_of(w[j].w)))
      j += 1;
    bool half = cnt && and_a_half(w, n, j);
    if (half) j += 3; /* "two and a half years" */
    unit u = cnt && j < n ? unit_of(w[j].w) : U_NONE;
    size_t k = j; /* the phrase's last word */
    if (u != U_NONE && !half && and_a_half(w, n, j + 1))
      half = true, k = j + 3; /* "a year and a half" */
    if (u != U_NONE && is(w, n, k + 1, "ago")) {
      set_day(o, back(r->day, u, cnt, half));
      return k + 2 - i;
    }
    /* for N units (a duration up to the reference); "N units now", "N units in" (chat's "3
     * years now", "like 3 weeks in") say the same without "for" */
    /* … and "since N units", as learners of English say it ("working here since three
     * years") */
    bool upto = i > 0 && (is(w, n, i - 1, "for") || is(w, n, i - 1, "past") ||
                          is(w, n, i - 1, "last") || is(w, n, i - 1, "since"));
    bool now = is(w, n, k + 1, "now") ||
               (is(w, n, k + 1, "in") && (k + 2 >= n || w[k + 2].start > w[k + 1].end + 1));
    if (u != U_NONE && (upto || now)) {
      o->kind = EG_DATE_SPAN;
      o->from = us_of_day(back(r->day, u, cnt, half));
      o->to = us_of_day(r->day + 1);
      snprintf(o->label, sizeof o->label, "%d%s %.12s up to now", cnt, half ? ".5" : "", w[j].w);
      return k + 1 - i;
    }
  }
  /* last/this/next week|weekend|month|year|<weekday>|<month> */
  int rel = !strcmp(a, "last") || !strcmp(a, "past") ? -1
            : !strcmp(a, "this")                     ? 0
            : !strcmp(a, "next")                     ? 1
                                                     : 2;
  if (rel != 2 && i + 1 < n) {
    const char *b = w[i + 1].w;
    int64_t monday = r->day - ((r->wday + 6) % 7);
    if (!strcmp(b, "week")) return set_range(o, monday + 7 * rel, monday + 7 * rel + 7, "week"), 2;
    if (!strcmp(b, "weekend")) {
      /* Weeks start on Monday: this weekend is this week's Saturday and Sunday, last
       * weekend the one before (on a Monday, two days ago), next weekend the one after. */
      int64_t sat = monday + 5 + 7 * rel;
      return set_range(o, sat, sat + 2, "weekend"), 2;
    }
    if (!strcmp(b, "month")) {
      int ym = r->y * 12 + r->m - 1 + rel;
      return set_month(o, ym / 12, ym % 12 + 1), 2;
    }
    if (!strcmp(b, "year")) return set_year(o, r->y + rel), 2;
    /* a season (spring from March, summer June, autumn or fall September, winter December, three
     * months each): "last" the latest one over, "this" the one the reference is in or else this
     * year's, "next" the first one still to begin */
    static const char *const season[] = {"spring", "summer", "autumn", "fall", "winter"};
    static const int starts[] = {2, 5, 8, 8, 11}; /* its first month, from 0 */
    for (size_t s = 0; s < sizeof season / sizeof *season; s++) {
      if (strcmp(b, season[s]) != 0) continue;
      int now = r->y * 12 + r->m - 1, y = r->y;
      if (rel == -1)
        while (y * 12 + starts[s] + 3 > now) y--;
      else if (rel == 1)
        while (y * 12 + starts[s] <= now) y++;
      else if ((y - 1) * 12 + starts[s] + 3 > now)
        y--; /* "this winter" said in January: the one that began in December */
      int64_t a = day_of(y, starts[s] + 1, 1);
      set_range(o, a, add_months(a, 3), season[s]);
      snprintf(o->label, sizeof o->label, "%s %d", season[s], y);
      return 2;
    }
    int wd = wday_of(b);
    if (wd >= 0) {
      int back = (r->wday - wd + 7) % 7;
      if (rel == -1) back = back ? back : 7; /* "last Monday" said on a Monday: a week ago */
      if (rel == 1)
        return set_day(o, r->day + ((wd - r->wday + 7) % 7 ? (wd - r->wday + 7) % 7 : 7)), 2;
      return set_day(o, r->day - back), 2;
    }
    int m = month_of(b);
    if (m && rel == -1) {
      int y = m < r->m ? r->y : r->y - 1;
      return set_month(o, y, m), 2;
    }
    if (m && rel == 1) {
      int y = m > r->m ? r->y : r->y + 1;
      return set_month(o, y, m), 2;
    }
  }
  /* on <weekday>, and "for" one a thing is booked or planned for ("the van is booked for
   * Saturday") */
  if ((!strcmp(a, "on") || !strcmp(a, "for")) && i + 1 < n && wday_of(w[i + 1].w) >= 0) {
    int back = (r->wday - wday_of(w[i + 1].w) + 7) % 7;
    o->week_guessed = true;
    return set_day(o, r->day - (back ? back : 7)), 2;
  }
  /* on the 15th */
  if (!strcmp(a, "on") && is(w, n, i + 1, "the") && i + 2 < n) {
    int d = day_number(w[i + 2].w);
    if (d && !(i + 3 < n && (is(w, n, i + 3, "of") || month_of(w[i + 3].w)))) {
      int y = r->y, m = r->m;
      if (d > r->d) {
        m--;
        if (!m) m = 12, y--;
      }
      if (d > eg_days_in_month(y, m)) d = eg_days_in_month(y, m);
      o->month_guessed = true;
      return set_day(o, day_of(y, m, d)), 3;
    }
  }
  size_t feast = holiday(w, n, i, r, o);
  if (feast) return feast;
  /* the <day> of <month> [<year>] / <day> <month> [<year>] */
  {
    size_t j = i;
    if (is(w, n, j, "the")) j++;
    int d = j < n ? day_number(w[j].w) : 0;
    if (d && is(w, n, j + 1, "of")) j++;
    int m = d && j + 1 < n ? month_of(w[j + 1].w) : 0;
    if (d && m) {
      int y = j + 2 < n ? year_number(w[j + 2].w) : 0;
      size_t used = j + 2 - i + (y ? 1 : 0);
      if (!y) y = past_year(r, m, d, o);
      if (d > eg_days_in_month(y, m)) return 0;
      return set_day(o, day_of(y, m, d)), used;
    }
  }
  /* <month> <day>[,] [<year>] / <month> <year> / in <month> [<year>] */
  {
    size_t j = i;
    if (is(w, n, j, "in") || is(w, n, j, "during")) j++;
    int m = j < n ? month_of(w[j].w) : 0;
    /* "may" is also a verb: only as a month before a day or year, or after "in" */
    if (m == 5 && j == i && !(j + 1 < n && (day_number(w[j + 1].w) || year_number(w[j + 1].w))))
      m = 0;
    if (m && j < n && strlen(w[j].w) == 3 && j == i &&
        !(j + 1 < n && (day_number(w[j + 1].w) || year_number(w[j + 1].w))))
      m = 0; /* "mar", "jun" alone are too ambiguous */
    if (m) {
      int d = j + 1 < n ? day_number(w[j + 1].w) : 0;
      int y = 0;
      if (d) {
        y = j + 2 < n ? year_number(w[j + 2].w) : 0;
        size_t used = j + 2 - i + (y ? 1 : 0);
        if (!y) y = past_year(r, m, d, o);
        if (d > eg_days_in_month(y, m)) return 0;
        return set_day(o, day_of(y, m, d)), used;
      }
      y = j + 1 < n ? year_number(w[j + 1].w) : 0;
      if (y) return set_month(o, y, m), j + 2 - i;
      bool after_prep = i > 0 && (is(w, n, i - 1, "since") || is(w, n, i - 1, "until") ||
                                  is(w, n, i - 1, "before") || is(w, n, i - 1, "after") ||
                                  is(w, n, i - 1, "of") || is(w, n, i - 1, "by"));
      if (j > i || after_prep) return set_month(o, past_year(r, m, 0, o), m), j + 1 - i;
    }
    /* [in|during|over] [the] <part> [of|in] <year>: a season, a half or a third of the year
     * ("in early 2020", "mid-2021", "the summer of 2019", "spring 2022", "the end of 2018",
     * "the second half of 2020"); winter is the months of it that bear the year's number
     * ("the winter of 2021": January and February 2021) */
    {
      static const struct {
        const char *w, *then; /* the part's word, and the word after it when it has two */
        int from, months;     /* first month, how many */
      } part[] = {{"early", NULL, 1, 4},   {"beginning", NULL, 1, 4}, {"start", NULL, 1, 4},
                  {"mid", NULL, 5, 4},     {"middle", NULL, 5, 4},    {"late", NULL, 9, 4},
                  {"end", NULL, 9, 4},     {"spring", NULL, 3, 3},    {"summer", NULL, 6, 3},
                  {"autumn", NULL, 9, 3},  {"fall", NULL, 9, 3},      {"winter", NULL, 1, 2},
                  {"first", "half", 1, 6}, {"second", "half", 7, 6}};
      size_t k = i;
      if (is(w, n, k, "in") || is(w, n, k, "during") || is(w, n, k, "over")) k++;
      if (is(w, n, k, "the")) k++;
      for (size_t p = 0; k < n && p < sizeof part / sizeof *part; p++) {
        if (strcmp(w[k].w, part[p].w) != 0 || (part[p].then && !is(w, n, k + 1, part[p].then)))
          continue;
        size_t j = k + 1 + (part[p].then != NULL);
        if (is(w, n, j, "of") || is(w, n, j, "in")) j++;
        int py = j < n ? year_number(w[j].w) : 0;
        if (!py) break;
        /* a winter across two years ("the winter of 2019-2020", "winter 2021/22"): from its
         * December */
        const char *nw = j + 1 < n && w[j].joined ? w[j + 1].w : "";
        size_t nl = strspn(nw, "0123456789");
        int ny = nw[nl] == '\0' && (nl == 2 || nl == 4) ? atoi(nw) : 0;
        if (!strcmp(part[p].w, "winter") && (ny == py + 1 || (ny && ny == (py + 1) % 100))) {
          int64_t a = day_of(py, 12, 1);
          set_range(o, a, add_months(a, 3), part[p].w);
          snprintf(o->label, sizeof o->label, "winter %d/%d", py, py + 1);
          return j + 2 - i;
        }
        int64_t a = day_of(py, part[p].from, 1);
        set_range(o, a, add_months(a, part[p].months), part[p].w);
        snprintf(o->label, sizeof o->label, "%s%s%s %d", part[p].w, part[p].then ? " " : "",
                 part[p].then ? part[p].then : "", py);
        return j + 1 - i;
      }
    }
    /* in <year>; a year alone after "since" ("vegetarian since 2015") */
    int y, y2;
    /* from <year> to|until|till <year>, between <year> and <year>: the years from the first
     * through the last ("I worked there from 2015 to 2019") */
    bool between = is(w, n, i, "between");
    if ((between || is(w, n, i, "from")) && i + 3 < n && (y = year_number(w[i + 1].w)) &&
        (between ? is(w, n, i + 2, "and")
                 : is(w, n, i + 2, "to") || is(w, n, i + 2, "until") || is(w, n, i + 2, "till")) &&
        (y2 = year_number(w[i + 3].w)) && y2 >= y) {
      set_range(o, day_of(y, 1, 1), day_of(y2 + 1, 1, 1), "years");
      snprintf(o->label, sizeof o->label, "%d to %d", y, y2);
      o->through = true;
      return 4;
    }
    if ((is(w, n, i, "in") || is(w, n, i, "during")) && i + 1 < n && (y = year_number(w[i + 1].w)))
      return set_year(o, y), 2;
    if (i > 0 && is(w, n, i - 1, "since") && (y = year_number(a))) return set_year(o, y), 1;
  }
  return 0;
}

size_t eg_dates_find(const char *text, int64_t ref, eg_date *out, size_t max) {
  word *w = malloc(MAXW * sizeof *w);
  if (!w) return 0;
  size_t n = 0;
  for (size_t p = 0; text[p] && n < MAXW;) {
    unsigned char c = (unsigned char)text[p];
    if (!isalnum(c)) {
      p++;
      continue;
    }
    size_t s = p, k = 0;
    while (text[p] && isalnum((unsigned char)text[p])) {
      if (k < sizeof w[n].w - 1) w[n].w[k++] = (char)tolower((unsigned char)text[p]);
      p++;
    }
    w[n].w[k] = '\0';
    w[n].start = s;
    w[n].end = p;
    size_t dash = text[p] == '-' || text[p] == '/'        ? 1
                  : !strncmp(text + p, "\xe2\x80\x93", 3) ? 3 /* – */
                                                          : 0;
    w[n].joined = dash && isalnum((unsigned char)text[p + dash]);
    n++;
  }
  eg_civil c;
  eg_time_to_civil(ref, &c);
  refd r;
  r.day = ref / EG_US_PER_DAY - (ref < 0 && ref % EG_US_PER_DAY ? 1 : 0);
  eg_civil_from_days(r.day, &r.y, &r.m, &r.d, &r.wday);
  size_t found = 0;
  for (size_t i = 0; i < n && found < max;) {
    bool since = is(w, n, i, "since");
    size_t at = since ? i + 1 : i;
    eg_date d;
    memset(&d, 0, sizeof d);
    size_t used = at < n ? match(w, n, at, &r, &d) : 0;
    if (!used) {
      i++;
      continue;
    }
    d.start = w[i].start;
    d.end = w[at + used - 1].end;
    if (since) {
      d.kind = EG_DATE_SINCE;
      d.to = 0;
      char l[48];
      snprintf(l, sizeof l, "since %.40s", d.label);
      memcpy(d.label, l, sizeof d.label);
      d.label[sizeof d.label - 1] = '\0';
    }
    out[found++] = d;
    i = at + used;
  }
  free(w);
  return found;
}

int64_t eg_date_ahead(const eg_date *d, int64_t ref) {
  if (d->week_guessed && d->to <= ref) return d->from + 7 * EG_US_PER_DAY;
  if (d->month_guessed && d->to <= ref) return us_of_day(add_months(d->from / EG_US_PER_DAY, 1));
  if (!d->year_guessed || d->kind == EG_DATE_SINCE || d->to > ref) return d->from;
  return us_of_day(add_months(d->from / EG_US_PER_DAY, 12)); /* from is a day's start */
}
