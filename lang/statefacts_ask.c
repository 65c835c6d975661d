/*
 * statefacts_ask.c — what a question asks of the user's states: "Where do I live now?" asks
 * a place, "Who's my other half?" a person, "How am I eating these days?" a diet (the @ask
 * lines of the prototypes file, read by the question's wh-word and the words it governs).
 */
#include <stdio.h>
#include <string.h>

#include "lang/dates.h"
#include "lang/statefacts_int.h"

/* Auxiliaries and the subjects a question about the user has. */
static const char *const aux[] = {"is",   "was", "are", "were", "do",    "does", "did",   "am",
                                  "have", "has", "had", "will", "would", "can",  "could", "'s"};
static const char *const subj[] = {"i", "we"};
#define IN(w, list) eg_sf_in_list((w), (list), sizeof(list) / sizeof *(list))

static unsigned ask_bits(const eg_statefacts *sf, const char *w) {
  unsigned b = eg_sf_bits_of(sf->ask, w);
  size_t l = strlen(w);
  if (!b && l > 3 && w[l - 1] == 's') { /* "dogs", "cars", "cat's" */
    char sing[32];
    snprintf(sing, sizeof sing, "%.*s", (int)(l - (w[l - 2] == '\'' ? 2 : 1)), w);
    b = eg_sf_bits_of(sf->ask, sing);
  }
  return b;
}

/* The types the word at t[k] asks about, or the two words ending there ("other_half" in
 * @ask: "Who's my other half?"). */
static unsigned ask_at(const eg_statefacts *sf, const token *t, size_t k) {
  if (k > 0) {
    char pair[64];
    int l = snprintf(pair, sizeof pair, "%s %s", t[k - 1].w, t[k].w);
    unsigned b = l > 0 && (size_t)l < sizeof pair ? eg_sf_bits_of(sf->ask, pair) : 0;
    if (b) return b;
  }
  return ask_bits(sf, t[k].w);
}

/* "Who was I with?" asks for a partner when nothing but a time follows "with" ("… in the
 * autumn of 2020", "… now"), not "Who was I with at the concert?" (company at an event). */
static bool with_whom_only(const char *q, const token *t, size_t nt, size_t w) {
  static const char *const now[] = {"now", "currently", "nowadays", "these", "right", "today"};
  if (w + 1 >= nt || IN(t[w + 1].w, now)) return true;
  eg_date d;
  return eg_dates_find(q + t[w + 1].s, 0, &d, 1) == 1 && d.start <= 8;
}

/* "… do I V", "… am I V-ing" at a: what V asks, or the verb it governs ("What am I learning
 * to play?"); not what one works on. */
static unsigned verb_asks(const eg_statefacts *sf, const token *t, size_t nt, size_t a) {
  static const char *const adv[] = {"currently", "still", "now", "usually", "really", "actually"};
  if (a + 2 >= nt || !IN(t[a].w, aux) || !IN(t[a + 1].w, subj)) return 0;
  size_t v = a + 2;
  while (v < nt && IN(t[v].w, adv)) v++;
  if (v == nt || (v + 1 < nt && !strcmp(t[v + 1].w, "on"))) return 0; /* "working on": a task */
  unsigned b = ask_bits(sf, t[v].w);
  if (!b && v + 2 < nt && !strcmp(t[v + 1].w, "to")) b = ask_bits(sf, t[v + 2].w);
  return b;
}

/* A wh-word with "is" run into it as chat writes it, the apostrophe dropped ("whats my dog
 * called", "wheres home now"). */
static bool chat_is(const char *w) {
  static const char *const is[] = {"whats", "whos", "wheres", "hows", "whens", "whys"};
  return IN(w, is);
}

/* The tense a question asks in (statefacts.h): its auxiliary, else its verb forms. */

bool eg_statefacts_asks_past(const eg_statefacts *sf, const char *question) {
  static const char *const past[] = {"did",  "didn't",  "was", "wasn't",
                                     "were", "weren't", "had", "used"};
  static const char *const present[] = {"is", "am", "are", "do", "does", "don't", "doesn't"};
  static __thread token t[MAX_TOKENS];
  size_t nt = eg_sf_tokenize(question ? question : "", t, MAX_TOKENS);
  bool form = false, now = false;
  for (size_t i = 0; i < nt; i++) {
    if (IN(t[i].w, past)) return true;
    form |= eg_wordnet_is_past(&sf->wn.verbs, t[i].w);
    now |= IN(t[i].w, present) || eg_sf_possessive(t[i].w) || chat_is(t[i].w);
  }
  return form && !now; /* "What's my cat called?" is a participle's present */
}

