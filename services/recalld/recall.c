/*
 * recall.c — the stages of one Recall (see recall.h): validation, watermark, query
 * expansion, the parallel searches, chunk-level expansion, fusion, and the premise walk
 * and history of the returned facts. assemble.c builds the answer.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/map.h"
#include "common/scope.h"
#include "common/stage.h"
#include "common/text.h"
#include "common/time.h"
#include "lang/dates.h"
#include "lang/enrich.h"
#include "lang/statefacts.h"
#include "lang/tokenize.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "services/recalld/recall_int.h"

#define DAY EG_US_PER_DAY
#define MAX_SEEDS 16
#define AFTER_RANGE (14 * DAY) /* events are often told within two weeks after */
#define CONTENT_FREE 0.1f      /* the score of a chunk of greetings only, asked about a time */
/* the match of a fact whose relation holds the kind of value asked for */
#define ASKED_MATCH 0.5f

static bool object_is(const Engram__V1__Edge *e, uint64_t entity) {
  return e->object && e->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID &&
         e->object->entity_id == entity;
}

eg_code eg_recall_open(const eg_recall_opts *o, eg_metrics *mx, eg_recall **out, eg_err *err) {
  eg_recall *r = calloc(1, sizeof *r);
  if (!r) return eg_err_set(err, EG_ENOMEM, "out of memory");
  r->o = *o;
  if (mx) {
    r->m_stage = eg_metrics_histogram(mx, "engram_recalld_stage_seconds", "Time per recall stage.",
                                      "stage", NULL, 0);
    r->m_calls = eg_metric_solo(
        eg_metrics_counter(mx, "engram_recalld_recalls_total", "Recalls answered.", NULL));
    r->m_nothing = eg_metric_solo(eg_metrics_counter(mx, "engram_recalld_nothing_relevant_total",
                                                     "Recalls that found nothing relevant.", NULL));
    r->m_llm_fallbacks = eg_metric_solo(
        eg_metrics_counter(mx, "engram_recalld_llm_fallbacks_total",
                           "LLM expansions that failed: the offline variants only.", NULL));
    r->m_rerank_failures = eg_metric_solo(
        eg_metrics_counter(mx, "engram_recalld_rerank_failures_total",
                           "Reranker calls that failed: the fused order kept.", NULL));
  }
  if (o->state_prototypes && *o->state_prototypes) {
    eg_statefacts_opts so = {o->state_prototypes, NULL, NULL, 0, -1};
    eg_code rc = eg_statefacts_open(&so, &r->states, err);
    if (rc == EG_ENOTFOUND) { /* not shipped beside this binary: Recall runs without it */
      EG_WARN("recalld", "no state prototypes: the latest statement of a state is not put first",
              "path=%s", o->state_prototypes);
    } else if (rc) {
      eg_err_prefix(err, "state_prototypes: ");
      free(r);
      return rc;
    }
  }
  if (o->record_access) {
    eg_code rc = rc_access_open(o->peers, (int64_t)o->access_flush_ms * 1000, o->access_batch,
                                o->access_queue_max, mx, &r->access, err);
    if (rc) {
      eg_statefacts_close(r->states);
      free(r);
      return rc;
    }
  }
  *out = r;
  return EG_OK;
}

void eg_recall_close(eg_recall *r) {
  if (!r) return;
  rc_access_close(r->access);
  eg_statefacts_close(r->states);
  free(r);
}

/* ---- validation ---------------------------------------------------------------------- */

static eg_code validate(const eg_recall *r, const Engram__V1__RecallRequest *q, eg_err *err) {
  size_t n = strlen(q->query);
  if (!n) return eg_err_set(err, EG_EINVAL, "query is empty");
  if (n > r->o.max_query_bytes)
    return eg_err_set(err, EG_EINVAL, "query is %zu bytes; at most %u", n, r->o.max_query_bytes);
  if (!eg_utf8_valid(q->query, n)) return eg_err_set(err, EG_EINVAL, "query is not valid UTF-8");
  if (q->k > r->o.max_k || q->k1 > r->o.max_k || q->k2 > r->o.max_k)
    return eg_err_set(err, EG_EINVAL, "k, k1 and k2 must be at most %u", r->o.max_k);
  if (q->token_budget > r->o.max_token_budget)
    return eg_err_set(err, EG_EINVAL, "token_budget must be at most %u", r->o.max_token_budget);
  if (q->query_time < 0 || q->valid_at < 0 || q->known_at < 0)
    return eg_err_set(err, EG_EINVAL, "query_time, valid_at and known_at must not be negative");
  /* "two weeks after" a time near the end of int64 would overflow: a time is a date */
  if (!eg_time_iso_range(q->query_time) || !eg_time_iso_range(q->valid_at) ||
      !eg_time_iso_range(q->known_at))
    return eg_err_set(err, EG_EINVAL,
                      "query_time, valid_at and known_at must fall before the year 10000");
  if (q->watermark_timeout_us < 0 || q->watermark_timeout_us > 60 * EG_US_PER_SEC)
    return eg_err_set(err, EG_EINVAL, "watermark_timeout_us must be within 0..60 s");
  if (q->weights) {
    const float w[7] = {q->weights->content,  q->weights->latent,  q->weights->bm25,
                        q->weights->temporal, q->weights->recency, q->weights->graph,
                        q->weights->sentence};
    for (int i = 0; i < 7; i++)
      if (!(w[i] >= 0 && w[i] <= 100))
        return eg_err_set(err, EG_EINVAL, "weights must be within 0..100");
  }
  if (q->expansion > ENGRAM__V1__EXPANSION_MODE__EXPANSION_MODE_NONE)
    return eg_err_set(err, EG_EINVAL, "unknown expansion mode %d", (int)q->expansion);
  if (q->rerank && !(r->o.rerank_url && *r->o.rerank_url))
    return eg_err_set(err, EG_EPRECOND,
                      "rerank was asked for but no reranker is configured (rerank_url)");
  for (size_t i = 0; i < q->n_session_ids + q->n_document_ids; i++) {
    const char *s =
        i < q->n_session_ids ? q->session_ids[i] : q->document_ids[i - q->n_session_ids];
    if (!*s || strlen(s) > 256)
      return eg_err_set(err, EG_EINVAL, "session and document ids must be 1..256 bytes");
  }
  return EG_OK;
}

/* ---- expansion ----------------------------------------------------------------------- */

typedef struct words {
  rc_ctx *c;
  eg_buf *out; /* keywords joined (when set) */
  char **list; /* distinct stems (when set) */
  size_t n, cap;
  float hits; /* rc_keyword_match: keywords found */
  uint8_t *seen;
} words;

static void on_keyword(void *ctx, const char *tok, size_t len) {
  words *w = ctx;
  if (w->out) {
    if (w->out->len) eg_buf_append(w->out, " ", 1);
    eg_buf_append(w->out, tok, len);
  }
  if (w->list) {
    for (size_t i = 0; i < w->n; i++)
      if (strcmp(w->list[i], tok) == 0) return;
    if (w->n < w->cap) w->list[w->n++] = eg_arena_strndup(w->c->a, tok, len);
  }
  if (w->seen) {
    for (size_t i = 0; i < w->c->n_keywords; i++)
      if (!w->seen[i] && strcmp(w->c->keywords[i], tok) == 0) {
        w->seen[i] = 1;
        w->hits += 1;
      }
  }
}

float rc_keyword_match(rc_ctx *c, const char *text) {
  if (!c->n_keywords || !text) return 0;
  uint8_t seen[64] = {0};
  words w = {.c = c, .seen = seen};
  if (!c->stemmer) return 0;
  eg_tokenize(c->stemmer, text, strlen(text), on_keyword, &w);
  return w.hits / (float)c->n_keywords;
}

