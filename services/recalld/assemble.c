/*
 * assemble.c — the answer of a Recall: structured items (facts, chunks, paths) and one
 * context block for a prompt.
 *
 * The block puts current facts first (with the values they replaced and why, and the
 * premise walk's verdict), then what the user values (the preferences on the question,
 * with their confidence and outcomes: values.c), then the excerpts — chronological when
 * the question is about a time, else by score — then the connections; every line dated.
 * Lines are added while they fit the token budget (tokens counted as words, the measure
 * used throughout).
 * Everything the response keeps is copied into the call's arena: the peers' answers it
 * was read from are freed after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/rpc.h"
#include "common/text.h"
#include "common/time.h"
#include "lang/statefacts.h"
#include "proto/engram/v1/graph.pb-c.h"
#include "proto/engram/v1/vector.pb-c.h"
#include "services/recalld/recall_int.h"

static void date_of(int64_t us, char *buf, size_t len) {
  if (!us)
    snprintf(buf, len, "undated");
  else
    eg_time_format_date(us, buf, len);
}

static const char *name_of(const rc_ctx *c, const char *name) {
  return name && strcmp(name, c->user_entity) == 0 ? "the user" : name ? name : "?";
}

static const char *value_of(const rc_ctx *c, const Engram__V1__Edge *e) {
  return eg_edge_literal(e) ? eg_edge_object(e) : name_of(c, e->object_name);
}

/* "Maya Patel LIVES_IN London" */
static void edge_text(const rc_ctx *c, const Engram__V1__Edge *e, eg_buf *b) {
  eg_buf_printf(b, "%s %s %s", name_of(c, e->subject_name), e->relation, value_of(c, e));
}

static const char *status_name(Engram__V1__EpistemicStatus s) {
  switch (s) {
    case ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_CORROBORATED:
      return "CORROBORATED";
    case ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE:
      return "POTENTIALLY_STALE";
    case ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNVERIFIED:
      return "UNVERIFIED";
    default:
      return "UNCHECKED";
  }
}

/* Why a POTENTIALLY_STALE value is: the doubt or the changed premise (superseding). */
static void stale_why(const rc_ctx *c, const Engram__V1__Edge *superseding, eg_buf *b) {
  if (!superseding) return;
  char sd[16];
  date_of(superseding->valid_from, sd, sizeof sd);
  const Engram__V1__EdgeMeta *m = superseding->meta;
  if (!strcmp(superseding->relation, EG_STATE_UNCERTAIN)) /* a doubt: the statement is the reason */
    eg_buf_printf(b, ": put in doubt on %s by \"%s\"", sd, m && m->utterance ? m->utterance : "");
  else {
    eg_buf_printf(b, ": a premise changed on %s: ", sd);
    edge_text(c, superseding, b);
  }
}

static void reason_of(const Engram__V1__Edge *e, eg_buf *b) {
  if (e->meta && e->meta->reason && *e->meta->reason) eg_buf_printf(b, " why: %s", e->meta->reason);
}

/* One fact as a block line (with its history and status), after its value's kind when the
 * question asks for one. */
static void fact_line(const rc_ctx *c, const rc_fact *f, eg_buf *b) {
  char d[16];
  if (f->kind) {
    eg_buf_printf(b, "- ");
    edge_text(c, f->kind, b);
    eg_buf_printf(b, "\n");
  }
  date_of(f->edge->valid_from, d, sizeof d);
  eg_buf_printf(b, "- ");
  edge_text(c, f->edge, b);
  if (f->read) { /* its reason is its own excerpt: no doubt by another word, no start known */
    eg_buf_printf(b, " (said %s) [POTENTIALLY_STALE: %s: check]\n", d, f->edge->meta->reason);
    return;
  }
  eg_buf_printf(b, " (since %s) [%s", d, status_name(f->status));
  if (f->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE)
    stale_why(c, f->superseding, b);
  eg_buf_printf(b, "]");
  reason_of(f->edge, b);
  eg_buf_printf(b, "\n");
  for (size_t i = 0; i < f->n_history; i++) {
    const Engram__V1__Edge *h = f->history[i];
    char from[16], to[16];
    date_of(h->valid_from, from, sizeof from);
    date_of(h->valid_to ? h->valid_to : f->edge->valid_from, to, sizeof to);
    eg_buf_printf(b, "    earlier: %s (%s to %s, superseded)", value_of(c, h), from, to);
    reason_of(h, b);
    eg_buf_printf(b, "\n");
  }
}

