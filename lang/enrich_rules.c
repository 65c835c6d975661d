/*
 * enrich_rules.c — the offline enricher: deterministic rules over words.
 *
 *  - words: the segment split into words and punctuation, contractions expanded
 *    ("I'm" → "i am", "don't" → "do not"), each with its byte span and case;
 *  - entities: runs of capitalized words (not sentence-initial function words, not dates),
 *    typed by cues ("my sister Emma" → person, "in Lisbon" → place, "work at Acme" →
 *    organization, "a dog named Max" → pet), plus the user;
 *  - coreference: "he"/"she" → the most recent person in the window, "it"/"that
 *    framework"/"the project" in an object slot → the most recent other entity;
 *  - facts: first-person patterns of the user's statements (where they live and work,
 *    job title, diet, pets, family, purchases, visits, events, goals, habits, languages,
 *    preferences with sentiment intensity, what they care most about) with valid time
 *    from a date in the sentence; a reply that takes up or turns down what the other
 *    party suggested just before ("How about Sakura?" — "Sounds great") → ACCEPTED or
 *    REJECTED of the suggestion;
 *  - latent: "<date> <speaker>: <text with resolved mentions> [replying to <speaker>: <the
 *    first words of the segment before>] [dates: …] [facts: …]".
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/time.h"
#include "lang/dates.h"
#include "lang/enrich.h"

#define MAXT 2048

typedef struct tok {
  size_t s, e; /* byte span in the segment */
  char w[32];  /* lower case */
  bool cap;    /* starts with an upper-case letter */
  bool punct;  /* sentence or clause punctuation */
  bool start;  /* first word of a sentence */
  bool owns;   /* an "'s" after it was dropped: a possessive ("my brother's X": X is no brother),
                * or an "is" the split cannot tell from one ("my dad's X.") */
} tok;

typedef struct words {
  tok t[MAXT];
  size_t n;
} words;

static void push(words *W, size_t s, size_t e, const char *w, bool cap, bool punct) {
  if (W->n == MAXT) return;
  tok *t = &W->t[W->n++];
  t->s = s;
  t->e = e;
  snprintf(t->w, sizeof t->w, "%s", w);
  t->cap = cap;
  t->punct = punct;
  t->start = W->n == 1 || W->t[W->n - 2].punct;
  t->owns = false;
}

/* Split into words, expanding contractions. */
static void split(const char *text, words *W) {
  W->n = 0;
  for (size_t p = 0; text[p];) {
    unsigned char c = (unsigned char)text[p];
    if (c == '.' || c == '!' || c == '?' || c == ';' || c == ':' || c == ',' || c == '\n' ||
        c == '(' || c == ')') {
      char pw[2] = {c == '\n' ? '.' : (char)c, 0};
      push(W, p, p + 1, pw, false, true);
      p++;
      continue;
    }
    if (!(isalnum(c) || c >= 0x80)) {
      p++;
      continue;
    }
    size_t s = p;
    char w[64];
    size_t k = 0, apos = 0, apos_at = 0; /* the last apostrophe: in w, and in text */
    while (text[p]) {
      unsigned char d = (unsigned char)text[p];
      bool is_apos = d == '\'' || (d == 0xE2 && (unsigned char)text[p + 1] == 0x80 &&
                                   (unsigned char)text[p + 2] == 0x99);
      if (is_apos && k && isalpha((unsigned char)text[p + (d == '\'' ? 1 : 3)])) {
        apos = k;
        apos_at = p;
        if (k < sizeof w - 1) w[k++] = '\'';
        p += d == '\'' ? 1 : 3;
        continue;
      }
      if (!(isalnum(d) || d >= 0x80 || d == '-')) break;
      if (k < sizeof w - 1) w[k++] = (char)tolower(d);
      p++;
    }
    w[k] = '\0';
    bool cap = isupper(c);
    if (!apos) {
      push(W, s, p, w, cap, false);
      continue;
    }
    char left[64], right[64];
    snprintf(left, sizeof left, "%.*s", (int)apos, w);
    snprintf(right, sizeof right, "%s", w + apos + 1);
    size_t mid = apos_at; /* "’" is 3 bytes of text but 1 of w */
    if (!strcmp(right, "t") && apos > 1 && left[apos - 1] == 'n') { /* don't, can't, won't */
      left[apos - 1] = '\0';
      if (!strcmp(left, "ca")) snprintf(left, sizeof left, "can");
      if (!strcmp(left, "wo")) snprintf(left, sizeof left, "will");
      push(W, s, mid, left, cap, false);
      push(W, mid, p, "not", false, false);
      continue;
    }
    static const char *const exp[][2] = {
        {"m", "am"}, {"ve", "have"}, {"d", "would"}, {"ll", "will"}, {"re", "are"}};
    const char *r = NULL;
    for (size_t i = 0; i < sizeof exp / sizeof *exp; i++)
      if (!strcmp(right, exp[i][0])) r = exp[i][1];
    push(W, s, mid, left, cap, false);
    if (r)
      push(W, mid, p, r, false, false);
    else if (!strcmp(right, "s") &&
             (!strcmp(left, "it") || !strcmp(left, "that") || !strcmp(left, "he") ||
              !strcmp(left, "she") || !strcmp(left, "there") || !strcmp(left, "what")))
      push(W, mid, p, "is", false, false);
    else if (!strcmp(right, "s") && !strcmp(left, "let")) /* "let's do it" is "let us do it" */
      push(W, mid, p, "us", false, false);
    else if (!strcmp(right, "s") && W->n) /* other "'s": possessive, dropped */
      W->t[W->n - 1].owns = true;
  }
}

static bool is_w(const words *W, size_t i, const char *s) {
  return i < W->n && !strcmp(W->t[i].w, s);
}

/* ---- entities -------------------------------------------------------------------------- */

static const char *const not_names[] = {
    "i",      "hi",      "hello",        "hey",        "thanks",    "thank",   "yes",
    "no",     "sure",    "ok",           "okay",       "also",      "great",   "well",
    "oh",     "so",      "but",          "and",        "the",       "a",       "an",
    "my",     "it",      "this",         "that",       "these",     "those",   "what",
    "when",   "where",   "why",          "how",        "who",       "which",   "if",
    "then",   "there",   "here",         "we",         "you",       "he",      "she",
    "they",   "our",     "your",         "his",        "her",       "their",   "do",
    "does",   "did",     "can",          "could",      "would",     "should",  "will",
    "is",     "are",     "was",          "were",       "be",        "have",    "has",
    "had",    "as",      "for",          "in",         "on",        "at",      "to",
    "of",     "with",    "by",           "from",       "just",      "maybe",   "please",
    "yeah",   "wow",     "absolutely",   "definitely", "certainly", "however", "also",
    "now",    "today",   "yesterday",    "tomorrow",   "let",       "lets",    "let's",
    "good",   "nice",    "cool",         "awesome",    "perfect",   "right",   "first",
    "second", "finally", "additionally", "here's",     "i'm",       "im",      "not",
    "all",    "any",     "some",         "every",      "each",      "one",     "two",
    "it's",   "its"};

static bool common_word(const char *w) {
  for (size_t i = 0; i < sizeof not_names / sizeof *not_names; i++)
    if (!strcmp(w, not_names[i])) return true;
  return false;
}

static bool date_word(const char *w) {
  static const char *const d[] = {"january",  "february", "march",     "april",     "june",
                                  "july",     "august",   "september", "october",   "november",
                                  "december", "monday",   "tuesday",   "wednesday", "thursday",
                                  "friday",   "saturday", "sunday",    "christmas", "easter"};
  for (size_t i = 0; i < sizeof d / sizeof *d; i++)
    if (!strcmp(w, d[i])) return true;
  return false;
}

