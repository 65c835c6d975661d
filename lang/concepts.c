/*
 * concepts.c — WordNet's noun hierarchy, read from its database files (see concepts.h).
 *
 * The files are plain text (wndb(5WN)): data.noun has one synset per line — its byte
 * offset, its lemmas, its pointers (hypernyms are "@", instance hypernyms "@i"); index.noun
 * lists a lemma's synsets most frequent first; cntlist.rev counts how often each sense of
 * a lemma was tagged in a corpus, which tells a word mostly said as a noun ("violin",
 * "sister") from one mostly said as a verb ("play", "run").
 */
#include "lang/concepts.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/map.h"

#define MAX_WORD 128
#define MAX_VISIT 64 /* synsets one word's concepts walk at most */

struct eg_concepts {
  int depth;
  uint32_t n_syn;
  uint32_t *lem_at, *lem; /* synset i's lemmas: pool offsets lem[lem_at[i] .. lem_at[i + 1]) */
  uint32_t *hyp_at, *hyp; /* its hypernyms: synset indices hyp[hyp_at[i] .. hyp_at[i + 1]) */
  eg_buf pool;            /* NUL-terminated lemmas, lower case, spaces for '_' */
  eg_map *noun;           /* a noun lemma → 1 + its most frequent synset */
  eg_map *exc;            /* an irregular plural (noun.exc) → 1 + the pool offset of its base */
};

/* A growable uint32_t array. */
typedef struct u32s {
  uint32_t *v;
  size_t n, cap;
} u32s;

static bool u32s_push(u32s *a, uint32_t x) {
  if (a->n == a->cap) {
    size_t nc = a->cap ? a->cap * 2 : 1024;
    uint32_t *nv = realloc(a->v, nc * sizeof *nv);
    if (!nv) return false;
    a->v = nv;
    a->cap = nc;
  }
  a->v[a->n++] = x;
  return true;
}

/* The file dir/name, NUL-terminated (freed with free()); NULL when it cannot be read. */
static char *read_file(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  eg_buf b = EG_BUF_INIT;
  eg_err e = {0};
  if (eg_buf_read_file(&b, path, &e) != EG_OK || eg_buf_append(&b, "", 1) != EG_OK) {
    eg_buf_free(&b);
    return NULL;
  }
  return eg_buf_detach(&b, NULL);
}

static char *next_line(char *l) {
  char *e = strchr(l, '\n');
  return e ? e + 1 : l + strlen(l);
}

/* WordNet's spelling of a lemma as a word of ours: lower case, spaces for '_'. */
static size_t normalize(const char *s, size_t n, char *out) {
  size_t m = n < MAX_WORD - 1 ? n : MAX_WORD - 1;
  for (size_t i = 0; i < m; i++) out[i] = s[i] == '_' ? ' ' : (char)tolower((unsigned char)s[i]);
  out[m] = '\0';
  return m;
}

static uint32_t pool_add(eg_concepts *c, const char *w, size_t n) {
  uint32_t at = (uint32_t)c->pool.len;
  if (eg_buf_append(&c->pool, w, n) != EG_OK || eg_buf_append(&c->pool, "", 1) != EG_OK)
    return UINT32_MAX;
  return at;
}

/* The next space-separated field of a line. */
static const char *field(const char **p, size_t *n) {
  const char *s = *p;
  while (*s == ' ') s++;
  const char *e = s;
  while (*e && *e != ' ' && *e != '\n') e++;
  *n = (size_t)(e - s);
  *p = e;
  return s;
}

/* Tagged-sense counts of a lemma: as a noun, as anything else. */
typedef struct tags {
  uint32_t noun, other;
} tags;

/* What loading builds on the way. */
typedef struct loader {
  eg_concepts *c;
  eg_map *by_offset; /* a synset's offset in data.noun → 1 + its index */
  u32s lem_at, lem, hyp_at, hyp;
  eg_map *counts; /* lemma → 1 + its entry in tags */
  tags *tags;
  size_t n_tags, cap_tags;
  eg_map *other; /* lemmas of the other parts of speech */
} loader;

