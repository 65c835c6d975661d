/*
 * states.c — a Recall's questions about the user's states (where they live, who they work
 * for, what they drive …): what the excerpts say of them against the facts the graph holds.
 * Doubts the graph did not record (a later word on a state no fact was read from), the
 * current value before earlier ones, the latest statement and the newest value first.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "services/recalld/recall_int.h"

/*
 * A change the graph did not record. For a question about a state, the best excerpts are
 * what the user said on it; one of the user's own statements, said after the current value
 * became true, in another conversation, that does not name that value and is as close to
 * the question as the statement the value was read from, is a later word on the state that
 * no fact was read from ("we relocated last month", in words no extractor
 * knew). The value is then not safe to act on: POTENTIALLY_STALE, the statement as the
 * reason (a STATE_UNCERTAIN edge made for the answer, never stored, like the doubts
 * ingestd commits). The excerpts already respect valid_at and known_at, so a later word
 * outside the bounds changes nothing. It stays on beside the state extractor: on phrasings
 * it was not written for, the extractor misses changes that this reads by closeness to the
 * question.
 */
enum { DOUBT_EXCERPTS = 5 };

#define DOUBT_NEAR 0.9f /* of the value's own statement's similarity with the question */

/* f is POTENTIALLY_STALE for a statement (chunk `chunk` of `session`, said at `time`): the
 * reason is a STATE_UNCERTAIN edge made for the answer (never stored, like the doubts ingestd
 * commits), its meta naming the statement. */
static void doubt_said(rc_ctx *c, rc_fact *f, uint64_t chunk, char *session, char *said,
                       int64_t time) {
  Engram__V1__Edge *d = eg_arena_calloc(c->a, 1, sizeof *d);
  Engram__V1__EdgeMeta *m = eg_arena_calloc(c->a, 1, sizeof *m);
  Engram__V1__Value *o = eg_arena_calloc(c->a, 1, sizeof *o);
  if (!d || !m || !o) return;
  engram__v1__edge__init(d);
  engram__v1__edge_meta__init(m);
  engram__v1__value__init(o);
  o->kind_case = ENGRAM__V1__VALUE__KIND_LITERAL;
  o->literal = f->edge->relation;
  m->source_chunk_id = chunk;
  m->source_session_id = session;
  m->utterance = said;
  m->extractor = "recall";
  d->subject = f->edge->subject;
  d->subject_name = f->edge->subject_name;
  d->relation = EG_STATE_UNCERTAIN;
  d->object = o;
  d->op = ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT;
  d->valid_from = time;
  d->meta = m;
  f->status = ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE;
  f->superseding = d;
}

/* … for chunk ch, a later word on its state that no fact was read from. */
static void doubt_by(rc_ctx *c, rc_fact *f, const Engram__V1__Chunk *ch) {
  doubt_said(c, f, ch->id, ch->session_id, ch->content, ch->time);
}

/* f, inferred, not said (EG_STATE_INFERRED: a value in prospect said to have begun unnamed),
 * is POTENTIALLY_STALE with its own statement as the reason, where nothing else put it in doubt
 * and no independent source confirmed it. */
static void doubt_inferred(rc_ctx *c, rc_fact *f) {
  const Engram__V1__EdgeMeta *m = f->edge->meta;
  if (m && m->extractor && !strcmp(m->extractor, EG_STATE_INFERRED) &&
      (f->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNSPECIFIED ||
       f->status == ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_UNVERIFIED))
    doubt_said(c, f, m->source_chunk_id, m->source_session_id, m->utterance, f->edge->valid_from);
}

/* Said after the time the question asks about ("What did I play in November 2019?"): the
 * state it asks for is the one as of that time's end (the facts are read as of it too), so a
 * later word on it is no latest statement, no newest value and no doubt (it may still be
 * read, as what came after). Only when that time is before the bounds: an excerpt said later
 * on valid_at's own day is within them (excerpts are bounded by the day). */
static bool after_asked(const rc_ctx *c, const Engram__V1__Chunk *ch) {
  return c->state_at < c->valid_at && ch->time > c->state_at;
}

