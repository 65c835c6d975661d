/*
 * recall_int.h — what the stages of one Recall share (recall.c runs them; assemble.c
 * turns the fused candidates into items and the context block).
 */
#ifndef EG_RECALLD_RECALL_INT_H
#define EG_RECALLD_RECALL_INT_H

#include <stdbool.h>

#include "common/edge.h"
#include "common/graph_client.h"
#include "common/metrics.h"
#include "common/vector_client.h"
#include "lang/statefacts.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "services/recalld/recall.h"

/* Access recording (access.c): a background flusher of the ids Recalls returned. */
typedef struct rc_access rc_access;
eg_code rc_access_open(eg_peers *peers, int64_t flush_us, size_t batch, size_t queue_max,
                       eg_metrics *mx, rc_access **out, eg_err *err);
/* Queue the chunk ids and fact edge ids of resp's items for scope; never blocks on the
 * peers, drops (counted) when the queue is full. q may be NULL (off). */
void rc_access_note(rc_access *q, const Engram__V1__Scope *scope,
                    const Engram__V1__RecallResponse *resp);
/* Flush what is queued, stop the flusher, free (accepts NULL). */
void rc_access_close(rc_access *q);

struct eg_recall {
  eg_recall_opts o;
  rc_access *access;            /* NULL when access recording is off */
  struct eg_statefacts *states; /* the lexical state reading; NULL when off */
  eg_metric *m_stage;
  eg_series *m_calls, *m_nothing, *m_llm_fallbacks, *m_rerank_failures;
};

#define RC_MAX_VARIANTS 7 /* query, keywords, dated, aliases, 3 from an LLM */
_Static_assert(RC_MAX_VARIANTS <= 8, "rc_chunk.said holds a bit per variant");

#define RC_MAX_SUB 2 /* parts of a question about two events */

/* A chunk candidate, its signals and fused score. */
typedef struct rc_chunk {
  const Engram__V1__Chunk *chunk; /* inside a search response (in the Recall's arena) */
  float content, latent, bm25, temporal, recency, score; /* content, latent: as fused (fed back) */
  float relevance;                 /* the best similarity with a variant as asked (not fed back) */
  float bm25_raw[RC_MAX_VARIANTS]; /* per query variant, as vectord scored it */
  float sentence;                  /* keywords in its best sentence (the head only) */
  float rerank;                    /* the cross-encoder's score, when reranked */
  bool reranked;
  int variants;       /* how many variant searches found it */
  bool expansion;     /* found only by chunk-level expansion */
  bool said_nothing;  /* greetings only, on a time question (no evidence of it) */
  uint8_t said;       /* bit q: it says a word of variant q (not only WordNet concepts of them) */
  bool named_speaker; /* its speaker is a person the question names ("What does Maya …") */
  bool values_read;   /* values, n_values: the user's values of the kinds asked (values_of) */
  size_t n_values;
  const eg_stated_value *values;
} rc_chunk;

/* A fact candidate (a current edge) and what the walk and the history say of it. */
typedef struct rc_fact {
  const Engram__V1__Edge *edge;
  float match, score;
  bool on_topic; /* about what the question asks (found by its words) */
  bool one;      /* its relation holds one value at a time (CARDINALITY_ONE) */
  const Engram__V1__StateResult *doubts; /* its subject's STATE_UNCERTAIN values, or NULL */
  Engram__V1__EpistemicStatus status;
  const Engram__V1__Edge *superseding;
  Engram__V1__Edge **history; /* earlier values of the chain, superseded */
  size_t n_history;
  const Engram__V1__Edge *kind; /* for a question asking a kind: its named value's (IS_A) */
  bool read;                    /* read from an excerpt at Recall, not held (RC_READ_EXTRACTOR) */
} rc_fact;

/* meta.extractor of a fact read from the user's words at Recall (states.c), never stored. */
#define RC_READ_EXTRACTOR "excerpt"

/* One of the user's preferences picked for the question (values.c). */
typedef struct rc_value {
  const Engram__V1__Edge *edge; /* its current commit, with belief and outcomes */
  float score;
  Engram__V1__EpistemicStatus status;
  const Engram__V1__Edge *superseding;
  Engram__V1__Edge **steps; /* the other commits of its chain, oldest first */
  size_t n_steps;
} rc_value;

/* At most this many preferences in the "what the user values" part. */
#define RC_VALUES_MAX 5

/* A multi-hop graph path between entities of the question. */
typedef struct rc_path {
  const Engram__V1__Path *path;
  float score;
} rc_path;

