/*
 * wordnet.c — noun and verb closures from WordNet, walked once at start (see wordnet.h).
 */
#include "lang/wordnet.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wn.h>

#include "common/buf.h"
#include "common/map.h"

/* A closure is walked breadth-first over hyponym and instance-hyponym pointers; the cap
 * bounds a root chosen too high in the hierarchy (all of "entity" is 82k synsets). */
#define MAX_SYNSETS 20000

static pthread_mutex_t wn_lock = PTHREAD_MUTEX_INITIALIZER;
static bool wn_ready;

/* data.noun and data.verb, read whole by the first walk that needs them and kept until
 * eg_wordnet_rest: a walk visits thousands of synsets, which the library reads each with a
 * seek, a read and a binary search of the index per word (for sense numbers never used). */
static eg_buf wn_data[2];

/* The database's folder: dict_dir, else WNSEARCHDIR, else Debian's. */
static const char *data_dir(const char *dict_dir) {
  const char *dir = dict_dir && *dict_dir ? dict_dir : getenv("WNSEARCHDIR");
  return dir && *dir ? dir : "/usr/share/wordnet";
}

static eg_code wn_open(const char *dict_dir, eg_err *err) {
  if (wn_ready) return EG_OK;
  if (dict_dir && *dict_dir) setenv("WNSEARCHDIR", dict_dir, 1);
  /* wninit prints to stderr and returns non-zero when the files are missing */
  if (wninit() != 0) return eg_err_set(err, EG_EUNAVAIL, "the WordNet database cannot be opened");
  wn_ready = true;
  return EG_OK;
}

/* A lemma in WordNet's spelling, spaces for its underscores, into out[n]. */
static void spaced(char *out, size_t n, const char *lemma) {
  snprintf(out, n, "%s", lemma);
  for (char *p = out; *p; p++)
    if (*p == '_') *p = ' ';
}

/* ---- synsets read from memory ------------------------------------------------------------ */

#define WN_WORDS 64 /* a synset's words kept; WordNet's largest has fewer */

typedef struct wn_ptr {
  int type;           /* HYPOPTR, INSTANCES, ISPARTPTR … (getptrtype of its symbol) */
  int pos;            /* NOUN, VERB, ADJ, ADV */
  long off;           /* the synset it points at, in that part of speech's data file */
  int source, target; /* a lexical pointer's words, from 1 ("pianist" → "piano"); 0: the synsets' */
} wn_ptr;

/* One line of data.<pos>: "offset lex_filenum ss_type w_cnt(hex) word lex_id … p_cnt
 * symbol offset pos source/target … | gloss". words point into text (the line's copy). */
typedef struct wn_synset {
  long here;
  int n_words, n_ptrs;
  const char *words[WN_WORDS];
  wn_ptr *ptrs;
  char *text;
} wn_synset;

static eg_code load_data(const char *dict_dir, int pos, eg_err *err) {
  eg_buf *b = &wn_data[pos == VERB];
  if (b->data) return EG_OK;
  char path[1024];
  snprintf(path, sizeof path, "%s/data.%s", data_dir(dict_dir), pos == VERB ? "verb" : "noun");
  eg_code rc = eg_buf_read_file(b, path, err);
  if (!rc && !b->data) rc = eg_err_set(err, EG_EUNAVAIL, "%s is empty", path);
  return rc;
}

static int pos_of(char c) {
  return c == 'n' ? NOUN : c == 'v' ? VERB : c == 'r' ? ADV : ADJ; /* 'a', 's' */
}

static void synset_free(wn_synset *s) {
  free(s->text);
  free(s->ptrs);
}

/* Read the synset at byte off of pos's data file (loaded) into s; false when off does not
 * start a well-formed line there (or memory ran out). */