static const char *const kin[][2] = {{"sister", "sister"},
                                     {"brother", "brother"},
                                     {"mom", "mother"},
                                     {"mother", "mother"},
                                     {"dad", "father"},
                                     {"father", "father"},
                                     {"son", "son"},
                                     {"daughter", "daughter"},
                                     {"wife", "wife"},
                                     {"husband", "husband"},
                                     {"partner", "partner"},
                                     {"cousin", "cousin"},
                                     {"aunt", "aunt"},
                                     {"uncle", "uncle"},
                                     {"grandma", "grandmother"},
                                     {"grandmother", "grandmother"},
                                     {"grandpa", "grandfather"},
                                     {"grandfather", "grandfather"},
                                     {"niece", "niece"},
                                     {"nephew", "nephew"},
                                     {"girlfriend", "girlfriend"},
                                     {"boyfriend", "boyfriend"},
                                     {"fiance", "fiance"},
                                     {"fiancee", "fiancee"},
                                     {"friend", "friend"},
                                     {"colleague", "colleague"},
                                     {"coworker", "coworker"},
                                     {"boss", "boss"},
                                     {"manager", "manager"},
                                     {"roommate", "roommate"},
                                     {"neighbor", "neighbor"}};

static const char *kin_of(const char *w) {
  for (size_t i = 0; i < sizeof kin / sizeof *kin; i++)
    if (!strcmp(w, kin[i][0])) return kin[i][1];
  return NULL;
}

static bool pet_word(const char *w) {
  static const char *const p[] = {"dog",     "cat",    "puppy",  "kitten", "parrot",
                                  "hamster", "rabbit", "bunny",  "fish",   "turtle",
                                  "horse",   "bird",   "lizard", "snake",  "guinea"};
  for (size_t i = 0; i < sizeof p / sizeof *p; i++)
    if (!strcmp(w, p[i])) return true;
  return false;
}

typedef struct ent {
  char *name;
  char *type;
  size_t tok_from, tok_to; /* token range in its segment */
} ent;

/* Runs of capitalized words, typed by cues. */
static size_t find_entities(const char *text, const words *W, eg_arena *a, ent *out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < W->n && n < max; i++) {
    const tok *t = &W->t[i];
    if (!t->cap || t->punct || date_word(t->w)) continue;
    if (common_word(t->w)) continue;
    if (t->start && !(i + 1 < W->n && W->t[i + 1].cap && !W->t[i + 1].punct)) {
      /* A lone capitalized first word is usually just a sentence start. Keep it when a
       * name cue precedes nothing: e.g. "Emma called" is kept only if seen elsewhere —
       * the simple rule here: skip. */
      continue;
    }
    size_t j = i + 1;
    while (j < W->n && !W->t[j].punct &&
           ((W->t[j].cap && !date_word(W->t[j].w) && !common_word(W->t[j].w)) ||
            ((is_w(W, j, "of") || is_w(W, j, "de")) && j + 1 < W->n && W->t[j + 1].cap)))
      j++;
    ent *e = &out[n++];
    e->name = eg_arena_strndup(a, text + t->s, W->t[j - 1].e - t->s);
    e->tok_from = i;
    e->tok_to = j;
    const char *prev = i ? W->t[i - 1].w : "", *prev2 = i > 1 ? W->t[i - 2].w : "";
    e->type = "";
    bool kin = i && kin_of(prev) && !W->t[i - 1].owns; /* "my sister X", not "my sister's X" */
    if (kin || !strcmp(prev, "named") || !strcmp(prev, "called") || !strcmp(prev, "mr") ||
        !strcmp(prev, "mrs") || !strcmp(prev, "ms") || !strcmp(prev, "dr"))
      e->type = "person";
    if ((!strcmp(prev, "named") || !strcmp(prev, "called")) && pet_word(prev2)) e->type = "pet";
    if (!strcmp(prev, "in") || !strcmp(prev, "to") || !strcmp(prev, "from") ||
        !strcmp(prev, "near") || !strcmp(prev, "visited") || !strcmp(prev, "visiting"))
      e->type = "place";
    if ((!strcmp(prev, "at") || !strcmp(prev, "for") || !strcmp(prev, "joined")) &&
        (!strcmp(prev2, "work") || !strcmp(prev2, "works") || !strcmp(prev2, "working") ||
         !strcmp(prev2, "job") || !strcmp(prev2, "i") || !strcmp(prev2, "intern")))
      e->type = "organization";
    i = j - 1;
  }
  return n;
}

/* ---- small pattern matcher ---------------------------------------------------------------- */

/*
 * A pattern is words separated by spaces; "a|b" alternatives, a trailing '?' makes the
 * word optional, "*" captures the object phrase (it must be last). On a match, *obj_from
 * is the first token of the object.
 */
static bool match_at(const words *W, size_t i, const char *const *pat, size_t np,
                     size_t *obj_from) {
  if (!np) return true;
  const char *p = pat[0];
  if (!strcmp(p, "*")) {
    if (i >= W->n || W->t[i].punct) return false;
    *obj_from = i;
    return true;
  }
  size_t pl = strlen(p);
  bool opt = p[pl - 1] == '?';
  char alt[128];
  snprintf(alt, sizeof alt, "%.*s", (int)(opt ? pl - 1 : pl), p);
  if (i < W->n && !W->t[i].punct) {
    char *save = NULL, buf[128];
    snprintf(buf, sizeof buf, "%s", alt);
    for (char *x = strtok_r(buf, "|", &save); x; x = strtok_r(NULL, "|", &save))
      if (!strcmp(x, W->t[i].w) && match_at(W, i + 1, pat + 1, np - 1, obj_from)) return true;
  }
  return opt && match_at(W, i, pat + 1, np - 1, obj_from);
}

static size_t split_pattern(const char *pattern, char *buf, size_t len, const char **parts,
                            size_t max) {
  snprintf(buf, len, "%s", pattern);
  size_t n = 0;
  char *save = NULL;
  for (char *x = strtok_r(buf, " ", &save); x && n < max; x = strtok_r(NULL, " ", &save))
    parts[n++] = x;
  return n;
}

static bool boundary(const char *w) {
  static const char *const b[] = {
      "and",   "but",   "because", "so",       "since",   "when",      "while", "which",
      "who",   "with",  "for",     "from",     "as",      "if",        "or",    "at",
      "in",    "on",    "last",    "this",     "next",    "yesterday", "today", "tomorrow",
      "ago",   "now",   "lately",  "recently", "anymore", "though",    "too",   "that",
      "until", "after", "before",  "during",   "every",   "than",      "these", "days",
      "very",  "much",  "really",  "a lot",    "to",      "by",        "about"};
  for (size_t i = 0; i < sizeof b / sizeof *b; i++)
    if (!strcmp(w, b[i])) return true;
  return false;
}

/* The object phrase starting at token i: up to 5 words, articles dropped. */
static size_t object_phrase(const words *W, size_t i, size_t *from) {
  while (i < W->n && (is_w(W, i, "a") || is_w(W, i, "an") || is_w(W, i, "the") ||
                      is_w(W, i, "my") || is_w(W, i, "some") || is_w(W, i, "our")))
    i++;
  *from = i;
  size_t j = i;
  while (j < W->n && !W->t[j].punct && j - i < 5 && !(j > i && boundary(W->t[j].w)) &&
         !date_word(W->t[j].w))
    j++;
  return j;
}