/* A chunk of the user's own words (the states read are theirs). */
static bool users(const Engram__V1__Chunk *ch) {
  return ch->content && !strcmp(ch->role ? ch->role : "", "user");
}

/* A fact a later excerpt may put in doubt: on the question's topic and neither in doubt
 * already nor superseded. */
static bool open_to_doubt(const rc_fact *f) {
  return f->on_topic &&
         f->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE &&
         f->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_SUPERSEDED;
}

/* Does text name value (three bytes or more) as whole words? */
static bool names(const char *text, const char *value) {
  return text && strlen(value) >= 3 && rc_says(text, value);
}

static size_t values_of(rc_ctx *c, rc_chunk *x, const eg_stated_value **out);
static void said_span(const Engram__V1__Chunk *ch, size_t *from, size_t *to);
static bool same_value(const char *text, size_t from, size_t to, const char *value);

/* Does chunk x name `value`: its words, or a value of the kind asked read in it that holds it
 * or is held by it as words ("Tidewater" of "Tidewater Analytics")? The words alone where the
 * question asks no kind (or recalld reads none: no prototypes file). */
static bool names_value(rc_ctx *c, rc_chunk *x, const char *value) {
  if (names(x->chunk->content, value)) return true;
  if (!c->asked) return false;
  const eg_stated_value *v;
  size_t n = values_of(c, x, &v);
  for (size_t k = 0; k < n; k++)
    if (same_value(x->chunk->content, v[k].from, v[k].to, value)) return true;
  return false;
}

/* Does x speak of the state asked: the user's own words name a value of the kind (theirs or
 * not: "our landlord in X" reads as someone else's), or say a word of the state, of a change or
 * an event told (eg_statefacts_on_state)? Small talk ("Washing up is my specialty.", "Where do
 * I even start with all these boxes?") does not. True where recalld reads no kind. */
static bool on_state(rc_ctx *c, rc_chunk *x) {
  if (!c->asked) return true;
  const eg_stated_value *v = NULL;
  size_t a, b;
  if (values_of(c, x, &v)) return true;
  said_span(x->chunk, &a, &b);
  return eg_statefacts_on_state(c->r->states, x->chunk->content, a, b, c->asked);
}

static void text_doubts(rc_ctx *c) {
  for (size_t i = 0; i < c->n_facts; i++) {
    rc_fact *f = &c->facts[i];
    if (!f->one || !open_to_doubt(f)) continue;
    const char *value = eg_edge_object(f->edge);
    const char *source =
        f->edge->meta && f->edge->meta->source_session_id ? f->edge->meta->source_session_id : "";
    /* about as close to the question as the statement the value was read from, when that
     * one is among the excerpts: chatter that merely resembles the question is no word on it */
    float bar = c->r->o.min_relevance;
    uint64_t source_chunk = f->edge->meta ? f->edge->meta->source_chunk_id : 0;
    for (size_t j = 0; source_chunk && j < c->n_chunks; j++)
      if (c->chunks[j].chunk->id == source_chunk && DOUBT_NEAR * c->chunks[j].relevance > bar)
        bar = DOUBT_NEAR * c->chunks[j].relevance;
    for (size_t j = 0; j < c->n_chunks && j < DOUBT_EXCERPTS; j++) {
      rc_chunk *x = &c->chunks[j];
      const Engram__V1__Chunk *ch = x->chunk;
      if (x->relevance < bar || ch->time <= f->edge->valid_from || after_asked(c, ch)) continue;
      if (!users(ch) || !strcmp(ch->session_id ? ch->session_id : "", source)) continue;
      if (!*value || !ch->content || strcasestr(ch->content, value) || names_value(c, x, value))
        continue;                    /* it restates the value */
      if (!on_state(c, x)) continue; /* small talk is no word on it */
      doubt_by(c, f, ch);
      break;
    }
  }
}

/*
 * "Current" before "earlier". For a fact the question is about whose chain holds earlier
 * values, the excerpt that names the current value first goes before the first one that
 * names only an earlier value; where the question asks for a value of the fact's kind (the
 * prototypes' @ask words: "where do I live?"), every excerpt naming it does, in its order:
 * asked where they live, a user who moved reads the statements of the move and of the new
 * home before the one of the old address, however close the old one is to the question's
 * words ("took dad's Leaf" and "dad's getting rid of his Nissan Leaf" both before "my little
 * Fiat Panda"; "I start at Corvid" and "an interview at Corvid Analytics" both before "my team
 * at Pellman Foods"). Only excerpts already returned move, and only among themselves.
 */