/* The share of the query's keywords in the text's best sentence: an answer that is one
 * clause of a long message about something else still stands out. Computed for the best
 * SENTENCE_HEAD chunks of the fusion only. A keyword counts where its stem starts a word of
 * the sentence (ASCII case folded): no tokenizer pass over the text, which would cost more
 * than the rest of the Recall. */
enum { SENTENCE_HEAD = 40, SENTENCE_MAX = 256 };

static bool word_start(const char *text, const char *p) {
  return p == text || !isalnum((unsigned char)p[-1]);
}

/* isalnum of the C locale (the daemons never set another) as a table: this scan reads every
 * byte of the head's texts */
static const bool ALNUM[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
    ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
    ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1,
    ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
    ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
    ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
    ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1};

static float best_sentence_match(rc_ctx *c, const char *text) {
  size_t nk = c->n_keywords < 64 ? c->n_keywords : 64;
  if (!nk || !text || !*text) return 0;
  /* the keywords by the first byte of a word that may start them (either ASCII case), as bits */
  uint64_t by_first[256] = {0};
  size_t kl[64];
  for (size_t k = 0; k < nk; k++) {
    kl[k] = strlen(c->keywords[k]);
    if (kl[k] < 2) continue;
    unsigned char f = (unsigned char)tolower((unsigned char)c->keywords[k][0]);
    by_first[f] |= UINT64_C(1) << k;
    by_first[(unsigned char)toupper(f)] |= UINT64_C(1) << k;
  }
  /* one pass: at each word start, the keywords that start there; a sentence ends at a line
   * break or at '.', '!', '?' before a space or the end */
  uint64_t hit = 0; /* the current sentence's keywords */
  int best = 0, sentences = 1;
  bool in_word = false; /* the byte before is a letter or digit */
  for (const unsigned char *p = (const unsigned char *)text;; p++) {
    unsigned char ch = *p;
    if (in_word && ALNUM[ch]) continue; /* most bytes: inside a word */
    if (!in_word)
      for (uint64_t m = by_first[ch]; m; m &= m - 1) {
        int k = __builtin_ctzll(m);
        if (!strncasecmp((const char *)p, c->keywords[k], kl[k])) hit |= UINT64_C(1) << k;
      }
    in_word = ALNUM[ch];
    if (!ch) break;
    bool end = ch == '\n' || ((ch == '.' || ch == '!' || ch == '?') && (p[1] == ' ' || !p[1]));
    if (end && sentences < SENTENCE_MAX) {
      int n = __builtin_popcountll(hit);
      if (n > best) best = n;
      hit = 0;
      sentences++;
    }
  }
  int n = __builtin_popcountll(hit);
  if (n > best) best = n;
  return (float)best / (float)c->n_keywords;
}

/* Words that make a question about the current state of something. */
static bool has_update_cue(const char *q) {
  static const char *cues[] = {"current",  "currently",   "now",      "still",
                               "latest",   "these days",  "anymore",  "at the moment",
                               "nowadays", "most recent", "recently", "today"};
  char low[512];
  size_t n = strlen(q) < sizeof low - 2 ? strlen(q) : sizeof low - 2;
  low[0] = ' ';
  for (size_t i = 0; i < n; i++)
    low[i + 1] = (char)((q[i] >= 'A' && q[i] <= 'Z') ? q[i] + 32 : q[i]);
  low[n + 1] = 0;
  /* "from earliest to latest" orders events; it does not ask for the current one */
  bool ordering = strstr(low, " earliest") != NULL;
  for (size_t i = 0; i < sizeof cues / sizeof *cues; i++) {
    size_t l = strlen(cues[i]);
    if (ordering && !strcmp(cues[i], "latest")) continue;
    for (const char *p = low; (p = strstr(p, cues[i])) != NULL; p += l)
      if (p[-1] == ' ' && !(p[l] >= 'a' && p[l] <= 'z')) return true;
  }
  return false;
}

/* The query's date expressions → one time range [from, to). Returns the query with them
 * blanked out: the range carries them, and as search words "two weeks ago" would favour
 * whatever else was said "two weeks ago". */
static char *concretize(rc_ctx *c, const char *q) {
  eg_date d[8];
  size_t n = eg_dates_find(q, c->tq, d, 8);
  char *undated = eg_arena_strndup(c->a, q, strlen(q));
  for (size_t i = 0; i < n && undated; i++)
    memset(undated + d[i].start, ' ', d[i].end - d[i].start);
  for (size_t i = 0; i < n; i++) {
    int64_t from = d[i].from, to = d[i].kind == EG_DATE_DAY ? d[i].from + DAY : d[i].to;
    if (d[i].kind == EG_DATE_SINCE || !to) to = c->tq + 1;
    if (!c->temporal || from < c->from) c->from = from;
    if (!c->temporal || to > c->to) c->to = to;
    c->temporal = true;
  }
  return undated ? undated : (char *)q;
}

typedef struct variants {
  char *v[RC_MAX_VARIANTS];
  size_t n;
} variants;

static void add_variant(variants *vs, char *v) {
  if (!v || !*v || vs->n == RC_MAX_VARIANTS) return;
  for (size_t i = 0; i < vs->n; i++)
    if (strcmp(vs->v[i], v) == 0) return;
  vs->v[vs->n++] = v;
}

/* Resolve the mentions to entities (look-up only) and remember them as seeds; returns the
 * aliases found, space-joined, for an alias variant. */
static char *resolve_seeds(rc_ctx *c, const eg_enriched *e, eg_err *err) {
  if (!e->n_mentions) return NULL;
  size_t n = e->n_mentions < MAX_SEEDS ? e->n_mentions : MAX_SEEDS;
  Engram__V1__EntityMention *m = eg_arena_calloc(c->a, n, sizeof *m),
                            **mp = eg_arena_calloc(c->a, n, sizeof *mp);
  c->seeds = eg_arena_calloc(c->a, n, sizeof *c->seeds);
  c->seed_named = eg_arena_calloc(c->a, n, sizeof *c->seed_named);
  if (!m || !mp || !c->seeds || !c->seed_named) return NULL;
  for (size_t i = 0; i < n; i++) {
    engram__v1__entity_mention__init(&m[i]);
    m[i].name = e->mentions[i].name;
    mp[i] = &m[i];
  }
  Engram__V1__ResolveEntitiesRequest req = ENGRAM__V1__RESOLVE_ENTITIES_REQUEST__INIT;
  req.scope = &c->scope;
  req.mentions = mp;
  req.n_mentions = n;
  Engram__V1__ResolveEntitiesResponse *r = NULL;
  eg_rpc_request call = eg_graphd_resolve_entities_call(c->graphd, &req, &r);
  call.arena = c->a;
  if (eg_rpc_run(&call, 0, err)) return NULL;
  eg_buf aliases = EG_BUF_INIT;
  for (size_t i = 0; i < r->n_entities && i < n; i++) {
    const Engram__V1__Entity *ent = r->entities[i]->entity;
    if (!ent || !ent->id) continue;
    bool dup = false;
    for (size_t j = 0; j < c->n_seeds; j++) dup |= c->seeds[j] == ent->id;
    if (dup) continue;
    c->seed_named[c->n_seeds] = strcmp(ent->name, c->user_entity) != 0;
    c->seeds[c->n_seeds++] = ent->id;
    for (size_t k = 0; k < ent->n_aliases; k++) {
      if (strcasecmp(ent->aliases[k], m[i].name) == 0) continue;
      if (aliases.len) eg_buf_append(&aliases, " ", 1);
      eg_buf_append(&aliases, ent->aliases[k], strlen(ent->aliases[k]));
    }
  }
  char *s = aliases.len ? eg_arena_strndup(c->a, aliases.data, aliases.len) : NULL;
  eg_buf_free(&aliases);
  return s;
}