static void chunk_line(const rc_chunk *x, eg_buf *b) {
  char d[16];
  date_of(x->chunk->time, d, sizeof d);
  const Engram__V1__Chunk *ch = x->chunk;
  eg_buf_printf(b, "- [%s, %s %s] %s\n", d, *ch->session_id ? "session" : "document",
                *ch->session_id ? ch->session_id : ch->document_id, ch->content);
}

static void path_line(const rc_ctx *c, const rc_path *p, eg_buf *b) {
  eg_buf_printf(b, "- ");
  for (size_t i = 0; i < p->path->n_edges; i++) {
    if (i) eg_buf_printf(b, " → ");
    edge_text(c, p->path->edges[i], b);
  }
  eg_buf_printf(b, "\n");
}

typedef struct block {
  eg_buf b;
  size_t tokens, budget;
  bool full;
} block;

/* Append line when it fits the budget. */
static void emit(block *k, const eg_buf *line) {
  if (k->full || !line->len) return;
  size_t t = eg_text_words(line->data);
  if (k->tokens + t > k->budget) {
    k->full = true;
    return;
  }
  eg_buf_append(&k->b, line->data, line->len);
  k->tokens += t;
}

static void emit_text(block *k, const char *s) {
  eg_buf l = EG_BUF_INIT;
  eg_buf_printf(&l, "%s", s);
  emit(k, &l);
  eg_buf_free(&l);
}

static int by_time(const void *a, const void *b) {
  int64_t x = ((const rc_chunk *)a)->chunk->time, y = ((const rc_chunk *)b)->chunk->time;
  return (x > y) - (x < y);
}

static Engram__V1__SignalScore **signals(eg_arena *a, const rc_chunk *x, size_t *n) {
  static const char *names[] = {"content", "latent",   "bm25",  "temporal",
                                "recency", "sentence", "rerank"};
  const float v[] = {x->content, x->latent,   x->bm25,  x->temporal,
                     x->recency, x->sentence, x->rerank};
  size_t m = x->reranked ? 7 : 6;
  Engram__V1__SignalScore **s = eg_arena_calloc(a, m, sizeof *s);
  *n = 0;
  for (size_t i = 0; s && i < m; i++) {
    s[i] = eg_arena_calloc(a, 1, sizeof **s);
    if (!s[i]) return s;
    engram__v1__signal_score__init(s[i]);
    s[i]->signal = (char *)names[i];
    s[i]->value = v[i];
    *n = i + 1;
  }
  return s;
}

/* Append a FACT item for edge e, its status and its chain (line is scratch space). */
static Engram__V1__RecallItem *edge_item(rc_ctx *c, const Engram__V1__Edge *e, float score,
                                         Engram__V1__EpistemicStatus status,
                                         const Engram__V1__Edge *superseding,
                                         Engram__V1__Edge *const *history, size_t n_history,
                                         eg_buf *line, Engram__V1__RecallResponse *resp) {
  eg_arena *a = c->a;
  Engram__V1__RecallItem *it = eg_arena_calloc(a, 1, sizeof *it);
  if (!it) return NULL;
  engram__v1__recall_item__init(it);
  it->kind = ENGRAM__V1__ITEM_KIND__ITEM_KIND_FACT;
  line->len = 0;
  edge_text(c, e, line);
  it->text = eg_arena_strndup(a, line->data, line->len);
  it->score = score;
  it->time = e->valid_from;
  /* the peers' answers are in the Recall's arena, as the response is: shared, not copied */
  it->fact = (Engram__V1__Edge *)e;
  it->status = status;
  it->superseding = (Engram__V1__Edge *)superseding;
  if (e->meta) {
    it->session_id = eg_arena_strdup(a, e->meta->source_session_id);
    it->document_id = eg_arena_strdup(a, e->meta->source_document_id);
    it->turn_index = e->meta->source_turn;
    it->chunk_id = e->meta->source_chunk_id;
  }
  it->history = eg_arena_calloc(a, n_history ? n_history : 1, sizeof *it->history);
  for (size_t h = 0; it->history && h < n_history; h++)
    it->history[it->n_history++] = (Engram__V1__Edge *)history[h];
  resp->items[resp->n_items++] = it;
  return it;
}