/* data.noun: the synsets, their lemmas and (raw offsets of) their hypernyms. */
static bool read_synsets(loader *L, char *data) {
  eg_concepts *c = L->c;
  u32s *lem_at = &L->lem_at, *lem = &L->lem, *hyp_at = &L->hyp_at, *hyp = &L->hyp;
  for (char *line = data; *line; line = next_line(line)) {
    if (*line == ' ' || *line == '\n') continue; /* the licence header */
    const char *p = line;
    size_t n;
    uint32_t off = (uint32_t)strtoul(field(&p, &n), NULL, 10);
    field(&p, &n); /* lex_filenum */
    field(&p, &n); /* ss_type */
    unsigned long words = strtoul(field(&p, &n), NULL, 16);
    uint32_t idx = (uint32_t)lem_at->n;
    if (!u32s_push(lem_at, (uint32_t)lem->n) || !u32s_push(hyp_at, (uint32_t)hyp->n) ||
        eg_map_put(L->by_offset, &off, sizeof off, (void *)(uintptr_t)(idx + 1)) != EG_OK)
      return false;
    for (unsigned long i = 0; i < words; i++) {
      const char *w = field(&p, &n);
      char norm[MAX_WORD];
      size_t m = normalize(w, n, norm);
      uint32_t at = pool_add(c, norm, m);
      if (at == UINT32_MAX || !u32s_push(lem, at)) return false;
      field(&p, &n); /* lex_id */
    }
    unsigned long ptrs = strtoul(field(&p, &n), NULL, 10);
    for (unsigned long i = 0; i < ptrs; i++) {
      const char *sym = field(&p, &n);
      bool hypernym = (n == 1 && sym[0] == '@') || (n == 2 && sym[0] == '@' && sym[1] == 'i');
      uint32_t to = (uint32_t)strtoul(field(&p, &n), NULL, 10);
      const char *pos = field(&p, &n);
      field(&p, &n); /* source/target */
      if (hypernym && *pos == 'n' && !u32s_push(hyp, to)) return false;
    }
  }
  return u32s_push(lem_at, (uint32_t)lem->n) && u32s_push(hyp_at, (uint32_t)hyp->n);
}

/* cntlist.rev lines are "lemma%ss_type:…  sense_number  tag_count". */
static bool read_tags(loader *L, char *data) {
  for (char *line = data; *line; line = next_line(line)) {
    const char *pct = strchr(line, '%'), *nl = strchr(line, '\n');
    if (!pct || (nl && pct > nl) || !isdigit((unsigned char)pct[1])) continue;
    const char *p = strchr(pct, ' ');
    size_t fl;
    if (!p) continue;
    field(&p, &fl); /* sense number */
    unsigned long cnt = strtoul(field(&p, &fl), NULL, 10);
    char norm[MAX_WORD];
    size_t m = normalize(line, (size_t)(pct - line), norm);
    uintptr_t at = (uintptr_t)eg_map_get(L->counts, norm, m);
    if (!at) {
      if (L->n_tags == L->cap_tags) {
        size_t nc = L->cap_tags ? L->cap_tags * 2 : 4096;
        tags *ns = realloc(L->tags, nc * sizeof *ns);
        if (!ns) return false;
        L->tags = ns;
        L->cap_tags = nc;
      }
      L->tags[L->n_tags] = (tags){0, 0};
      at = ++L->n_tags;
      if (eg_map_put(L->counts, norm, m, (void *)at) != EG_OK) return false;
    }
    if (pct[1] == '1')
      L->tags[at - 1].noun += (uint32_t)cnt;
    else
      L->tags[at - 1].other += (uint32_t)cnt;
  }
  return true;
}

/* An index file line's lemma, normalized into norm[MAX_WORD] (*m its length), *p after it;
 * false for a line of the licence header. */
