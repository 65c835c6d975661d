/*
 * enrich.h — sliding-window enrichment: c'_i = f(s_i | W_i), W_i = [s_{i−prev} … s_{i+next}].
 *
 * For every segment the enricher produces the latent text (the segment rewritten to be
 * self-contained: speaker, absolute dates, mentions resolved to the entity they refer
 * to, the facts and preferences it implies), the entities it mentions, and facts as
 * typed edges with valid time. Two implementations behind this interface:
 *   lang/enrich_rules.c             offline, deterministic (the default)
 *   services/ingestd/enrich_llm.c   an OpenAI-compatible /v1/chat/completions endpoint; a
 *                                   failed or malformed answer falls back to the rules for
 *                                   that window
 * Both also report outcomes of earlier suggestions the user speaks of (eg_outcome).
 * Everything is allocated from the caller's arena.
 */
#ifndef EG_LANG_ENRICH_H
#define EG_LANG_ENRICH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/err.h"

/* meta.extractor of a fact the rules enricher read (set phrases; no tense or negation read). */
#define EG_EXTRACTOR_RULES "rules"

/* One segment: a conversation turn or round, or a document passage. */
typedef struct eg_segment {
  const char *text;    /* the raw text (borrowed) */
  const char *role;    /* "user", "assistant", "system", "tool", "document" */
  const char *speaker; /* a name when known, else "" */
  int64_t time;        /* µs: relative dates resolve against it */
  /* The speaker's own words: text[said_from, said_to) (said_to 0: all of it; from == to:
   * none, a part of a long round holding only the reply). A round's text holds the reply
   * too ("user: …\nassistant: …"), context for the enrichers; the rules and the state
   * extractor read what the speaker says of themselves from their own words only (the LLM
   * enricher is given the whole round, each line naming its speaker). */
  size_t said_from, said_to;
} eg_segment;

/* An entity named by a segment. */
typedef struct eg_mention {
  char *name;
  char *type; /* "person", "place", "organization", "product", "pet", "user", "" */
} eg_mention;

/* A fact: subject —relation→ object, valid from/to. */
typedef struct eg_fact {
  char *subject, *subject_type;
  char *relation; /* UPPER_SNAKE */
  char *object;   /* an entity name (object_entity) or a literal */
  char *object_type;
  bool object_entity;
  bool retract;
  int64_t valid_from, valid_to; /* 0 = the segment time / open */
  float sentiment, intensity, confidence;
  char *reason;          /* stated reason or qualifier, may be "" */
  char *utterance;       /* the sentence it was read from */
  const char *extractor; /* who read it (meta.extractor); NULL = the enricher that ran */
  /* a former value whose start was not said ("since leaving X in October"): valid from the
   * user's first mention of it, which the caller finds in what the user said before (and
   * drops the fact when there is none) */
  bool since_first_mention;
  /* … and one said with no end ("my old team at X") while the graph holds another value of
   * its relation: valid until that value began, which the caller finds in the graph (and
   * drops the fact when it holds none); valid_to is the segment time until then */
  bool until_held;
} eg_fact;

/* What the user reports came of something suggested to them before ("the restaurant you
 * suggested was great", "I ended up going to Sakura", "I never went"): ingestd ties it to
 * the acceptance edge it refers to (chat_outcomes.h) and records it there. */
typedef struct eg_outcome {
  const char *kind; /* "ACTED_ON", "IGNORED", "SUCCEEDED", "FAILED" or "REVERSED" */
  char *target;     /* the thing named: an entity name or a phrase; "" when only a category */
  char *category;   /* a category noun ("restaurant", "hotel"); "" when none */
  char *utterance;  /* the sentence it was read from */
} eg_outcome;

typedef struct eg_enriched {
  char *latent;
  eg_mention *mentions;
  size_t n_mentions;
  eg_fact *facts;
  size_t n_facts;
  eg_outcome *outcomes; /* from the user's own words only */
  size_t n_outcomes;
} eg_enriched;

/* A value the user held when the text was said, as the graph knows it ("HAS_PET", "Biscuit"):
 * a later bare mention of it is of that kind ("we lost Biscuit", "Biscuit keeps scratching
 * the sofa"). A literal one ("PLAYS", "ukulele"; "DIET", "vegetarian") names no entity: the
 * graph holds the word, another word for it is the same value ("uke"), and the foods a later
 * message says the user eats are weighed against it. */
typedef struct eg_held {
  const char *relation, *value;
  bool literal;
} eg_held;

/* A value the user said they were after, not yet theirs, as the graph's doubts on a state keep
 * it ("applied for a post at X", "thinking of moving to X": eg_statefacts_prospect): a later
 * message that the value it does not name has begun ("I got the job!", "we got the keys")
 * speaks of it. Only one said after the held value of its relation began. A literal one of a
 * relation whose values are names is only the kind of the one awaited ("getting a lurcher next
 * week"): a name a later message gives that kind is it ("juniper (the lurcher) …"). */
typedef struct eg_prospect {
  const char *relation, *value;
  bool literal;
} eg_prospect;

typedef struct eg_enrich_ctx {
  const char *user_entity; /* the user as an entity name ("user:<id>") */
  unsigned prev, next;     /* window */
  const eg_held *held;     /* the user's state values (n_held), or NULL */
  size_t n_held;
  const eg_prospect *prospects; /* values in prospect (n_prospects), or NULL */
  size_t n_prospects;
} eg_enrich_ctx;

/* Append a copy of f to o's facts (the array reallocated from a). EG_ENOMEM. */
eg_code eg_enriched_add_fact(eg_arena *a, eg_enriched *o, const eg_fact *f, eg_err *err);

/* Offline rules: enrich n segments (out[n]). Never fails except out of memory. */
eg_code eg_enrich_rules(const eg_enrich_ctx *ctx, const eg_segment *segs, size_t n, eg_arena *a,
                        eg_enriched *out, eg_err *err);

#endif
