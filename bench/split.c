/*
 * split.c — the tune and confirm halves of a dev set (see split.h).
 */
#include "bench/split.h"

#include <string.h>

#define XXH_STATIC_LINKING_ONLY /* the streaming state on the stack */
#include <xxhash.h>

static const char *const names[] = {"all", "tune", "confirm"};

bool eg_bsplit_parse(const char *s, eg_bsplit *out) {
  for (int i = EG_BSPLIT_TUNE; s && i <= EG_BSPLIT_CONFIRM; i++)
    if (!strcmp(s, names[i])) {
      *out = (eg_bsplit)i;
      return true;
    }
  return false;
}

const char *eg_bsplit_name(eg_bsplit s) {
  return s >= EG_BSPLIT_ALL && s <= EG_BSPLIT_CONFIRM ? names[s] : "?";
}

eg_bsplit eg_bsplit_of(const char *key) {
  return XXH64(key ? key : "", key ? strlen(key) : 0, 0) & 1 ? EG_BSPLIT_CONFIRM : EG_BSPLIT_TUNE;
}

eg_bsplit eg_bsplit_of_locomo(const char *sample_id, const char *question) {
  XXH64_state_t st; /* the key's parts hashed in turn: the same value as XXH64 of the joined key */
  XXH64_reset(&st, 0);
  XXH64_update(&st, sample_id, strlen(sample_id));
  XXH64_update(&st, "\n", 1);
  XXH64_update(&st, question, strlen(question));
  return XXH64_digest(&st) & 1 ? EG_BSPLIT_CONFIRM : EG_BSPLIT_TUNE;
}

bool eg_bsplit_takes(eg_bsplit want, eg_bsplit of) { return want == EG_BSPLIT_ALL || want == of; }
