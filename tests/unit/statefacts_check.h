/*
 * statefacts_check.h — what the prototype extractor's unit tests share: the model and the
 * prototypes opened once, one user message read in a context, and a table of sentences with
 * the one fact each must give first (or none); a file for prototypes texts refused.
 */
#ifndef EG_TESTS_STATEFACTS_CHECK_H
#define EG_TESTS_STATEFACTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/time.h"
#include "lang/statefacts.h"
#include "tests/testlib.h"

#define MODEL EG_SOURCE_DIR "/var/models/use-lite.bin"
#define PROTOTYPES EG_SOURCE_DIR "/lang/state_prototypes.txt"
#define GEONAMES "/usr/share/locale/en/LC_MESSAGES/geonames.mo"

static eg_embedder *emb;
static eg_statefacts *sf;
static const eg_enrich_ctx ctx = {.user_entity = "user:u1", .prev = 3, .next = 1};

static int64_t T(const char *s) {
  int64_t v = 0;
  eg_time_parse(s, &v, NULL);
  return v;
}

/* What the extractor says about one user message in the context c (EG_OK or not). */
static eg_code read_in(eg_arena *a, const eg_enrich_ctx *c, const char *text, eg_enriched *out) {
  eg_segment s = {text, "user", "", T("2025-06-10T12:00:00Z"), 0, 0};
  memset(out, 0, sizeof *out);
  eg_err e;
  return eg_statefacts_extract(sf, c, &s, 1, a, out, NULL, &e);
}

typedef struct expect {
  const char *text;
  const char *relation; /* NULL: nothing at all */
  const char *object;   /* the value, or the doubted relation for STATE_UNCERTAIN */
} expect;

/* Is each x[i].relation x[i].object the first fact read from x[i].text in the context c? */
static inline void check_in(const eg_enrich_ctx *c, const expect *x, size_t n) {
  eg_arena *a = eg_arena_new(0, 0);
  for (size_t i = 0; i < n; i++) {
    eg_enriched out;
    const eg_fact *f =
        read_in(a, c, x[i].text, &out) == EG_OK && out.n_facts ? &out.facts[0] : NULL;
    bool ok = x[i].relation
                  ? f && !strcmp(f->relation, x[i].relation) && !strcmp(f->object, x[i].object)
                  : !f;
    if (!ok)
      fprintf(stderr, "  \"%s\": expected %s %s, got %s %s\n", x[i].text,
              x[i].relation ? x[i].relation : "nothing", x[i].object ? x[i].object : "",
              f ? f->relation : "nothing", f ? f->object : "");
    EG_CHECK(ok);
    if (f && strcmp(f->relation, EG_STATE_UNCERTAIN) != 0) {
      EG_CHECK(!strcmp(f->extractor, "prototypes") || !strcmp(f->extractor, "foods") ||
               !strcmp(f->extractor, EG_STATE_INFERRED));
      EG_CHECK(f->confidence > 0 && f->confidence <= 1.0f);
      EG_CHECK_STR(f->subject, "user:u1");
    }
  }
  eg_arena_free(a);
}

static inline void check_all(const expect *x, size_t n) { check_in(&ctx, x, n); }

/* The first relation fact (of object, or of any when NULL) read from text into out (in a), or
 * NULL. */
static inline const eg_fact *fact_read(eg_arena *a, const char *text, const char *relation,
                                       const char *object, eg_enriched *out) {
  if (read_in(a, &ctx, text, out) != EG_OK) return NULL;
  for (size_t i = 0; i < out->n_facts; i++)
    if (!strcmp(out->facts[i].relation, relation) &&
        (!object || !strcmp(out->facts[i].object, object)))
      return &out->facts[i];
  return NULL;
}

/* Is relation object the one fact read from text, its value's kind aside (relation NULL: is there
 * none)? Says what was read when not. */