typedef struct rc_ctx {
  eg_recall *r;
  const Engram__V1__RecallRequest *req;
  eg_arena *a;
  Engram__V1__Scope scope;         /* the request's scope */
  eg_rpc_client *graphd, *vectord; /* the tenant's shards */
  int64_t tq, valid_at, known_at;  /* the question's now and the bounds */
  int64_t state_at; /* the facts' valid time: valid_at, or for a question about a state at a
                     * time before it ("Where did I live in 2019?"), that time's end */
  int64_t from, to; /* its time range; temporal when to > 0 */
  bool temporal, update_cue;
  unsigned asked; /* the kinds of state value the question asks for (statefacts), 0: none */
  bool asks_name; /* … and it asks what one is called: a kind is no answer */
  bool asks_kind; /* … or what kind one is: the kind kept beside a name is the answer */
  eg_statefacts_known *known;   /* values the user's excerpts name in full (values_of) */
  size_t dated_variant;         /* 1 + the index of the dated (latent-form) variant; 0: none.
                                 * Dense only: its words beyond the question's are the
                                 * latent template's ("the user", the date), and BM25 over
                                 * them favours short chunks of that day. */
  struct eg_tokenizer *stemmer; /* EG_TOK_STEM, for the whole Recall */
  char **keywords;              /* stemmed content words of the query */
  size_t n_keywords;
  char *user_entity; /* "user:<id>" */
  uint64_t *seeds;   /* resolved entities the question names */
  bool *seed_named;  /* false for the user entity */
  size_t n_seeds;
  rc_chunk *chunks;
  size_t n_chunks;
  float bm25_best[RC_MAX_VARIANTS];  /* per variant, the best raw BM25 of all the searches */
  float bm25_alone[RC_MAX_VARIANTS]; /* … of the hits that match it by WordNet concepts alone */
  float bm25_concepts;               /* vectord's weight of a WordNet concept (0: none) */
  rc_fact *facts;
  size_t n_facts;
  rc_path *paths;
  size_t n_paths;
  rc_value *values; /* the user's preferences on the question, best first */
  size_t n_values;
  bool change_cue;               /* a question about a change ("why did I switch …") */
  size_t sub_var[RC_MAX_SUB];    /* the variants that are parts of the question (decompose.c) */
  uint64_t sub_best[RC_MAX_SUB]; /* each part's best chunk in the unranged search (0: none) */
  size_t n_sub;
} rc_ctx;

/* The parts of a question naming two events (decompose.c): "between A and B", "A or B",
 * a clause joined by before / after / when / while / since / until; each part that has a
 * content word, at most max, into out (arena strings). 0 when the question is one event. */
size_t rc_decompose(const char *q, eg_arena *a, char **out, size_t max);
/* Give each part's best chunk a place among the first `window` (just above the chunk that
 * would be last of them), the chunks sorted by score. */
void rc_sub_quota(rc_ctx *c, size_t window);

/* Do the stemmed words of text hit any keyword of the question? Returns the share of the
 * question's keywords found (0..1). */
float rc_keyword_match(rc_ctx *c, const char *text);

/* Does text say phrase as whole words (ASCII case folded)? */
bool rc_says(const char *text, const char *phrase);

/* The state questions' doubts and order (states.c): facts put in doubt by later excerpts,
 * the current value first (when current), the latest statement or newest value first; a fact
 * inferred, not said (EG_STATE_INFERRED), that nothing else put in doubt is, with its own
 * statement as the reason. */
void rc_state_order(rc_ctx *c, bool current);

/* Does the user, in chunk x, state or plainly name a value of the kind a state question asks
 * for? (Its values as rc_state_order read them; false when they were not read.) */
bool rc_speaks_of_kind(const rc_chunk *x);
/* Does x pass the relevance gate of the assembly (assemble.c)? */
bool rc_kept(const rc_ctx *c, const rc_chunk *x);

/* qsort order of rc_chunk: best score first. */
int rc_by_score(const void *a, const void *b);

/* Up to max reformulations of the question from the LLM (remote.c); 0 when none is
 * configured or it failed (counted). */
size_t rc_llm_variants(rc_ctx *c, char **out, size_t max);
/* Reorder the first n chunks by the remote cross-encoder; false (counted, order kept)
 * when it failed. */
bool rc_rerank(rc_ctx *c, size_t n);

/* values.c: the State request of the user's preferences (to run with the searches), the
 * pick of those relevant to the question once the chunks are fused (before any cut), and
 * their premise walk's answer and chains. */
Engram__V1__StateRequest *rc_values_request(rc_ctx *c);
void rc_values_pick(rc_ctx *c, const Engram__V1__StateResponse *st);
/* The values' statuses and steps from the Walk that carried their histories: st[i] (of
 * n) is value i's. */
eg_code rc_values_walked(rc_ctx *c, Engram__V1__ClaimStatus *const *st, size_t n, eg_err *err);
/* One of the preference relations (PREFERS, LIKES …): such a fact is shown, when it
 * bears on the question, among the values, not among the facts. */
bool rc_is_preference(const char *relation);
/* "prefers", "optimizes for" … */
const char *rc_relation_words(const char *relation);

/* Fill resp->items, context, context_tokens and nothing_relevant from the ranked
 * candidates. */
eg_code rc_assemble(rc_ctx *c, Engram__V1__RecallResponse *resp, eg_err *err);

#endif