static bool synset_at(int pos, long off, wn_synset *s) {
  const eg_buf *b = &wn_data[pos == VERB];
  memset(s, 0, sizeof *s);
  if (off < 0 || (size_t)off >= b->len || (off > 0 && b->data[off - 1] != '\n')) return false;
  const char *line = b->data + off, *nl = memchr(line, '\n', b->len - (size_t)off);
  size_t n = nl ? (size_t)(nl - line) : b->len - (size_t)off;
  if (!(s->text = malloc(n + 1))) return false;
  memcpy(s->text, line, n);
  s->text[n] = '\0';
  char *save = NULL, *field[4];
  for (int i = 0; i < 4; i++) field[i] = strtok_r(i ? NULL : s->text, " ", &save);
  if (!field[3]) goto bad;
  s->here = strtol(field[0], NULL, 10);
  long wc = strtol(field[3], NULL, 16);
  for (long i = 0; i < wc; i++) {
    char *w = strtok_r(NULL, " ", &save);
    if (!w || !strtok_r(NULL, " ", &save)) goto bad; /* lex_id */
    if (s->n_words < WN_WORDS) s->words[s->n_words++] = w;
  }
  char *count = strtok_r(NULL, " ", &save);
  long np = count ? strtol(count, NULL, 10) : -1;
  if (np < 0 || (np > 0 && !(s->ptrs = malloc((size_t)np * sizeof *s->ptrs)))) goto bad;
  for (long i = 0; i < np; i++) {
    char *sym = strtok_r(NULL, " ", &save), *at = strtok_r(NULL, " ", &save),
         *ps = strtok_r(NULL, " ", &save);
    char *st = strtok_r(NULL, " ", &save); /* source/target: two hex digits each */
    if (!sym || !at || !ps || !st) goto bad;
    long words = strtol(st, NULL, 16);
    s->ptrs[i] = (wn_ptr){getptrtype(sym), pos_of(*ps), strtol(at, NULL, 10), (int)(words >> 8),
                          (int)(words & 0xff)};
  }
  s->n_ptrs = (int)np;
  return true;
bad:
  synset_free(s);
  return false;
}

void eg_wordnet_rest(void) {
  pthread_mutex_lock(&wn_lock);
  eg_buf_free(&wn_data[0]);
  eg_buf_free(&wn_data[1]);
  pthread_mutex_unlock(&wn_lock);
}

