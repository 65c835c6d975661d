/*
 * statefacts_kind.c — the kind a named value is of, where the message says it ("GOT A FERRET!!!
 * her name is noodle", "my dog Biscuit", "Pepper the terrier", "got a budgie and named him
 * Tofu"): the graph keeps it beside the name (Noodle IS_A ferret), so that "What kind of pet do
 * I have?" is answered from the graph when the name is the value held.
 */
#include <stdio.h>
#include <string.h>

#include "lang/statefacts_int.h"

/* Does someone other than the speaker own the word at i ("her dog", "my sister's cat", "the
 * neighbours' parrot")? */
static bool owned_by_another(const token *t, size_t from, size_t i) {
  if (i == from) return false;
  const token *p = &t[i - 1];
  if (p->theirs || eg_sf_theirs(p->w)) return true;
  return eg_sf_possessive(p->w) && strcmp(p->w, "it's") != 0 && strcmp(p->w, "that's") != 0 &&
         strcmp(p->w, "he's") != 0 && strcmp(p->w, "she's") != 0;
}

/* Does a pronoun stand before the name at vs in its sentence ("her name is X", "named him X",
 * "he's called X")? It names the one spoken of before. */
static bool named_by_pronoun(const token *t, size_t from, size_t vs) {
  static const char *const pron[] = {"he",   "she",   "him", "her",  "his",  "it",   "its",
                                     "he's", "she's", "hes", "shes", "they", "them", "their"};
  for (size_t k = vs; k > from && !t[k - 1].cut; k--)
    if (eg_sf_in_list(t[k - 1].w, pron, sizeof pron / sizeof *pron)) return true;
  return false;
}

/* The kind bits of w, or of its singular ("puppies", "ferrets"), into one[n] as the word
 * found. */
static unsigned kind_bits(const eg_statefacts *sf, const char *w, char *one, size_t n) {
  static const char *const ends[][2] = {{"", ""}, {"s", ""}, {"es", ""}, {"ies", "y"}};
  size_t l = strlen(w);
  for (size_t k = 0; k < sizeof ends / sizeof *ends; k++) {
    size_t e = strlen(ends[k][0]);
    if (l < e + 3 || strcmp(w + l - e, ends[k][0]) != 0) continue;
    snprintf(one, n, "%.*s%s", (int)(l - e), w, ends[k][1]);
    unsigned b = eg_sf_kind_bits(sf, one);
    if (b) return b;
  }
  return 0;
}

/* The kind word of one of `types` at token i, one word or two ("guinea pig"), into out[n] as
 * the value it names (@same: "puppy" is a dog); its length in tokens, 0 for none. */
static size_t kind_at(const eg_statefacts *sf, const token *t, size_t i, size_t to, unsigned types,
                      char *out, size_t n) {
  char w[80], one[80];
  size_t len = 0;
  if (i + 1 < to && !t[i].comma && !t[i].cut) {
    snprintf(w, sizeof w, "%s %s", t[i].w, t[i + 1].w);
    size_t l = strlen(w);
    if (eg_sf_bits_of(sf->common, w) & types)
      len = 2;
    else if (l > 4 && w[l - 1] == 's' && (w[l - 1] = '\0', eg_sf_bits_of(sf->common, w) & types))
      len = 2; /* "two guinea pigs" */
  }
  if (!len) {
    if (!(kind_bits(sf, t[i].w, one, sizeof one) & types)) return 0;
    snprintf(w, sizeof w, "%s", one);
    len = 1;
  }
  const char *same = eg_map_get(sf->same, w, strlen(w));
  snprintf(out, n, "%s", same ? same : w);
  return len;
}

bool eg_sf_kind_of_name(const eg_statefacts *sf, const token *t, size_t from, size_t to, size_t vs,
                        size_t ve, unsigned types, char *out, size_t n) {
  if (!(types & sf->kind_types)) return false;
  types &= sf->kind_types;
  char word[80], only[80] = "", before[80] = "", said[4][80];
  size_t best = SIZE_MAX, kinds = 0, mine = 0;
  for (size_t i = from; i < to; i++) {
    size_t len = i < vs || i >= ve ? kind_at(sf, t, i, to, types, word, sizeof word) : 0;
    if (!len || (len == 1 && i + 1 != vs && eg_sf_qualifier(sf, t, i, to))) continue;
    bool known = false; /* the kinds said, whosever */
    for (size_t k = 0; k < kinds && k < 4; k++) known |= !strcmp(said[k], word);
    if (!known && kinds++ < 4) snprintf(said[kinds - 1], sizeof *said, "%s", word);
    if (i < vs) snprintf(before, sizeof before, "%s", word); /* whosever: "he" names it */
    if (owned_by_another(t, from, i)) {
      i += len - 1;
      continue;
    }
    mine++;
    snprintf(only, sizeof only, "%s", word);
    /* in the name's sentence: a kind's own word before a general one ("a new pup, Rufus,
     * lurcher mix"), then the nearest, the one before the name on a tie ("my dog Max and cat
     * Luna") */
    size_t a = i < vs ? i + len - 1 : vs, b = i < vs ? vs : i, rank = b - a;
    bool same_sentence = true;
    for (size_t k = a; k < b && same_sentence; k++) same_sentence = !t[k].cut;
    if (eg_sf_bits_of(sf->generic, word)) rank += MAX_TOKENS;
    if (same_sentence && rank < best) {
      best = rank;
      snprintf(out, n, "%s", word);
    }
    i += len - 1;
  }
  if (best < SIZE_MAX) return true;
  /* a name given to "him" or "her" ("GOT A FERRET!!! her name is noodle"): the kind said last
   * before it */
  if (*before && named_by_pronoun(t, from, vs)) {
    snprintf(out, n, "%s", before);
    return true;
  }
  /* elsewhere in the message, only when it says no other kind */
  if (kinds != 1 || !mine) return false;
  snprintf(out, n, "%s", only);
  return true;
}