/* Does text name a value f's own came after: one of its chain, or (a relation holding
 * several values: pets, instruments) an older value of the same subject and relation? */
static bool names_earlier(const rc_ctx *c, const rc_fact *f, const char *text) {
  for (size_t h = 0; h < f->n_history; h++)
    if (names(text, eg_edge_object(f->history[h]))) return true;
  for (size_t g = 0; g < c->n_facts; g++) {
    const Engram__V1__Edge *e = c->facts[g].edge;
    if (e->subject == f->edge->subject && !strcmp(e->relation, f->edge->relation) &&
        e->valid_from < f->edge->valid_from && names(text, eg_edge_object(e)))
      return true;
  }
  return false;
}

static void current_first(rc_ctx *c) {
  for (size_t i = 0; i < c->n_facts; i++) {
    const rc_fact *f = &c->facts[i];
    if (!f->on_topic) continue;
    const char *cur = eg_edge_object(f->edge);
    size_t first_cur = c->n_chunks, first_old = c->n_chunks;
    for (size_t j = 0; j < c->n_chunks; j++) {
      const char *text = c->chunks[j].chunk->content;
      if (names(text, cur)) {
        if (first_cur == c->n_chunks) first_cur = j;
      } else if (first_old == c->n_chunks && names_earlier(c, f, text)) {
        first_old = j;
      }
    }
    if (first_cur == c->n_chunks || first_old == c->n_chunks) continue;
    /* every excerpt naming it where the question asks for a value of its kind ("where do I
     * live?"); else the first, where an earlier value leads */
    bool every =
        c->r->states && (eg_statefacts_relation_types(c->r->states, f->edge->relation) & c->asked);
    if (!every && first_old > first_cur) continue;
    for (size_t j = first_old + 1, at = first_old; j < c->n_chunks; j++) {
      if (!names(c->chunks[j].chunk->content, cur)) continue;
      rc_chunk x = c->chunks[j];
      memmove(&c->chunks[at + 1], &c->chunks[at], (j - at) * sizeof *c->chunks);
      c->chunks[at++] = x;
      if (!every) break;
    }
  }
}

/*
 * The latest statement first. For a question about one of the user's states (its words ask
 * for a kind of value: "live" a place, "employer" an organisation, "dog" a pet; the
 * prototypes file's @ask lines), an excerpt in which the user speaks of a value of that kind
 * as theirs now is a statement of the state, and so is the one a standing fact of the kind
 * was read from. The latest one, as of the question's bounds
 * (the excerpts respect them), goes before every other excerpt that speaks of a value of
 * the kind, stated or only named: a user who moved reads where they live now before where they used
 * to, in whatever words the move was told, with no fact read from it; asked about the state
 * now, it goes before every excerpt. A question about an order or
 * a span ("which came first", "before", "how long") is about more than the latest: it is
 * left as ranked. Only excerpts already returned move (assembly's relevance gate applies
 * after: a statement too far from the question is still no context).
 */

/* The speaker's own words in a chunk: a round is "user: <said>\nassistant: <reply>". */
static void said_span(const Engram__V1__Chunk *ch, size_t *from, size_t *to) {
  eg_statefacts_said_span(ch->content, ch->turn_end <= ch->turn_index, from, to);
}

static bool said_after(const Engram__V1__Chunk *a, const Engram__V1__Chunk *b) {
  if (a->time != b->time) return a->time > b->time;
  return !strcmp(a->session_id ? a->session_id : "", b->session_id ? b->session_id : "") &&
         a->turn_index > b->turn_index;
}

/* The values of a known type the user's excerpts name in full: "the Leaf" of one is the
 * "Nissan Leaf" of another. Learned once, from every excerpt, before any is read. */