/* Φ(q): the variants to search, the time range, the keywords and the seeds. */
bool rc_says(const char *text, const char *phrase) {
  size_t n = strlen(phrase);
  for (const char *p = text; (p = strcasestr(p, phrase)) != NULL; p++)
    if (word_start(text, p) && !isalnum((unsigned char)p[n])) return true;
  return false;
}

/* Does q say one of the n phrases w, as whole words (ASCII case folded)? */
static bool says_any(const char *q, const char *const *w, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (rc_says(q, w[i])) return true;
  return false;
}

/* Does q say "after" of a time, not of a verb it makes ("Which pet was I looking after?", "the
 * dog I named after my gran")? */
static bool time_after(const char *q) {
  static const char *const verbs[] = {"look", "looks", "looked", "looking", "named",
                                      "take", "takes", "took",   "taking"};
  for (const char *p = q; (p = strcasestr(p, "after")) != NULL; p++) {
    if (!word_start(q, p) || isalnum((unsigned char)p[5])) continue;
    const char *e = p, *b;
    while (e > q && e[-1] == ' ') e--;
    for (b = e; b > q && isalpha((unsigned char)b[-1]);) b--;
    size_t l = (size_t)(e - b), i = 0;
    while (i < sizeof verbs / sizeof *verbs &&
           !(strlen(verbs[i]) == l && !strncasecmp(b, verbs[i], l)))
      i++;
    if (i == sizeof verbs / sizeof *verbs) return true;
  }
  return false;
}

/* A question about an order or a span ("which came first", "before", "how long"). */
static bool asks_order(const char *q) {
  static const char *const w[] = {"first",    "earliest",  "initially",  "originally", "before",
                                  "order",    "previous",  "previously", "used to",    "how long",
                                  "how many", "how often", "how much",   "since when", "until"};
  return says_any(q, w, sizeof w / sizeof *w) || time_after(q);
}

/* A question about a span ("How long have I … now?", "Since when …"): it asks since when,
 * not what holds now. */
static bool asks_span(const char *q) {
  static const char *const w[] = {"how long", "since when"};
  return says_any(q, w, sizeof w / sizeof *w);
}

static eg_code expand(rc_ctx *c, variants *vs, eg_err *err) {
  const char *q = c->req->query;
  add_variant(vs, (char *)q);
  const char *undated = concretize(c, q);
  /* recency is for a question about the current state, not about a span: the last days'
   * chunks are no answer to "how long …" for being recent */
  c->update_cue = has_update_cue(q) && !asks_span(q);
  /* stemmed keywords (for fact matching) and plain keywords (a BM25-friendly variant) */
  c->keywords = eg_arena_calloc(c->a, 64, sizeof *c->keywords);
  words stems = {.c = c, .list = c->keywords, .cap = 64};
  c->stemmer = eg_tokenizer_new(EG_TOK_STEM); /* freed at the end of the Recall */
  if (!c->stemmer || !c->keywords) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_tokenize(c->stemmer, q, strlen(q), on_keyword, &stems);
  c->n_keywords = stems.n;
  eg_tokenizer *t;
  bool expand = c->req->expansion != ENGRAM__V1__EXPANSION_MODE__EXPANSION_MODE_NONE;
  eg_buf kw = EG_BUF_INIT;
  words plain = {.c = c, .out = &kw};
  if (expand && (t = eg_tokenizer_new(EG_TOK_STOPWORDS))) {
    eg_tokenize(t, undated, strlen(undated), on_keyword, &plain);
    eg_tokenizer_free(t);
  }
  char *keywords = kw.len ? eg_arena_strndup(c->a, kw.data, kw.len) : NULL;
  eg_buf_free(&kw);
  if (expand) add_variant(vs, keywords);
  /* The rules enricher reads the question as the ingest path read the conversations: the
   * entities it names (the user for "I", "my") and, for a dated question, its latent
   * form with absolute dates, which is how the stored latent texts are written. */
  eg_segment seg = {.text = q, .role = "user", .speaker = "", .time = c->tq};
  eg_enrich_ctx ectx = {.user_entity = c->user_entity};
  eg_enriched e = {0};
  eg_code rc = eg_enrich_rules(&ectx, &seg, 1, c->a, &e, err);
  if (rc) return rc;
  if (expand && c->temporal) {
    add_variant(vs, e.latent);
    if (vs->n && vs->v[vs->n - 1] == e.latent) c->dated_variant = vs->n;
  }
  char *aliases = resolve_seeds(c, &e, err);
  if (err->code) return err->code;
  if (expand && aliases)
    add_variant(vs, eg_arena_sprintf(c->a, "%s %s", keywords ? keywords : q, aliases));
  /* a question about a state also looks for the user's statements of one, in the words
   * people state it with: "we relocated last month" answers "where do I live?" */
  const eg_statefacts *sf = c->r->states;
  c->asked = sf && !asks_order(q) ? eg_statefacts_asked(sf, q) : 0;
  c->asks_name = c->asked && eg_statefacts_asks_name(q);
  c->asks_kind = c->asked && eg_statefacts_asks_kind(q);
  if (expand && c->asked) add_variant(vs, eg_statefacts_statement(sf, c->asked, c->a));
  /* a state at a time before the bounds, not "now" ("Where do I live now? I was in X in
   * 2021" asks for now) */
  if (c->asked && c->temporal && !c->update_cue && c->to - 1 < c->valid_at) c->state_at = c->to - 1;
  /* a question about two events: one variant per event (each gets its place, rc_sub_quota) */
  char *part[RC_MAX_SUB];
  for (size_t i = 0, n = expand && c->r->o.decompose ? rc_decompose(q, c->a, part, RC_MAX_SUB) : 0;
       i < n; i++) {
    add_variant(vs, part[i]);
    if (vs->n && vs->v[vs->n - 1] == part[i]) c->sub_var[c->n_sub++] = vs->n - 1;
  }
  if (c->req->expansion == ENGRAM__V1__EXPANSION_MODE__EXPANSION_MODE_LLM) {
    char *llm[3];
    size_t n = rc_llm_variants(c, llm, 3);
    for (size_t i = 0; i < n; i++) add_variant(vs, llm[i]);
  }
  return EG_OK;
}

/* Where the time a question asks about begins, for the searches and the time signal. A state
 * holds from when it was told: asked where they lived in summer 2020, what the user said in
 * January ("I've been vegetarian for years") answers it as well as anything said that summer,
 * so a question about a state reads all that was said (and dated) up to the time's end. */
static int64_t range_from(const rc_ctx *c) { return c->asked ? 1 : c->from; }

/* ---- the parallel searches ------------------------------------------------------------ */