/* Does the question say one of the words in list (a clitic "'s" aside: "name's")? */
static bool says_word(const char *question, const char *const *list, size_t n) {
  static __thread token t[MAX_TOKENS];
  size_t nt = eg_sf_tokenize(question ? question : "", t, MAX_TOKENS);
  for (size_t i = 0; i < nt; i++) {
    char w[32];
    snprintf(w, sizeof w, "%s", t[i].w);
    if (eg_sf_possessive(w)) w[strlen(w) - 2] = '\0';
    if (eg_sf_in_list(w, list, n)) return true;
  }
  return false;
}

bool eg_statefacts_asks_name(const char *question) {
  static const char *const name[] = {"name", "names", "named", "called"};
  return says_word(question, name, sizeof name / sizeof *name);
}

bool eg_statefacts_asks_kind(const char *question) {
  static const char *const kind[] = {"kind",  "kinds",   "type",   "types",  "sort",
                                     "breed", "species", "animal", "animals"};
  return !eg_statefacts_asks_name(question) &&
         says_word(question, kind, sizeof kind / sizeof *kind);
}

/* What the question asks for is the value its wh-word stands for, not every state it names
 * ("What breed is my dog?" asks a breed; "that vegan place you recommended" asks nothing of
 * the user's diet):
 *   where … + a state word     "Where do I live?", "Where did I work in 2021?" (a place, an org)
 *   who … + a state word       "Who is my employer?", "Who am I dating?" (a person, an org)
 *   what/which N               "Which city …", "What type of car …" (N's head; "eating plan"),
 *                              else the verb after N ("Which organisation employs me?") or
 *                              the user's ("Which organisation am I working for?")
 *   what is my N               "What's my cat called?", "What's the name of my dog?"
 *   what do I V                "What do I play now?", "What am I learning to play?"
 *   how … I V                  "How am I eating these days?" (first of all) */