static const eg_statefacts_known *known_values(rc_ctx *c) {
  if (!c->known && (c->known = eg_arena_calloc(c->a, 1, sizeof *c->known)) != NULL)
    for (size_t j = 0; j < c->n_chunks; j++) {
      const Engram__V1__Chunk *ch = c->chunks[j].chunk;
      size_t a, b;
      if (!users(ch)) continue;
      said_span(ch, &a, &b);
      eg_statefacts_learn(c->r->states, ch->content, a, b, c->known);
    }
  return c->known;
}

/* The values of the kinds the question asks for that a user's chunk names, and how the user's
 * own words speak of them: read once per Recall (latest_first and other_value_doubts both
 * need them), kept with the chunk as it moves. 0 for a chunk that is not the user's. */
static size_t values_of(rc_ctx *c, rc_chunk *x, const eg_stated_value **out) {
  if (!x->values_read) {
    static __thread eg_stated_value buf[512]; /* as many as a text's tokens can name */
    const Engram__V1__Chunk *ch = x->chunk;
    size_t n = 0, a, b;
    if (users(ch)) {
      said_span(ch, &a, &b);
      n = eg_statefacts_values(c->r->states, ch->content, a, b, ch->time, c->asked, known_values(c),
                               buf, 512);
    }
    eg_stated_value *v = n ? eg_arena_alloc(c->a, n * sizeof *v) : NULL;
    if (n && !v) n = 0; /* out of memory: read as naming nothing */
    if (n) memcpy(v, buf, n * sizeof *v);
    x->values = v, x->n_values = n, x->values_read = true;
  }
  *out = x->values;
  return x->n_values;
}

/* A value of a known type named plainly as it stands, in the speaker's words ("a tortoise
 * called X joined us"): the newest value and another value said later both read it. */
static bool named_plainly(const eg_stated_value *v) { return v->plain && v->typed; }

static bool same_value(const char *text, size_t from, size_t to, const char *value) {
  /* "Civic" of "Honda Civic", "the Honda" of "Honda": one holds the other as words */
  return to > from && *value && eg_statefacts_same_value(text + from, to - from, value);
}

/*
 * The newest value. A state's values come one after another: of the values of the kind
 * asked for that the user's excerpts name, the one that came into the user's words last —
 * stated as theirs, or named plainly as it stands (a value of a known type, with no marker of
 * a past, a plan, a negation or an end, not as someone else's and not in a question) — and
 * was not given up after its last such mention is the newest, even when no clause of the user
 * states it ("Found the answer to the allergies: a tortoise called X"). When it came after
 * the latest statement of the state (or there is none) and that statement does not name it,
 * its latest plain mention is the excerpt to read first. Two values first named in one
 * excerpt say nothing of their order: then there is no newest.
 */
typedef struct rc_entry {
  const char *text;          /* the value as first named */
  size_t entry, last, ended; /* chunks: first and last plain mention, last end (or none) */
} rc_entry;

static size_t newest_value(rc_ctx *c, size_t statement) {
  enum { MAX_ENTRIES = 32 };
  rc_entry e[MAX_ENTRIES];
  size_t ne = 0, none = c->n_chunks;
  for (size_t j = 0; j < c->n_chunks; j++) {
    const Engram__V1__Chunk *ch = c->chunks[j].chunk;
    const eg_stated_value *v;
    size_t n = after_asked(c, ch) ? 0 : values_of(c, &c->chunks[j], &v);
    for (size_t k = 0; k < n; k++) {
      bool in = named_plainly(&v[k]) || v[k].how == EG_STATED_CURRENT;
      if (!in && !v[k].ended) continue;
      size_t i = 0;
      while (i < ne && !same_value(ch->content, v[k].from, v[k].to, e[i].text)) i++;
      if (i == ne) {
        if (ne == MAX_ENTRIES || v[k].to - v[k].from >= 160) continue;
        char *t = eg_arena_strndup(c->a, ch->content + v[k].from, v[k].to - v[k].from);
        if (!t) continue;
        e[ne++] = (rc_entry){t, none, none, none};
      }
      size_t *at = in ? &e[i].last : &e[i].ended;
      if (*at == none || said_after(ch, c->chunks[*at].chunk)) *at = j;
      if (in && (e[i].entry == none || said_after(c->chunks[e[i].entry].chunk, ch))) e[i].entry = j;
    }
  }
  size_t best = none;
  bool tie = false;
  for (size_t i = 0; i < ne; i++) {
    if (e[i].entry == none || (e[i].ended != none && !said_after(c->chunks[e[i].last].chunk,
                                                                 c->chunks[e[i].ended].chunk)))
      continue; /* never held plainly, or given up after its last plain mention */
    if (best != none && e[i].entry == e[best].entry) {
      tie = true;
    } else if (best == none ||
               said_after(c->chunks[e[i].entry].chunk, c->chunks[e[best].entry].chunk)) {
      best = i, tie = false;
    }
  }
  if (best == none || tie) return none;
  if (statement != none) {
    const Engram__V1__Chunk *st = c->chunks[statement].chunk;
    if (names(st->content, e[best].text) || !said_after(c->chunks[e[best].entry].chunk, st))
      return none;
  }
  return e[best].last;
}