static Engram__V1__SearchRequest *search_req(rc_ctx *c, const variants *vs, uint32_t k,
                                             bool in_range, const uint64_t *entities,
                                             size_t n_entities) {
  Engram__V1__SearchRequest *s = eg_arena_calloc(c->a, 1, sizeof *s);
  Engram__V1__SearchFilter *f = eg_arena_calloc(c->a, 1, sizeof *f);
  Engram__V1__SearchQuery **qs = eg_arena_calloc(c->a, vs->n, sizeof *qs);
  if (!s || !f || !qs) return NULL;
  engram__v1__search_request__init(s);
  engram__v1__search_filter__init(f);
  for (size_t i = 0; i < vs->n; i++) {
    qs[i] = eg_arena_calloc(c->a, 1, sizeof **qs);
    if (!qs[i]) return NULL;
    engram__v1__search_query__init(qs[i]);
    qs[i]->text = vs->v[i];
  }
  s->scope = &c->scope;
  s->queries = qs;
  s->n_queries = vs->n;
  s->k = c->r->o.vectord_max_k && k > c->r->o.vectord_max_k ? c->r->o.vectord_max_k : k;
  s->feedback_weight = c->r->o.feedback_weight;
  s->feedback_docs = c->r->o.feedback_docs;
  s->include_content = true;
  s->shared_chunks = true;
  f->session_ids = c->req->session_ids;
  f->n_session_ids = c->req->n_session_ids;
  f->document_ids = c->req->document_ids;
  f->n_document_ids = c->req->n_document_ids;
  f->user = c->scope.user; /* a user's memory is theirs (and the tenant's shared knowledge) */
  /* Excerpts are bounded like facts: nothing said after valid_at is context "as of" it,
   * nothing stored after known_at was known then. */
  f->valid_at = c->valid_at;
  f->known_at = c->known_at;
  f->entity_ids = (uint64_t *)entities;
  f->n_entity_ids = n_entities;
  if (in_range) {
    Engram__V1__TimeRange *tr = eg_arena_calloc(c->a, 1, sizeof *tr);
    if (!tr) return NULL;
    engram__v1__time_range__init(tr);
    tr->from = range_from(c);
    tr->to = c->to + AFTER_RANGE;
    f->time = tr;
  }
  s->filter = f;
  return s;
}

/* A single turn of a conversation: what may have neighbours (adjacent). A round (a user's
 * message with the replies to it) holds its question and answer already: its neighbours are
 * other rounds, not the other side of its exchange. */
static bool single_turn(const Engram__V1__Chunk *ch) {
  return ch->session_id && *ch->session_id && !ch->document_id[0] && ch->turn_end == ch->turn_index;
}

/* A search of the sessions of the first hits (NEIGHBOURHOOD of them) that are single turns,
 * for their neighbours' own scores (lift_neighbours); NULL when there are none. */
#define NEIGHBOURHOOD 3
static Engram__V1__SearchRequest *session_req(rc_ctx *c, const variants *vs, uint32_t k) {
  char **ids = eg_arena_calloc(c->a, NEIGHBOURHOOD, sizeof *ids);
  size_t n = 0;
  for (size_t i = 0; ids && i < c->n_chunks && i < NEIGHBOURHOOD; i++) {
    char *s = c->chunks[i].chunk->session_id;
    bool dup = !single_turn(c->chunks[i].chunk);
    for (size_t j = 0; j < n && !dup; j++) dup = strcmp(ids[j], s) == 0;
    if (!dup) ids[n++] = s;
  }
  Engram__V1__SearchRequest *s = n ? search_req(c, vs, k * 2, false, NULL, 0) : NULL;
  if (s) { /* within the request's sessions already: the first hits passed its filter */
    s->filter->session_ids = ids;
    s->filter->n_session_ids = n;
  }
  return s;
}

/* One Search that carries a's queries and then b's, each of b's with b's filter and k (a
 * Search's queries may have their own): one call to vectord instead of two, whose answers
 * come in the same order. a when b is NULL, b when a is; NULL when out of memory. */
static Engram__V1__SearchRequest *joined(rc_ctx *c, Engram__V1__SearchRequest *a,
                                         const Engram__V1__SearchRequest *b) {
  if (!a || !b) return a ? a : (Engram__V1__SearchRequest *)b;
  Engram__V1__SearchQuery **qs = eg_arena_calloc(c->a, a->n_queries + b->n_queries, sizeof *qs);
  if (!qs) return NULL;
  memcpy(qs, a->queries, a->n_queries * sizeof *qs);
  for (size_t i = 0; i < b->n_queries; i++) {
    qs[a->n_queries + i] = b->queries[i];
    b->queries[i]->filter = b->filter;
    b->queries[i]->k = b->k;
  }
  a->queries = qs;
  a->n_queries += b->n_queries;
  return a;
}

static float temporal_fit(const rc_ctx *c, const Engram__V1__Chunk *ch) {
  if (!c->temporal) return 0;
  int64_t from = range_from(c);
  if (ch->time >= from && ch->time < c->to) return 1;
  /* a date the enricher resolved into the latent text ("… 2023-05-20 …") */
  for (const char *p = ch->latent; p && *p; p++) {
    int y, m, d;
    if (p[0] >= '1' && p[0] <= '2' && sscanf(p, "%4d-%2d-%2d", &y, &m, &d) == 3 && p[4] == '-') {
      int64_t t = eg_days_from_civil(y, m, d) * DAY;
      if (t >= from && t < c->to) return 1;
      p += 9;
    }
  }
  return ch->time >= c->to && ch->time < c->to + AFTER_RANGE ? 0.5f : 0;
}

/* A chunk that says nothing but greetings and thanks ("user: Hi!\nassistant: Hello, how can I
 * help you today?") is no evidence of anything on its day: asked about a time, the time signals
 * do not lift it and its score is discounted (what it shares with "what did I ask you on …" is
 * small talk). A content word is one of three letters or more, neither a stop word nor phatic. */
static bool content_free(const char *text) {
  static const char *const phatic[] = {
      "user",    "assistant", "hi",      "hello",   "hey",     "thanks",    "thank",
      "okay",    "ok",        "great",   "good",    "morning", "afternoon", "evening",
      "night",   "today",     "yes",     "sure",    "cool",    "nice",      "bye",
      "goodbye", "please",    "awesome", "perfect", "help",    "glad",      "welcome",
      "much",    "lot",       "there",   "again",   "see",     "soon"};
  int content = 0;
  for (const char *p = text ? text : ""; *p && content < 2;) {
    while (*p && !isalpha((unsigned char)*p)) p++;
    char w[24];
    size_t n = 0;
    for (; isalpha((unsigned char)*p) || *p == '\''; p++)
      if (n < sizeof w - 1) w[n++] = (char)tolower((unsigned char)*p);
    w[n] = '\0';
    if (n < 3 || eg_is_stopword(w, n)) continue;
    bool ph = false;
    for (size_t i = 0; i < sizeof phatic / sizeof *phatic && !ph; i++) ph = !strcmp(w, phatic[i]);
    content += !ph;
  }
  return content < 2;
}

/* A hit's chunk: its own, or with shared_chunks the response's it names (NULL if none). */
static const Engram__V1__Chunk *hit_chunk(const Engram__V1__SearchResponse *r,
                                          const Engram__V1__SearchHit *h) {
  if (h->chunk) return h->chunk;
  return h->chunk_index < r->n_chunks ? r->chunks[h->chunk_index] : NULL;
}

/* Is the chunk's speaker (a turn or round opens with "Name: ") a person the question names,
 * as a whole word? "What does Maya do to unwind?" is answered in Maya's own words more than
 * in the turns of whoever speaks to her by name. A role ("user: ") is no name. */
