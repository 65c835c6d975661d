/*
 * statefacts_load.c — the prototype extractor's start (see statefacts.h): the prototypes
 * file read into types, markers, relations and their prototypes, WordNet's closures walked
 * once into our own maps, the prototypes embedded once.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/log.h"
#include "lang/catalog.h"
#include "lang/statefacts_int.h"

/* A verb below an @ends or @takes root counts when that sense is among its first three:
 * "lose" (to death) is its third; "go" (to die) far down its list. */
#define VERB_SENSES 3

static const char *const marker_names[] = {"@past",  "@future",  "@negation", "@change",
                                           "@from",  "@former",  "@ended",    "@topic",
                                           "@visit", "@arrival", "@stay"};
_Static_assert(sizeof marker_names / sizeof *marker_names == N_MARKER_KINDS,
               "a directive for every kind of marker");

/* ---- loading ----------------------------------------------------------------------------- */

void eg_sf_lower(char *s) {
  for (; *s; s++) *s = (char)tolower((unsigned char)*s);
}

static int type_index(eg_statefacts *sf, const char *name, bool create) {
  for (int i = 0; i < sf->n_types; i++)
    if (!strcmp(sf->type_names[i], name)) return i;
  if (!create || sf->n_types == MAX_TYPES) return -1;
  snprintf(sf->type_names[sf->n_types], sizeof sf->type_names[0], "%s", name);
  return sf->n_types++;
}

static unsigned type_bit(const eg_statefacts *sf, const char *name) {
  for (int i = 0; i < sf->n_types; i++)
    if (!strcmp(sf->type_names[i], name)) return 1u << i;
  return 0;
}

static void or_bits(eg_map *m, const char *k, unsigned bits) {
  uintptr_t old = (uintptr_t)eg_map_get(m, k, strlen(k));
  eg_map_put(m, k, strlen(k), (void *)(old | bits));
}

static void add_bits(eg_map *m, const char *lemma, unsigned bits) {
  char k[128];
  snprintf(k, sizeof k, "%s", lemma);
  eg_sf_lower(k);
  for (char *p = k; *p; p++)
    if (*p == '_') *p = ' ';
  or_bits(m, k, bits);
  if (!strchr(k, '-')) return;
  /* chat writes a hyphenated compound as one word: "co-worker" is "coworker" too */
  char *d = k;
  for (const char *p = k; *p; p++)
    if (*p != '-') *d++ = *p;
  *d = '\0';
  or_bits(m, k, bits);
}

unsigned eg_sf_bits_of(const eg_map *m, const char *key) {
  return (unsigned)(uintptr_t)eg_map_get(m, key, strlen(key));
}

bool eg_sf_synonyms(const eg_statefacts *sf, const char *a, const char *b, unsigned bits) {
  char k[256];
  snprintf(k, sizeof k, "%s|%s", a, b);
  eg_sf_lower(k);
  return (eg_sf_bits_of(sf->synonyms, k) & bits) != 0;
}

typedef struct closure_ctx {
  eg_statefacts *sf;
  unsigned bits;
  eg_map *common_only; /* NULL: the type tables; else common nouns only, into this table */
} closure_ctx;

static bool on_lemma(void *ctx, const char *lemma, bool proper, const char *head) {
  closure_ctx *c = ctx;
  if (c->common_only) {
    if (!proper) add_bits(c->common_only, lemma, c->bits);
    return true;
  }
  add_bits(proper ? c->sf->proper : c->sf->common, lemma, c->bits);
  if (!proper && strcmp(lemma, head) != 0) { /* "ukulele" and "uke": one thing */
    char k[256];
    snprintf(k, sizeof k, "%s|%s", lemma, head);
    add_bits(c->sf->synonyms, k, c->bits);
    snprintf(k, sizeof k, "%s|%s", head, lemma);
    add_bits(c->sf->synonyms, k, c->bits);
  }
  return true;
}

/* The lemmas below WordNet noun `root` ("city#1") into sf's tables: with `bits` into the
 * type tables, or (common_only) its common nouns into that table. */
static eg_code add_closure(eg_statefacts *sf, const char *wn_dir, const char *root, unsigned bits,
                           eg_map *common_only, int lineno, eg_err *err) {
  closure_ctx c = {sf, bits, common_only};
  eg_code rc = eg_wordnet_closure(wn_dir, root, on_lemma, &c, err);
  if (rc == EG_ENOTFOUND)
    return eg_err_set(err, EG_EINVAL, "prototypes line %d: %s is not a WordNet noun", lineno, root);
  return rc;
}

/* A line's WordNet roots, the words left after its directive (`save`, strtok_r's), into
 * roots[0..*n); more than max is an error. */
enum { MAX_ROOTS = 64 };

static eg_code line_roots(char **save, const char **roots, size_t *n, int lineno, eg_err *err) {
  *n = 0;
  for (char *w = strtok_r(NULL, " \t", save); w; w = strtok_r(NULL, " \t", save)) {
    if (*n == MAX_ROOTS)
      return eg_err_set(err, EG_EINVAL, "prototypes line %d: more than %d roots", lineno,
                        MAX_ROOTS);
    roots[(*n)++] = w;
  }
  return EG_OK;
}

/* "wordnet ROOT …" after a directive word (`save`, strtok_r's): its roots, as line_roots. */
static eg_code wordnet_roots(char **save, const char *word, const char **roots, size_t *n,
                             int lineno, eg_err *err) {
  char *how = strtok_r(NULL, " \t", save);
  if (!how || strcmp(how, "wordnet") != 0)
    return eg_err_set(err, EG_EINVAL, "prototypes line %d: %s wordnet ROOT …", lineno, word);
  return line_roots(save, roots, n, lineno, err);
}

