/*
 * statefacts_said.c — the lexical reading (eg_statefacts_values: no embedding) and what a
 * user's stored words say of their states by it: the speaker's own words of a stored chunk,
 * how strongly a text states a value of a kind, whether it names a given value as the user's
 * (a former value's first mention, found by ingestd among the user's earlier chunks), the one
 * it names as sought (a prospect, read by ingestd of the graph's doubts), and the names of a
 * known type it spells out in full (eg_statefacts_learn).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/text.h"
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

/* Does the slot's sub-clause say a plan or a wish ("applied for", "thinking of moving to"), or
 * name the slot as the source of an offer ("got an offer from X"), neither negated nor
 * declined ("I'd never move to X", "turned down an offer from X")? */
static bool wished(const eg_statefacts *sf, const token *t, size_t from, size_t to, const slot *s,
                   bool source) {
  static const char *const offer[] = {"offer", "offers"};
  size_t a, b, p = s->ts;
  eg_sf_sub_clause(t, from, to, s->ts, &a, &b);
  while (p > from && eg_sf_determiner(t[p - 1].w)) p--;
  bool said = source ? p >= from + 2 && eg_sf_in_list(t[p - 2].w, offer, 2)
                     : eg_sf_has_marker(sf, MK_FUTURE, t, a, b);
  return said && !eg_sf_has_marker(sf, MK_NEGATION, t, a, b) && !eg_sf_declined(sf, t, a, s->ts);
}

size_t eg_statefacts_values(const eg_statefacts *sf, const char *text, size_t said_from,
                            size_t said_to, int64_t said_at, unsigned types,
                            const eg_statefacts_known *known, eg_stated_value *out, size_t max) {
  static __thread token t[MAX_TOKENS];
  static __thread session_names names;
  memset(&names, 0, sizeof names); /* nothing of the text read before */
  names.known = known;
  eg_sf_learn_names(sf, text ? text : "", &names); /* the names it uses mid-sentence */
  size_t nt = eg_sf_tokenize(text ? text : "", t, MAX_TOKENS), n = 0;
  eg_date dates[16];
  size_t nd = said_at ? eg_dates_find(text ? text : "", said_at, dates, 16) : 0;
  slot last = {0};
  for (size_t from = 0; from < nt && n < max;) {
    size_t to = eg_sf_clause_end(t, nt, from);
    bool said = t[from].s >= said_from && t[from].s < said_to;
    bool question = t[to - 1].ask, own = said && eg_sf_speaks_of_self(sf, t, from, to, false);
    slot slots[MAX_CANDS];
    size_t ns = eg_sf_clause_slots(sf, &names, t, from, to, said, &last, slots);
    for (size_t k = 0; k < ns && n < max; k++) {
      slot *s = &slots[k];
      if (!(s->bits & types)) continue;
      size_t vs = eg_sf_value_from(s), ve = eg_sf_value_to(s);
      eg_stated_value *v = &out[n++];
      *v = (eg_stated_value){.from = t[vs].s,
                             .to = eg_sf_value_end(text, t, ve),
                             .how = EG_STATED_MENTIONED,
                             .typed = s->cued || s->bits != sf->name_types,
                             .named = s->proper,
                             .types = s->bits & types};
      bool other = said && eg_sf_about_someone_else(sf, t, from, to, s);
      /* where it stands, read once: for `plain` and, in the speaker's own clause, for `how` */
      slot_status st = said && !other ? eg_sf_status_of(sf, t, from, to, s) : ST_NOT_ASSERTED;
      bool plan =
          st == ST_CURRENT && eg_sf_dated_later(sf, t, from, to, s->ts, s->te, dates, nd, said_at);
      if (plan) st = ST_NOT_ASSERTED;
      /* named in the speaker's words as it stands, with no marker of a past, a plan, a
       * negation or an end and not as someone else's: "a tortoise called X joined us" */
      /* named as the source of a thing ("a postcard from X") it is only named */
      bool source = st == ST_NOT_ASSERTED && eg_sf_source_of_noun(sf, t, from, s);
      v->plain = said && !other && !question && st == ST_CURRENT && !source;
      v->dated = plan && said && !other && !question && !source;
      /* a noun of the user's placed at it says it where no "I" does ("second week at X") */
      size_t own_at;
      bool held = said && eg_sf_held_through(sf, t, from, s, &own_at);
      v->sought = (own || held) && !other && !question && st == ST_NOT_ASSERTED &&
                  (v->dated || wished(sf, t, from, to, s, source));
      if ((!own && !held) || source || (question && !eg_sf_presupposed(sf, t, from, s))) continue;
      if (other) {
        v->others = true;
        eg_sf_forget_value(&last, s);
        continue;
      }
      if (!s->cued && !held && !eg_sf_users_predicate(sf, t, from, to, s, false)) continue;
      s->status = st;
      size_t a, b;
      eg_sf_possessed(sf, t, from, to, s, &a, &b);
      eg_sf_forget_former(&last, s);
      v->how = s->status == ST_CURRENT ? EG_STATED_CURRENT : EG_STATED_FORMER;
      if (s->status == ST_FORMER) {
        v->ended = true;
      } else if (s->status == ST_NOT_ASSERTED && !plan) { /* "not vegan anymore"; not "I won't" */
        eg_sf_sub_clause(t, from, to, s->ts, &a, &b);
        v->ended =
            eg_sf_has_marker(sf, MK_NEGATION, t, a, b) && !eg_sf_has_marker(sf, MK_FUTURE, t, a, b);
      }
    }
    from = to;
  }
  return n;
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

bool eg_statefacts_prospect(const eg_statefacts *sf, const char *text, size_t said_from,
                            size_t said_to, int64_t said_at, const char *relation, char *value,
                            size_t cap, bool *named) {
  unsigned types = eg_statefacts_relation_types(sf, relation);
  eg_stated_value *v = read_values;
  size_t n = types && cap ? eg_statefacts_values(sf, text, said_from, said_to, said_at, types, NULL,
                                                 v, MAX_TOKENS)
                          : 0;
  const eg_stated_value *first = NULL;
  /* a kind word is a value of a relation whose values are no names ("the cello"); of one whose
   * values are names, the kind of the one sought where no name is ("getting a rescue pup next
   * week, a lurcher") */
  bool names = types & sf->name_types, kind = names;
  for (size_t i = 0; names && kind && i < n; i++) kind = !(v[i].sought && v[i].named);
  for (size_t i = 0; i < n; i++) {
    if (!v[i].sought || v[i].others || (!v[i].named && names && !kind)) continue;
    if (first) { /* a second, other than the first: which is not said */
      char one[128];
      snprintf(one, sizeof one, "%.*s", (int)(first->to - first->from), text + first->from);
      if (!eg_statefacts_same_value(text + v[i].from, v[i].to - v[i].from, one)) return false;
      continue;
    }
    first = &v[i];
    size_t len = eg_utf8_cut(text + v[i].from, v[i].to - v[i].from, cap - 1);
    memcpy(value, text + v[i].from, len);
    value[len] = '\0';
    *named = v[i].named;
  }
  return first != NULL;
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
  memset(&names, 0, sizeof names);
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