static bool spoken_by_named(const char *question, const char *content) {
  if (!question || !content || !isupper((unsigned char)content[0])) return false;
  size_t n = 1; /* the first ": " within 41 bytes, no line break before it */
  while (n <= 40 && content[n] && content[n] != '\n' &&
         !(content[n] == ':' && content[n + 1] == ' '))
    n++;
  if (n > 40 || content[n] != ':') return false;
  char name[48];
  memcpy(name, content, n);
  name[n] = '\0';
  for (const char *p = question; (p = strstr(p, name)) != NULL; p++)
    if ((p == question || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n]))
      return true;
  return false;
}
/* Merge the hits of a search response into the chunk candidates, and raise each variant's
 * best raw BM25 (fuse_chunks divides by it: every search's hits against the same best, for
 * a search narrowed to a time range or to entities has a weaker one, and normalized on its
 * own a chunk matching one common word of the question would score as high as the
 * strongest match of the unfiltered search). Result q is variant q mod per: a response
 * may carry the variants' queries twice (all time, then the question's range). */
static void take_hits(rc_ctx *c, eg_map *seen, const Engram__V1__SearchResponse *r, bool expansion,
                      size_t per, size_t cap) {
  if (r && r->bm25_concepts > 0) c->bm25_concepts = r->bm25_concepts;
  for (size_t q = 0; r && q < r->n_results; q++)
    for (size_t i = 0, var = q % per; i < r->results[q]->n_hits; i++) {
      const Engram__V1__SearchHit *h = r->results[q]->hits[i];
      const Engram__V1__Chunk *ch = hit_chunk(r, h);
      if (!ch) continue;
      for (size_t s = 0; !expansion && s < c->n_sub; s++) /* the first search's best */
        if (c->sub_var[s] == var && !c->sub_best[s]) c->sub_best[s] = ch->id;
      void *v = eg_map_get(seen, &ch->id, sizeof ch->id);
      rc_chunk *x;
      if (v) {
        x = &c->chunks[(uintptr_t)v - 1];
        if (!expansion) {
          x->variants++;
          x->expansion = false;
        }
      } else {
        if (c->n_chunks == cap) continue;
        x = &c->chunks[c->n_chunks++];
        *x = (rc_chunk){.chunk = ch,
                        .expansion = expansion,
                        .variants = !expansion,
                        .said_nothing = (c->temporal || c->update_cue) && content_free(ch->content),
                        .named_speaker = c->r->o.speaker_weight > 0 &&
                                         spoken_by_named(c->req->query, ch->content)};
        eg_map_put(seen, &ch->id, sizeof ch->id, (void *)(uintptr_t)c->n_chunks);
      }
      bool fb = r->results[q]->feedback;
      float cs = fb ? h->feedback_content_sim : h->content_sim,
            ls = fb ? h->feedback_latent_sim : h->latent_sim;
      if (cs > x->content) x->content = cs;
      if (ls > x->latent) x->latent = ls;
      if (h->content_sim > x->relevance) x->relevance = h->content_sim;
      if (h->latent_sim > x->relevance) x->relevance = h->latent_sim;
      if (var >= RC_MAX_VARIANTS) continue;
      if (h->bm25 > x->bm25_raw[var]) x->bm25_raw[var] = h->bm25;
      if (h->bm25 > c->bm25_best[var]) c->bm25_best[var] = h->bm25;
      if (h->bm25_words > 0)
        x->said |= (uint8_t)(1u << var);
      else if (h->bm25 > c->bm25_alone[var])
        c->bm25_alone[var] = h->bm25;
    }
}

typedef struct weights {
  float content, latent, bm25, temporal, recency, graph, sentence;
} weights;

static weights weights_of(const rc_ctx *c) {
  weights w = {0.4f, 0.4f, 0.25f, 0.05f, 0.2f, 0.5f, 0.1f};
  const Engram__V1__RecallWeights *q = c->req->weights;
  if (q &&
      (q->content || q->latent || q->bm25 || q->temporal || q->recency || q->graph || q->sentence))
    w = (weights){q->content, q->latent, q->bm25, q->temporal, q->recency, q->graph, q->sentence};
  return w;
}

int rc_by_score(const void *a, const void *b) {
  float x = ((const rc_chunk *)a)->score, y = ((const rc_chunk *)b)->score;
  return (x < y) - (x > y);
}

/* Best score first; on a tie the value that became true last (of a user's several pets,
 * the newest is the one a question about "my pet" most likely means). */
static int by_score_fact(const void *a, const void *b) {
  const rc_fact *p = a, *q = b;
  if (p->score != q->score) return (p->score < q->score) - (p->score > q->score);
  int64_t x = p->edge->valid_from, y = q->edge->valid_from;
  return (x < y) - (x > y);
}

/* Are single turns a and b of one session with no turn between them? */
static bool adjacent(const Engram__V1__Chunk *a, const Engram__V1__Chunk *b) {
  bool next = b->turn_index == a->turn_end + 1 || a->turn_index == b->turn_end + 1;
  return next && strcmp(a->session_id, b->session_id) == 0;
}

/* The neighbourhood of a turn: it gains a share of its better adjacent turn's score, for an
 * answer is told next to its question ("What did you research?" / "Adoption agencies.") and a
 * statement is echoed by the reply to it ("I joined a support group." / "A support group! How
 * was it?"), and
 * the turn that answers in other words than the question's is found beside the one that
 * restates it. Each from the scores before this step. */
static void lift_neighbours(rc_ctx *c, float share) {
  if (share <= 0 || c->n_chunks < 2) return;
  /* the pairs are sought among the single turns only (none when the units are rounds) */
  size_t *turn = malloc(c->n_chunks * sizeof *turn), n = 0;
  float *base = malloc(c->n_chunks * sizeof *base);
  for (size_t i = 0; turn && base && i < c->n_chunks; i++)
    if (single_turn(c->chunks[i].chunk)) base[n] = c->chunks[i].score, turn[n++] = i;
  for (size_t i = 0; n > 1 && i < n; i++) {
    float best = 0;
    for (size_t j = 0; j < n; j++)
      if (j != i && base[j] > best && adjacent(c->chunks[turn[i]].chunk, c->chunks[turn[j]].chunk))
        best = base[j];
    c->chunks[turn[i]].score += share * best;
  }
  free(turn);
  free(base);
}

static void fuse_chunks(rc_ctx *c, const weights *w) {
  for (size_t i = 0; i < c->n_chunks; i++) {
    rc_chunk *x = &c->chunks[i];
    x->bm25 = 0;
    for (size_t q = 0; q < RC_MAX_VARIANTS; q++) {
      /* a match by WordNet concepts alone is no full match: those are normalized by the larger
       * of the best and their own best over the concepts' weight (as in vectord) */
      float best = c->bm25_best[q], cw = c->bm25_concepts;
      if (cw > 0 && !(x->said & (1u << q)) && c->bm25_alone[q] / cw > best)
        best = c->bm25_alone[q] / cw;
      float v = best > 0 ? x->bm25_raw[q] / best : 0;
      if (q + 1 != c->dated_variant && v > x->bm25) x->bm25 = v;
    }
    x->temporal = x->said_nothing ? 0 : temporal_fit(c, x->chunk);
    x->sentence = 0;
    double age = (double)(c->tq - x->chunk->time) / (double)DAY;
    x->recency = c->update_cue && x->chunk->time && !x->said_nothing
                     ? (float)exp(-(age > 0 ? age : 0) / 90.0)
                     : 0;
    x->score = w->content * x->content + w->latent * x->latent + w->bm25 * x->bm25 +
               w->temporal * x->temporal + w->recency * x->recency +
               0.02f * (float)(x->variants > 1 ? x->variants - 1 : 0) +
               (x->named_speaker ? c->r->o.speaker_weight : 0);
    if (x->expansion) x->score *= 0.85f;
    if (x->said_nothing)
      x->score *= CONTENT_FREE; /* what it resembles in a question is its small talk */
  }
  lift_neighbours(c, c->r->o.neighbour_weight);
  qsort(c->chunks, c->n_chunks, sizeof *c->chunks, rc_by_score);
}