/* A fact's items: the kind of its value first when the question asks for one ("Noodle IS_A
 * ferret", as current as the fact it was read with), then the fact. */
static void fact_item(rc_ctx *c, const rc_fact *f, eg_buf *line, Engram__V1__RecallResponse *resp) {
  if (f->kind) edge_item(c, f->kind, f->score, f->status, f->superseding, NULL, 0, line, resp);
  edge_item(c, f->edge, f->score, f->status, f->superseding, f->history, f->n_history, line, resp);
}

/* ---- what the user values ---- */

static const char *outcome_name(Engram__V1__OutcomeKind k) {
  switch (k) {
    case ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_ACTED_ON:
      return "ACTED_ON";
    case ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_IGNORED:
      return "IGNORED";
    case ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_SUCCEEDED:
      return "SUCCEEDED";
    case ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_FAILED:
      return "FAILED";
    case ENGRAM__V1__OUTCOME_KIND__OUTCOME_KIND_REVERSED:
      return "REVERSED";
    default:
      return "UNSPECIFIED";
  }
}

/* The independent sources that stated it (outcomes not counted). */
static size_t stated_sources(const Engram__V1__Belief *b) {
  size_t n = 0;
  for (size_t i = 0; b && i < b->n_evidence; i++) {
    const Engram__V1__Evidence *x = b->evidence[i];
    if (x->contrary || x->outcome) continue;
    bool dup = false;
    for (size_t j = 0; j < i && !dup; j++)
      dup = !b->evidence[j]->contrary && !b->evidence[j]->outcome &&
            !strcmp(b->evidence[j]->source, x->source);
    n += !dup;
  }
  return n;
}

/* "- prefers thai food (confidence 0.84, 2 sources; last outcome SUCCEEDED 2025-03-02) since …"
 * and, for a question about a change, one line per earlier step of its chain. */
static void value_line(const rc_ctx *c, const rc_value *v, eg_buf *b) {
  const Engram__V1__Edge *e = v->edge;
  const Engram__V1__Belief *bl = e->belief;
  char d[16];
  date_of(e->valid_from, d, sizeof d);
  eg_buf_printf(b, "- %s %s (%sconfidence %.2f, %zu source%s", rc_relation_words(e->relation),
                value_of(c, e), e->n_derived_from ? "derived; " : "", bl ? bl->confidence : 0.0,
                stated_sources(bl), stated_sources(bl) == 1 ? "" : "s");
  if (bl && bl->against > 0) eg_buf_printf(b, ", against %.2f", bl->against);
  if (e->n_outcomes) {
    const Engram__V1__Outcome *o = e->outcomes[e->n_outcomes - 1];
    char od[16];
    date_of(o->time, od, sizeof od);
    eg_buf_printf(b, "; last outcome %s %s", outcome_name(o->kind), od);
    if (o->note && *o->note) eg_buf_printf(b, " \"%s\"", o->note);
  }
  eg_buf_printf(b, ") since %s", d);
  if (v->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE) {
    eg_buf_printf(b, " [POTENTIALLY_STALE");
    stale_why(c, v->superseding, b);
    eg_buf_printf(b, "]");
  }
  reason_of(e, b);
  eg_buf_printf(b, "\n");
  for (size_t i = 0; c->change_cue && i < v->n_steps; i++) {
    const Engram__V1__Edge *s = v->steps[i];
    date_of(s->valid_from, d, sizeof d);
    if (s->op == ENGRAM__V1__EDGE_OP__EDGE_OP_RETRACT)
      eg_buf_printf(b, "    %s: no longer %s %s", d, rc_relation_words(s->relation),
                    value_of(c, s));
    else
      eg_buf_printf(b, "    %s: %s %s (confidence %.2f)", d, rc_relation_words(s->relation),
                    value_of(c, s), s->belief ? s->belief->confidence : 0.0);
    reason_of(s, b);
    eg_buf_printf(b, "\n");
  }
}

/* A preference: listed among the values when it bears on the question, not as a fact
 * (the fact search matches "prefer" in a question with every PREFERS). It stays among the
 * facts for the order of the excerpts, which it does not change. */
static bool is_value(const Engram__V1__Edge *e) { return rc_is_preference(e->relation); }