static bool index_lemma(const char *line, const char **p, char *norm, size_t *m) {
  if (*line == ' ' || *line == '\n') return false;
  size_t n;
  *p = line;
  const char *w = field(p, &n);
  *m = normalize(w, n, norm);
  return true;
}

/* index.verb, index.adj, index.adv: their lemmas, into a set. */
static bool read_other(loader *L, char *data) {
  for (char *line = data; *line; line = next_line(line)) {
    const char *p;
    char norm[MAX_WORD];
    size_t m;
    if (index_lemma(line, &p, norm, &m) && eg_map_put(L->other, norm, m, (void *)1) != EG_OK)
      return false;
  }
  return true;
}

/* index.noun: each lemma mostly said as a noun, with its first (most frequent) synset. */
static bool read_nouns(loader *L, char *data) {
  for (char *line = data; *line; line = next_line(line)) {
    const char *p;
    char norm[MAX_WORD];
    size_t m, n;
    if (!index_lemma(line, &p, norm, &m)) continue;
    field(&p, &n); /* pos */
    field(&p, &n); /* synset_cnt */
    unsigned long ptrs = strtoul(field(&p, &n), NULL, 10);
    for (unsigned long i = 0; i < ptrs; i++) field(&p, &n);
    field(&p, &n); /* sense_cnt */
    field(&p, &n); /* tagsense_cnt */
    uint32_t off = (uint32_t)strtoul(field(&p, &n), NULL, 10);
    uintptr_t t = (uintptr_t)eg_map_get(L->counts, norm, m);
    tags tg = t ? L->tags[t - 1] : (tags){0, 0};
    bool noun = tg.noun > tg.other || (!tg.noun && !tg.other && !eg_map_get(L->other, norm, m));
    void *idx = eg_map_get(L->by_offset, &off, sizeof off);
    if (noun && idx && eg_map_put(L->c->noun, norm, m, idx) != EG_OK) return false;
  }
  return true;
}

/* noun.exc: "children child". */
static bool read_exceptions(loader *L, char *data) {
  eg_concepts *c = L->c;
  for (char *line = data; *line; line = next_line(line)) {
    const char *p = line;
    size_t n, bn;
    const char *w = field(&p, &n);
    const char *base = field(&p, &bn);
    if (!n || !bn) continue;
    char norm[MAX_WORD], nb[MAX_WORD];
    size_t m = normalize(w, n, norm), mb = normalize(base, bn, nb);
    uint32_t at = pool_add(c, nb, mb);
    if (at == UINT32_MAX ||
        eg_map_put(c->exc, norm, m, (void *)(uintptr_t)((uintptr_t)at + 1)) != EG_OK)
      return false;
  }
  return true;
}

eg_code eg_concepts_open(const char *dict_dir, int depth, eg_concepts **out, eg_err *err) {
  static const struct {
    const char *file;
    bool (*read)(loader *L, char *data);
  } files[] = {{"data.noun", read_synsets},  {"cntlist.rev", read_tags}, {"index.verb", read_other},
               {"index.adj", read_other},    {"index.adv", read_other},  {"index.noun", read_nouns},
               {"noun.exc", read_exceptions}};
  const char *dir = dict_dir && *dict_dir ? dict_dir : "/usr/share/wordnet";
  loader L = {.c = calloc(1, sizeof *L.c),
              .by_offset = eg_map_new(),
              .counts = eg_map_new(),
              .other = eg_map_new()};
  eg_concepts *c = L.c;
  eg_code rc = EG_OK;
  if (!c || !L.by_offset || !L.counts || !L.other || !(c->noun = eg_map_new()) ||
      !(c->exc = eg_map_new())) {
    rc = eg_err_set(err, EG_ENOMEM, "out of memory");
    goto done;
  }
  c->depth = depth;
  for (size_t i = 0; !rc && i < sizeof files / sizeof *files; i++) {
    char *data = read_file(dir, files[i].file);
    if (!data || !files[i].read(&L, data))
      rc = eg_err_set(err, EG_EUNAVAIL, "WordNet's %s/%s is missing or unreadable", dir,
                      files[i].file);
    free(data);
  }
  if (rc) goto done;
  /* the hypernyms by index, not by offset */
  for (size_t i = 0; i < L.hyp.n; i++)
    L.hyp.v[i] = (uint32_t)(uintptr_t)eg_map_get(L.by_offset, &L.hyp.v[i], sizeof *L.hyp.v) - 1;
  c->n_syn = (uint32_t)L.lem_at.n - 1;
  c->lem_at = L.lem_at.v, c->lem = L.lem.v, c->hyp_at = L.hyp_at.v, c->hyp = L.hyp.v;
  L.lem_at.v = L.lem.v = L.hyp_at.v = L.hyp.v = NULL;
done:
  eg_map_free(L.by_offset);
  eg_map_free(L.counts);
  eg_map_free(L.other);
  free(L.tags);
  free(L.lem_at.v), free(L.lem.v), free(L.hyp_at.v), free(L.hyp.v);
  if (rc) {
    eg_concepts_free(c);
    return rc;
  }
  *out = c;
  return EG_OK;
}