/* Once fusion is final: the head again, with its best sentences (it reads their text). */
static void fuse_sentences(rc_ctx *c, const weights *w) {
  size_t head = c->n_chunks < SENTENCE_HEAD ? c->n_chunks : SENTENCE_HEAD;
  if (w->sentence <= 0) return;
  for (size_t i = 0; i < head; i++) {
    rc_chunk *x = &c->chunks[i];
    x->sentence = best_sentence_match(c, x->chunk->content);
    x->score += w->sentence * x->sentence;
  }
  qsort(c->chunks, head, sizeof *c->chunks, rc_by_score);
}

/* The doubts on subject's states in the State answer: its STATE_UNCERTAIN values, each the
 * latest doubt on one relation as of the bounds, in the reader's view (NULL when none). */
static const Engram__V1__StateResult *doubts_of_subject(const Engram__V1__StateResponse *st,
                                                        uint64_t subject) {
  for (size_t i = 0; i < st->n_results; i++)
    if (st->results[i]->subject == subject && !strcmp(st->results[i]->relation, EG_STATE_UNCERTAIN))
      return st->results[i];
  return NULL;
}

/* The current facts of the seeds that match the question (all of them for an entity the
 * question names when none matches), at most k2, best first. */
static void fuse_facts(rc_ctx *c, const Engram__V1__StateResponse *st, const weights *w,
                       uint32_t k2) {
  if (!st) return;
  size_t total = 0;
  for (size_t i = 0; i < st->n_results; i++) total += st->results[i]->n_values;
  c->facts = eg_arena_calloc(c->a, total ? total : 1, sizeof *c->facts);
  if (!c->facts) return;
  /* pass 0: the question's words; 1: a named entity's facts */
  for (int pass = 0; pass < 2 && c->n_facts == 0; pass++)
    for (size_t i = 0; i < st->n_results; i++) {
      bool named = false;
      for (size_t s = 0; s < c->n_seeds; s++)
        named |= c->seeds[s] == st->results[i]->subject && c->seed_named[s];
      for (size_t v = 0; v < st->results[i]->n_values; v++) {
        const Engram__V1__Edge *e = st->results[i]->values[v];
        if (!strcmp(e->relation, EG_STATE_UNCERTAIN))
          continue; /* a doubt is no fact: doubt_of reads it */
        char text[600];
        snprintf(text, sizeof text, "%s %s", e->relation, eg_edge_object(e));
        for (char *p = text; *p; p++)
          if (*p == '_') *p = ' ';
        float m = rc_keyword_match(c, text);
        /* a value of the kind the question asks for ("Which company employed me?" asks
         * for an organisation: the user's WORKS_AT) is on the question's topic */
        bool typed =
            c->asked && (c->asked & eg_statefacts_relation_types(c->r->states, e->relation));
        if (m <= 0 && !named && typed) m = ASKED_MATCH;
        /* … but a kind is no answer to what one is called ("a terrier", "an old beagle") */
        if (typed && c->asks_name && eg_edge_literal(e)) continue;
        if (pass == 0 && m <= 0) continue;
        if (pass == 1 && !named) continue;
        c->facts[c->n_facts++] = (rc_fact){
            .edge = e,
            .match = m,
            .on_topic = pass != 1,
            .one = st->results[i]->cardinality == ENGRAM__V1__CARDINALITY__CARDINALITY_ONE,
            .doubts = doubts_of_subject(st, st->results[i]->subject),
            .score = w->graph * (0.5f + 0.5f * m)};
      }
    }
  qsort(c->facts, c->n_facts, sizeof *c->facts, by_score_fact);
  if (c->n_facts > k2) c->n_facts = k2;
}

/* Paths of two or more hops from the seeds, those reaching further seeds or matching
 * keywords first. */
static void fuse_paths(rc_ctx *c, const Engram__V1__TraverseResponse *tr, const weights *w,
                       uint32_t k2) {
  if (!tr) return;
  c->paths = eg_arena_calloc(c->a, tr->n_paths ? tr->n_paths : 1, sizeof *c->paths);
  if (!c->paths) return;
  for (size_t i = 0; i < tr->n_paths; i++) {
    const Engram__V1__Path *p = tr->paths[i];
    if (p->n_edges < 2) continue;
    eg_buf b = EG_BUF_INIT;
    int seeds_hit = 0;
    for (size_t e = 0; e < p->n_edges; e++) {
      const Engram__V1__Edge *x = p->edges[e];
      eg_buf_printf(&b, "%s %s ", x->relation, eg_edge_object(x));
      for (size_t s = 0; s < c->n_seeds; s++) seeds_hit += e > 0 && object_is(x, c->seeds[s]);
    }
    for (char *q = b.data; q && *q; q++)
      if (*q == '_') *q = ' ';
    float m = rc_keyword_match(c, b.data);
    eg_buf_free(&b);
    if (m <= 0 && !seeds_hit) continue;
    c->paths[c->n_paths++] =
        (rc_path){p, w->graph * (0.3f * m + 0.3f * (float)seeds_hit) / (float)p->n_edges};
  }
  for (size_t i = 1; i < c->n_paths; i++) /* few paths: insertion sort by score */
    for (size_t j = i; j > 0 && c->paths[j].score > c->paths[j - 1].score; j--) {
      rc_path t = c->paths[j];
      c->paths[j] = c->paths[j - 1];
      c->paths[j - 1] = t;
    }
  if (c->n_paths > k2) c->n_paths = k2;
}

/* ---- the walk and the history of the facts ---------------------------------------------- */

/* The doubt that makes fact f stale within the bounds, or NULL: the STATE_UNCERTAIN marker
 * on f's subject naming f's relation (the State answer holds the latest one as of valid_at
 * and known_at), said after f became true. A doubt after valid_at says nothing about an
 * as-of answer; a value re-asserted after the doubt clears it. */
static const Engram__V1__Edge *doubt_of(const rc_fact *f) {
  for (size_t i = 0; f->doubts && i < f->doubts->n_values; i++) {
    const Engram__V1__Edge *d = f->doubts->values[i];
    if (eg_edge_literal(d) && !strcmp(eg_edge_object(d), f->edge->relation) &&
        d->valid_from > f->edge->valid_from)
      return d;
  }
  return NULL;
}

/* A fact on the question's topic whose value is an entity (a name, which may have a kind). */
static bool named_on_topic(const rc_fact *f) {
  return f->on_topic && f->edge->object &&
         f->edge->object->kind_case == ENGRAM__V1__VALUE__KIND_ENTITY_ID;
}

/* For a question asking a kind ("What kind of pet do I have?"): the kinds of the named values of
 * the facts on its topic (Noodle IS_A ferret), one State query each, as of the facts' bounds;
 * NULL when none is asked. */
static Engram__V1__StateRequest *kinds_request(rc_ctx *c) {
  size_t n = 0;
  for (size_t i = 0; c->asks_kind && i < c->n_facts; i++) n += named_on_topic(&c->facts[i]);
  if (!n) return NULL;
  Engram__V1__StateRequest *r = eg_arena_calloc(c->a, 1, sizeof *r);
  Engram__V1__StateQuery *q = eg_arena_calloc(c->a, n, sizeof *q);
  Engram__V1__EntityRef *ref = eg_arena_calloc(c->a, n, sizeof *ref);
  Engram__V1__StateQuery **qp = eg_arena_calloc(c->a, n, sizeof *qp);
  if (!r || !q || !ref || !qp) return NULL;
  engram__v1__state_request__init(r);
  r->scope = &c->scope;
  r->valid_at = c->state_at;
  r->known_at = c->known_at;
  r->queries = qp;
  for (size_t i = 0; i < c->n_facts; i++) {
    const Engram__V1__Edge *e = c->facts[i].edge;
    if (!named_on_topic(&c->facts[i])) continue;
    size_t k = r->n_queries++;
    engram__v1__entity_ref__init(&ref[k]);
    ref[k].ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
    ref[k].id = e->object->entity_id;
    engram__v1__state_query__init(&q[k]);
    q[k].subject = &ref[k];
    q[k].relation = EG_KIND_OF;
    qp[k] = &q[k];
  }
  return r;
}