/* Every fact on the question's topic, not yet in doubt, that x does not name, said after the
 * fact became true (and not its own source), is in doubt with it as the reason. */
static void doubt_unnamed(rc_ctx *c, rc_chunk *x) {
  const Engram__V1__Chunk *by = x->chunk;
  for (size_t i = 0; i < c->n_facts; i++) {
    rc_fact *f = &c->facts[i];
    uint64_t source = f->edge->meta ? f->edge->meta->source_chunk_id : 0;
    if (open_to_doubt(f) && by->time > f->edge->valid_from && by->id != source &&
        !names_value(c, x, eg_edge_object(f->edge)))
      doubt_by(c, f, by);
  }
}

/* The excerpts said by the end of the time asked about go before those said after it. Then,
 * of the excerpts that name a value of the kind, in each of the two groups, those that speak
 * of a value as it stands (rc_speaks_of_kind) before those that name values only as planned,
 * former, someone else's or asked about ("got an interview at X next week", "my sister lives
 * in X"): each group in its order, in the places these excerpts hold. */
static void standing_first(rc_ctx *c) {
  if (!c->asked) return;
  size_t *at = eg_arena_alloc(c->a, c->n_chunks * sizeof *at), n = 0, m = 0;
  rc_chunk *x = eg_arena_alloc(c->a, c->n_chunks * sizeof *x);
  if (!at || !x) return;
  /* asked about a time before the bounds, what was said by its end is the evidence of the
   * state then, whether or not it names a value in words read as one ("crunch at quillon
   * games"): every excerpt said after it goes after them, each group in its order */
  if (c->state_at < c->valid_at) {
    for (int pass = 0; pass < 2; pass++)
      for (size_t j = 0; j < c->n_chunks; j++)
        if (after_asked(c, c->chunks[j].chunk) == (pass == 1)) x[m++] = c->chunks[j];
    memcpy(c->chunks, x, c->n_chunks * sizeof *x);
    m = 0;
  }
  for (size_t j = 0; j < c->n_chunks; j++) {
    const eg_stated_value *v;
    if (values_of(c, &c->chunks[j], &v)) at[n++] = j;
  }
  for (int pass = 0; pass < 4; pass++)
    for (size_t i = 0; i < n; i++) {
      const rc_chunk *y = &c->chunks[at[i]];
      if (after_asked(c, y->chunk) == (pass >= 2) && rc_speaks_of_kind(y) == !(pass & 1))
        x[m++] = *y;
    }
  for (size_t i = 0; i < n; i++) c->chunks[at[i]] = x[i];
}

/* Is chunk j the one a fact of the kind asked, standing and not in doubt, was read from? The
 * extractor read a state there ("second week at Deloitte"): a statement of it, though the
 * words name the value in no way the lexical reading takes as the user's; not where they
 * speak of it as former ("Back when I played violin …": a fact misread from a past). */
static bool source_of_fact(rc_ctx *c, size_t j) {
  const char *text = c->chunks[j].chunk->content;
  for (size_t i = 0; i < c->n_facts; i++) {
    const rc_fact *f = &c->facts[i];
    if (!open_to_doubt(f) || !f->edge->meta ||
        f->edge->meta->source_chunk_id != c->chunks[j].chunk->id ||
        !(eg_statefacts_relation_types(c->r->states, f->edge->relation) & c->asked))
      continue;
    const eg_stated_value *v;
    size_t n = values_of(c, &c->chunks[j], &v), k = 0;
    while (k < n && !(v[k].how == EG_STATED_FORMER &&
                      same_value(text, v[k].from, v[k].to, eg_edge_object(f->edge))))
      k++;
    if (k == n) return true;
  }
  return false;
}