void eg_concepts_free(eg_concepts *c) {
  if (!c) return;
  eg_map_free(c->noun);
  eg_map_free(c->exc);
  eg_buf_free(&c->pool);
  free(c->lem_at), free(c->lem), free(c->hyp_at), free(c->hyp);
  free(c);
}

/* 1 + the synset of a noun as written, through morphy's rules for nouns (wnintro(7WN)): an
 * irregular plural of noun.exc, else the regular endings, else 0. */
static uint32_t synset_of(const eg_concepts *c, const char *w, size_t n) {
  uintptr_t s = (uintptr_t)eg_map_get(c->noun, w, n);
  if (s) return (uint32_t)s;
  uintptr_t base = (uintptr_t)eg_map_get(c->exc, w, n);
  if (base) {
    const char *b = c->pool.data + base - 1;
    return (uint32_t)(uintptr_t)eg_map_get(c->noun, b, strlen(b));
  }
  static const char *const suffix[] = {"s", "ses", "xes", "zes", "ches", "shes", "men", "ies"};
  static const char *const ending[] = {"", "s", "x", "z", "ch", "sh", "man", "y"};
  for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
    size_t sl = strlen(suffix[i]), el = strlen(ending[i]);
    if (n <= sl + 1 || n - sl + el >= MAX_WORD || memcmp(w + n - sl, suffix[i], sl)) continue;
    char b[MAX_WORD];
    memcpy(b, w, n - sl);
    memcpy(b + n - sl, ending[i], el);
    if ((s = (uintptr_t)eg_map_get(c->noun, b, n - sl + el))) return (uint32_t)s;
  }
  return 0;
}

bool eg_concepts_of(const eg_concepts *c, const char *w, size_t n, eg_concept_fn fn, void *ctx) {
  uint32_t s = c && n < MAX_WORD ? synset_of(c, w, n) : 0;
  if (!s) return false;
  uint32_t seen[MAX_VISIT], level[MAX_VISIT];
  size_t n_seen = 0;
  seen[n_seen] = s - 1, level[n_seen++] = 0;
  for (size_t i = 0; i < n_seen; i++) { /* breadth first, each synset once */
    uint32_t x = seen[i];
    for (uint32_t l = c->lem_at[x]; l < c->lem_at[x + 1]; l++) fn(ctx, c->pool.data + c->lem[l]);
    if ((int)level[i] >= c->depth) continue;
    for (uint32_t h = c->hyp_at[x]; h < c->hyp_at[x + 1] && n_seen < MAX_VISIT; h++) {
      bool dup = c->hyp[h] >= c->n_syn;
      for (size_t j = 0; j < n_seen && !dup; j++) dup = seen[j] == c->hyp[h];
      if (dup) continue;
      seen[n_seen] = c->hyp[h], level[n_seen++] = level[i] + 1;
    }
  }
  return true;
}
