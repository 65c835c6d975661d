/*
 * statefacts_pick.h — what the prototype extractor's two halves share (private to lang/):
 * statefacts.c collects the clauses of the user's words as items and judges each against the
 * prototypes; statefacts_emit.c picks among one segment's judged items the facts and doubts
 * it says.
 */
#ifndef EG_LANG_STATEFACTS_PICK_H
#define EG_LANG_STATEFACTS_PICK_H

#include "lang/statefacts_int.h"

typedef struct item {
  size_t seg;      /* the segment */
  size_t from, to; /* the embedded token range (in the segment's tokens) */
  slot s;          /* the slot; s.te == 0: a change clause without one */
  char *text;      /* masked clause (arena) */
  bool near;       /* the words near the slot, read only when its whole span said nothing */
  bool third;      /* a held value spoken of, not by the user of themselves: [=REL] or [-REL] */
  bool modifier;   /* a kind word before a noun it qualifies ("a wind quintet") */
  bool passing;    /* third, of a name the user holds no value by: [=REL] against [=NONE] */
  int holds;       /* 1 + the relation a noun of the user's placed at the slot says (@holds) */
  int owned;       /* 1 + the relation the type of a name the user owns says (owned_as) */
  bool begun;      /* holds by a stretch begun at the slot ("First week at X"): a start, which
                    * does not yield as a placed noun does */
  int64_t taken;   /* an offer from the slot taken: the start told (eg_sf_offer_taken); 0 */
  bool acquired;   /* owned, acquired by a verb of acquiring ("got my own X"): said, not placed */
  bool of_held;    /* no slot, of the one the user has of a kind ("my car needs a service"): a
                    * word on the state only where it reads as its end ("my car got stolen") */
  bool pending;    /* no slot and no change marker: embedded for a value in prospect only, */
  int won;         /* … of this relation ("[+]" reads it; see session_names.won) */
  bool in;         /* right after "in", named by no cue: read as a place where it may be one
                    * ("living with my sister in X": no partner) */
  unsigned backed; /* the relations (bit r) of the speaker's nouns its sentence names ("my
                    * manager"; eg_sf_speakers_nouns) and of its words of a state's own
                    * ("date": @domain) */
} item;

typedef struct verdict {
  int rel;    /* -1: nothing */
  bool ended; /* a doubt rather than a fact */
  float cosine, margin;
  bool weak;   /* a current value read as rel below the bar, over NONE: a fact only in place of
                * a value the same message ends ("Sold the piano and rented a X") */
  bool placed; /* read from a noun or an owner, not from the words: it yields (emit) */
  bool fresh;  /* no slot, read as a value begun that it does not name ([+REL]: "I got the job"):
                * a doubt, and a name that follows it may be the new value (emit) */
} verdict;

/* An item and its reading. */
typedef struct pick {
  const item *it;
  verdict v;
} pick;

/* The clause [*from, *to) of the segment's tokens t[0, nt) that holds token i. */
void eg_sf_clause_of(const token *t, size_t nt, size_t i, size_t *from, size_t *to);

/* Facts and doubts of segment sg from its judged items p[0, np), into o (arena a); *told: the
 * relations (bit r) the segments before it in the same call gave a value of, with this one's
 * added. */
eg_code eg_sf_emit(const eg_statefacts *sf, const eg_enrich_ctx *ctx, const eg_segment *sg,
                   const pick *p, size_t np, unsigned *told, eg_arena *a, eg_enriched *o,
                   eg_statefacts_stats *st, eg_err *err);

#endif
