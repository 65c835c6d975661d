/*
 * fuzz_stated.c — the state reader's lexical half (lang/statefacts*.c without an embedder):
 * the values a user's words name and how (eg_statefacts_values, as Recall reads a chunk), the
 * names learned from them (eg_statefacts_learn), the value named as sought
 * (eg_statefacts_prospect, as ingestd reads a doubt) and what a question asks
 * (eg_statefacts_asked and the like), over any valid UTF-8 text. Properties: every value lies
 * within the speaker's words, in order, non-empty, of the types asked for only; at most `max`
 * are returned; a value in prospect is the speaker's words' own, cut at a character within its
 * buffer, and none of a relation not known; the questions' readings do not depend on a call
 * before them.
 */
#include <string.h>

#include "common/text.h"
#include "lang/statefacts.h"
#include "tests/fuzz/fuzz.h"

static eg_statefacts *sf;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  eg_statefacts_opts o = {.prototypes = EG_SOURCE_DIR "/lang/state_prototypes.txt"};
  eg_err e = {0};
  if (eg_statefacts_open(&o, &sf, &e)) sf = NULL; /* without WordNet: nothing to read */
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!sf || size < 1 || size > 4096) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  if (strlen(text) != size || !eg_utf8_valid(text, size)) {
    free(text);
    return 0;
  }
  size_t from, to;
  eg_statefacts_said_span(text, false, &from, &to);
  eg_fuzz_check(from <= to && to <= size, "the speaker's words lie in the text");
  eg_statefacts_known known = {0};
  eg_statefacts_learn(sf, text, from, to, &known);
  eg_fuzz_check(known.n <= EG_STATEFACTS_KNOWN, "known values bounded");
  unsigned types = (unsigned)data[0] | 1u; /* some type always asked for */
  eg_stated_value v[8];
  size_t n = eg_statefacts_values(sf, text, from, to, 1709287200000000LL, types, &known, v, 8);
  eg_fuzz_check(n <= 8, "at most max values");
  for (size_t i = 0; i < n; i++) {
    eg_fuzz_check(v[i].from < v[i].to && v[i].to <= size, "a value within the text");
    eg_fuzz_check(v[i].from >= from && v[i].to <= to, "a value within the speaker's words");
    eg_fuzz_check(!(v[i].types & ~types), "a value of the types asked for only");
  }
  /* the value in prospect: of the speaker's words, whole characters, within its buffer */
  static const char *const rels[] = {"LIVES_IN", "WORKS_AT", "HAS_PET", "PLAYS", "NO_SUCH"};
  const char *rel = rels[data[0] % (sizeof rels / sizeof *rels)];
  char sought[24];
  bool named;
  if (eg_statefacts_prospect(sf, text, from, to, 1709287200000000LL, rel, sought, sizeof sought,
                             &named)) {
    size_t l = strlen(sought);
    eg_fuzz_check(l > 0, "a value in prospect is not empty");
    eg_fuzz_check(eg_utf8_valid(sought, l), "cut at a character");
    const char *at = strstr(text + from, sought);
    eg_fuzz_check(at && (size_t)(at - text) < to, "a value in prospect from the speaker's words");
    eg_fuzz_check(strcmp(rel, "NO_SUCH") != 0, "none of a relation not known");
  }
  unsigned asked = eg_statefacts_asked(sf, text);
  bool past = eg_statefacts_asks_past(sf, text);
  eg_fuzz_check(eg_statefacts_asked(sf, text) == asked, "the question's types read again");
  eg_fuzz_check(eg_statefacts_asks_past(sf, text) == past, "its tense read again");
  (void)eg_statefacts_asks_name(text);
  (void)eg_statefacts_asks_kind(text);
  free(text);
  return 0;
}