/* Each fact's kind from the answer to kinds_request (a fact without one keeps none). */
static void take_kinds(rc_ctx *c, const Engram__V1__StateResponse *st) {
  for (size_t i = 0; st && i < c->n_facts; i++) {
    const Engram__V1__Edge *e = c->facts[i].edge;
    if (!named_on_topic(&c->facts[i])) continue;
    for (size_t r = 0; r < st->n_results && !c->facts[i].kind; r++)
      if (st->results[r]->subject == e->object->entity_id && st->results[r]->n_values)
        c->facts[i].kind = st->results[r]->values[0];
  }
}

/* The facts' and the values' premise walk and their histories, in one Walk: the facts'
 * claims first, then the values' (and beside it, the kinds a question asks for). A fact shows
 * the last 16 commits of its relation's chain, a value looks for its steps among the last
 * 32. */
static eg_code walk_claims(rc_ctx *c, eg_err *err) {
  size_t nf = c->n_facts, n = nf + c->n_values;
  if (!n) return EG_OK;
  uint64_t *claims = eg_arena_calloc(c->a, n, sizeof *claims);
  if (!claims) return eg_err_set(err, EG_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++)
    claims[i] = i < nf ? c->facts[i].edge->id : c->values[i - nf].edge->id;
  Engram__V1__WalkRequest wr = ENGRAM__V1__WALK_REQUEST__INIT;
  wr.scope = &c->scope;
  wr.claims = claims;
  wr.n_claims = n;
  wr.valid_at = c->state_at; /* statuses and histories as of the time asked about */
  wr.known_at = c->known_at;
  wr.history_limit = 32;
  Engram__V1__WalkResponse *w = NULL;
  Engram__V1__StateRequest *kq = kinds_request(c);
  Engram__V1__StateResponse *kinds = NULL;
  eg_rpc_request rs[2] = {eg_graphd_walk_call(c->graphd, &wr, &w)};
  if (kq) rs[1] = eg_graphd_state_call(c->graphd, kq, &kinds);
  rs[0].arena = rs[1].arena = c->a;
  eg_rpc_fanout(rs, kq ? 2 : 1, 0);
  if (rs[0].err.code) return eg_err_set(err, rs[0].err.code, "graphd: %s", rs[0].err.msg);
  take_kinds(c, kinds); /* a kind not read leaves the fact as it is */
  size_t got = w ? w->n_statuses : 0;
  for (size_t i = 0; i < nf; i++) {
    rc_fact *f = &c->facts[i];
    const Engram__V1__ClaimStatus *cs = i < got ? w->statuses[i] : NULL;
    if (cs) {
      f->status = cs->status;
      f->superseding = cs->superseding;
    }
    const Engram__V1__Edge *d = doubt_of(f);
    if (d && f->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE) {
      f->status = ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE;
      f->superseding = d; /* its meta names the chunk that put the value in doubt */
    }
    size_t nh = cs ? cs->n_history : 0, first = nh > 16 ? nh - 16 : 0;
    f->history = eg_arena_calloc(c->a, nh ? nh : 1, sizeof *f->history);
    for (size_t e = first; f->history && e < nh; e++) {
      const Engram__V1__HistoryEntry *h = cs->history[e];
      if (h->superseded && h->edge->id != f->edge->id &&
          h->edge->op != ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT)
        f->history[f->n_history++] = h->edge;
    }
  }
  return rc_values_walked(c, w && got > nf ? w->statuses + nf : NULL, got > nf ? got - nf : 0, err);
}

/* ---- one Recall ----------------------------------------------------------------------- */

/* The answers of the first fan-out of a Recall, each NULL when its call was not made. */
typedef struct first_answers {
  Engram__V1__SearchResponse *hits;      /* the variants over all time, then within the question's
                                            time range (when it has one) */
  Engram__V1__StateResponse *seed_facts; /* the current facts of the seeds */
  Engram__V1__TraverseResponse *paths;   /* the paths from the seeds */
  Engram__V1__StateResponse *prefs;      /* the user's preferences */
} first_answers;

