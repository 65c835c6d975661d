/*
 * concepts.h — the WordNet concepts of a text's nouns, for BM25's lexical bridging.
 *
 * A chunk that says "my sisters" is about siblings and one that says "violin" about a
 * musical instrument, though neither says so. For each noun of a text (the word's most
 * frequent sense, when that word is mostly used as a noun), the concepts are the lemmas of
 * its synset (synonyms: "fiddle" for "violin") and of its hypernyms up to a few levels
 * ("bowed stringed instrument", "stringed instrument", "musical instrument"). vectord
 * indexes them as concept terms beside the words said, and a query's words meet them at a
 * lower weight than the words said: "siblings" finds "sisters", "instrument" finds "violin".
 *
 * Read once from WordNet's database files (data.noun, index.*, noun.exc, cntlist.rev of
 * Debian wordnet-base); immutable afterwards, so lookups need no lock.
 */
#ifndef EG_LANG_CONCEPTS_H
#define EG_LANG_CONCEPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

typedef struct eg_concepts eg_concepts;

/* Load from dict_dir (NULL: /usr/share/wordnet) with hypernyms up to `depth` levels above a
 * noun's synset. EG_EUNAVAIL when the database files cannot be read. */
eg_code eg_concepts_open(const char *dict_dir, int depth, eg_concepts **out, eg_err *err);
void eg_concepts_free(eg_concepts *c); /* accepts NULL */

/* Called once per concept lemma, in WordNet's spelling with spaces ("musical instrument");
 * borrowed for the call. */
typedef void (*eg_concept_fn)(void *ctx, const char *lemma);

/* The concepts of the lower-case word w[0..n) (inflected or not: "sisters", "children"), or
 * of the two-word phrase "w1 w2" ("martial arts"): each lemma of its synset and of its
 * hypernyms once (the word's own lemma too). Returns false when the word is no noun of
 * WordNet, or mostly used as another part of speech ("play", "run"). */
bool eg_concepts_of(const eg_concepts *c, const char *w, size_t n, eg_concept_fn fn, void *ctx);

#endif
