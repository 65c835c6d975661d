/*
 * split.h — the two fixed halves of a dev set, so that a change can be tuned on one half and
 * confirmed on the other (docs/tuning.md).
 *
 * Every question (or scenario) has a key that does not change between runs, files or
 * machines: LongMemEval the question_id, LoCoMo the conversation's sample_id and the
 * question text joined by a newline (the text, not its place in the list, so a reordered
 * file keeps its halves and a question asked twice in a conversation stays on one side),
 * textfacts and prefs the scenario name. The key's half is the lowest bit of its XXH64
 * (seed 0, the key's bytes as stored): even is `tune`, odd is `confirm`. XXH64's value is
 * defined independently of the platform's byte order; FNV-1a would not do here, as its
 * lowest bit is only the parity of the bytes' lowest bits.
 */
#ifndef EG_BENCH_SPLIT_H
#define EG_BENCH_SPLIT_H

#include <stdbool.h>

typedef enum eg_bsplit {
  EG_BSPLIT_ALL = 0, /* no split: every key */
  EG_BSPLIT_TUNE,    /* XXH64 of the key even */
  EG_BSPLIT_CONFIRM, /* XXH64 of the key odd */
} eg_bsplit;

/* "tune" → EG_BSPLIT_TUNE, "confirm" → EG_BSPLIT_CONFIRM; false (out untouched) for
 * anything else, NULL included. */
bool eg_bsplit_parse(const char *s, eg_bsplit *out);
/* "all", "tune" or "confirm" (static). */
const char *eg_bsplit_name(eg_bsplit s);

/* The half of the key (its bytes up to the NUL; NULL is ""): EG_BSPLIT_TUNE or
 * EG_BSPLIT_CONFIRM, never ALL. */
eg_bsplit eg_bsplit_of(const char *key);
/* The half of a LoCoMo question: of "<sample_id>\n<question>". */
eg_bsplit eg_bsplit_of_locomo(const char *sample_id, const char *question);
/* Whether a key of half `of` is in the selection `want` (ALL takes every key). */
bool eg_bsplit_takes(eg_bsplit want, eg_bsplit of);

#endif