/* Append a CHUNK item. */
static void chunk_item(rc_ctx *c, const rc_chunk *x, Engram__V1__RecallResponse *resp) {
  eg_arena *a = c->a;
  Engram__V1__RecallItem *it = eg_arena_calloc(a, 1, sizeof *it);
  if (!it) return;
  engram__v1__recall_item__init(it);
  it->kind = ENGRAM__V1__ITEM_KIND__ITEM_KIND_CHUNK;
  it->text = x->chunk->content; /* the chunk is in the Recall's arena */
  it->latent = x->chunk->latent;
  it->role = x->chunk->role;
  it->score = x->score;
  it->time = x->chunk->time;
  it->session_id = x->chunk->session_id;
  it->document_id = x->chunk->document_id;
  it->turn_index = x->chunk->turn_index;
  it->chunk_id = x->chunk->id;
  it->status = ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNVERIFIED;
  it->signals = signals(a, x, &it->n_signals);
  resp->items[resp->n_items++] = it;
}

/* Close to the question in meaning, or among its strongest word matches (of words it says: a
 * match by WordNet concepts alone is no evidence of a word of the question). */
static bool relevant(const rc_ctx *c, const rc_chunk *x) {
  return x->relevance >= c->r->o.min_relevance ||
         (x->bm25 > 0 && x->said && x->bm25 >= c->r->o.min_word_match);
}

/* … or, where the memory is known to hold something on the question, near enough (below). */
static bool kept(const rc_ctx *c, const rc_chunk *x, bool known) {
  bool near = (known || rc_speaks_of_kind(x) || (c->temporal && x->temporal > 0)) &&
              x->relevance >= c->r->o.min_relevance / 2;
  return relevant(c, x) || near;
}

bool rc_kept(const rc_ctx *c, const rc_chunk *x) { return kept(c, x, false); }