/* ---- facts ---------------------------------------------------------------------------------- */

/* Is a rule's pattern in the present progressive ("i am moving to *")? */
static bool progressive(const char *pattern) {
  if (strncmp(pattern, "i am ", 5) != 0) return false;
  size_t n = strcspn(pattern + 5, " |");
  return n > 3 && !strncmp(pattern + 5 + n - 3, "ing", 3);
}

typedef struct rule {
  const char *pattern; /* matched at a first-person position */
  const char *relation;
  float sentiment, intensity;
  const char *object; /* fixed literal object (NULL = the captured phrase) */
  const char *otype;  /* expected object entity type, "" = any */
} rule;

static const rule rules[] = {
    /* where the user lives */
    {"i live|reside in *", "LIVES_IN", 0, 0, NULL, "place"},
    {"i am living|based in *", "LIVES_IN", 0, 0, NULL, "place"},
    {"i have been living in *", "LIVES_IN", 0, 0, NULL, "place"},
    {"i have lived in *", "LIVES_IN", 0, 0, NULL, "place"},
    {"i just? moved|relocated to *", "LIVES_IN", 0, 0, NULL, "place"},
    {"i am moving to *", "LIVES_IN", 0, 0, NULL, "place"},
    /* work */
    {"i work|worked at|for *", "WORKS_AT", 0, 0, NULL, "organization"},
    {"i am working at|for *", "WORKS_AT", 0, 0, NULL, "organization"},
    {"i just? joined|started at *", "WORKS_AT", 0, 0, NULL, "organization"},
    {"i got a job at|with *", "WORKS_AT", 0, 0, NULL, "organization"},
    {"i work as a|an? *", "JOB_TITLE", 0, 0, NULL, ""},
    {"i got promoted to *", "JOB_TITLE", 0, 0, NULL, ""},
    {"my job|role|title is *", "JOB_TITLE", 0, 0, NULL, ""},
    /* diet */
    {"i am a? vegan|vegetarian|pescatarian", "DIET", 0, 0, "@", ""},
    {"i went|became|turned|have been vegan|vegetarian|pescatarian", "DIET", 0, 0, "@", ""},
    {"i stopped|quit eating meat", "DIET", 0, 0, "vegetarian", ""},
    {"i am reducing|cutting red meat", "DIET", 0, 0, "reducing red meat", ""},
    {"i am cutting back on red meat", "DIET", 0, 0, "reducing red meat", ""},
    /* pets */
    {"i have|got|adopted a|an|two|three? dog|cat|puppy|kitten|parrot|hamster|rabbit|bunny|turtle "
     "named|called *",
     "HAS_PET", 0, 0, NULL, "pet"},
    {"i have|got|adopted a|an dog|cat|puppy|kitten|parrot|hamster|rabbit|bunny|turtle|fish",
     "HAS_PET", 0, 0, "@", ""},
    /* purchases, visits, events */
    {"i just? bought|purchased|ordered *", "BOUGHT", 0, 0, NULL, ""},
    {"i just? got a|an|my new *", "BOUGHT", 0, 0, NULL, ""},
    {"i visited *", "VISITED", 0, 0, NULL, "place"},
    {"i went|traveled|travelled|flew on? a? trip? to *", "VISITED", 0, 0, NULL, "place"},
    {"i attended *", "ATTENDED", 0, 0, NULL, ""},
    /* languages, activities, goals, habits */
    {"i speak *", "SPEAKS", 0, 0, NULL, ""},
    {"i play|played the? *", "PLAYS", 0, 0, NULL, ""},
    {"my goal is to *", "HAS_GOAL", 0, 0, NULL, ""},
    {"i want|plan|am planning|am trying|hope to *", "HAS_GOAL", 0, 0, NULL, ""},
    {"i usually|always|often *", "HAS_HABIT", 0, 0, NULL, ""},
    {"i married *", "MARRIED_TO", 0, 0, NULL, "person"},
    /* preferences, strongest wording first */
    {"i absolutely|really|truly hate|despise|detest *", "DISLIKES", -1, 1.0f, NULL, ""},
    {"i hate|despise|detest *", "DISLIKES", -1, 0.85f, NULL, ""},
    {"i can not stand *", "DISLIKES", -1, 0.9f, NULL, ""},
    {"i really? dislike *", "DISLIKES", -1, 0.6f, NULL, ""},
    {"i do not really? like|enjoy *", "DISLIKES", -1, 0.5f, NULL, ""},
    {"i am not a big? fan of *", "DISLIKES", -1, 0.3f, NULL, ""},
    {"i am allergic to *", "AVOIDS", -1, 1.0f, NULL, ""},
    {"i can not|cannot eat|have *", "AVOIDS", -1, 0.8f, NULL, ""},
    {"i avoid *", "AVOIDS", -1, 0.7f, NULL, ""},
    {"i absolutely|really love|adore *", "LIKES", 1, 1.0f, NULL, ""},
    {"i love|adore *", "LIKES", 1, 0.85f, NULL, ""},
    {"i really like|enjoy *", "LIKES", 1, 0.7f, NULL, ""},
    {"i like|enjoy *", "LIKES", 1, 0.5f, NULL, ""},
    {"i am a big|huge? fan of *", "LIKES", 1, 0.7f, NULL, ""},
    {"i am into *", "LIKES", 1, 0.6f, NULL, ""},
    {"i prefer *", "PREFERS", 1, 0.6f, NULL, ""},
    {"my favorite|favourite * is", "PREFERS", 1, 0.8f, NULL, ""},
    /* what the user optimizes for when choosing */
    {"i care most about *", "OPTIMIZES_FOR", 1, 0.8f, NULL, ""},
    {"i mostly|mainly|really care about *", "OPTIMIZES_FOR", 1, 0.7f, NULL, ""},
    {"i always? optimize|optimise for *", "OPTIMIZES_FOR", 1, 0.8f, NULL, ""},
    {"my top|main|biggest|first priority is *", "OPTIMIZES_FOR", 1, 0.8f, NULL, ""},
};

typedef struct window_mem {
  ent *e;
  size_t n, cap;
} window_mem;

static const ent *recent(const window_mem *m, bool person) {
  for (size_t i = m->n; i-- > 0;) {
    bool p = !strcmp(m->e[i].type, "person");
    if (p == person && strcmp(m->e[i].type, "user") != 0) return &m->e[i];
  }
  return NULL;
}

static bool pronoun_like(const words *W, size_t from, size_t to) {
  if (to == from + 1)
    return is_w(W, from, "it") || is_w(W, from, "this") || is_w(W, from, "that") ||
           is_w(W, from, "them");
  return to == from + 2 && (is_w(W, from, "that") || is_w(W, from, "this") || is_w(W, from, "the"));
}

/* Is [from, to) a personal or reflexive pronoun alone ("him", "myself", "them")? It stands
 * for no value of its own: one the window does not resolve is no value. */
static bool person_pronoun(const words *W, size_t from, size_t to) {
  static const char *const pron[] = {"me",     "you",       "him",        "her",       "us",
                                     "them",   "myself",    "yourself",   "himself",   "herself",
                                     "itself", "ourselves", "themselves", "yourselves"};
  for (size_t i = 0; to == from + 1 && i < sizeof pron / sizeof *pron; i++)
    if (is_w(W, from, pron[i])) return true;
  return false;
}