static void latest_first(rc_ctx *c) {
  if (!c->asked) return;
  size_t first = c->n_chunks, latest = c->n_chunks;
  for (size_t j = 0; j < c->n_chunks; j++) {
    const Engram__V1__Chunk *ch = c->chunks[j].chunk;
    const eg_stated_value *v;
    size_t n = values_of(c, &c->chunks[j], &v);
    eg_stated s = eg_stated_strongest(v, n);
    bool source = source_of_fact(c, j);
    if (s == EG_STATED_NONE && !source) continue; /* no value of the kind: not about the state */
    if (first == c->n_chunks) first = j;
    if ((s == EG_STATED_CURRENT || source) && !after_asked(c, ch) &&
        (latest == c->n_chunks || said_after(ch, c->chunks[latest].chunk)))
      latest = j;
  }
  size_t newest = newest_value(c, latest);
  if (latest == c->n_chunks && newest == c->n_chunks) return;
  if (latest == c->n_chunks) goto move;
  /* the value a fact holds is in doubt when the latest statement, said after it became
   * true, does not name it: the user said something newer on it that no fact was read from */
  doubt_unnamed(c, &c->chunks[latest]);
move:
  if (newest != c->n_chunks) latest = newest;
  /* asked what the state is now ("where do I live now?", "what's my cat's name?": a question
   * in the present with no time of its own), the latest statement is the best evidence there
   * is: first of all excerpts, also before those naming a value in words not read as one
   * ("my landlord in pune") */
  if (c->update_cue || (!c->temporal && !eg_statefacts_asks_past(c->r->states, c->req->query)))
    first = 0;
  if (latest <= first) return;
  rc_chunk x = c->chunks[latest];
  memmove(&c->chunks[first + 1], &c->chunks[first], (latest - first) * sizeof *c->chunks);
  c->chunks[first] = x;
}

/*
 * Another value said later. A fact on the question's topic is in doubt when the latest of
 * the user's own statements on its state, in the excerpts said after it became true (not
 * its own statement), gives another value of its kind as theirs now ("Traded the X for a Y";
 * a value of a known type: not any capitalised name), names one plainly as it stands ("a
 * lever harp arrived yesterday": no marker of a past, a plan, a negation or an end, not
 * someone else's) or gives its own value up ("Sold my X", "my old manager from X", "not X
 * anymore"): the user has spoken of the state since, and what they said was not read as a
 * new fact. A value named as planned, asked about or someone else's is no word on the
 * user's state; only a statement of the fact's own value clears the doubt.
 */

static void other_value_doubts(rc_ctx *c) {
  const eg_statefacts *sf = c->r->states;
  if (!sf || !c->asked) return;
  for (size_t i = 0; i < c->n_facts; i++) {
    rc_fact *f = &c->facts[i];
    unsigned types = eg_statefacts_relation_types(sf, f->edge->relation) & c->asked;
    if (!types || !open_to_doubt(f)) continue;
    const char *value = eg_edge_object(f->edge);
    uint64_t source = f->edge->meta ? f->edge->meta->source_chunk_id : 0;
    const Engram__V1__Chunk *latest = NULL;
    bool against = false;
    for (size_t j = 0; j < c->n_chunks; j++) {
      const Engram__V1__Chunk *ch = c->chunks[j].chunk;
      if (ch->id == source || ch->time <= f->edge->valid_from || after_asked(c, ch) ||
          (latest && !said_after(ch, latest)))
        continue;
      const eg_stated_value *v;
      size_t n = values_of(c, &c->chunks[j], &v); /* 0 for a chunk not the user's */
      bool for_it = false, other = false;
      for (size_t k = 0; k < n; k++) {
        bool plain = named_plainly(&v[k]);
        if (!(v[k].types & types) || (v[k].how == EG_STATED_MENTIONED && !plain)) continue;
        bool own = same_value(ch->content, v[k].from, v[k].to, value);
        for_it |= own && v[k].how == EG_STATED_CURRENT;
        other |= own ? v[k].ended : (v[k].how == EG_STATED_CURRENT || plain) && v[k].typed;
      }
      if (for_it || other) latest = ch, against = other && !for_it;
    }
    if (against) doubt_by(c, f, latest);
  }
}