eg_code rc_assemble(rc_ctx *c, Engram__V1__RecallResponse *resp, eg_err *err) {
  eg_arena *a = c->a;
  /* Chunks too far from the question are not context. Once the memory is known to hold
   * something on it (a relevant chunk, a fact), half the similarity will do: a chunk that
   * answers in other words than the question's is seldom as close to it as one that
   * restates it. Half will do as well for a chunk inside the question's time range, and for
   * one in which the user names a value of the kind a question about their state asks for, as
   * theirs or plainly ("What was my pet's name in spring 2019?": any of their pets' names). */
  bool known = false; /* a fact read from an excerpt is no more than the excerpt */
  for (size_t i = 0; i < c->n_facts && !known; i++) known = !c->facts[i].read;
  for (size_t i = 0; i < c->n_chunks && !known; i++) known = relevant(c, &c->chunks[i]);
  size_t keep = 0;
  for (size_t i = 0; i < c->n_chunks; i++)
    if (kept(c, &c->chunks[i], known)) c->chunks[keep++] = c->chunks[i];
  c->n_chunks = keep;
  size_t facts = 0; /* those listed as facts */
  for (size_t i = 0; i < c->n_facts; i++) facts += !is_value(c->facts[i].edge);
  resp->nothing_relevant = !c->n_chunks && !facts && !c->n_paths && !c->n_values;
  size_t n = c->n_facts + c->n_chunks + c->n_paths + c->n_values;
  for (size_t i = 0; i < c->n_facts; i++) n += c->facts[i].kind != NULL;
  resp->items = eg_arena_calloc(a, n ? n : 1, sizeof *resp->items);
  bool *placed = eg_arena_calloc(a, c->n_facts ? c->n_facts : 1, sizeof *placed);
  if (!resp->items || !placed) return eg_err_set(err, EG_ENOMEM, "out of memory");
  /* Items in order of relevance: each fact just before the chunk it was drawn from, the
   * facts from chunks not returned after the chunks. (The context block still lists the
   * facts first.) */
  eg_buf line = EG_BUF_INIT;
  for (size_t f = 0; f < c->n_facts; f++)
    placed[f] = is_value(c->facts[f].edge); /* listed as a value */
  for (size_t i = 0; i < c->n_chunks; i++) {
    for (size_t f = 0; f < c->n_facts; f++) {
      const Engram__V1__Edge *e = c->facts[f].edge;
      if (!placed[f] && e->meta && e->meta->source_chunk_id == c->chunks[i].chunk->id) {
        /* facts of one relation keep their own order (several pets: the newest first),
         * whichever of their chunks ranks higher */
        for (size_t g = 0; g < f; g++)
          if (!placed[g] && !strcmp(c->facts[g].edge->relation, e->relation)) {
            placed[g] = true;
            fact_item(c, &c->facts[g], &line, resp);
          }
        placed[f] = true;
        fact_item(c, &c->facts[f], &line, resp);
      }
    }
    chunk_item(c, &c->chunks[i], resp);
  }
  for (size_t f = 0; f < c->n_facts; f++)
    if (!placed[f]) fact_item(c, &c->facts[f], &line, resp);
  for (size_t i = 0; i < c->n_values; i++) {
    const rc_value *v = &c->values[i];
    Engram__V1__RecallItem *it = edge_item(c, v->edge, v->score, v->status, v->superseding,
                                           v->steps, v->n_steps, &line, resp);
    if (it) it->preference = true;
  }
  for (size_t i = 0; i < c->n_paths; i++) {
    Engram__V1__RecallItem *it = eg_arena_calloc(a, 1, sizeof *it);
    if (!it) break;
    engram__v1__recall_item__init(it);
    it->kind = ENGRAM__V1__ITEM_KIND__ITEM_KIND_PATH;
    line.len = 0;
    path_line(c, &c->paths[i], &line);
    it->text = eg_arena_strndup(a, line.data + 2, line.len > 3 ? line.len - 3 : 0);
    it->score = c->paths[i].score;
    it->path = (Engram__V1__Path *)c->paths[i].path;
    resp->items[resp->n_items++] = it;
  }

  /* the context block */
  block k = {EG_BUF_INIT, 0, c->req->token_budget ? c->req->token_budget : 2000, false};
  char asked[16];
  date_of(c->tq, asked, sizeof asked);
  line.len = 0;
  eg_buf_printf(&line, "Question (asked %s): %s\n", asked, c->req->query);
  emit(&k, &line);
  if (resp->nothing_relevant) emit_text(&k, "Nothing stored is relevant to this question.\n");
  if (facts) {
    /* the facts' valid time: the question's, or the end of the time it asks about */
    char as_of[16];
    date_of(c->state_at, as_of, sizeof as_of);
    line.len = 0;
    eg_buf_printf(&line, "Facts as of %s (current value first, earlier values superseded):\n",
                  as_of);
    emit(&k, &line);
    for (size_t i = 0; i < c->n_facts; i++) {
      if (is_value(c->facts[i].edge)) continue;
      line.len = 0;
      fact_line(c, &c->facts[i], &line);
      emit(&k, &line);
    }
  }
  /* the heading goes with the first value, so that a cut never leaves it alone */
  for (size_t i = 0; i < c->n_values; i++) {
    line.len = 0;
    if (!i)
      eg_buf_printf(&line,
                    "What the user values (on this question; confidence from the evidence%s):\n",
                    c->change_cue ? "; how each came to be" : "");
    value_line(c, &c->values[i], &line);
    emit(&k, &line);
  }
  if (c->n_chunks) {
    rc_chunk *order = eg_arena_alloc(a, c->n_chunks * sizeof *order);
    if (order) {
      memcpy(order, c->chunks, c->n_chunks * sizeof *order);
      if (c->temporal) qsort(order, c->n_chunks, sizeof *order, by_time);
      emit_text(&k,
                c->temporal ? "Excerpts (oldest first):\n" : "Excerpts (most relevant first):\n");
      for (size_t i = 0; i < c->n_chunks; i++) {
        line.len = 0;
        chunk_line(&order[i], &line);
        emit(&k, &line);
      }
    }
  }
  if (c->n_paths) {
    emit_text(&k, "Connections:\n");
    for (size_t i = 0; i < c->n_paths; i++) {
      line.len = 0;
      path_line(c, &c->paths[i], &line);
      emit(&k, &line);
    }
  }
  resp->context = eg_arena_strndup(a, k.b.data ? k.b.data : "", k.b.len);
  resp->context_tokens = (uint32_t)k.tokens;
  eg_buf_free(&k.b);
  eg_buf_free(&line);
  return resp->context ? EG_OK : eg_err_set(err, EG_ENOMEM, "out of memory");
}