static inline bool only_fact(const char *text, bool held, const eg_enriched *out,
                             const char *relation, const char *object) {
  size_t n = out->n_facts; /* the kind said with the value aside ("a kitten called X") */
  for (size_t i = 1; i < out->n_facts; i++)
    n -= !strcmp(out->facts[i].relation, EG_KIND_OF) &&
         !strcmp(out->facts[i].subject, out->facts[0].object);
  bool ok = relation ? n == 1 && !strcmp(out->facts[0].relation, relation) &&
                           !strcmp(out->facts[0].object, object)
                     : out->n_facts == 0;
  if (!ok)
    fprintf(stderr, "  \"%s\" (%s held values): %zu facts, first %s %s\n", text,
            held ? "with" : "without", out->n_facts, out->n_facts ? out->facts[0].relation : "",
            out->n_facts ? out->facts[0].object : "");
  return ok;
}

/* Is any fact read from text a relation fact (of object, or of any when NULL)? */
static inline bool says(const char *text, const char *relation, const char *object) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_enriched out;
  bool found = fact_read(a, text, relation, object, &out) != NULL;
  eg_arena_free(a);
  return found;
}

typedef struct expect_dated {
  const char *text, *relation, *object; /* as expect's: relation NULL, nothing at all */
  const char *from;                     /* the fact's valid_from */
} expect_dated;

/* Is each x[i].relation x[i].object, valid from x[i].from, the first fact read from x[i].text? */
static inline void check_dated(const expect_dated *x, size_t n) {
  eg_arena *a = eg_arena_new(0, 0);
  for (size_t i = 0; i < n; i++) {
    eg_enriched out;
    const eg_fact *f =
        read_in(a, &ctx, x[i].text, &out) == EG_OK && out.n_facts ? &out.facts[0] : NULL;
    bool ok = x[i].relation ? f && !strcmp(f->relation, x[i].relation) &&
                                  !strcmp(f->object, x[i].object) && f->valid_from == T(x[i].from)
                            : !f;
    if (!ok)
      fprintf(stderr, "  \"%s\": got %s %s from %lld\n", x[i].text, f ? f->relation : "nothing",
              f ? f->object : "", f ? (long long)f->valid_from : 0LL);
    EG_CHECK(ok);
  }
  eg_arena_free(a);
}

/* A new empty file for the prototypes texts a test has refused (refused_at), its name into
 * path; false when none could be made. */
static inline bool proto_path(char path[static 20]) {
  memcpy(path, "/tmp/eg_protoXXXXXX", 20);
  int fd = mkstemp(path);
  if (fd < 0) return false;
  close(fd);
  return true;
}

/* A prototypes file of text (its relation after it) is refused (EG_EINVAL), its message
 * naming line `lineno` and word (NULL: any). */
static void refused_at(const char *path, const char *text, int lineno, const char *word) {
  FILE *f = fopen(path, "w");
  EG_REQUIRE(f != NULL);
  fprintf(f, "%s\n[LIVES_IN place]\nI live in X\n", text);
  fclose(f);
  eg_statefacts *x = NULL;
  eg_err e;
  eg_statefacts_opts o = {path, emb, NULL, 0, -1};
  EG_CHECK(eg_statefacts_open(&o, &x, &e) == EG_EINVAL);
  char at[32];
  snprintf(at, sizeof at, "line %d", lineno);
  if (!strstr(e.msg, at) || (word && !strstr(e.msg, word))) fprintf(stderr, "  %s\n", e.msg);
  EG_CHECK(strstr(e.msg, at) && (!word || strstr(e.msg, word)));
  EG_CHECK(x == NULL);
}

static inline void refused(const char *path, const char *line, const char *word) {
  refused_at(path, line, 1, word);
}

/* Opens the model and the prototypes into emb and sf: 0 when open, -1 to skip (no model),
 * 1 on an error (said on stderr). */
static int sf_check_open(void) {
  if (access(MODEL, R_OK) != 0) {
    printf("skip: %s missing (scripts/install-deps.sh)\n", MODEL);
    return -1;
  }
  eg_err e;
  if (eg_embedder_open("use32:" MODEL, &emb, &e) != EG_OK) { /* as ingestd reads states */
    fprintf(stderr, "model: %s\n", e.msg);
    return 1;
  }
  eg_statefacts_opts o = {PROTOTYPES, emb, NULL, 0, -1};
  if (eg_statefacts_open(&o, &sf, &e) != EG_OK) {
    fprintf(stderr, "open: %s\n", e.msg);
    return 1;
  }
  return 0;
}

static void sf_check_close(void) {
  eg_statefacts_close(sf);
  eg_embedder_close(emb);
}

#endif
