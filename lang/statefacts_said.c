/*
 * statefacts_said.c — what a user's stored words say of their states, read with the lexical
 * reading (eg_statefacts_values): the speaker's own words of a stored chunk, how strongly a
 * text states a value of a kind, whether it names a given value as the user's (a former
 * value's first mention, found by ingestd among the user's earlier chunks), and the names of
 * a known type it spells out in full (eg_statefacts_learn).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lang/statefacts_int.h"

void eg_statefacts_said_span(const char *text, bool one, size_t *from, size_t *to) {
  const char *t = text ? text : "";
  *from = 0;
  *to = strlen(t);
  if (one) return;
  const char *colon = strstr(t, ": ");
  if (colon && colon - t < 64) *from = (size_t)(colon + 2 - t);
  for (const char *p = t + *from; (p = strchr(p, '\n')) != NULL; p++) {
    size_t k = 0; /* the next speaker: "name: " opening a line */
    while (k < 40 && p[1 + k] && !strchr(": \n", p[1 + k])) k++;
    if (k && p[1 + k] == ':' && p[2 + k] == ' ') {
      *to = (size_t)(p - t);
      return;
    }
  }
}

bool eg_statefacts_same_value(const char *a, size_t n, const char *b) {
  size_t m = strlen(b);
  if (n == m && !strncasecmp(a, b, n)) return true;
  const char *in = n >= m ? a : b, *of = n >= m ? b : a;
  size_t ln = n >= m ? n : m, lo = n >= m ? m : n;
  for (size_t i = 0; lo >= 3 && i + lo <= ln; i++)
    if (!strncasecmp(in + i, of, lo) && (i == 0 || !isalnum((unsigned char)in[i - 1])) &&
        (i + lo == ln || !isalnum((unsigned char)in[i + lo])))
      return true;
  return false;
}

/* The values read of a text: one buffer for the readings below (a value is at least a token) */
static __thread eg_stated_value read_values[MAX_TOKENS];

bool eg_statefacts_holds_value(const eg_statefacts *sf, const char *text, size_t said_from,
                               size_t said_to, int64_t said_at, const char *relation,
                               const char *value) {
  unsigned types = eg_statefacts_relation_types(sf, relation);
  /* the value sought is known: chat's lower case names it too ("a test rig at siemens") */
  static __thread eg_statefacts_known sought;
  sought.n = 0;
  if (types && value) eg_sf_known_add(&sought, value, types);
  eg_stated_value *v = read_values;
  size_t n = sought.n ? eg_statefacts_values(sf, text, said_from, said_to, said_at, types, &sought,
                                             v, MAX_TOKENS)
                      : 0;
  for (size_t i = 0; i < n; i++)
    if ((v[i].plain || v[i].dated || v[i].how == EG_STATED_CURRENT) && !v[i].others &&
        !v[i].ended && eg_statefacts_same_value(text + v[i].from, v[i].to - v[i].from, value))
      return true;
  return false;
}

eg_stated eg_statefacts_stated(const eg_statefacts *sf, const char *text, size_t said_from,
                               size_t said_to, unsigned types) {
  return eg_stated_strongest(
      read_values,
      eg_statefacts_values(sf, text, said_from, said_to, 0, types, NULL, read_values, MAX_TOKENS));
}

eg_stated eg_stated_strongest(const eg_stated_value *v, size_t n) {
  eg_stated out = EG_STATED_NONE;
  for (size_t i = 0; i < n; i++)
    if (v[i].how > out) out = v[i].how;
  return out;
}

void eg_statefacts_learn(const eg_statefacts *sf, const char *text, size_t said_from,
                         size_t said_to, eg_statefacts_known *k) {
  static __thread token t[MAX_TOKENS];
  static __thread session_names names;
  names.n = 0, names.known = NULL;
  eg_sf_learn_names(sf, text ? text : "", &names);
  size_t nt = eg_sf_tokenize(text ? text : "", t, MAX_TOKENS);
  slot s[MAX_CANDS];
  for (size_t from = 0; from < nt;) {
    size_t to = eg_sf_clause_end(t, nt, from);
    size_t ns = t[from].s >= said_from && t[from].s < said_to
                    ? eg_sf_find_slots(sf, &names, t, from, to, s, MAX_CANDS)
                    : 0;
    for (size_t i = 0; i < ns && k->n < EG_STATEFACTS_KNOWN; i++) {
      if (!s[i].proper || s[i].te - s[i].ts < 2 || s[i].bits == sf->name_types) continue;
      char key[64];
      eg_sf_span_key(t, s[i].ts, s[i].te, key, sizeof key);
      size_t d = 0;
      while (d < k->n && strcmp(k->words[d], key) != 0) d++;
      if (d == k->n)
        snprintf(k->words[k->n], sizeof k->words[0], "%s", key), k->bits[k->n++] = s[i].bits;
    }
    from = to;
  }
}