unsigned eg_statefacts_asked(const eg_statefacts *sf, const char *question) {
  static const char *const pron[] = {"me", "you", "us",  "him", "her", "them",
                                     "it", "my",  "our", "the", "your"};
  static __thread token t[MAX_TOKENS];
  size_t nt = eg_sf_tokenize(question ? question : "", t, MAX_TOKENS), i = 0;
  /* a visit is no state: "Which country was Tim visiting in November?" */
  if (eg_sf_has_marker(sf, MK_VISIT, t, 0, nt)) return 0;
  /* how … I V: "How am I eating these days?", "In 2019, how did I eat?" */
  for (size_t h = 0; h + 3 < nt; h++)
    if (!strcmp(t[h].w, "how")) {
      unsigned b = verb_asks(sf, t, nt, h + 1);
      if (b) return b;
    }
  while (i < nt && strncmp(t[i].w, "what", 4) != 0 && strncmp(t[i].w, "which", 5) != 0 &&
         strncmp(t[i].w, "who", 3) != 0 && strncmp(t[i].w, "where", 5) != 0)
    i++;
  if (i == nt) return 0;
  const char *wh = t[i].w;
  bool is = strchr(wh, '\'') != NULL || chat_is(wh); /* "what's", "whats" */
  if (!strncmp(wh, "where", 5) || !strncmp(wh, "who", 3)) {
    unsigned allowed = wh[2] == 'e' ? sf->place_bit | sf->org_bit   /* where */
                                    : sf->person_bit | sf->org_bit; /* who */
    unsigned b = 0;
    for (size_t k = i + 1; k < nt; k++) b |= ask_at(sf, t, k);
    /* "Who was I with in 2019?", "Who am I with now?": to be with someone is a partner */
    static const char *const be[] = {"am", "was", "is", "are", "were", "'m"};
    if (wh[2] == 'o' && i + 3 < nt && IN(t[i + 1].w, be) && IN(t[i + 2].w, subj) &&
        !strcmp(t[i + 3].w, "with") && with_whom_only(question, t, nt, i + 3))
      b |= sf->person_bit;
    return b & allowed;
  }
  size_t j = i + 1;
  if (j + 1 < nt &&
      (!strcmp(t[j].w, "kind") || !strcmp(t[j].w, "type") || !strcmp(t[j].w, "sort")) &&
      !strcmp(t[j + 1].w, "of"))
    j += 2;
  size_t p = j; /* the noun phrase after the wh-word: up to an auxiliary or a pronoun */
  while (p < nt && p < j + 3 && !IN(t[p].w, aux) && !IN(t[p].w, subj) && !IN(t[p].w, pron) &&
         !eg_wordnet_is_past(&sf->wn.verbs, t[p].w) && !t[p].digit &&
         !(p > j && eg_wordnet_is_present3(&sf->wn.verbs, t[p].w))) /* "What pet lives with us?" */
    p++;
  if (p > j) { /* its head, or an activity before it ("eating plan") */
    unsigned b = ask_at(sf, t, p - 1);
    /* else what it does or the user does with it ("Which organisation employs me?", "Which
     * organisation am I working for?") */
    if (!b && p < nt) b = ask_bits(sf, t[p].w);
    if (!b) b = verb_asks(sf, t, nt, p);
    /* else, asked of the speaker's own ("Which violin do I play?", not "Which team does
     * Tim support?"), the type of a value the head names */
    if (!b && eg_sf_first_person(t, p, nt)) b = eg_sf_lookup_common(sf, t[p - 1].w);
    size_t l = strlen(t[j].w);
    if (!b && p - j > 1 && l > 4 && !strcmp(t[j].w + l - 3, "ing")) b = ask_bits(sf, t[j].w);
    return b;
  }
  if (j < nt && IN(t[j].w, aux)) {
    is |= !strcmp(t[j].w, "is") || !strcmp(t[j].w, "was") || !strcmp(t[j].w, "are") ||
          !strcmp(t[j].w, "were");
    if (j + 1 < nt && IN(t[j + 1].w, subj)) return verb_asks(sf, t, nt, j); /* what do I V */
    j++;
  }
  if (!is) return 0;
  if (j + 2 < nt && !strcmp(t[j].w, "the") && !strcmp(t[j + 1].w, "name") &&
      !strcmp(t[j + 2].w, "of"))
    j += 3;
  if (j + 1 < nt && (!strcmp(t[j].w, "my") || !strcmp(t[j].w, "our"))) return ask_at(sf, t, j + 1);
  return 0;
}

bool eg_statefacts_asks_of_user(const eg_statefacts *sf, const char *question, unsigned types) {
  static __thread token t[MAX_TOKENS];
  size_t nt = eg_sf_tokenize(question ? question : "", t, MAX_TOKENS);
  if (!eg_sf_first_person(t, 0, nt)) return false;
  /* one of the user's people ("my sister", "our new neighbour"), but for the one it asks for
   * ("Who is my girlfriend?"; a pet: "my dog's name") */
  for (size_t k = 1; k < nt; k++) {
    bool mine = eg_sf_ours(t[k - 1].w) ||
                (k > 1 && eg_sf_ours(t[k - 2].w) && !strchr(t[k - 1].w, '\'')); /* "my best X" */
    if (!mine || !eg_sf_person_noun(sf, t, k)) continue;
    unsigned b = ask_at(sf, t, k);
    /* "Where does my wife work?", "my girlfriend's sister", "my wife's boss" */
    if (!(b & types) || (strchr(t[k].w, '\'') && (b & sf->person_bit))) return false;
  }
  return true;
}

/* Does a verb that moves the speaker, gets them a thing or takes an offer (@relocates,
 * @acquires, @takes: "we finally moved", "picked up my new ride", "accepted"), or "new" or
 * "another" (a new one of something: "first night in the new flat"), start at t[i]? */
static bool begins_at(const eg_statefacts *sf, const token *t, size_t i, size_t nt) {
  static const char *const fresh[] = {"new", "another"};
  return eg_sf_verb_at(sf->relocates, t, i, nt) || eg_sf_verb_at(sf->acquires, t, i, nt) ||
         eg_sf_verb_at(sf->takes, t, i, nt) || IN(t[i].w, fresh);
}