static bool visit_words(const wn_synset *s, eg_wordnet_visit visit, void *ctx) {
  char head[128];
  if (s->n_words > 0) spaced(head, sizeof head, s->words[0]);
  bool common = false; /* a lemma with no capital ("the_States" has one): a common noun's */
  for (int i = 0; i < s->n_words; i++)
    common |= strspn(s->words[i], "abcdefghijklmnopqrstuvwxyz_-'.") == strlen(s->words[i]);
  for (int i = 0; i < s->n_words; i++) {
    char lemma[128];
    spaced(lemma, sizeof lemma, s->words[i]);
    /* an acronym beside the words it stands for is as common as they are ("CEO" of "chief
     * executive officer", "GP"); a capital elsewhere is a name's ("Dalmatian", "Oslo") */
    bool acronym =
        common && strspn(s->words[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == strlen(s->words[i]);
    if (!visit(ctx, lemma, lemma[0] >= 'A' && lemma[0] <= 'Z' && !acronym, head)) return false;
  }
  return true;
}

/* w in the index's spelling, in place: "Musical instrument" → "musical_instrument". */
static void index_spelling(char *w) {
  for (char *p = w; *p; p++) *p = *p == ' ' ? '_' : (char)tolower((unsigned char)*p);
}

/* Walk the closure of root (a word of part of speech pos, "#N" its sense) breadth-first over
 * hyponym (for verbs: troponym) and instance pointers, handing each synset to on_synset. */
typedef bool (*synset_fn)(const wn_synset *s, void *ctx);

static eg_code walk(const char *dict_dir, const char *root, int pos, synset_fn on_synset, void *ctx,
                    eg_err *err) {
  char word[128];
  int sense = 1;
  snprintf(word, sizeof word, "%s", root);
  char *hash = strchr(word, '#');
  if (hash) {
    *hash = '\0';
    sense = atoi(hash + 1);
    if (sense < 1) sense = 1;
  }
  pthread_mutex_lock(&wn_lock);
  eg_code rc = wn_open(dict_dir, err);
  long *queue = NULL;
  eg_map *seen = NULL;
  if (!rc) rc = load_data(dict_dir, pos, err);
  if (rc) goto cleanup;
  index_spelling(word);
  IndexPtr idx = index_lookup(word, pos);
  long start = idx && sense <= idx->off_cnt ? (long)idx->offset[sense - 1] : -1;
  if (idx) free_index(idx);
  if (start < 0) {
    rc = eg_err_set(err, EG_ENOTFOUND, "not a WordNet %s: %s", pos == VERB ? "verb" : "noun", root);
    goto cleanup;
  }
  queue = malloc(MAX_SYNSETS * sizeof *queue);
  seen = eg_map_new();
  if (!queue || !seen) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto cleanup;
  }
  size_t qn = 0;
  queue[qn++] = start;
  eg_map_put(seen, &start, sizeof start, (void *)1);
  for (size_t at = 0; at < qn; at++) {
    wn_synset s;
    if (!synset_at(pos, queue[at], &s)) continue;
    bool go_on = on_synset(&s, ctx);
    for (int p = 0; go_on && p < s.n_ptrs; p++) {
      if (s.ptrs[p].type != HYPOPTR && s.ptrs[p].type != INSTANCES) continue;
      long off = s.ptrs[p].off;
      if (qn == MAX_SYNSETS || eg_map_get(seen, &off, sizeof off)) continue;
      eg_map_put(seen, &off, sizeof off, (void *)1);
      queue[qn++] = off;
    }
    synset_free(&s);
    if (!go_on) break;
  }
cleanup:
  pthread_mutex_unlock(&wn_lock);
  free(queue);
  eg_map_free(seen);
  return rc;
}

/* walk over each of roots[0..n) in turn, stopping at the first error. */
static eg_code walk_roots(const char *dict_dir, const char *const *roots, size_t n,
                          synset_fn on_synset, void *ctx, eg_err *err) {
  eg_code rc = EG_OK;
  for (size_t i = 0; i < n && !rc; i++) rc = walk(dict_dir, roots[i], NOUN, on_synset, ctx, err);
  return rc;
}

typedef struct noun_walk {
  eg_wordnet_visit visit;
  void *ctx;
} noun_walk;

static bool on_noun_synset(const wn_synset *s, void *ctx) {
  noun_walk *w = ctx;
  return visit_words(s, w->visit, w->ctx);
}

eg_code eg_wordnet_closure(const char *dict_dir, const char *root, eg_wordnet_visit visit,
                           void *ctx, eg_err *err) {
  noun_walk w = {visit, ctx};
  return walk(dict_dir, root, NOUN, on_noun_synset, &w, err);
}

static bool keep_offset(const wn_synset *s, void *ctx) {
  long off = s->here;
  return eg_map_put(ctx, &off, sizeof off, (void *)1) == EG_OK;
}

/* index.noun's lines: "lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt
 * synset_offset…", the offsets in sense order: each lemma whose first sense is in `in`. */
static eg_code visit_first_senses(const char *dict_dir, const eg_map *in, eg_wordnet_visit visit,
                                  void *ctx) {
  char path[1024];
  snprintf(path, sizeof path, "%s/index.noun", data_dir(dict_dir));
  FILE *f = fopen(path, "r");
  if (!f) return EG_EUNAVAIL;
  char line[16384];
  bool go_on = true;
  while (go_on && fgets(line, sizeof line, f)) {
    if (line[0] == ' ') continue; /* the licence header */
    char *save = NULL, *lemma = strtok_r(line, " ", &save);
    strtok_r(NULL, " ", &save); /* pos */
    strtok_r(NULL, " ", &save); /* synset_cnt */
    char *p = strtok_r(NULL, " ", &save);
    long ptrs = p ? strtol(p, NULL, 10) : 0;
    for (long k = 0; k < ptrs + 2; k++) strtok_r(NULL, " ", &save); /* symbols, counts */
    char *first = strtok_r(NULL, " ", &save);
    long off = first ? strtol(first, NULL, 10) : -1;
    if (!lemma || off < 0 || !eg_map_get(in, &off, sizeof off)) continue;
    char spelt[128];
    spaced(spelt, sizeof spelt, lemma);
    go_on = visit(ctx, spelt, false, spelt);
  }
  fclose(f);
  return EG_OK;
}

eg_code eg_wordnet_closure_first(const char *dict_dir, const char *const *roots, size_t n,
                                 eg_wordnet_visit visit, void *ctx, eg_err *err) {
  eg_map *in = eg_map_new();
  if (!in) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_code rc = walk_roots(dict_dir, roots, n, keep_offset, in, err);
  if (!rc && (rc = visit_first_senses(dict_dir, in, visit, ctx)) != EG_OK)
    eg_err_set(err, rc, "the WordNet index cannot be read");
  eg_map_free(in);
  return rc;
}

/* ---- what a place is part of -------------------------------------------------------------- */

#define WHOLE_DEPTH 4 /* a city, its region, its country, the country's union or island */

typedef struct whole_walk {
  eg_wordnet_part_visit visit;
  void *ctx;
} whole_walk;

/* Hand each lemma of part with each lemma of the wholes at the part-holonym pointers of s,
 * then of theirs, depth levels deep. Called under wn_lock. */
static bool visit_wholes(const whole_walk *w, const wn_synset *part, const wn_synset *s,
                         int depth) {
  for (int p = 0; p < s->n_ptrs; p++) {
    wn_synset whole;
    if (s->ptrs[p].type != ISPARTPTR || s->ptrs[p].pos != NOUN ||
        !synset_at(NOUN, s->ptrs[p].off, &whole))
      continue;
    bool go_on = true;
    for (int i = 0; go_on && i < part->n_words; i++)
      for (int j = 0; go_on && j < whole.n_words; j++) {
        char a[128], b[128];
        spaced(a, sizeof a, part->words[i]);
        spaced(b, sizeof b, whole.words[j]);
        go_on = w->visit(w->ctx, a, b);
      }
    if (go_on && depth > 1) go_on = visit_wholes(w, part, &whole, depth - 1);
    synset_free(&whole);
    if (!go_on) return false;
  }
  return true;
}

static bool on_part_synset(const wn_synset *s, void *ctx) {
  return visit_wholes(ctx, s, s, WHOLE_DEPTH);
}

eg_code eg_wordnet_wholes(const char *dict_dir, const char *const *roots, size_t n,
                          eg_wordnet_part_visit visit, void *ctx, eg_err *err) {
  whole_walk w = {visit, ctx};
  return walk_roots(dict_dir, roots, n, on_part_synset, &w, err);
}

/* ---- nouns derived from others ------------------------------------------------------------ */

/* Hand the lemma of s each derivation pointer starts at with the noun lemma it leads to
 * ("pianist" with "piano", "saxophonist" with "saxophone", not "sax"), or the noun lemmas the
 * verb it leads to leads to in turn ("drummer" to "drum", the verb, to "drum"). Called under
 * wn_lock. */
static bool visit_derived(const whole_walk *w, const char *from, const wn_synset *s, int word,
                          int depth) {
  bool go_on = true;
  for (int p = 0; go_on && p < s->n_ptrs; p++) {
    const wn_ptr *q = &s->ptrs[p];
    wn_synset d;
    if (q->type != DERIVATION || (q->pos != NOUN && (q->pos != VERB || depth < 2)) ||
        q->source < 1 || q->source > s->n_words || (word && q->source != word) ||
        !synset_at(q->pos, q->off, &d))
      continue;
    if (q->target >= 1 && q->target <= d.n_words) {
      char a[128], b[128];
      spaced(a, sizeof a, from ? from : s->words[q->source - 1]);
      if (q->pos == VERB) {
        go_on = visit_derived(w, a, &d, q->target, depth - 1);
      } else {
        spaced(b, sizeof b, d.words[q->target - 1]);
        go_on = w->visit(w->ctx, a, b);
      }
    }
    synset_free(&d);
  }
  return go_on;
}

static bool on_derived_synset(const wn_synset *s, void *ctx) {
  return visit_derived(ctx, NULL, s, 0, 2);
}

eg_code eg_wordnet_derived(const char *dict_dir, const char *const *roots, size_t n,
                           eg_wordnet_part_visit visit, void *ctx, eg_err *err) {
  whole_walk w = {visit, ctx};
  pthread_mutex_lock(&wn_lock); /* the verbs a noun derives by, read beside the nouns */
  eg_code rc = wn_open(dict_dir, err);
  if (!rc) rc = load_data(dict_dir, VERB, err);
  pthread_mutex_unlock(&wn_lock);
  return rc ? rc : walk_roots(dict_dir, roots, n, on_derived_synset, &w, err);
}

/* ---- verb closures, inflected -------------------------------------------------------------- */

typedef struct verb_walk {
  int max_sense;
  char root[128]; /* the root's lemma ("move" of "move#4"), index spelling; "": past the root */
  char *exc;      /* verb.exc, whole: "inflected base\n" lines */
  eg_wordnet_form_visit visit;
  void *ctx;
} verb_walk;

/* Is the synset at off among the first max_sense senses of the verb word (WordNet orders a
 * word's senses by how often they were tagged)? Called under wn_lock. */
static bool dominant_sense(const char *word, long off, int max_sense) {
  char w[128];
  snprintf(w, sizeof w, "%s", word);
  IndexPtr idx = index_lookup(w, VERB);
  if (!idx) return false;
  bool yes = false;
  for (int i = 0; i < idx->off_cnt && i < max_sense; i++) yes |= (long)idx->offset[i] == off;
  free_index(idx);
  return yes;
}

static bool vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

/* Visit head+suffix followed by rest ("gave" + " up"); present: the base or -s form. */
static bool visit_form(const verb_walk *w, const char *head, size_t hl, const char *suffix,
                       const char *rest, bool present) {
  char form[160];
  snprintf(form, sizeof form, "%.*s%s%s", (int)hl, head, suffix, rest);
  for (char *p = form; *p; p++)
    if (*p == '_') *p = ' ';
  return w->visit(w->ctx, form, present);
}

/* The forms of one lemma ("give_up"): its first word inflected by the regular rules (both
 * ways where a final consonant may double: "scrapped", "scraped") and by verb.exc. */
static bool visit_lemma(const verb_walk *w, const char *lemma) {
  const char *us = strchr(lemma, '_');
  size_t hl = us ? (size_t)(us - lemma) : strlen(lemma);
  const char *rest = lemma + hl, *h = lemma;
  if (hl < 2 || hl > 60) return true;
  char last = h[hl - 1], before = h[hl - 2];
  bool e = last == 'e', y = last == 'y' && !vowel(before);
  bool sib = last == 's' || last == 'x' || last == 'z' ||
             (last == 'h' && (before == 'c' || before == 's'));
  bool cvc = hl >= 3 && !vowel(last) && last != 'w' && last != 'x' && last != 'y' &&
             vowel(before) && !vowel(h[hl - 3]);
  bool ie = e && before == 'i'; /* "die": "dying" */
  size_t ing_at = ie ? hl - 2 : e && before != 'e' && before != 'y' && before != 'o' ? hl - 1 : hl;
  if (!visit_form(w, h, hl, "", rest, true) ||
      !visit_form(w, h, y ? hl - 1 : hl,
                  y     ? "ies"
                  : sib ? "es"
                        : "s",
                  rest, true) ||
      !visit_form(w, h, y ? hl - 1 : hl,
                  y   ? "ied"
                  : e ? "d"
                      : "ed",
                  rest, false) ||
      !visit_form(w, h, ing_at, ie ? "ying" : "ing", rest, false))
    return false;
  if (cvc) { /* "scrapped", "dropping" */
    char ed[4] = {last, 'e', 'd', 0}, ing[5] = {last, 'i', 'n', 'g', 0};
    if (!visit_form(w, h, hl, ed, rest, false) || !visit_form(w, h, hl, ing, rest, false))
      return false;
  }
  /* verb.exc: "gave give", "given give" */
  for (const char *line = w->exc; line && *line;) {
    const char *nl = strchr(line, '\n'),
               *sp = memchr(line, ' ', nl ? (size_t)(nl - line) : strlen(line));
    if (sp) {
      const char *base = sp + 1;
      size_t bl = (nl ? (size_t)(nl - base) : strlen(base));
      while (bl && (base[bl - 1] == ' ' || base[bl - 1] == '\r')) bl--;
      if (bl == hl && !strncmp(base, h, hl) &&
          !visit_form(w, line, (size_t)(sp - line), "", rest, false))
        return false;
    }
    line = nl ? nl + 1 : NULL;
  }
  return true;
}

/* The lemmas of a synset of the closure: the root's own lemma in any of its senses (the sense
 * is named: "move#4", a change of residence), the others in their dominant ones. */
static bool on_verb_synset(const wn_synset *s, void *ctx) {
  verb_walk *w = ctx;
  for (int i = 0; i < s->n_words; i++)
    if ((!strcasecmp(s->words[i], w->root) || dominant_sense(s->words[i], s->here, w->max_sense)) &&
        !visit_lemma(w, s->words[i]))
      return false;
  w->root[0] = '\0'; /* the walk starts at the root */
  return true;
}

/* verb.exc of the database, whole, into exc. */
static eg_code read_exc(const char *dict_dir, eg_buf *exc, eg_err *err) {
  char path[1024];
  snprintf(path, sizeof path, "%s/verb.exc", data_dir(dict_dir));
  eg_code rc = eg_buf_read_file(exc, path, err);
  if (!rc && !exc->data) rc = eg_err_set(err, EG_EUNAVAIL, "%s is empty", path);
  if (rc) eg_buf_free(exc);
  return rc;
}

eg_code eg_wordnet_inflect(const char *dict_dir, const char *const *lemmas, size_t n,
                           eg_wordnet_form_visit visit, void *ctx, eg_err *err) {
  eg_buf exc = EG_BUF_INIT;
  eg_code rc = read_exc(dict_dir, &exc, err);
  verb_walk w = {0, "", exc.data, visit, ctx};
  for (size_t i = 0; i < n && !rc; i++)
    if (!visit_lemma(&w, lemmas[i])) rc = eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_buf_free(&exc);
  return rc;
}

eg_code eg_wordnet_verb_forms(const char *dict_dir, const char *const *roots, size_t n,
                              int max_sense, eg_wordnet_form_visit visit, void *ctx, eg_err *err) {
  eg_buf exc = EG_BUF_INIT;
  eg_code rc = read_exc(dict_dir, &exc, err);
  if (rc) return rc;
  verb_walk w = {max_sense, "", exc.data, visit, ctx};
  for (size_t i = 0; i < n && !rc; i++) {
    snprintf(w.root, sizeof w.root, "%.*s", (int)strcspn(roots[i], "#"), roots[i]);
    index_spelling(w.root); /* as walk's: "give_up" */
    rc = walk(dict_dir, roots[i], VERB, on_verb_synset, &w, err);
  }
  eg_buf_free(&exc);
  return rc;
}

/* ---- the word sets ---------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* A word set under construction: hashes, sorted and deduplicated at the end. */
typedef struct word_set {
  uint64_t *v;
  size_t n, cap;
} word_set;

static eg_code word_set_add(word_set *ws, const char *w, size_t len) {
  if (ws->n == ws->cap) {
    size_t nc = ws->cap ? ws->cap * 2 : 65536;
    uint64_t *nv = realloc(ws->v, nc * sizeof *nv);
    if (!nv) return EG_ENOMEM;
    ws->v = nv;
    ws->cap = nc;
  }
  ws->v[ws->n++] = eg_hash64(w, len, 0);
  return EG_OK;
}

/* One data.<pos> file: "offset lex_filenum ss_type w_cnt(hex) word lex_id … p_cnt pointers":
 * its lower-case one-word words into each set of lower[0..nl), and, with names, the
 * capitalised one-word names of its synsets that are instances of another ("Python", the
 * dragon: "@i"), lower-cased; with capitals, every capitalised one-word word ("Dutch" of
 * data.adj), lower-cased. */
static eg_code read_data_file(const char *path, word_set *const *lower, size_t nl, word_set *names,
                              word_set *capitals) {
  FILE *f = fopen(path, "r");
  if (!f) return EG_EUNAVAIL;
  char line[16384];
  eg_code rc = EG_OK;
  while (!rc && fgets(line, sizeof line, f)) {
    if (line[0] == ' ') continue; /* the licence header */
    char *save = NULL;
    strtok_r(line, " ", &save);
    strtok_r(NULL, " ", &save);
    strtok_r(NULL, " ", &save);
    char *cnt = strtok_r(NULL, " ", &save);
    long words = cnt ? strtol(cnt, NULL, 16) : 0;
    char *named[32];
    size_t nn = 0;
    for (long i = 0; i < words && !rc; i++) {
      char *w = strtok_r(NULL, " ", &save);
      strtok_r(NULL, " ", &save);         /* lex_id */
      if (!w || strchr(w, '_')) continue; /* one-word openers only */
      if (*w >= 'A' && *w <= 'Z') {
        if (names && nn < sizeof named / sizeof *named) named[nn++] = w;
        char low[64];
        size_t l = strcspn(w, "(");
        if (capitals && l < sizeof low) {
          for (size_t c = 0; c < l; c++) low[c] = (char)tolower((unsigned char)w[c]);
          rc = word_set_add(capitals, low, l);
        }
        continue;
      }
      if (!(*w >= 'a' && *w <= 'z')) continue;
      char *paren = strchr(w, '('); /* adjectives: "big(a)" */
      if (paren) *paren = '\0';
      for (size_t k = 0; k < nl && !rc; k++) rc = word_set_add(lower[k], w, strlen(w));
    }
    if (!nn) continue;
    char *pc = strtok_r(NULL, " ", &save);
    bool instance = false;
    for (long k = pc ? strtol(pc, NULL, 10) : 0; k > 0 && !instance; k--) {
      char *sym = strtok_r(NULL, " ", &save);
      instance = sym && !strcmp(sym, "@i");
      for (int skip = 0; skip < 3; skip++) strtok_r(NULL, " ", &save);
    }
    for (size_t i = 0; instance && i < nn && !rc; i++) {
      for (char *c = named[i]; *c; c++) *c = (char)tolower((unsigned char)*c);
      rc = word_set_add(names, named[i], strlen(named[i]));
    }
  }
  fclose(f);
  return rc;
}

/* One <pos>.exc file: "inflected base …" per line — the irregular forms ("took", "mice"),
 * into each set of sets[0..n). */
static eg_code read_exc_file(const char *path, word_set *const *sets, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return EG_EUNAVAIL;
  char line[512];
  eg_code rc = EG_OK;
  while (!rc && fgets(line, sizeof line, f)) {
    char *sp = strchr(line, ' ');
    if (!sp || !(*line >= 'a' && *line <= 'z') || memchr(line, '_', (size_t)(sp - line))) continue;
    for (size_t k = 0; k < n && !rc; k++) rc = word_set_add(sets[k], line, (size_t)(sp - line));
  }
  fclose(f);
  return rc;
}

/* The set's hashes sorted and deduplicated, into *out and *n. */
static void word_set_finish(word_set *ws, uint64_t **out, size_t *n) {
  qsort(ws->v, ws->n, sizeof *ws->v, cmp_u64);
  size_t m = 0;
  for (size_t i = 0; i < ws->n; i++)
    if (!m || ws->v[m - 1] != ws->v[i]) ws->v[m++] = ws->v[i];
  *out = ws->v;
  *n = m;
}

eg_code eg_wordnet_words_load(const char *dict_dir, eg_wordnet_words *out, eg_err *err) {
  const char *dir = data_dir(dict_dir);
  memset(out, 0, sizeof *out);
  word_set common = {NULL, 0, 0}, adverbs = {NULL, 0, 0}, adjectives = {NULL, 0, 0},
           names = {NULL, 0, 0}, lemmas = {NULL, 0, 0}, irregular = {NULL, 0, 0},
           capitals = {NULL, 0, 0};
  /* per part of speech, the sets its data file's words and its exception list go to */
  static const char *const pos[] = {"noun", "verb", "adj", "adv"};
  word_set *const data[4][2] = {
      {&common}, {&common, &lemmas}, {&common, &adjectives}, {&common, &adverbs}};
  word_set *const exc[4][2] = {{&common}, {&common, &irregular}, {&common, &adjectives}, {&common}};
  eg_code rc = EG_OK;
  for (size_t p = 0; p < 4 && !rc; p++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data.%s", dir, pos[p]);
    rc = read_data_file(path, data[p], data[p][1] ? 2 : 1, p == 0 ? &names : NULL,
                        p == 2 ? &capitals : NULL);
    snprintf(path, sizeof path, "%s/%s.exc", dir, pos[p]);
    if (!rc) rc = read_exc_file(path, exc[p], exc[p][1] ? 2 : 1);
  }
  if (rc) {
    free(common.v), free(adverbs.v), free(adjectives.v), free(names.v), free(lemmas.v),
        free(irregular.v), free(capitals.v);
    return eg_err_set(err, rc,
                      rc == EG_ENOMEM ? "out of memory" : "the WordNet data files cannot be read");
  }
  word_set_finish(&common, &out->common, &out->n_common);
  word_set_finish(&adverbs, &out->adverbs, &out->n_adverbs);
  word_set_finish(&adjectives, &out->adjectives, &out->n_adjectives);
  word_set_finish(&names, &out->instances, &out->n_instances);
  word_set_finish(&capitals, &out->proper_adjectives, &out->n_proper_adjectives);
  word_set_finish(&lemmas, &out->verbs.lemmas, &out->verbs.n_lemmas);
  word_set_finish(&irregular, &out->verbs.irregular, &out->verbs.n_irregular);
  return EG_OK;
}

void eg_wordnet_words_free(eg_wordnet_words *w) {
  free(w->common);
  free(w->adverbs);
  free(w->adjectives);
  free(w->instances);
  free(w->proper_adjectives);
  free(w->verbs.lemmas);
  free(w->verbs.irregular);
  memset(w, 0, sizeof *w);
}

static bool in_set(const uint64_t *set, size_t n, const char *w, size_t len) {
  uint64_t h = eg_hash64(w, len, 0);
  return set && bsearch(&h, set, n, sizeof *set, cmp_u64) != NULL;
}

bool eg_wordnet_is_common(const uint64_t *set, size_t n, const char *w) {
  size_t len = strlen(w);
  if (in_set(set, n, w, len)) return true;
  /* the regular inflections, as WordNet's morphy detaches them ("moved", "drives",
   * "cities", "bigger"); the irregular ones are in the set (the .exc files) */
  static const char *const rules[][2] = {
      {"s", ""},      {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"},
      {"men", "man"}, {"ies", "y"}, {"es", "e"},  {"es", ""},   {"ed", "e"},    {"ed", ""},
      {"ing", "e"},   {"ing", ""},  {"er", ""},   {"est", ""},  {"er", "e"},    {"est", "e"}};
  char base[64];
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
    size_t sl = strlen(rules[i][0]), rl = strlen(rules[i][1]);
    if (len <= sl + 1 || len - sl + rl >= sizeof base || strcmp(w + len - sl, rules[i][0]) != 0)
      continue;
    memcpy(base, w, len - sl);
    memcpy(base + len - sl, rules[i][1], rl);
    if (in_set(set, n, base, len - sl + rl)) return true;
  }
  return false;
}

bool eg_wordnet_is_past(const eg_wordnet_verbset *v, const char *w) {
  size_t len = strlen(w);
  /* verb.exc holds every irregular inflection: not its "-ing" forms nor the present of
   * be and have */
  static const char *const present[] = {"is", "are", "am", "has", "does"};
  bool ing = len > 4 && !strcmp(w + len - 3, "ing");
  for (size_t i = 0; i < sizeof present / sizeof *present; i++)
    if (!strcmp(w, present[i])) return false;
  if (!ing && in_set(v->irregular, v->n_irregular, w, len)) return true;
  if (len < 4 || strcmp(w + len - 2, "ed") != 0) return false;
  char base[64];
  if (len >= sizeof base) return false;
  /* "traded" → trade, "started" → start, "stopped" → stop, "carried" → carry */
  memcpy(base, w, len - 1), base[len - 1] = '\0';
  if (in_set(v->lemmas, v->n_lemmas, base, len - 1)) return true;
  base[len - 2] = '\0';
  if (in_set(v->lemmas, v->n_lemmas, base, len - 2)) return true;
  if (len >= 5 && base[len - 3] == base[len - 4] && in_set(v->lemmas, v->n_lemmas, base, len - 3))
    return true;
  if (base[len - 3] == 'i') {
    base[len - 3] = 'y';
    if (in_set(v->lemmas, v->n_lemmas, base, len - 2)) return true;
  }
  return false;
}

bool eg_wordnet_is_present3(const eg_wordnet_verbset *v, const char *w) {
  size_t len = strlen(w);
  if (len < 3 || w[len - 1] != 's' || w[len - 2] == 's' || w[len - 2] == '\'') return false;
  /* "lives" → live, "watches" → watch, "carries" → carry */
  if (in_set(v->lemmas, v->n_lemmas, w, len - 1)) return true;
  if (len > 3 && w[len - 2] == 'e' && in_set(v->lemmas, v->n_lemmas, w, len - 2)) return true;
  char base[64];
  if (len < 5 || len >= sizeof base || strcmp(w + len - 3, "ies") != 0) return false;
  memcpy(base, w, len - 3), memcpy(base + len - 3, "y", 2);
  return in_set(v->lemmas, v->n_lemmas, base, len - 2);
}

bool eg_wordnet_is_verb(const eg_wordnet_verbset *v, const char *w) {
  size_t len = strlen(w);
  return in_set(v->lemmas, v->n_lemmas, w, len) || in_set(v->irregular, v->n_irregular, w, len) ||
         eg_wordnet_is_past(v, w) || eg_wordnet_is_present3(v, w) || eg_wordnet_is_ing(v, w);
}

bool eg_wordnet_is_ing(const eg_wordnet_verbset *v, const char *w) {
  size_t len = strlen(w);
  char base[64];
  if (len < 5 || len >= sizeof base || strcmp(w + len - 3, "ing") != 0) return false;
  /* "visiting" → visit, "moving" → move, "stopping" → stop */
  size_t bl = len - 3;
  memcpy(base, w, bl), base[bl] = '\0';
  if (in_set(v->lemmas, v->n_lemmas, base, bl)) return true;
  base[bl] = 'e', base[bl + 1] = '\0';
  if (in_set(v->lemmas, v->n_lemmas, base, bl + 1)) return true;
  return bl >= 3 && base[bl - 1] == base[bl - 2] && in_set(v->lemmas, v->n_lemmas, base, bl - 1);
}