/* The sentence [s, e) token range containing token i. */
static void sentence_of(const words *W, size_t i, size_t *s, size_t *e) {
  size_t a = i, b = i;
  while (a > 0 && !(W->t[a - 1].punct && strcmp(W->t[a - 1].w, ",") != 0)) a--;
  while (b < W->n && !(W->t[b].punct && strcmp(W->t[b].w, ",") != 0)) b++;
  *s = a;
  *e = b;
}

/* Is the first person at i the subject of a question, inverted after its auxiliary ("can I
 * play …?", "should I move to …?"; not "I live in X, any tips?")? */
static bool asked_of(const words *W, size_t i) {
  static const char *const aux[] = {"can",   "could", "should", "would", "will", "shall", "may",
                                    "might", "must",  "do",     "did",   "am",   "have"};
  size_t ss, se;
  sentence_of(W, i, &ss, &se);
  if (i == ss || se >= W->n || !is_w(W, se, "?")) return false;
  for (size_t k = 0; k < sizeof aux / sizeof *aux; k++)
    if (is_w(W, i - 1, aux[k])) return true;
  return false;
}

/* The room of a segment's growing array of facts or outcomes; lost when one could not be
 * added (out of memory): the segment's reading fails rather than drop it unsaid. */
typedef struct room {
  size_t cap;
  bool lost;
} room;

static void add_fact(eg_arena *a, eg_enriched *o, room *r, const eg_fact *f) {
  if (o->n_facts == r->cap) {
    size_t nc = r->cap ? r->cap * 2 : 8;
    eg_fact *nf = eg_arena_alloc(a, nc * sizeof *nf);
    if (!nf) {
      r->lost = true;
      return;
    }
    if (o->n_facts) memcpy(nf, o->facts, o->n_facts * sizeof *nf);
    o->facts = nf;
    r->cap = nc;
  }
  o->facts[o->n_facts++] = *f;
}

eg_code eg_enriched_add_fact(eg_arena *a, eg_enriched *o, const eg_fact *f, eg_err *err) {
  room r = {o->n_facts, false}; /* its array's room unknown: taken as full */
  add_fact(a, o, &r, f);
  return r.lost ? eg_err_set(err, EG_ENOMEM, "out of memory") : EG_OK;
}

static const char *relation_words(const char *rel) {
  static const char *const m[][2] = {{"LIVES_IN", "lives in"},
                                     {"WORKS_AT", "works at"},
                                     {"JOB_TITLE", "works as"},
                                     {"DIET", "diet is"},
                                     {"HAS_PET", "has a pet"},
                                     {"BOUGHT", "bought"},
                                     {"VISITED", "visited"},
                                     {"ATTENDED", "attended"},
                                     {"SPEAKS", "speaks"},
                                     {"PLAYS", "plays"},
                                     {"HAS_GOAL", "wants to"},
                                     {"HAS_HABIT", "usually"},
                                     {"MARRIED_TO", "is married to"},
                                     {"DISLIKES", "dislikes"},
                                     {"AVOIDS", "avoids"},
                                     {"LIKES", "likes"},
                                     {"PREFERS", "prefers"},
                                     {"FAMILY_OF", "is family of"},
                                     {"FRIEND_OF", "is a friend of"},
                                     {"OPTIMIZES_FOR", "cares most about"},
                                     {"ACCEPTED", "accepted"},
                                     {"REJECTED", "declined"}};
  for (size_t i = 0; i < sizeof m / sizeof *m; i++)
    if (!strcmp(rel, m[i][0])) return m[i][1];
  return rel;
}

/* Enrich one segment given the window memory (entities of earlier segments). */
/* What a reply answers: the first words of the segment before it, for the latent text. */
static void reply_to(const eg_segment *before, eg_buf *b) {
  enum { MAX_WORDS = 24 };
  const char *t = before && before->text ? before->text : "";
  size_t end = 0, words = 0;
  for (size_t i = 0; t[i] && words < MAX_WORDS; i++)
    if ((t[i] != ' ' && t[i] != '\n') && (t[i + 1] == ' ' || t[i + 1] == '\n' || !t[i + 1]))
      end = i + 1, words++;
  if (!words) return;
  const char *who = before->speaker && *before->speaker ? before->speaker : before->role;
  eg_buf_printf(b, " [replying to %s: %.*s%s]", who, (int)end, t, t[end] ? " …" : "");
}

/* ---- accepting or declining a suggestion ------------------------------------------------ */

/* How a suggestion is worded, and how a reply takes it up or turns it down (its first words). */
static const char *const suggestion_patterns[] = {
    "i would? recommend|suggest *",
    "i can recommend *",
    "how|what about *",
    "you could|should|might try *",
    "you might|would like|enjoy|love *",
    "my recommendation|suggestion is *",
    "why not try *",
    "try *",
};
static const char *const accept_patterns[] = {
    "yes",
    "yeah",
    "yep",
    "sure",
    "deal",
    "perfect",
    "sounds good|great|perfect|lovely|nice",
    "that sounds|looks good|great|perfect",
    "that works",
    "let us do|book|try|go",
    "great idea|choice|suggestion",
    "good idea|choice|suggestion",
    "i will take|try|book it|that|them",
    "book it",
    "i love that idea",
};
static const char *const decline_patterns[] = {
    "no",
    "nah",
    "nope",
    "not for me",
    "not really",
    "i would rather not",
    "i will pass",
    "pass",
    "i do not want|like that|it|them",
    "i am not interested",
    "that does not work",
    "not that one",
};

/* Does a pattern of the list match at token i? */
static bool starts_with_any(const words *W, size_t i, const char *const *pats, size_t n) {
  for (size_t p = 0; p < n; p++) {
    const char *parts[16];
    char buf[128];
    size_t np = split_pattern(pats[p], buf, sizeof buf, parts, 16), obj;
    if (match_at(W, i, parts, np, &obj)) return true;
  }
  return false;
}

/* The last thing suggested in a segment by the other party (outside the speaker's own
 * words [said_from, said_to)): an entity named at the object position, else the object
 * phrase in lower case; *sentence (when not NULL) the sentence that suggests it. NULL when
 * it suggests nothing. */
static char *last_suggestion(const eg_segment *sg, eg_arena *a, bool *is_entity, char **sentence) {
  const char *text = sg->text ? sg->text : "";
  bool whole =
      !sg->said_to; /* one message: it is the suggestion's only when the assistant said it */
  if (whole && strcmp(sg->role, "assistant") != 0) return NULL;
  words *W = malloc(sizeof *W);
  if (!W) return NULL;
  split(text, W);
  ent ents[64];
  size_t ne = find_entities(text, W, a, ents, 64);
  char *found = NULL;
  for (size_t i = 0; i < W->n; i++) {
    if (!whole && W->t[i].s >= sg->said_from && W->t[i].s < sg->said_to) continue;
    bool sentence_start = i == 0 || W->t[i - 1].punct;
    for (size_t p = 0; p < sizeof suggestion_patterns / sizeof *suggestion_patterns; p++) {
      const char *parts[16];
      char buf[128];
      size_t np = split_pattern(suggestion_patterns[p], buf, sizeof buf, parts, 16), obj = W->n;
      if (!strcmp(parts[0], "try") && !sentence_start) continue; /* imperative "Try X." only */
      if (!match_at(W, i, parts, np, &obj)) continue;
      while (obj < W->n &&
             (is_w(W, obj, "trying") || is_w(W, obj, "visiting") || is_w(W, obj, "going")))
        obj++;
      size_t from, to = object_phrase(W, obj, &from);
      if (to <= from) continue;
      /* the entity the object starts (a sentence-initial "Try" may have joined its run) */
      const ent *hit = NULL;
      for (size_t j = 0; j < ne && !hit; j++)
        if (ents[j].tok_from <= from && from < ents[j].tok_to) hit = &ents[j];
      *is_entity = hit != NULL;
      if (hit) {
        found = hit->tok_from == from ? hit->name
                                      : eg_arena_strndup(a, text + W->t[from].s,
                                                         W->t[hit->tok_to - 1].e - W->t[from].s);
      } else {
        found = eg_arena_strndup(a, text + W->t[from].s, W->t[to - 1].e - W->t[from].s);
        for (char *c = found; found && *c; c++) *c = (char)tolower((unsigned char)*c);
      }
      if (sentence) {
        size_t ss, se;
        sentence_of(W, i, &ss, &se);
        size_t us = W->t[ss].s, ue = se < W->n ? W->t[se].e : strlen(text);
        *sentence = eg_arena_strndup(a, text + us, ue > us ? ue - us : 0);
      }
      break;
    }
  }
  free(W);
  return found;
}