static eg_code searches(rc_ctx *c, const variants *vs, uint32_t k1, uint32_t k2, eg_err *err) {
  eg_rpc_request rs[4];
  size_t n = 0;
  first_answers got = {0};
  Engram__V1__SearchRequest *all = search_req(c, vs, k1 * 3 > 20 ? k1 * 3 : 20, false, NULL, 0);
  Engram__V1__SearchRequest *ranged = c->temporal ? search_req(c, vs, k1 * 2, true, NULL, 0) : NULL;
  if (!all || (c->temporal && !ranged) || !(all = joined(c, all, ranged)))
    return eg_err_set(err, EG_ENOMEM, "out of memory");
  rs[n++] = eg_vectord_search_call(c->vectord, all, &got.hits);
  /* one State call: the seeds' current facts, then the user's preferences (one result per
   * query that names its relation, so the last prefs->n_queries results are theirs) */
  Engram__V1__StateRequest *prefs = rc_values_request(c);
  if (!prefs) return eg_err_set(err, EG_ENOMEM, "out of memory");
  size_t nq = c->n_seeds + prefs->n_queries;
  Engram__V1__StateRequest st = *prefs;
  Engram__V1__TraverseRequest tr = ENGRAM__V1__TRAVERSE_REQUEST__INIT;
  Engram__V1__StateQuery *sq = eg_arena_calloc(c->a, c->n_seeds ? c->n_seeds : 1, sizeof *sq);
  Engram__V1__StateQuery **sqp = eg_arena_calloc(c->a, nq, sizeof *sqp);
  Engram__V1__EntityRef *refs = eg_arena_calloc(c->a, c->n_seeds ? c->n_seeds : 1, sizeof *refs);
  Engram__V1__EntityRef **refp = eg_arena_calloc(c->a, c->n_seeds ? c->n_seeds : 1, sizeof *refp);
  if (!sq || !sqp || !refs || !refp) return eg_err_set(err, EG_ENOMEM, "out of memory");
  memcpy(sqp + c->n_seeds, prefs->queries, prefs->n_queries * sizeof *sqp);
  st.queries = sqp;
  st.n_queries = nq;
  st.valid_at = c->state_at;
  if (c->n_seeds) {
    for (size_t i = 0; i < c->n_seeds; i++) {
      engram__v1__entity_ref__init(&refs[i]);
      refs[i].ref_case = ENGRAM__V1__ENTITY_REF__REF_ID;
      refs[i].id = c->seeds[i];
      refp[i] = &refs[i];
      engram__v1__state_query__init(&sq[i]);
      sq[i].subject = &refs[i];
      sqp[i] = &sq[i];
    }
    tr.scope = &c->scope;
    tr.valid_at = c->state_at; /* paths as of the facts' time */
    tr.known_at = c->known_at;
    tr.seeds = refp;
    tr.n_seeds = c->n_seeds;
    tr.max_depth = 2;
    tr.max_paths = k2 * 4 > 16 ? k2 * 4 : 16;
    tr.direction = ENGRAM__V1__DIRECTION__DIRECTION_BOTH;
    rs[n++] = eg_graphd_traverse_call(c->graphd, &tr, &got.paths);
  }
  Engram__V1__StateResponse *state = NULL;
  rs[n++] = eg_graphd_state_call(c->graphd, &st, &state);
  for (size_t i = 0; i < n; i++) rs[i].arena = c->a; /* the answers live as long as the Recall */
  eg_code rc = eg_rpc_fanout(rs, n, 0);

  for (size_t i = 0; rc && i < n; i++)
    if (rs[i].err.code)
      return eg_err_set(err, rs[i].err.code, "%s: %s", rs[i].method, rs[i].err.msg);
  Engram__V1__StateResponse seed_facts, user_prefs; /* the two parts of state */
  if (state) {
    size_t np = state->n_results < prefs->n_queries ? state->n_results : prefs->n_queries;
    seed_facts = user_prefs = *state;
    seed_facts.n_results = state->n_results - np;
    user_prefs.results = state->results + seed_facts.n_results;
    user_prefs.n_results = np;
    got.seed_facts = c->n_seeds ? &seed_facts : NULL;
    got.prefs = &user_prefs;
  }
  size_t cap = 0;
  for (size_t q = 0; got.hits && q < got.hits->n_results; q++) cap += got.hits->results[q]->n_hits;
  cap += k1 * 2; /* room for the expansion */
  c->chunks = eg_arena_calloc(c->a, cap, sizeof *c->chunks);
  if (!c->chunks) return eg_err_set(err, EG_ENOMEM, "out of memory");
  eg_map *seen = eg_map_new();
  if (!seen) return eg_err_set(err, EG_ENOMEM, "out of memory");
  take_hits(c, seen, got.hits, false, vs->n, cap);
  weights w = weights_of(c);
  fuse_chunks(c, &w);
  /* chunk-level expansion: the entities of the top chunks → more chunks about them; and
   * the turns of their sessions, each on its own evidence, to be lifted by its neighbour */
  if (c->req->expansion != ENGRAM__V1__EXPANSION_MODE__EXPANSION_MODE_NONE && c->n_chunks) {
    uint64_t ents[16];
    size_t ne = 0;
    for (size_t i = 0; i < c->n_chunks && i < 3; i++)
      for (size_t e = 0; e < c->chunks[i].chunk->n_entity_ids && ne < 16; e++) {
        uint64_t id = c->chunks[i].chunk->entity_ids[e];
        bool dup = false;
        for (size_t j = 0; j < ne; j++) dup |= ents[j] == id;
        for (size_t j = 0; j < c->n_seeds; j++) dup |= c->seeds[j] == id && !c->seed_named[j];
        if (!dup) ents[ne++] = id;
      }
    variants one = {{vs->v[0]}, 1};
    Engram__V1__SearchRequest *by_ent = ne ? search_req(c, &one, k1, false, ents, ne) : NULL;
    Engram__V1__SearchRequest *by_session =
        c->r->o.neighbour_weight > 0 ? session_req(c, &one, k1) : NULL;
    Engram__V1__SearchRequest *more = joined(c, by_ent, by_session); /* one call for both */
    Engram__V1__SearchResponse *found = NULL;
    if (more) {
      eg_rpc_request ex = eg_vectord_search_call(c->vectord, more, &found);
      ex.arena = c->a;
      eg_rpc_fanout(&ex, 1, 0); /* what failed adds nothing */
      take_hits(c, seen, found, true, 1, cap);
      fuse_chunks(c, &w);
    }
  }
  eg_map_free(seen);
  fuse_sentences(c, &w);
  if (c->n_seeds) {
    fuse_facts(c, got.seed_facts, &w, k2);
    fuse_paths(c, got.paths, &w, k2);
  }
  rc_values_pick(c, got.prefs); /* before the cut: every candidate's closeness counts */
  return EG_OK;
}

eg_code eg_recall_run(eg_recall *r, const Engram__V1__RecallRequest *req, eg_arena *a,
                      Engram__V1__RecallResponse *resp, eg_err *err) {
  eg_code rc = validate(r, req, err);
  if (rc) return rc;
  rc_ctx c = {.r = r, .req = req, .a = a};
  c.scope = *req->scope;
  c.graphd = eg_peers_graphd(r->o.peers, req->scope->tenant);
  c.vectord = eg_peers_vectord(r->o.peers, req->scope->tenant);
  c.tq = req->query_time ? req->query_time : eg_time_now_us();
  c.valid_at = c.state_at = req->valid_at ? req->valid_at : c.tq;
  c.known_at = req->known_at;
  c.user_entity = eg_arena_sprintf(
      a, "user:%s", req->scope->user && *req->scope->user ? req->scope->user : "default");
  uint32_t k = req->k ? req->k : 10, k1 = req->k1 ? req->k1 : k,
           k2 = req->k2 ? req->k2 : (k / 2 ? k / 2 : 1);
  int64_t t = eg_time_mono_us();
  if (req->watermark && *req->watermark) {
    bool reached = false;
    int64_t wait = req->watermark_timeout_us ? req->watermark_timeout_us : 5 * EG_US_PER_SEC;
    rc = eg_watermark_wait(r->o.peers, req->scope->tenant, req->watermark, wait, &reached, err);
    if (rc) return rc;
    if (!reached)
      return eg_err_set(err, EG_ETIMEOUT, "the watermark's write was not visible within %lld ms",
                        (long long)wait / 1000);
    t = eg_stage_done(a, &resp->timings, &resp->n_timings, "wait", t, r->m_stage);
  }
  variants vs = {{0}, 0};
  if ((rc = expand(&c, &vs, err))) goto done;
  t = eg_stage_done(a, &resp->timings, &resp->n_timings, "expand", t, r->m_stage);
  if ((rc = searches(&c, &vs, k1, k2, err))) goto done;
  t = eg_stage_done(a, &resp->timings, &resp->n_timings, "search+fuse", t, r->m_stage);
  if (req->rerank) {
    rc_rerank(&c, c.n_chunks < 2 * k1 ? c.n_chunks : 2 * k1);
    t = eg_stage_done(a, &resp->timings, &resp->n_timings, "rerank", t, r->m_stage);
  }
  rc_sub_quota(&c, (k1 + 1) / 2);
  if (c.n_chunks > k1) c.n_chunks = k1;
  if ((rc = walk_claims(&c, err))) goto done;
  rc_state_order(&c, r->o.current_first);
  t = eg_stage_done(a, &resp->timings, &resp->n_timings, "walk", t, r->m_stage);
  resp->variants =
      eg_arena_calloc(a, vs.n ? vs.n : 1, sizeof *resp->variants); /* vs is on this stack */
  if (resp->variants) {
    memcpy(resp->variants, vs.v, vs.n * sizeof *vs.v);
    resp->n_variants = vs.n;
  }
  if (c.temporal) {
    resp->time_range = eg_arena_calloc(a, 1, sizeof *resp->time_range);
    if (resp->time_range) {
      engram__v1__time_range__init(resp->time_range);
      resp->time_range->from = c.from;
      resp->time_range->to = c.to;
    }
  }
  rc = rc_assemble(&c, resp, err);
  eg_stage_done(a, &resp->timings, &resp->n_timings, "assemble", t, r->m_stage);
  if (!rc) rc_access_note(r->access, req->scope, resp); /* what it returned: their access term */
  eg_series_add(r->m_calls, 1);
  if (resp->nothing_relevant) eg_series_add(r->m_nothing, 1);
done:
  eg_tokenizer_free(c.stemmer);
  return rc;
}
