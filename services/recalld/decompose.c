/*
 * decompose.c — a question about two events becomes one sub-query per event.
 *
 * "How many charity events did I do before the 'Run for the Cure' event?" names two
 * things to find: the charity events and the run. Searched as one text, whichever event
 * the question's words favour fills the top of the list and the other is missed. A question
 * that relates two events — the span between them ("between A and B"; "how many / how long
 * … before / after / when / while / since / until …") or a choice of order ("which …,
 * A or B") — is cut at the word that joins them into parts,
 * and each part that still names something (a content word, and more than one word:
 * "replace or fix" joins verbs, not events) is searched as a variant
 * of its own. After fusion each part's best hit is given a place near the top (the
 * quota), so every event has its own evidence in the first results. A question about one
 * event placed by another ("How did she feel after the accident?") asks for one answer and
 * is not cut: the other event's best hit would only push the answer down.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lang/tokenize.h"
#include "services/recalld/recall_int.h"

/* Words of a question that say what is asked, not about what: no evidence of an event. */
static bool asking_word(const char *w, size_t n) {
  static const char *const a[] = {"how",    "many",     "much",    "long",   "which", "what",
                                  "first",  "last",     "earlier", "later",  "days",  "weeks",
                                  "months", "years",    "time",    "times",  "did",   "does",
                                  "order",  "happened", "came",    "passed", "ago"};
  for (size_t i = 0; i < sizeof a / sizeof *a; i++)
    if (strlen(a[i]) == n && !strncasecmp(w, a[i], n)) return true;
  return false;
}

/* Content words of s[0..n): three letters or more, neither stop words nor asking words. */
static int content_words(const char *s, size_t n) {
  int k = 0;
  for (size_t i = 0; i < n;) {
    while (i < n && !isalnum((unsigned char)s[i])) i++;
    size_t b = i;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '\'')) i++;
    char w[32];
    size_t m = i - b < sizeof w - 1 ? i - b : sizeof w - 1;
    for (size_t j = 0; j < m; j++) w[j] = (char)tolower((unsigned char)s[b + j]);
    w[m] = '\0';
    k += m >= 3 && !eg_is_stopword(w, m) && !asking_word(w, m);
  }
  return k;
}

/* Where the whole word w (lower case) first occurs in q at or after from, else NULL. */
static const char *find_word(const char *q, const char *from, const char *w) {
  size_t n = strlen(w);
  for (const char *p = from; (p = strcasestr(p, w)) != NULL; p++)
    if ((p == q || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n])) return p;
  return NULL;
}

typedef struct parts {
  eg_arena *a;
  char **out;
  size_t n, max;
} parts;

/* Keep s[0..n) (trimmed of punctuation and a leading clause before a comma) when it says
 * something. */
static void keep(parts *p, const char *s, size_t n) {
  const char *comma = memrchr(s, ',', n);
  if (comma && content_words(comma + 1, (size_t)(s + n - comma - 1))) {
    n -= (size_t)(comma + 1 - s);
    s = comma + 1;
  }
  while (n && (isspace((unsigned char)*s) || ispunct((unsigned char)*s))) s++, n--;
  while (n && (isspace((unsigned char)s[n - 1]) || ispunct((unsigned char)s[n - 1]))) n--;
  if (p->n < p->max && content_words(s, n) && memchr(s, ' ', n)) /* no lone word ("fix") */
    p->out[p->n++] = eg_arena_strndup(p->a, s, n);
}

size_t rc_decompose(const char *q, eg_arena *a, char **out, size_t max) {
  parts p = {a, out, 0, max};
  const char *between = find_word(q, q, "between"), *and;
  if (between && (and = find_word(q, between + 7, "and")) != NULL) {
    keep(&p, between + 7, (size_t)(and-between - 7));
    keep(&p, and+3, strlen(and+3));
    return p.n == 2 ? p.n : 0;
  }
  /* "or" joins a choice ("which …"), the others a span ("how many / how long / how much") */
  bool choice = find_word(q, q, "which") != NULL,
       span = find_word(q, q, "how") &&
              (find_word(q, q, "many") || find_word(q, q, "long") || find_word(q, q, "much"));
  static const char *const joins[] = {"or", "before", "after", "when", "while", "since", "until"};
  for (size_t i = 0; i < sizeof joins / sizeof *joins; i++) {
    if (!(i == 0 ? choice : span)) continue;
    const char *j = find_word(q, q, joins[i]);
    /* one join of the kind, inside the question ("When did I …" joins nothing) */
    if (!j || j == q || find_word(q, j + 1, joins[i])) continue;
    keep(&p, q, (size_t)(j - q));
    keep(&p, j + strlen(joins[i]), strlen(j + strlen(joins[i])));
    return p.n;
  }
  return 0;
}

void rc_sub_quota(rc_ctx *c, size_t window) {
  size_t rank[RC_MAX_SUB], m = 0; /* where the parts' best chunks are, distinct */
  for (size_t s = 0; s < c->n_sub; s++)
    for (size_t i = 0; c->sub_best[s] && i < c->n_chunks; i++)
      if (c->chunks[i].chunk->id == c->sub_best[s]) {
        bool dup = false;
        for (size_t j = 0; j < m; j++) dup |= rank[j] == i;
        if (!dup) rank[m++] = i;
        break;
      }
  size_t last = 0;
  for (size_t j = 0; j < m; j++) last = rank[j] > last ? rank[j] : last;
  if (!m || last < window || window < m) return;
  /* those at or below window − m rise just above the chunk there, the higher first: with
   * the ones already higher they fill the window's last places */
  size_t at = window - m;
  float above = c->chunks[at].score;
  for (size_t j = 0; j < m; j++) {
    if (rank[j] < at) continue;
    size_t higher = 0; /* parts ranked above this one */
    for (size_t i = 0; i < m; i++) higher += rank[i] < rank[j];
    c->chunks[rank[j]].score = above + 1e-4f * (float)(m - higher);
  }
  qsort(c->chunks, c->n_chunks, sizeof *c->chunks, rc_by_score);
}