/* A user's reply that takes up or turns down what the segment before suggested: ACCEPTED
 * or REJECTED of the suggestion. Only the reply's first words count ("Sounds great, …",
 * "No thanks, …"), so that a later "no" in a long message is not read as a refusal. */
static void suggestion_reply(const eg_enrich_ctx *ctx, const eg_segment *sg,
                             const eg_segment *before, const words *W, size_t said_from,
                             size_t said_to, eg_arena *a, eg_enriched *o, room *fcap) {
  if (!before || strcmp(sg->role, "user") != 0) return;
  size_t i = 0;
  while (i < W->n && (W->t[i].s < said_from || W->t[i].punct)) i++;
  if (i >= W->n || W->t[i].s >= said_to) return;
  if (is_w(W, i, "oh") || is_w(W, i, "well") || is_w(W, i, "hmm") || is_w(W, i, "ok") ||
      is_w(W, i, "okay")) {
    size_t j = i + 1;
    while (j < W->n && W->t[j].punct) j++;
    if (j < W->n && W->t[j].s < said_to) i = j;
  }
  bool accept =
      starts_with_any(W, i, accept_patterns, sizeof accept_patterns / sizeof *accept_patterns);
  bool decline = !accept && starts_with_any(W, i, decline_patterns,
                                            sizeof decline_patterns / sizeof *decline_patterns);
  if (!accept && !decline) return;
  bool is_entity = false;
  char *suggested = NULL, *what = last_suggestion(before, a, &is_entity, &suggested);
  if (!what || !*what) return;
  size_t ss, se;
  sentence_of(W, i, &ss, &se);
  const char *text = sg->text ? sg->text : "";
  size_t us = W->t[ss].s, ue = se < W->n ? W->t[se].e : strlen(text);
  eg_fact f = {(char *)ctx->user_entity,
               "user",
               accept ? "ACCEPTED" : "REJECTED",
               what,
               "",
               is_entity,
               false,
               0,
               0,
               accept ? 1.0f : -1.0f,
               0.6f,
               0.7f,
               suggested ? suggested : "",
               eg_arena_strndup(a, text + us, ue > us ? ue - us : 0),
               NULL,
               false,
               false};
  add_fact(a, o, fcap, &f);
}

/* ---- outcomes of earlier suggestions ------------------------------------------------------ */

/* What the user did with a suggestion, at a first-person position. "*" is the thing acted
 * on; without it (or when star_is_target is false: "I switched back to X" names what the
 * user went back to, not what they gave up) the thing is "the X you suggested" in the
 * sentence, else the last suggestion of the window. */
static const struct outcome_rule {
  const char *pattern, *kind;
  bool star_is_target;
  const char *needs; /* a word the sentence must hold too, or NULL */
} outcome_rules[] = {
    {"i|we ended up "
     "going|eating|staying|booking|trying|buying|reading|watching|ordering|visiting|using|taking "
     "to|at|in|with? *",
     "ACTED_ON", true, NULL},
    {"i|we finally? went to|with *", "ACTED_ON", true, NULL},
    {"i|we finally? tried|booked|visited|ordered|stayed at|in? *", "ACTED_ON", true, NULL},
    {"i|we took|followed your advice|suggestion|recommendation|tip", "ACTED_ON", false, NULL},
    {"i|we never ended up going|trying|booking|reading|watching|visiting to|at|in? *", "IGNORED",
     true, NULL},
    {"i|we never went to|with *", "IGNORED", true, NULL},
    {"i|we never tried|booked|visited|read|watched|used *", "IGNORED", true, NULL},
    {"i|we never got around to *", "IGNORED", true, NULL},
    {"i|we did not end up going|trying|booking|reading|watching to|at|in? *", "IGNORED", true,
     NULL},
    {"i|we did not go to|with *", "IGNORED", true, NULL},
    {"i|we never went|go", "IGNORED", false, NULL},
    {"i|we did not go|make", "IGNORED", false, NULL},
    {"i|we switched|went|changed|moved back to *", "REVERSED", false, NULL},
    {"i|we do not use|do|read|watch|drink|take|go|eat to|at? *", "REVERSED", true, "anymore"},
    {"i|we no longer use|do|read|watch|drink|take|go|eat to|at? *", "REVERSED", true, NULL},
    {"i|we stopped using|doing|reading|watching|drinking|taking|going|eating to|at? *", "REVERSED",
     true, NULL},
    {"i|we gave up on *", "REVERSED", true, NULL},
    {"i|we cancelled|canceled|quit *", "REVERSED", true, NULL},
    {"i|we loved|enjoyed|liked|adored *", "SUCCEEDED", true, NULL},
    {"i|we hated|disliked|regretted *", "FAILED", true, NULL},
};

/* How it went: "<thing> was|is|turned out <evaluation>". */
static const char *const went_well[] = {
    "great",   "amazing",   "excellent",   "fantastic", "wonderful",   "awesome",
    "perfect", "delicious", "lovely",      "superb",    "terrific",    "incredible",
    "good",    "brilliant", "outstanding", "fabulous",  "spectacular", "wonderful",
    "fun",     "nice",      "beautiful",   "worth"};
static const char *const went_badly[] = {"awful",         "terrible",
                                         "horrible",      "bad",
                                         "disappointing", "mediocre",
                                         "disgusting",    "dirty",
                                         "overpriced",    "noisy",
                                         "underwhelming", "rude",
                                         "dreadful",      "a disappointment",
                                         "a letdown",     "a waste",
                                         "a disaster",    "closed",
                                         "overrated",     "boring"};

static bool in_list(const words *W, size_t i, const char *const *v, size_t n) {
  for (size_t k = 0; k < n; k++) {
    const char *parts[4];
    char buf[64];
    size_t np = split_pattern(v[k], buf, sizeof buf, parts, 4), obj;
    if (match_at(W, i, parts, np, &obj)) return true;
  }
  return false;
}

/* The evaluation after a copula at token p ("was really great", "was not good"):
 * "SUCCEEDED", "FAILED" or NULL. */