/*
 * The first word on the state. Once the excerpts of a state question are in order, the first
 * one in which the user states a value of the kind or names one plainly is what an agent
 * reads first about it; a fact on the question's topic that it does not name, said after the
 * fact became true, is POTENTIALLY_STALE with it as the reason: the best evidence and the
 * graph disagree, so the value is to be checked, not acted on.
 */
static void first_disagrees(rc_ctx *c) {
  if (!c->asked) return;
  for (size_t j = 0; j < c->n_chunks; j++) {
    const eg_stated_value *v;
    values_of(c, &c->chunks[j], &v);
    if (rc_speaks_of_kind(&c->chunks[j]) && !after_asked(c, c->chunks[j].chunk)) {
      doubt_unnamed(c, &c->chunks[j]);
      return;
    }
  }
}

/*
 * The value the first word on the state gives. Where the graph holds no value of the state the
 * user is asked about (no extractor read their words), or only values the rules read (set
 * phrases, no tense) that are in doubt, one-valued and said before it, the first word on the
 * state (first_disagrees' excerpt) says in the user's own words what it is now: its one value
 * of a known type that the user states as theirs (or, with nothing held, names plainly as it
 * stands) is given as a fact read at Recall, never stored (meta.extractor "excerpt", id 0),
 * valid from when it was said and listed before the relation's held facts. It is
 * POTENTIALLY_STALE with the statement as its reason: read by words alone, it is for an agent
 * to check, not to act on (assemble.c says so in the context block). None for a question that
 * names another of the user's people ("Where does my sister live?"), where the excerpt names two
 * such values, a value someone else's, sought, planned, given up, or told in an episode in the past
 * ("The Paris museums were incredible"), where no single relation takes it, where the excerpt falls
 * below the relevance gate or after the time asked about; and a value the state extractor, the LLM
 * enricher or a client gave is not overridden.
 */

/* The one value of the kind asked that x states as the user's (else, where it states none,
 * the one it names plainly), or NULL: none, two, or only someone else's, sought, dated, given up
 * or of an episode. */
static const eg_stated_value *value_told(rc_ctx *c, rc_chunk *x) {
  const char *text = x->chunk->content;
  const eg_stated_value *v, *pick = NULL;
  char first[160];
  size_t n = values_of(c, x, &v);
  for (int pass = 0; pass < 2 && !pick; pass++)
    for (size_t k = 0; k < n; k++) {
      const eg_stated_value *w = &v[k];
      if (!(pass == 0 ? w->how == EG_STATED_CURRENT : named_plainly(w)) || !w->typed || w->others ||
          w->ended || w->sought || w->dated || !(w->types & c->asked) ||
          (c->asks_name && !w->named) || w->to - w->from >= sizeof first ||
          eg_statefacts_episode(c->r->states, text, w->from, w->types, w->named))
        continue;
      if (pick && !same_value(text, w->from, w->to, first))
        return NULL; /* two values: which one is the state is not told */
      if (!pick) snprintf(first, sizeof first, "%.*s", (int)(w->to - w->from), text + w->from);
      pick = w;
    }
  return pick;
}

/* Read by the rules enricher: set phrases, with no tense or negation read (a value they give
 * may be the state's past). */
static bool by_rules(const Engram__V1__Edge *e) {
  return e->meta && e->meta->extractor && !strcmp(e->meta->extractor, EG_EXTRACTOR_RULES);
}