/* rc of WordNet for a line's roots: a root it does not have ("not a WordNet verb: ROOT") is
 * the line's error. */
static eg_code root_error(eg_code rc, int lineno, eg_err *err) {
  if (rc != EG_ENOTFOUND) return rc;
  char why[sizeof err->msg];
  snprintf(why, sizeof why, "%s", err->msg);
  return eg_err_set(err, EG_EINVAL, "prototypes line %d: %s", lineno, why);
}

/* A form of a verb, into the table ctx (sf->ends, sf->takes): a one-word verb's base and -s
 * forms are nouns as often ("part", "dumps", "offer"), so they count only after the speaker as
 * subject (EG_SF_AFTER_I: "I stop the violin"); a phrase's count everywhere ("give up"). */
static bool on_verb_form(void *ctx, const char *form, bool present) {
  add_bits(ctx, form, !present || strchr(form, ' ') ? EG_SF_ANY_FORM : EG_SF_AFTER_I);
  return true;
}

static void parse_marker(const char *phrase, marker *m) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", phrase);
  eg_sf_lower(buf);
  m->n = 0;
  char *save = NULL;
  for (char *w = strtok_r(buf, " \t", &save); w && m->n < 4; w = strtok_r(NULL, " \t", &save))
    snprintf(m->w[m->n++], sizeof m->w[0], "%s", w);
}

/* "@past used to, formerly": comma-separated phrases. */
static void parse_markers(eg_statefacts *sf, marker_kind k, char *rest) {
  char *save = NULL;
  for (char *p = strtok_r(rest, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || sf->n_markers[k] == MAX_MARKERS) continue;
    marker *m = &sf->markers[k][sf->n_markers[k]];
    parse_marker(p, m);
    if (m->n) sf->n_markers[k]++;
  }
}

static unsigned type_bits_of_list(eg_statefacts *sf, char *list, bool create) {
  unsigned bits = 0;
  char *save = NULL;
  for (char *t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
    int i = type_index(sf, t, create);
    if (i >= 0) bits |= 1u << i;
  }
  return bits;
}

/* "oslo|norway" → 1: a place and one it is part of, folded (@within) */
static bool on_whole(void *ctx, const char *part, const char *whole) {
  char key[256], k[256];
  snprintf(key, sizeof key, "%s|%s", part, whole);
  eg_sf_fold(key, k, sizeof k);
  or_bits(ctx, k, 1);
  return true;
}

/* "@shorthand rn right now, gf girlfriend": comma-separated, each a word of chat and what it
 * stands for (a word already given keeps its first). */