static const char *evaluation_at(const words *W, size_t p) {
  size_t i = p;
  if (is_w(W, i, "turned") && is_w(W, i + 1, "out"))
    i += 2;
  else if ((is_w(W, i, "has") || is_w(W, i, "had")) && is_w(W, i + 1, "been"))
    i += 2;
  else if (is_w(W, i, "was") || is_w(W, i, "is") || is_w(W, i, "were") || is_w(W, i, "are"))
    i++;
  else
    return NULL;
  bool neg = false;
  while (i < W->n && (is_w(W, i, "not") || is_w(W, i, "so") || is_w(W, i, "really") ||
                      is_w(W, i, "very") || is_w(W, i, "absolutely") || is_w(W, i, "just") ||
                      is_w(W, i, "pretty") || is_w(W, i, "quite") || is_w(W, i, "totally") ||
                      is_w(W, i, "truly") || is_w(W, i, "super") || is_w(W, i, "to") ||
                      is_w(W, i, "be") || is_w(W, i, "incredibly") || is_w(W, i, "too")))
    neg |= is_w(W, i++, "not");
  bool good = in_list(W, i, went_well, sizeof went_well / sizeof *went_well);
  bool bad = in_list(W, i, went_badly, sizeof went_badly / sizeof *went_badly);
  if (good) return neg ? "FAILED" : "SUCCEEDED";
  return bad && !neg ? "FAILED" : NULL; /* "not bad" says too little */
}

/* "the restaurant you suggested": the token range [from, to) holds "you suggested|
 * recommended|…" (or "your suggestion|tip …"): *category the noun before "you" (empty for
 * "the one you suggested", "your advice"); true when it refers to a suggestion. */
static bool suggested_phrase(const words *W, size_t from, size_t to, eg_arena *a, char **category) {
  *category = "";
  bool found = false; /* one without a category; one with it wins */
  for (size_t k = from; k < to && k < W->n && !W->t[k].punct; k++) {
    if (is_w(W, k, "your") && k + 1 < W->n &&
        (is_w(W, k + 1, "suggestion") || is_w(W, k + 1, "recommendation") ||
         is_w(W, k + 1, "tip") || is_w(W, k + 1, "pick") || is_w(W, k + 1, "idea") ||
         is_w(W, k + 1, "advice")))
      found = true;
    if (is_w(W, k, "you") && k + 1 < W->n &&
        (is_w(W, k + 1, "suggested") || is_w(W, k + 1, "recommended") ||
         is_w(W, k + 1, "mentioned") || is_w(W, k + 1, "picked") || is_w(W, k + 1, "found") ||
         is_w(W, k + 1, "proposed") || (is_w(W, k + 1, "told") && is_w(W, k + 2, "me")))) {
      if (k > from && !is_w(W, k - 1, "one") && !is_w(W, k - 1, "the") && !is_w(W, k - 1, "that") &&
          !is_w(W, k - 1, "thing")) {
        *category = eg_arena_strdup(a, W->t[k - 1].w);
        return true;
      }
      found = true;
    }
  }
  return found;
}

/* The last thing suggested in the window before a segment, found when first asked for. */
typedef struct window_sugg {
  const eg_segment *segs; /* the window's segments before, oldest first */
  size_t n;
  bool looked;
  char *what;
} window_sugg;

static char *window_suggestion(window_sugg *w, eg_arena *a) {
  for (size_t j = w->n; !w->looked && j-- > 0;) {
    bool is_entity;
    w->what = last_suggestion(&w->segs[j], a, &is_entity, NULL);
    w->looked = w->what != NULL;
  }
  w->looked = true;
  return w->what;
}

/* The thing an outcome is about, from the tokens [from, to): "the X you suggested" (its
 * category; "your suggestion", "the one you suggested": the window's suggestion), an
 * entity, a pronoun (the window's suggestion), a capitalized name, else — when
 * literal_ok — the phrase. false when it names nothing that can be looked for. */
static bool outcome_target(const words *W, const char *text, size_t from, size_t to,
                           const ent *ents, size_t ne, window_sugg *win, bool literal_ok,
                           eg_arena *a, eg_outcome *o) {
  o->target = "";
  if (suggested_phrase(W, from, to, a, &o->category)) {
    if (!*o->category && !(o->target = window_suggestion(win, a))) o->target = "";
    return *o->category || *o->target;
  }
  for (size_t j = 0; j < ne; j++)
    if (ents[j].tok_from >= from && ents[j].tok_from < to) {
      o->target = ents[j].name;
      return true;
    }
  size_t f, t = object_phrase(W, from, &f);
  if (t > to) t = to;
  if (t <= f) return false;
  if (pronoun_like(W, f, t) || (t == f + 1 && is_w(W, f, "there"))) {
    o->target = window_suggestion(win, a);
    if (!o->target) o->target = "";
    return *o->target;
  }
  bool name =
      W->t[f].cap && !common_word(W->t[f].w); /* one the entity finder left (sentence-initial) */
  if (!name && !literal_ok) return false;
  o->target = eg_arena_strndup(a, text + W->t[f].s, W->t[t - 1].e - W->t[f].s);
  for (char *c = o->target; !name && *c; c++) *c = (char)tolower((unsigned char)*c);
  return true;
}

/* A sentence that says what was done without naming the thing ("I took your advice", "I
 * switched back to X"): "the X you suggested" in it, else the window's suggestion. */
static bool unnamed_target(const words *W, size_t ss, size_t se, window_sugg *win, eg_arena *a,
                           eg_outcome *o) {
  o->target = "";
  if (suggested_phrase(W, ss, se, a, &o->category) && *o->category) return true;
  o->target = window_suggestion(win, a);
  if (!o->target) o->target = "";
  return *o->target;
}

static bool sentence_has(const words *W, size_t ss, size_t se, const char *w) {
  for (size_t k = ss; k < se; k++)
    if (is_w(W, k, w)) return true;
  return false;
}

static void add_outcome(eg_arena *a, eg_enriched *o, room *r, const eg_outcome *x) {
  if (o->n_outcomes == r->cap) {
    size_t nc = r->cap ? r->cap * 2 : 4;
    eg_outcome *nv = eg_arena_alloc(a, nc * sizeof *nv);
    if (!nv) {
      r->lost = true;
      return;
    }
    if (o->n_outcomes) memcpy(nv, o->outcomes, o->n_outcomes * sizeof *nv);
    o->outcomes = nv;
    r->cap = nc;
  }
  o->outcomes[o->n_outcomes++] = *x;
}

/* The outcomes the user reports in their own words [said_from, said_to): in a sentence,
 * the first deed and the first evaluation that name their thing. False when one was lost
 * (out of memory). */
static bool user_outcomes(const eg_segment *sg, const words *W, size_t said_from, size_t said_to,
                          const ent *ents, size_t ne, window_sugg *win, eg_arena *a,
                          eg_enriched *o) {
  if (strcmp(sg->role, "user") != 0) return true;
  const char *text = sg->text ? sg->text : "";
  room cap = {0, false};
  for (size_t s = 0; s < W->n;) {
    size_t ss, se;
    sentence_of(W, s, &ss, &se);
    s = se + 1;
    if (ss >= se || W->t[ss].s < said_from || W->t[ss].s >= said_to) continue;
    /* what the user did (a first-person pattern), and how it went ("<thing> was great") */
    eg_outcome did = {NULL, "", "", NULL}, went = {NULL, "", "", NULL};
    for (size_t i = ss; i < se && !(did.kind && went.kind); i++) {
      for (size_t r = 0; r < sizeof outcome_rules / sizeof *outcome_rules && !did.kind &&
                         (is_w(W, i, "i") || is_w(W, i, "we"));
           r++) {
        const struct outcome_rule *ru = &outcome_rules[r];
        const char *parts[24];
        char buf[256];
        size_t np = split_pattern(ru->pattern, buf, sizeof buf, parts, 24), obj = W->n;
        if (!match_at(W, i, parts, np, &obj) || (ru->needs && !sentence_has(W, ss, se, ru->needs)))
          continue;
        bool star = !strcmp(parts[np - 1], "*") && ru->star_is_target;
        if (star ? outcome_target(W, text, obj, se, ents, ne, win, true, a, &did)
                 : unnamed_target(W, ss, se, win, a, &did))
          did.kind = ru->kind;
      }
      const char *ev = i > ss && !went.kind ? evaluation_at(W, i) : NULL;
      if (!ev) continue;
      size_t from = i; /* the thing: back to a comma or a conjunction */
      while (from > ss && !W->t[from - 1].punct && !is_w(W, from - 1, "and") &&
             !is_w(W, from - 1, "but") && !is_w(W, from - 1, "so") &&
             !is_w(W, from - 1, "because") && !is_w(W, from - 1, "though"))
        from--;
      if (from < i && !is_w(W, from, "i") && !is_w(W, from, "we") && !is_w(W, from, "you") &&
          outcome_target(W, text, from, i, ents, ne, win, false, a, &went))
        went.kind = ev;
    }
    size_t us = W->t[ss].s, ue = se < W->n ? W->t[se].e : strlen(text);
    char *said =
        did.kind || went.kind ? eg_arena_strndup(a, text + us, ue > us ? ue - us : 0) : NULL;
    did.utterance = went.utterance = said;
    if (did.kind) add_outcome(a, o, &cap, &did);
    if (went.kind) add_outcome(a, o, &cap, &went);
  }
  return !cap.lost;
}