/* Does t[i] tell an event in the past, in a sentence that asks nothing (up to `to`): a verb's
 * past form or participle, not of "be", "have" or "do" ("I joined a bank", "closed on the
 * house", "I've started my own business"; not "that was helpful")? An event told may be a
 * change in words no list has. */
static bool told_at(const eg_statefacts *sf, const token *t, size_t i, size_t to) {
  static const char *const aux[] = {"was",  "were", "been", "had",  "did",
                                    "done", "got",  "said", "told", "thought"};
  if (IN(t[i].w, aux) || !eg_wordnet_is_past(&sf->wn.verbs, t[i].w)) return false;
  size_t e = i;
  while (e + 1 < to && !t[e].cut) e++;
  return !t[e].ask;
}

/* Does w end with one of the n suffixes in list? */
static bool ends_with_any(const char *w, const char *const *list, size_t n) {
  size_t l = strlen(w);
  for (size_t i = 0; i < n; i++) {
    size_t m = strlen(list[i]);
    if (l > m && !strcmp(w + l - m, list[i])) return true;
  }
  return false;
}

bool eg_statefacts_episode(const eg_statefacts *sf, const char *text, size_t at, unsigned types,
                           bool named) {
  static const marker_kind change[] = {MK_CHANGE, MK_ENDED};
  static const char *const have[] = {"have", "has", "had"};
  static const char *const is[] = {"is", "are", "am", "be", "been", "being"};
  static const char *const clitic[] = {"'ve", "'s", "'m", "'re", "'d"}; /* "i've", "it's" */
  static const char *const was[] = {"was", "were", "wasn't", "weren't"};
  static __thread token t[MAX_TOKENS];
  bool where = types & (sf->place_bit | sf->org_bit); /* a place one may be at for a while */
  if (named && !where) return false; /* "Clementine rolled in fox poo": a pet one has */
  size_t nt = eg_sf_tokenize(text ? text : "", t, MAX_TOKENS), from = 0, to = 0;
  if (!nt || at >= t[nt - 1].e) return false; /* past what was read */
  while (from < nt && (to = eg_sf_clause_end(t, nt, from)) < nt && t[to].s <= at) from = to;
  if (from >= nt || eg_sf_has_any_marker(sf, change, 2, t, from, to)) return false;
  bool past = false;
  for (size_t k = from; k < to; k++) {
    if (eg_sf_ends_at(sf, t, k, to) || begins_at(sf, t, k, to) || !strcmp(t[k].w, "first"))
      return false; /* "I moved to X", "my first week at X", "sold the X" */
    /* "I've lived in X for years", "my umbrella's destroyed": a perfect or a passive */
    bool perfect = k > from && (IN(t[k - 1].w, have) || IN(t[k - 1].w, is) ||
                                ends_with_any(t[k - 1].w, clitic, sizeof clitic / sizeof *clitic));
    /* of a kind word, only what it was like ("the cello concert was lovely": not "tinned tuna",
     * "been veggie since uni") */
    past |= IN(t[k].w, was) ||
            (where && !perfect && !IN(t[k].w, have) && eg_wordnet_is_past(&sf->wn.verbs, t[k].w));
  }
  return past;
}

bool eg_statefacts_on_state(const eg_statefacts *sf, const char *text, size_t said_from,
                            size_t said_to, unsigned types) {
  static const marker_kind change[] = {MK_CHANGE, MK_ENDED};
  static __thread token t[MAX_TOKENS];
  size_t nt = eg_sf_tokenize(text ? text : "", t, MAX_TOKENS), a = 0;
  while (a < nt && t[a].s < said_from) a++;
  size_t b = a;
  while (b < nt && (!said_to || t[b].s < said_to)) b++;
  for (size_t k = a; k < b; k++)
    if ((ask_at(sf, t, k) & types) || eg_sf_ends_at(sf, t, k, nt) || begins_at(sf, t, k, nt) ||
        told_at(sf, t, k, b))
      return true;
  bool diet = sf->n_described && (types & sf->described[0].type);
  return eg_sf_has_any_marker(sf, change, 2, t, a, b) ||
         (diet && eg_sf_foods_named(sf, t + a, b - a));
}