static eg_code parse_shorthand(eg_statefacts *sf, char *rest, int lineno, eg_err *err) {
  char *save = NULL;
  for (char *p = strtok_r(rest, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    while (*p == ' ' || *p == '\t') p++;
    size_t wl = strcspn(p, " \t"), xl = strlen(p);
    while (xl > wl && (p[xl - 1] == ' ' || p[xl - 1] == '\t')) xl--;
    const char *x = p + wl + strspn(p + wl, " \t");
    if (!wl || wl >= 16 || x >= p + xl)
      return eg_err_set(err, EG_EINVAL, "prototypes line %d: @shorthand WORD WORDS, …", lineno);
    char w[16];
    for (size_t i = 0; i < wl; i++) w[i] = (char)tolower((unsigned char)p[i]);
    if (eg_map_get(sf->shorthand, w, wl)) continue;
    char *v = strndup(x, (size_t)(p + xl - x));
    if (!v || eg_map_put(sf->shorthand, w, wl, v) != EG_OK) {
      free(v);
      return eg_err_set(err, EG_ENOMEM, "out of memory");
    }
    if (strlen(v) > sf->shorthand_max) sf->shorthand_max = strlen(v);
  }
  return EG_OK;
}

typedef struct towns_ctx {
  eg_map *towns;
  unsigned bits;
} towns_ctx;

/* A town's name from the gazetteer, folded ("A Coruña" → "a coruna"): one of letters, spaces,
 * hyphens and apostrophes, three bytes or more ("Biel/Bienne", "Delmas 73" are left out). */
static bool on_town(void *ctx, const char *s, size_t n) {
  towns_ctx *c = ctx;
  char k[128];
  if (n < 3 || n >= sizeof k || strpbrk(s, "0123456789()/,;.\"")) return true;
  eg_sf_fold(s, k, sizeof k);
  or_bits(c->towns, k, c->bits);
  return true;
}

/* "@type place gazetteer PATH": the names of a GNU gettext catalogue's translations (Debian's
 * libgeonames-common: GeoNames' towns) have the type. Without the file, none do: the
 * gazetteer widens what WordNet knows, it is not needed to read. */
static eg_code add_towns(eg_statefacts *sf, const char *path, unsigned bits, int lineno,
                         eg_err *err) {
  if (!path)
    return eg_err_set(err, EG_EINVAL, "prototypes line %d: @type NAME gazetteer PATH", lineno);
  towns_ctx c = {sf->towns, bits};
  eg_code rc = eg_catalog_read(path, on_town, &c, err);
  if (rc == EG_ENOTFOUND || !rc) return EG_OK;
  char why[sizeof err->msg];
  snprintf(why, sizeof why, "%s", err->msg);
  return eg_err_set(err, rc, "prototypes line %d: %s", lineno, why);
}

/* The relation named name into *rel, added (its types to come) when it is new. */
static eg_code relation_index(eg_statefacts *sf, const char *name, int lineno, int *rel,
                              eg_err *err) {
  int r = 0;
  while (r < sf->n_rels && strcmp(sf->rels[r].name, name) != 0) r++;
  if (r == sf->n_rels) {
    if (sf->n_rels == MAX_RELS)
      return eg_err_set(err, EG_EINVAL, "prototypes line %d: too many relations", lineno);
    snprintf(sf->rels[r].name, sizeof sf->rels[r].name, "%s", name);
    sf->n_rels++;
  }
  *rel = r;
  return EG_OK;
}

/* The bit of food group `name`, added when new (-1: too many). */
static int food_index(eg_statefacts *sf, const char *name) {
  int i = 0;
  while (i < sf->n_foods && strcmp(sf->food_names[i], name) != 0) i++;
  if (i == sf->n_foods) {
    if (i == MAX_FOODS || strlen(name) >= sizeof sf->food_names[0]) return -1;
    snprintf(sf->food_names[sf->n_foods++], sizeof sf->food_names[0], "%s", name);
  }
  return i;
}

/* "@food GROUP wordnet ROOT …" or "@food GROUP words WORD …": the foods of a group; the words
 * name it whole ("meat"), the lemmas below the roots are some of it ("pork"). */
static eg_code parse_food(eg_statefacts *sf, const char *wn_dir, char *rest, int lineno,
                          eg_err *err) {
  char *save = NULL, *group = strtok_r(rest, " \t", &save), *how = strtok_r(NULL, " \t", &save);
  int g = group ? food_index(sf, group) : -1;
  if (g < 0 || !how || (strcmp(how, "wordnet") != 0 && strcmp(how, "words") != 0))
    return eg_err_set(err, EG_EINVAL,
                      "prototypes line %d: @food GROUP wordnet|words … (at most %d)", lineno,
                      MAX_FOODS);
  for (char *w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    if (!strcmp(how, "words")) {
      add_bits(sf->foods, w, (1u << g) | (1u << (g + WHOLE)));
      continue;
    }
    eg_code rc = add_closure(sf, wn_dir, w, 1u << g, sf->foods, lineno, err);
    if (rc) return rc;
  }
  return EG_OK;
}

/* "@describe TYPE VALUE -GROUP +GROUP …": VALUE, of TYPE, is told by leaving out the groups
 * marked - and eating those marked + (groups of the @food lines before it). */
static eg_code parse_described(eg_statefacts *sf, char *rest, int lineno, eg_err *err) {
  char *save = NULL, *type = strtok_r(rest, " \t", &save), *value = strtok_r(NULL, " \t", &save);
  int ti = type ? type_index(sf, type, false) : -1;
  if (ti < 0 || !value || strlen(value) >= sizeof sf->described[0].value ||
      sf->n_described == MAX_DESCRIBED)
    return eg_err_set(err, EG_EINVAL,
                      "prototypes line %d: @describe TYPE VALUE ±GROUP … (a known type, at most "
                      "%d values)",
                      lineno, MAX_DESCRIBED);
  described d = {.type = 1u << ti};
  if (sf->n_described && sf->described[0].type != d.type)
    return eg_err_set(err, EG_EINVAL, "prototypes line %d: @describe lines are of one type",
                      lineno);
  snprintf(d.value, sizeof d.value, "%s", value);
  for (char *w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    int g = -1;
    for (int i = 0; (w[0] == '-' || w[0] == '+') && i < sf->n_foods; i++)
      if (!strcmp(sf->food_names[i], w + 1)) g = i;
    if (g < 0)
      return eg_err_set(err, EG_EINVAL, "prototypes line %d: %s is no -GROUP or +GROUP of @food",
                        lineno, w);
    *(w[0] == '-' ? &d.out : &d.in) |= 1u << g;
  }
  if (!(d.out | d.in))
    return eg_err_set(err, EG_EINVAL, "prototypes line %d: @describe names no group", lineno);
  sf->described[sf->n_described++] = d;
  return EG_OK;
}

/* "@unlike TYPE … wordnet ROOT …": the names whose first sense is below a root have none of
 * the types ("Maya", a people first, keeps them). */
static eg_code parse_unlike(eg_statefacts *sf, const char *wn_dir, char *rest, int lineno,
                            eg_err *err) {
  char *at = strstr(rest, "wordnet");
  if (!at || (at > rest && at[-1] != ' ' && at[-1] != '\t'))
    return eg_err_set(err, EG_EINVAL, "prototypes line %d: @unlike TYPE … wordnet ROOT …", lineno);
  *at = '\0';
  closure_ctx c = {sf, type_bits_of_list(sf, rest, false), sf->unlike};
  if (!c.bits)
    return eg_err_set(err, EG_EINVAL, "prototypes line %d: @unlike names no known type", lineno);
  char *save = at + strlen("wordnet");
  const char *roots[MAX_ROOTS];
  size_t n;
  eg_code rc = line_roots(&save, roots, &n, lineno, err);
  if (rc) return rc;
  return root_error(eg_wordnet_closure_first(wn_dir, roots, n, on_lemma, &c, err), lineno, err);
}

static bool free_value(void *ctx, const void *key, size_t klen, void *value) {
  (void)ctx, (void)key, (void)klen;
  free(value);
  return true;
}

/* Words of one value of type bits, named by the first: each pair synonyms, each later word
 * mapped to the first in sf->same (a word already mapped keeps its name). False when out of
 * memory. */
static bool add_same(eg_statefacts *sf, const char *const *words, size_t n, unsigned bits) {
  for (size_t i = 0; i < n; i++) {
    char k[256];
    for (size_t j = 0; j < n; j++) {
      snprintf(k, sizeof k, "%s|%s", words[i], words[j]);
      if (i != j) or_bits(sf->synonyms, k, bits);
    }
    if (i == 0 || eg_map_get(sf->same, words[i], strlen(words[i]))) continue;
    char *name = strdup(words[0]);
    if (!name || eg_map_put(sf->same, words[i], strlen(words[i]), name) != EG_OK) {
      free(name);
      return false;
    }
  }
  return true;
}

/* "@same TYPE WORD …": words naming one value of TYPE, the first its name ("drum_kit" is
 * "drums"): each pair is of one value, as a WordNet synset's words are, and a value said by any
 * of them is named by the first. */
static eg_code parse_same(eg_statefacts *sf, char *rest, int lineno, eg_err *err) {
  char *save = NULL, *type = strtok_r(rest, " \t", &save);
  unsigned bits = type ? type_bit(sf, type) : 0;
  if (!bits)
    return eg_err_set(err, EG_EINVAL, "prototypes line %d: @same TYPE WORD …, TYPE known", lineno);
  char *words[16];
  size_t n = 0;
  for (char *w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    if (n == sizeof words / sizeof *words)
      return eg_err_set(err, EG_EINVAL, "prototypes line %d: @same takes at most %zu words", lineno,
                        sizeof words / sizeof *words);
    for (char *c = w; *c; c++) *c = *c == '_' ? ' ' : (char)tolower((unsigned char)*c);
    words[n++] = w;
  }
  if (n < 2) return eg_err_set(err, EG_EINVAL, "prototypes line %d: @same needs two words", lineno);
  return add_same(sf, (const char *const *)words, n, bits)
             ? EG_OK
             : eg_err_set(err, EG_ENOMEM, "out of memory");
}

typedef struct player_ctx {
  eg_statefacts *sf;
  unsigned bits;
  bool ok;
} player_ctx;

/* A noun derived from a word of the type ("cellist" from "cello"), or from a name WordNet
 * gives one ("Londoner" from "London"): a word of that type too, naming the word it comes from,
 * the name as WordNet writes it (@player). */
static bool on_player(void *ctx, const char *player, const char *value) {
  player_ctx *c = ctx;
  char v[128], p[128];
  snprintf(v, sizeof v, "%s", value);
  snprintf(p, sizeof p, "%s", player);
  for (char *q = v; *q; q++) *q = (char)tolower((unsigned char)*q);
  for (char *q = p; *q; q++) *q = (char)tolower((unsigned char)*q);
  bool word = eg_sf_lookup_common(c->sf, v) & c->bits;
  if (strchr(p, ' ') || !(word || (eg_sf_bits_of(c->sf->proper, v) & c->bits)) ||
      eg_sf_lookup_common(c->sf, p))
    return true;
  const char *pair[] = {word ? v : value, p};
  or_bits(c->sf->common, p, c->bits);
  or_bits(c->sf->players, p, 1);
  return c->ok = add_same(c->sf, pair, 2, c->bits);
}

/* "@player instrument wordnet musician#1": the nouns of the closure derived from a word of the
 * type are words of it, each named by the word it comes from ("I'm a cellist": PLAYS cello). */
static eg_code parse_player(eg_statefacts *sf, const char *wn_dir, char *rest, int lineno,
                            eg_err *err) {
  char *save = NULL, *type = strtok_r(rest, " \t", &save);
  unsigned bits = type ? type_bit(sf, type) : 0;
  if (!bits)
    return eg_err_set(err, EG_EINVAL, "prototypes line %d: @player TYPE wordnet ROOT …, TYPE known",
                      lineno);
  const char *roots[MAX_ROOTS];
  size_t n;
  eg_code rc = wordnet_roots(&save, "@player", roots, &n, lineno, err);
  if (rc) return rc;
  player_ctx c = {sf, bits, true};
  rc = root_error(eg_wordnet_derived(wn_dir, roots, n, on_player, &c, err), lineno, err);
  return rc || c.ok ? rc : eg_err_set(err, EG_ENOMEM, "out of memory");
}

static eg_code parse_directive(eg_statefacts *sf, const char *wn_dir, char *line, int lineno,
                               eg_err *err) {
  char *save = NULL, *word = strtok_r(line, " \t", &save), *rest = save ? save : "";
  for (int k = 0; k < N_MARKER_KINDS; k++)
    if (!strcmp(word, marker_names[k])) {
      parse_markers(sf, (marker_kind)k, rest);
      return EG_OK;
    }
  if (!strcmp(word, "@name")) {
    sf->name_types |= type_bits_of_list(sf, rest, true);
    return EG_OK;
  }
  if (!strcmp(word, "@kinds")) {
    sf->kind_types |= type_bits_of_list(sf, rest, true);
    return EG_OK;
  }
  if (!strcmp(word, "@individual")) {
    sf->individual_types |= type_bits_of_list(sf, rest, true);
    return EG_OK;
  }
  if (!strcmp(word, "@year")) {
    sf->year_types |= type_bits_of_list(sf, rest, true);
    return EG_OK;
  }
  if (!strcmp(word, "@same")) return parse_same(sf, rest, lineno, err);
  if (!strcmp(word, "@shorthand")) return parse_shorthand(sf, rest, lineno, err);
  if (!strcmp(word, "@player")) return parse_player(sf, wn_dir, rest, lineno, err);
  if (!strcmp(word, "@unlike")) /* "@unlike org place wordnet natural_language#1" */
    return parse_unlike(sf, wn_dir, rest, lineno, err);
  if (!strcmp(word, "@generic")) {
    for (char *w = strtok_r(rest, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
      add_bits(sf->generic, w, 1);
    return EG_OK;
  }
  const char *roots[MAX_ROOTS];
  size_t n;
  eg_map *forms = !strcmp(word, "@ends")        ? sf->ends
                  : !strcmp(word, "@takes")     ? sf->takes
                  : !strcmp(word, "@declines")  ? sf->declines
                  : !strcmp(word, "@acquires")  ? sf->acquires
                  : !strcmp(word, "@gives")     ? sf->gives
                  : !strcmp(word, "@relocates") ? sf->relocates
                  : !strcmp(word, "@speaks")    ? sf->speaks
                                                : NULL;
  if (forms) { /* "@ends wordnet discard#1 …": the forms of verbs; "@relocates words shift" */
    const char *how = save ? save + strspn(save, " \t") : "";
    if (!strncmp(how, "words", 5) && (how[5] == ' ' || how[5] == '\t')) {
      strtok_r(NULL, " \t", &save);
      eg_code rc = line_roots(&save, roots, &n, lineno, err);
      return rc ? rc : eg_wordnet_inflect(wn_dir, roots, n, on_verb_form, forms, err);
    }
    eg_code rc = wordnet_roots(&save, word, roots, &n, lineno, err);
    if (rc) return rc;
    return root_error(
        eg_wordnet_verb_forms(wn_dir, roots, n, VERB_SENSES, on_verb_form, forms, err), lineno,
        err);
  }
  /* "@period wordnet time_period#1 …": "week", "month"; "@plain wordnet act#2 …": "work" */
  eg_map *firsts = !strcmp(word, "@period")      ? sf->periods
                   : !strcmp(word, "@plain")     ? sf->plain
                   : !strcmp(word, "@journeys")  ? sf->journeys
                   : !strcmp(word, "@occasions") ? sf->occasions
                   : !strcmp(word, "@namesake")  ? sf->namesakes
                                                 : NULL;
  if (firsts) {
    eg_code rc = wordnet_roots(&save, word, roots, &n, lineno, err);
    closure_ctx c = {sf, 1, firsts};
    if (rc) return rc;
    return root_error(eg_wordnet_closure_first(wn_dir, roots, n, on_lemma, &c, err), lineno, err);
  }
  if (!strcmp(word, "@within")) { /* "@within wordnet city#1 …": "Oslo" is in "Norway" */
    eg_code rc = wordnet_roots(&save, word, roots, &n, lineno, err);
    if (rc) return rc;
    return root_error(eg_wordnet_wholes(wn_dir, roots, n, on_whole, sf->within, err), lineno, err);
  }
  bool begins = !strcmp(word, "@begins");  /* "@begins WORKS_AT at onboarding …": held too */
  if (!strcmp(word, "@holds") || begins) { /* "@holds WORKS_AT at team boss …": "my team at X" */
    char *name = strtok_r(rest, " \t", &save), *prep = strtok_r(NULL, " \t", &save);
    if (!prep)
      return eg_err_set(err, EG_EINVAL, "prototypes line %d: %s RELATION PREPOSITION WORD …",
                        lineno, word);
    int r;
    eg_code rc = relation_index(sf, name, lineno, &r, err);
    if (!rc) add_bits(sf->holds, prep, 1u << r); /* "at": a period begun at X (@period) */
    for (char *w = strtok_r(NULL, " \t", &save); !rc && w; w = strtok_r(NULL, " \t", &save)) {
      char key[96];
      snprintf(key, sizeof key, "%s %s", prep, w);
      add_bits(sf->holds, key, 1u << r);
      if (begins) add_bits(sf->begins, key, 1u << r);
    }
    return rc;
  }
  /* "@route LIVES_IN move removals …": "the move is booked"; "@domain PARTNER_OF date …" */
  if (!strcmp(word, "@route") || !strcmp(word, "@domain")) {
    char *name = strtok_r(rest, " \t", &save);
    if (!name)
      return eg_err_set(err, EG_EINVAL, "prototypes line %d: %s RELATION WORD …", lineno, word);
    int r;
    eg_code rc = relation_index(sf, name, lineno, &r, err);
    eg_map *m = !strcmp(word, "@route") ? sf->routes : sf->domain;
    for (char *w = strtok_r(NULL, " \t", &save); !rc && w; w = strtok_r(NULL, " \t", &save))
      add_bits(m, w, 1u << r);
    return rc;
  }
  if (!strcmp(word, "@food")) /* "@food meat wordnet meat#1 …", "@food carb words carbs …" */
    return parse_food(sf, wn_dir, rest, lineno, err);
  if (!strcmp(word, "@describe")) /* "@describe diet pescatarian -meat +fish" */
    return parse_described(sf, rest, lineno, err);
  if (!strcmp(word, "@people")) { /* WordNet roots, or "words" and chat's own words */
    bool words = !strncmp(rest, "words", 5) && (rest[5] == ' ' || rest[5] == '\t');
    if (words) rest += 5;
    for (char *w = strtok_r(rest, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
      if (words) {
        add_bits(sf->people, w, 1);
        continue;
      }
      eg_code rc = add_closure(sf, wn_dir, w, 1, sf->people, lineno, err);
      if (rc) return rc;
    }
    return EG_OK;
  }
  if (!strcmp(word, "@cue") || !strcmp(word, "@suffix") || !strcmp(word, "@type") ||
      !strcmp(word, "@ask") || !strcmp(word, "@prefix") || !strcmp(word, "@head") ||
      !strcmp(word, "@trade") || !strcmp(word, "@model") || !strcmp(word, "@belongs")) {
    char *type = strtok_r(NULL, " \t", &save);
    int ti = type ? type_index(sf, type, true) : -1;
    if (ti < 0)
      return eg_err_set(err, EG_EINVAL,
                        "prototypes line %d: a type name is missing (or too many types)", lineno);
    unsigned bits = 1u << ti;
    bool cue = !strcmp(word, "@cue"), suffix = !strcmp(word, "@suffix"),
         ask = !strcmp(word, "@ask"), prefix = !strcmp(word, "@prefix"),
         model = !strcmp(word, "@model"),    /* a model's name alone: "the Duster", "Model 3" */
        belongs = !strcmp(word, "@belongs"), /* what only a name of the type has: "X's hutch" */
        head = !strcmp(word, "@head"),       /* WordNet roots whose common nouns end a name */
        trade = !strcmp(word, "@trade");     /* … by their first sense, after the others */
    if (cue) sf->cue_types |= bits;
    char *how = cue || suffix || ask || prefix || model || belongs ? "words"
                : head || trade                                    ? "wordnet"
                                                                   : strtok_r(NULL, " \t", &save);
    if (how && !strcmp(word, "@type") && !strcmp(how, "gazetteer")) /* "… gazetteer PATH" */
      return add_towns(sf, strtok_r(NULL, " \t", &save), bits, lineno, err);
    if (!how || (strcmp(how, "wordnet") != 0 && strcmp(how, "words") != 0))
      return eg_err_set(err, EG_EINVAL, "prototypes line %d: @type NAME wordnet|words|gazetteer …",
                        lineno);
    if (trade) { /* the common nouns whose first sense is below one of the roots */
      closure_ctx c = {sf, bits, sf->trade};
      eg_code rc = line_roots(&save, roots, &n, lineno, err);
      if (rc) return rc;
      return root_error(eg_wordnet_closure_first(wn_dir, roots, n, on_lemma, &c, err), lineno, err);
    }
    for (char *w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
      if (model) { /* "land_cruiser": the words of a span's key */
        for (char *c = w; *c; c++)
          if (*c == '_') *c = ' ';
        add_bits(sf->models, w, bits);
        continue;
      }
      if (cue || suffix || ask || prefix || belongs || !strcmp(how, "words")) {
        add_bits(cue       ? sf->cue
                 : belongs ? sf->belongs
                 : suffix  ? sf->suffix
                 : ask     ? sf->ask
                 : prefix  ? sf->prefix
                           : sf->common,
                 w, bits);
        continue;
      }
      eg_code rc = add_closure(sf, wn_dir, w, bits, head ? sf->suffix : NULL, lineno, err);
      if (rc) return rc;
    }
    return EG_OK;
  }
  return eg_err_set(err, EG_EINVAL, "prototypes line %d: unknown directive", lineno);
}

/* "[LIVES_IN place]", "[NONE place]", "[~LIVES_IN]", "[=LIVES_IN]", "[-LIVES_IN]", "[=NONE pet]":
 * sets *rel, *kind and (NONE) *types for the lines after it. */
static eg_code parse_header(eg_statefacts *sf, char *line, int lineno, int *rel, proto_kind *kind,
                            unsigned *types, eg_err *err) {
  char *end = strchr(line, ']');
  if (!end) return eg_err_set(err, EG_EINVAL, "prototypes line %d: ']' missing", lineno);
  *end = '\0';
  char *save = NULL, *name = strtok_r(line + 1, " \t", &save);
  if (!name)
    return eg_err_set(err, EG_EINVAL, "prototypes line %d: a relation name is missing", lineno);
  if (!strcmp(name, "+")) { /* the value in prospect, of whichever relation */
    *rel = -1;
    *kind = PK_WON;
    *types = 0;
    return EG_OK;
  }
  if (!strcmp(name, "NONE") || !strcmp(name, "=NONE")) {
    *rel = -1;
    *kind = name[0] == '=' ? PK_PASSING : PK_NONE;
    *types = type_bits_of_list(sf, save ? save : "", true);
    return EG_OK;
  }
  *kind = name[0] == '~'   ? PK_ENDED
          : name[0] == '=' ? PK_HELD
          : name[0] == '-' ? PK_GONE
          : name[0] == '+' ? PK_BEGUN
                           : PK_ASSERT;
  if (*kind != PK_ASSERT) name++;
  eg_code rc = relation_index(sf, name, lineno, rel, err);
  if (!rc && *kind == PK_ASSERT)
    sf->rels[*rel].types |= type_bits_of_list(sf, save ? save : "", true);
  return rc;
}

static eg_code load(eg_statefacts *sf, const char *path, const char *wn_dir, char ***texts,
                    eg_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) return eg_err_set(err, EG_ENOTFOUND, "cannot open the prototypes file");
  char line[1024];
  int lineno = 0, rel = -2;
  proto_kind kind = PK_NONE;
  unsigned none_types = 0;
  size_t cap = 0;
  eg_code rc = EG_OK;
  while (!rc && fgets(line, sizeof line, f)) {
    lineno++;
    if (!strchr(line, '\n') && !feof(f)) {
      rc = eg_err_set(err, EG_EINVAL, "prototypes line %d: longer than %zu bytes", lineno,
                      sizeof line - 2);
      break;
    }
    /* '#' starts a comment at the start of a line or after a blank ("dog#1" is a sense) */
    for (char *p = line; *p; p++)
      if (*p == '#' && (p == line || p[-1] == ' ' || p[-1] == '\t')) *p = '\0';
    size_t l = strlen(line);
    while (l && (line[l - 1] == '\n' || line[l - 1] == '\r' || line[l - 1] == ' ' ||
                 line[l - 1] == '\t'))
      line[--l] = '\0';
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) continue;
    if (*s == '@') {
      rc = parse_directive(sf, wn_dir, s, lineno, err);
    } else if (*s == '[') {
      rc = parse_header(sf, s, lineno, &rel, &kind, &none_types, err);
    } else if (rel == -2) {
      rc = eg_err_set(err, EG_EINVAL, "prototypes line %d: a prototype before any [RELATION]",
                      lineno);
    } else {
      if (sf->n_protos == cap) {
        cap = cap ? cap * 2 : 128;
        proto *np = realloc(sf->protos, cap * sizeof *np);
        char **nt = realloc(*texts, cap * sizeof *nt);
        if (np) sf->protos = np;
        if (nt) *texts = nt;
        if (!np || !nt) rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      }
      if (!rc && !((*texts)[sf->n_protos] = strdup(s)))
        rc = eg_err_set(err, EG_ENOMEM, "out of memory");
      if (!rc) sf->protos[sf->n_protos++] = (proto){rel, kind, none_types};
    }
  }
  fclose(f);
  if (!rc && !sf->n_protos)
    rc = eg_err_set(err, EG_EINVAL, "the prototypes file has no prototypes");
  return rc;
}

/* A name WordNet gives a kind of a type a cue word gives, with a kind word of that type as its
 * last word ("Persian cat", "Maltese dog"): its first word alone says that kind ("a Persian",
 * "our Siamese"), a common word of the type, not a pet's name. */
static bool on_breed(void *ctx, const void *key, size_t klen, void *value) {
  eg_statefacts *sf = ctx;
  const char *k = key, *sp = memchr(k, ' ', klen);
  unsigned bits = (unsigned)(uintptr_t)value & sf->cue_types;
  if (!bits || !sp || memchr(sp + 1, ' ', klen - (size_t)(sp + 1 - k)) ||
      !eg_map_get(sf->generic, sp + 1, klen - (size_t)(sp + 1 - k)))
    return true;
  char first[64];
  snprintf(first, sizeof first, "%.*s", (int)(sp - k), k);
  or_bits(sf->common, first, bits);
  return true;
}

eg_code eg_statefacts_open(const eg_statefacts_opts *o, eg_statefacts **out, eg_err *err) {
  *out = NULL;
  eg_statefacts *sf = calloc(1, sizeof *sf);
  if (!sf) return eg_err_set(err, EG_ENOMEM, "out of memory");
  sf->emb = o->embedder;
  sf->dim = o->embedder ? o->embedder->dim : 0;
  sf->floor = o->floor > 0 ? o->floor : EG_STATEFACTS_FLOOR;
  sf->margin = o->margin >= 0 ? o->margin : EG_STATEFACTS_MARGIN;
  sf->common = eg_map_new();
  sf->proper = eg_map_new();
  sf->generic = eg_map_new();
  sf->cue = eg_map_new();
  sf->suffix = eg_map_new();
  sf->trade = eg_map_new();
  sf->unlike = eg_map_new();
  sf->people = eg_map_new();
  sf->ask = eg_map_new();
  sf->prefix = eg_map_new();
  sf->models = eg_map_new();
  sf->synonyms = eg_map_new();
  sf->same = eg_map_new();
  sf->players = eg_map_new();
  sf->ends = eg_map_new();
  sf->takes = eg_map_new();
  sf->holds = eg_map_new();
  sf->begins = eg_map_new();
  sf->routes = eg_map_new();
  sf->domain = eg_map_new();
  sf->declines = eg_map_new();
  sf->relocates = eg_map_new();
  sf->speaks = eg_map_new();
  sf->shorthand = eg_map_new();
  sf->journeys = eg_map_new();
  sf->occasions = eg_map_new();
  sf->acquires = eg_map_new();
  sf->gives = eg_map_new();
  sf->towns = eg_map_new();
  sf->within = eg_map_new();
  sf->periods = eg_map_new();
  sf->plain = eg_map_new();
  sf->namesakes = eg_map_new();
  sf->belongs = eg_map_new();
  sf->foods = eg_map_new();
  char **texts = NULL;
  eg_code rc = !sf->common || !sf->proper || !sf->generic || !sf->cue || !sf->suffix ||
                       !sf->trade || !sf->unlike || !sf->people || !sf->ask || !sf->prefix ||
                       !sf->models || !sf->synonyms || !sf->same || !sf->players || !sf->ends ||
                       !sf->takes || !sf->holds || !sf->begins || !sf->routes || !sf->domain ||
                       !sf->declines || !sf->relocates || !sf->speaks || !sf->shorthand ||
                       !sf->journeys || !sf->occasions || !sf->acquires || !sf->gives ||
                       !sf->towns || !sf->within || !sf->periods || !sf->plain || !sf->namesakes ||
                       !sf->belongs || !sf->foods
                   ? eg_err_set(err, EG_ENOMEM, "out of memory")
                   : load(sf, o->prototypes, o->wordnet_dir, &texts, err);
  int person = rc ? -1 : type_index(sf, "person", false);
  sf->person_bit = person >= 0 ? 1u << person : 0;
  sf->place_bit = rc ? 0 : type_bit(sf, "place");
  sf->org_bit = rc ? 0 : type_bit(sf, "org");
  if (!rc) eg_map_each(sf->proper, on_breed, sf);
  if (!rc) rc = eg_wordnet_words_load(o->wordnet_dir, &sf->wn, err);
  eg_wordnet_rest(); /* the walks are over: the files' whole-file buffers go */
  /* without an embedder: the lexical reading only (eg_statefacts_asked, _stated) */
  if (!rc && sf->emb && !(sf->pvec = malloc(sf->n_protos * (size_t)sf->dim * sizeof *sf->pvec)))
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  if (!rc && sf->emb)
    rc = eg_embed(sf->emb, (const char *const *)texts, sf->n_protos, sf->pvec, err);
  sf->ptexts = texts; /* kept: eg_statefacts_statement reads them */
  if (rc) {
    eg_statefacts_close(sf);
    return rc;
  }
  *out = sf;
  return EG_OK;
}

void eg_statefacts_close(eg_statefacts *sf) {
  if (!sf) return;
  eg_map_free(sf->common);
  eg_map_free(sf->proper);
  eg_map_free(sf->generic);
  eg_map_free(sf->cue);
  eg_map_free(sf->suffix);
  eg_map_free(sf->trade);
  eg_map_free(sf->unlike);
  eg_map_free(sf->prefix);
  eg_map_free(sf->models);
  eg_map_free(sf->synonyms);
  if (sf->same) eg_map_each(sf->same, free_value, NULL);
  if (sf->shorthand) eg_map_each(sf->shorthand, free_value, NULL);
  eg_map_free(sf->same);
  eg_map_free(sf->players);
  eg_map_free(sf->people);
  eg_map_free(sf->ask);
  eg_map_free(sf->ends);
  eg_map_free(sf->takes);
  eg_map_free(sf->holds);
  eg_map_free(sf->begins);
  eg_map_free(sf->routes);
  eg_map_free(sf->domain);
  eg_map_free(sf->declines);
  eg_map_free(sf->relocates);
  eg_map_free(sf->speaks);
  eg_map_free(sf->shorthand);
  eg_map_free(sf->journeys);
  eg_map_free(sf->occasions);
  eg_map_free(sf->acquires);
  eg_map_free(sf->gives);
  eg_map_free(sf->towns);
  eg_map_free(sf->within);
  eg_map_free(sf->periods);
  eg_map_free(sf->plain);
  eg_map_free(sf->namesakes);
  eg_map_free(sf->belongs);
  eg_map_free(sf->foods);
  eg_wordnet_words_free(&sf->wn);
  for (size_t i = 0; sf->ptexts && i < sf->n_protos; i++) free(sf->ptexts[i]);
  free(sf->ptexts);
  free(sf->protos);
  free(sf->pvec);
  free(sf);
}

int eg_sf_relation(const eg_statefacts *sf, const char *relation) {
  for (int r = 0; sf && relation && r < sf->n_rels; r++)
    if (!strcmp(sf->rels[r].name, relation)) return r;
  return -1;
}

unsigned eg_statefacts_relation_types(const eg_statefacts *sf, const char *relation) {
  int r = eg_sf_relation(sf, relation);
  return r < 0 ? 0 : sf->rels[r].types;
}

const char *eg_statefacts_relation_of(const eg_statefacts *sf, unsigned types) {
  int r = sf && types ? eg_sf_only_taker(sf, types) : -1;
  return r < 0 ? NULL : sf->rels[r].name;
}

bool eg_statefacts_individual(const eg_statefacts *sf, const char *relation) {
  unsigned types = eg_statefacts_relation_types(sf, relation);
  return types && !(types & ~sf->individual_types);
}

unsigned eg_sf_takers(const eg_statefacts *sf, unsigned bits) {
  unsigned takers = 0;
  for (int r = 0; r < sf->n_rels; r++)
    if (sf->rels[r].types & bits) takers |= 1u << r;
  return takers;
}

int eg_sf_only_taker(const eg_statefacts *sf, unsigned bits) {
  unsigned takers = eg_sf_takers(sf, bits);
  return takers && !(takers & (takers - 1)) ? __builtin_ctz(takers) : -1;
}

const char *eg_sf_type_name(const eg_statefacts *sf, unsigned bits) {
  static const char *const names[][2] = {{"org", "organization"}, {"car", "product"}};
  for (int i = 0; i < sf->n_types; i++) {
    if (!(bits & (1u << i))) continue;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
      if (!strcmp(sf->type_names[i], names[k][0])) return names[k][1];
    return sf->type_names[i];
  }
  return "";
}

/* Is the place part in the place whole, as WordNet has it ("Oslo" in "Norway")? */
bool eg_sf_within(const eg_statefacts *sf, const char *part, const char *whole) {
  char key[256], k[256];
  snprintf(key, sizeof key, "%s|%s", part, whole);
  eg_sf_fold(key, k, sizeof k);
  return eg_sf_bits_of(sf->within, k) != 0;
}

#define STATEMENT_PROTOS 6 /* prototypes per relation in eg_statefacts_statement */

char *eg_statefacts_statement(const eg_statefacts *sf, unsigned types, eg_arena *a) {
  eg_buf b = EG_BUF_INIT;
  int per_rel[MAX_RELS] = {0};
  for (size_t p = 0; p < sf->n_protos; p++) {
    const proto *pr = &sf->protos[p];
    if (pr->kind != PK_ASSERT || !(sf->rels[pr->rel].types & types) ||
        per_rel[pr->rel]++ >= STATEMENT_PROTOS)
      continue;
    for (const char *q = sf->ptexts[p]; *q; q++) /* the slot's "X" is no word of it */
      if (!(*q == 'X' && (q == sf->ptexts[p] || q[-1] == ' ') && (!q[1] || q[1] == ' ')))
        eg_buf_printf(&b, "%c", *q);
    eg_buf_printf(&b, ". ");
  }
  char *out = b.len ? eg_arena_strndup(a, b.data, b.len) : NULL;
  eg_buf_free(&b);
  return out;
}