/* Reads one segment into o: false when a fact or an outcome could not be kept (out of
 * memory); o->latent NULL the same. */
static bool enrich_one(const eg_enrich_ctx *ctx, const eg_segment *sg, const eg_segment *before,
                       window_sugg *win, window_mem *mem, eg_arena *a, eg_enriched *o) {
  static __thread words W; /* per thread: a worker enriches one segment at a time */
  const char *text = sg->text ? sg->text : "";
  split(text, &W);
  ent ents[64];
  size_t ne = find_entities(text, &W, a, ents, 64);
  eg_date dates[16];
  size_t nd = eg_dates_find(text, sg->time, dates, 16);
  bool from_user = !strcmp(sg->role, "user");
  size_t said_from = sg->said_to ? sg->said_from : 0,
         said_to = sg->said_to ? sg->said_to : (size_t)-1;
  /* mentions */
  o->mentions = eg_arena_alloc(a, (ne + 1) * sizeof *o->mentions);
  o->n_mentions = 0;
  if (!o->mentions) return false;
  if (from_user) o->mentions[o->n_mentions++] = (eg_mention){(char *)ctx->user_entity, "user"};
  for (size_t i = 0; i < ne; i++)
    o->mentions[o->n_mentions++] = (eg_mention){ents[i].name, ents[i].type};
  /* kinship: "my sister Emma" → a fact, and Emma is a person */
  room fcap = {0, false};
  for (size_t i = 0; from_user && i + 2 < W.n; i++) {
    if (W.t[i].s < said_from || W.t[i].s >= said_to) continue; /* the reply's "my" */
    const char *k = is_w(&W, i, "my") ? kin_of(W.t[i + 1].w) : NULL;
    if (!k || !W.t[i + 2].cap || W.t[i + 1].owns) continue;
    for (size_t j = 0; j < ne; j++) {
      if (ents[j].tok_from != i + 2) continue;
      ents[j].type = "person";
      eg_fact f = {(char *)ctx->user_entity,
                   "user",
                   !strcmp(k, "friend")                            ? "FRIEND_OF"
                   : (!strcmp(k, "wife") || !strcmp(k, "husband")) ? "MARRIED_TO"
                                                                   : "FAMILY_OF",
                   ents[j].name,
                   "person",
                   true,
                   false,
                   0,
                   0,
                   0,
                   0,
                   0.8f,
                   (char *)k,
                   NULL,
                   NULL,
                   false,
                   false};
      add_fact(a, o, &fcap, &f);
    }
  }
  /* remember this segment's entities for the window */
  for (size_t i = 0; i < ne; i++) {
    if (mem->n == mem->cap) {
      size_t nc = mem->cap ? mem->cap * 2 : 32;
      ent *nn = eg_arena_alloc(a, nc * sizeof *nn);
      if (!nn) break;
      if (mem->n) memcpy(nn, mem->e, mem->n * sizeof *nn);
      mem->e = nn;
      mem->cap = nc;
    }
    mem->e[mem->n++] = ents[i];
  }
  /* facts from first-person statements */
  for (size_t i = 0; from_user && i < W.n; i++) {
    if (!is_w(&W, i, "i") && !is_w(&W, i, "my")) continue;
    if (W.t[i].s < said_from || W.t[i].s >= said_to) continue; /* the reply's "I" */
    if (asked_of(&W, i)) continue; /* "what songs can I play with …?" says nothing */
    for (size_t r = 0; r < sizeof rules / sizeof *rules; r++) {
      const char *parts[24];
      char buf[256];
      size_t np = split_pattern(rules[r].pattern, buf, sizeof buf, parts, 24);
      size_t obj = W.n;
      bool has_obj = np && !strcmp(parts[np - 1], "*");
      /* "my favorite * is": the captured word is in the middle */
      bool mid = false;
      for (size_t p = 0; p + 1 < np; p++) mid |= !strcmp(parts[p], "*");
      if (mid) {
        if (!(is_w(&W, i, "my") && (is_w(&W, i + 1, "favorite") || is_w(&W, i + 1, "favourite"))))
          continue;
        size_t k = i + 2;
        while (k < W.n && !W.t[k].punct && !is_w(&W, k, "is") && !is_w(&W, k, "are")) k++;
        if (!is_w(&W, k, "is") && !is_w(&W, k, "are")) continue;
        obj = k + 1;
      } else if (!match_at(&W, i, parts, np, &obj)) {
        continue;
      }
      eg_fact f = {(char *)ctx->user_entity,
                   "user",
                   (char *)rules[r].relation,
                   NULL,
                   "",
                   false,
                   false,
                   0,
                   0,
                   rules[r].sentiment,
                   rules[r].intensity,
                   0.7f,
                   "",
                   NULL,
                   NULL,
                   false,
                   false};
      if (rules[r].object && !strcmp(rules[r].object, "@")) {
        /* the pattern's last word is the object */
        size_t last = i;
        while (last + 1 < W.n && !W.t[last + 1].punct && last < i + np) last++;
        for (size_t k = i; k < W.n && !W.t[k].punct; k++) {
          const char *w = W.t[k].w;
          if (!strcmp(w, "vegan") || !strcmp(w, "vegetarian") || !strcmp(w, "pescatarian") ||
              pet_word(w))
            last = k;
        }
        f.object = eg_arena_strdup(a, W.t[last].w);
      } else if (rules[r].object) {
        f.object = (char *)rules[r].object;
      } else if (has_obj || mid) {
        size_t from, to = object_phrase(&W, obj, &from);
        if (to <= from) continue;
        /* an entity at the object position, or a pronoun / "that framework" to resolve */
        const ent *hit = NULL;
        for (size_t j = 0; j < ne && !hit; j++)
          if (ents[j].tok_from == from) hit = &ents[j];
        if (!hit && pronoun_like(&W, from, to)) hit = recent(mem, false);
        if (!hit && (is_w(&W, from, "him") || is_w(&W, from, "her"))) hit = recent(mem, true);
        if (!hit && person_pronoun(&W, from, to))
          break; /* "I work for myself now": read, no value */
        if (hit) {
          f.object = hit->name;
          f.object_entity = true;
          f.object_type = hit->type[0] ? hit->type : (char *)rules[r].otype;
        } else {
          f.object = eg_arena_strndup(a, text + W.t[from].s, W.t[to - 1].e - W.t[from].s);
          for (char *c = f.object; c && *c; c++) *c = (char)tolower((unsigned char)*c);
        }
      } else {
        continue;
      }
      /* valid time: a date in the same sentence */
      size_t ss, se;
      sentence_of(&W, i, &ss, &se);
      for (size_t d = 0; d < nd; d++) {
        if (dates[d].start >= W.t[ss].s &&
            dates[d].start < (se < W.n ? W.t[se].s : strlen(text) + 1)) {
          /* "I am moving to X in January", said in November: the coming January */
          f.valid_from = progressive(rules[r].pattern)
                             ? eg_date_ahead(&dates[d], sg->time - sg->time % EG_US_PER_DAY)
                             : dates[d].from;
          if (dates[d].kind == EG_DATE_DAY &&
              (!strcmp(f.relation, "VISITED") || !strcmp(f.relation, "ATTENDED")))
            f.valid_to = dates[d].to;
          break;
        }
      }
      size_t us = W.t[ss].s, ue = se < W.n ? W.t[se].e : strlen(text);
      f.utterance = eg_arena_strndup(a, text + us, ue > us ? ue - us : 0);
      /* "because …" is the reason */
      for (size_t k = i; k < se; k++)
        if (is_w(&W, k, "because") || (is_w(&W, k, "for") && is_w(&W, k + 2, "reasons"))) {
          size_t rs = W.t[k].s, re = se < W.n ? W.t[se].s : strlen(text);
          f.reason = eg_arena_strndup(a, text + rs, re > rs ? re - rs : 0);
          break;
        }
      if (!f.object || !f.utterance) /* out of memory: the reading fails, nothing dropped */
        fcap.lost = true;
      else
        add_fact(a, o, &fcap, &f);
      break; /* one fact per first-person position: the first (strongest) rule wins */
    }
  }
  suggestion_reply(ctx, sg, before, &W, said_from, said_to, a, o, &fcap);
  bool kept = user_outcomes(sg, &W, said_from, said_to, ents, ne, win, a, o) && !fcap.lost;
  /* latent text: date, speaker, text with resolved mentions and dates, implied facts */
  eg_buf b = EG_BUF_INIT;
  char day[16];
  eg_time_format_date(sg->time, day, sizeof day);
  const char *who = sg->speaker && *sg->speaker      ? sg->speaker
                    : from_user                      ? "the user"
                    : !strcmp(sg->role, "assistant") ? "the assistant"
                                                     : sg->role;
  eg_buf_printf(&b, "%s, %s: ", day, who);
  size_t at = 0;
  for (size_t i = 0; i < W.n; i++) {
    const char *res = NULL;
    if (is_w(&W, i, "he") || is_w(&W, i, "she") || is_w(&W, i, "him") || is_w(&W, i, "her")) {
      const ent *p = recent(mem, true);
      if (p) res = p->name;
    } else if ((is_w(&W, i, "that") || is_w(&W, i, "this")) && i + 1 < W.n && !W.t[i + 1].punct &&
               (is_w(&W, i + 1, "framework") || is_w(&W, i + 1, "library") ||
                is_w(&W, i + 1, "app") || is_w(&W, i + 1, "tool") || is_w(&W, i + 1, "language") ||
                is_w(&W, i + 1, "place") || is_w(&W, i + 1, "city") || is_w(&W, i + 1, "project") ||
                is_w(&W, i + 1, "company") || is_w(&W, i + 1, "restaurant") ||
                is_w(&W, i + 1, "book") || is_w(&W, i + 1, "show") || is_w(&W, i + 1, "movie") ||
                is_w(&W, i + 1, "game") || is_w(&W, i + 1, "car") || is_w(&W, i + 1, "one"))) {
      const ent *p = recent(mem, false);
      if (p) {
        eg_buf_append(&b, text + at, W.t[i + 1].e - at);
        eg_buf_printf(&b, " (%s)", p->name);
        at = W.t[i + 1].e;
        i++;
        continue;
      }
    }
    if (res) {
      eg_buf_append(&b, text + at, W.t[i].e - at);
      eg_buf_printf(&b, " (%s)", res);
      at = W.t[i].e;
    }
  }
  size_t tl = strlen(text);
  if (at < tl) eg_buf_append(&b, text + at, tl - at);
  reply_to(before, &b);
  /* dates resolved, after the text */
  for (size_t d = 0; d < nd; d++)
    eg_buf_printf(&b, "%s\"%.*s\" = %s",
                  d ? "; " : " [dates: ", (int)(dates[d].end - dates[d].start),
                  text + dates[d].start, dates[d].label);
  if (nd) eg_buf_puts(&b, "]");
  for (size_t f = 0; f < o->n_facts; f++) {
    const eg_fact *x = &o->facts[f];
    eg_buf_printf(&b, "%s%s %s %s", f ? "; " : " [facts: ",
                  !strcmp(x->subject, ctx->user_entity) ? "the user" : x->subject,
                  relation_words(x->relation), x->object);
    if (x->intensity >= 0.95f)
      eg_buf_puts(&b, " (very strongly)");
    else if (x->intensity >= 0.8f)
      eg_buf_puts(&b, " (strongly)");
    else if (x->intensity > 0 && x->intensity < 0.4f)
      eg_buf_puts(&b, " (mildly)");
    if (x->valid_from) {
      char vf[16];
      eg_time_format_date(x->valid_from, vf, sizeof vf);
      eg_buf_printf(&b, " since %s", vf);
    }
  }
  if (o->n_facts) eg_buf_puts(&b, "]");
  o->latent = eg_arena_strndup(a, b.data ? b.data : "", b.len);
  eg_buf_free(&b);
  return kept;
}