static void read_value(rc_ctx *c) {
  if (!c->r->states || !c->asked || c->asks_kind ||
      !eg_statefacts_asks_of_user(c->r->states, c->req->query, c->asked))
    return; /* "Where does my sister live?" asks no state of the user's */
  size_t j = 0;
  while (j < c->n_chunks &&
         !(rc_speaks_of_kind(&c->chunks[j]) && !after_asked(c, c->chunks[j].chunk)))
    j++;
  if (j == c->n_chunks || !rc_kept(c, &c->chunks[j])) return;
  rc_chunk *x = &c->chunks[j];
  const Engram__V1__Chunk *ch = x->chunk;
  if (ch->time > c->state_at) return; /* later on the day asked about (excerpts are by day) */
  const eg_stated_value *pick = value_told(c, x);
  if (!pick) return;
  unsigned types = pick->types & c->asked;
  const char *relation = eg_statefacts_relation_of(c->r->states, types);
  const Engram__V1__Edge *held = NULL;
  for (size_t i = 0; i < c->n_facts; i++) {
    const rc_fact *f = &c->facts[i];
    unsigned of = f->on_topic ? eg_statefacts_relation_types(c->r->states, f->edge->relation) : 0;
    if ((of & c->asked) && pick->how != EG_STATED_CURRENT)
      return; /* against a value held, only a value stated as the user's now */
    if (!(of & types)) continue;
    if (same_value(ch->content, pick->from, pick->to, eg_edge_object(f->edge)) ||
        f->edge->valid_from >= ch->time || !by_rules(f->edge) || !f->one ||
        f->status != ENGRAM__V1__EPISTEMIC_STATUS__EPISTEMIC_STATUS_POTENTIALLY_STALE)
      return; /* held already, said since, not in doubt, or one of several held at once */
    if (!held) held = f->edge, relation = f->edge->relation;
  }
  if (!relation) return;
  rc_fact *facts = eg_arena_calloc(c->a, c->n_facts + 1, sizeof *facts);
  Engram__V1__Edge *e = eg_arena_calloc(c->a, 1, sizeof *e);
  Engram__V1__EdgeMeta *m = eg_arena_calloc(c->a, 1, sizeof *m);
  Engram__V1__Value *o = eg_arena_calloc(c->a, 1, sizeof *o);
  char *value = eg_arena_strndup(c->a, ch->content + pick->from, pick->to - pick->from);
  if (!facts || !e || !m || !o || !value) return;
  engram__v1__edge__init(e);
  engram__v1__edge_meta__init(m);
  engram__v1__value__init(o);
  o->kind_case = ENGRAM__V1__VALUE__KIND_LITERAL;
  o->literal = value;
  m->source_chunk_id = ch->id;
  m->source_session_id = ch->session_id;
  m->source_turn = ch->turn_index;
  m->utterance = ch->content;
  m->extractor = RC_READ_EXTRACTOR;
  m->reason = "read from the user's words at Recall, not stored";
  e->subject_name = c->user_entity;
  e->user = c->scope.user ? c->scope.user : ""; /* the user's own words */
  e->agent = c->scope.agent ? c->scope.agent : "";
  for (size_t s = 0; s < c->n_seeds && !e->subject; s++)
    if (!c->seed_named[s]) e->subject = c->seeds[s];
  if (held) e->subject = held->subject, e->subject_name = held->subject_name;
  e->relation = (char *)relation;
  e->object = o;
  e->op = ENGRAM__V1__EDGE_OP__EDGE_OP_ASSERT;
  e->valid_from = ch->time;
  e->meta = m;
  facts[0] = (rc_fact){.edge = e, .match = 1, .on_topic = true, .read = true, .score = x->score};
  if (c->n_facts) memcpy(facts + 1, c->facts, c->n_facts * sizeof *facts);
  c->facts = facts, c->n_facts++;
  doubt_by(c, &facts[0], ch); /* its own statement: to be checked */
}

bool rc_speaks_of_kind(const rc_chunk *x) {
  for (size_t k = 0; k < x->n_values; k++)
    if (x->values[k].plain || x->values[k].how == EG_STATED_CURRENT) return true;
  return false;
}

void rc_state_order(rc_ctx *c, bool current) {
  text_doubts(c);
  standing_first(c); /* then the moves of the current value and the latest statement */
  if (current) current_first(c);
  latest_first(c);
  first_disagrees(c);
  other_value_doubts(c);
  for (size_t i = 0; i < c->n_facts; i++) doubt_inferred(c, &c->facts[i]);
  read_value(c);
}