eg_code eg_enrich_rules(const eg_enrich_ctx *ctx, const eg_segment *segs, size_t n, eg_arena *a,
                        eg_enriched *out, eg_err *err) {
  for (size_t i = 0; i < n; i++) {
    /* The window memory holds the entities of the `prev` segments before i. */
    window_mem mem = {NULL, 0, 0};
    size_t from = i > ctx->prev ? i - ctx->prev : 0;
    for (size_t j = from; j < i; j++) {
      eg_enriched scratch;
      memset(&scratch, 0, sizeof scratch);
      words *W = malloc(sizeof *W);
      if (!W) return eg_err_set(err, EG_ENOMEM, "out of memory");
      split(segs[j].text ? segs[j].text : "", W);
      ent ents[64];
      size_t ne = find_entities(segs[j].text ? segs[j].text : "", W, a, ents, 64);
      free(W);
      for (size_t k = 0; k < ne; k++) {
        if (mem.n == mem.cap) {
          size_t nc = mem.cap ? mem.cap * 2 : 32;
          ent *nn = eg_arena_alloc(a, nc * sizeof *nn);
          if (!nn) return eg_err_set(err, EG_ENOMEM, "out of memory");
          if (mem.n) memcpy(nn, mem.e, mem.n * sizeof *nn);
          mem.e = nn;
          mem.cap = nc;
        }
        mem.e[mem.n++] = ents[k];
      }
    }
    memset(&out[i], 0, sizeof out[i]);
    window_sugg win = {segs + from, i - from, false, NULL};
    if (!enrich_one(ctx, &segs[i], i > 0 && ctx->prev ? &segs[i - 1] : NULL, &win, &mem, a,
                    &out[i]) ||
        !out[i].latent)
      return eg_err_set(err, EG_ENOMEM, "out of memory");
  }
  return EG_OK;
}
