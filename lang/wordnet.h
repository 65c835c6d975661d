/*
 * wordnet.h — noun and verb closures from WordNet (Princeton WordNet 3.0, Debian wordnet-base).
 *
 * The extractor needs to know that "Lisbon" is a city and "cello" a musical instrument.
 * WordNet's library keeps global state and is not thread-safe, so it is used only here,
 * once, at start: every lemma below a root synset (hyponyms and instances, transitively)
 * is handed to a visitor that stores it in the caller's own tables. Nothing of WordNet is
 * touched after that, so lookups need no lock.
 */
#ifndef EG_LANG_WORDNET_H
#define EG_LANG_WORDNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Called once per lemma of the closure: lemma in WordNet's spelling with spaces for
 * underscores (borrowed for the call), proper when WordNet capitalises it (an instance
 * such as a city's name), head the first lemma of its synset ("uke" of "uke, ukulele"; the
 * lemma itself where no synset is at hand). Return false to stop. */
typedef bool (*eg_wordnet_visit)(void *ctx, const char *lemma, bool proper, const char *head);

/*
 * Visit the noun closure of root ("musical_instrument", "dog#1": the sense number after
 * '#', 1 when absent). EG_EUNAVAIL when the WordNet database cannot be opened (dict_dir
 * NULL = WordNet's default, /usr/share/wordnet); EG_ENOTFOUND when the root is not a
 * noun of WordNet. Serialised by an internal lock; meant for start-up.
 */
eg_code eg_wordnet_closure(const char *dict_dir, const char *root, eg_wordnet_visit visit,
                           void *ctx, eg_err *err);

/* The walks read data.noun and data.verb whole into memory (a walk visits thousands of
 * synsets); call when a batch of walks is over to give that memory back. A later walk reads
 * them afresh. */
void eg_wordnet_rest(void);

/* The lemmas whose first (most often tagged) sense is in the closure of one of roots[0..n):
 * below act#2 and artifact#1, "game" and "freight", not "spring" (a season first) nor "stone"
 * (a rock first). Common nouns only (proper false). Errors as eg_wordnet_closure's. */
eg_code eg_wordnet_closure_first(const char *dict_dir, const char *const *roots, size_t n,
                                 eg_wordnet_visit visit, void *ctx, eg_err *err);

/* For each noun of the closures of roots[0..n) ("city#1"), each of its lemmas with each lemma
 * of what WordNet says it is part of, transitively a few levels up ("Oslo" in "Norway",
 * "Leeds" in "England" and in "United Kingdom"); spaces for underscores, borrowed for the call.
 * Return false to stop. Errors as eg_wordnet_closure's. */
typedef bool (*eg_wordnet_part_visit)(void *ctx, const char *part, const char *whole);
eg_code eg_wordnet_wholes(const char *dict_dir, const char *const *roots, size_t n,
                          eg_wordnet_part_visit visit, void *ctx, eg_err *err);

/* For each noun of the closures of roots[0..n) ("musician#1"), each lemma with each noun lemma
 * WordNet derives it from or to ("pianist" with "piano", "cellist" with "cello"), or from or to
 * the verb it derives from or to ("drummer" with "drum", by the verb "drum"), visited as
 * eg_wordnet_wholes' pairs are. Errors as eg_wordnet_closure's. */
eg_code eg_wordnet_derived(const char *dict_dir, const char *const *roots, size_t n,
                           eg_wordnet_part_visit visit, void *ctx, eg_err *err);

/*
 * Visit every form of the verbs of the closures of roots[0..n) ("discard#1": the sense and its
 * troponyms, transitively): each lemma only when the sense it is reached by is among its first
 * max_sense senses as a verb (so "go", a rare sense of "die", is not one; a root's own lemma
 * in any: its sense is named, "move#4"), in its base, -s,
 * -ed and -ing forms by the regular rules and its irregular forms of verb.exc, a lemma of
 * several words inflected on its first ("gave up", "giving up", "ditched"). A form may be
 * visited more than once; present tells the base and -s forms ("part", "dumps": often a
 * noun too) from the others. Errors as eg_wordnet_closure's.
 */
typedef bool (*eg_wordnet_form_visit)(void *ctx, const char *form, bool present);
eg_code eg_wordnet_verb_forms(const char *dict_dir, const char *const *roots, size_t n,
                              int max_sense, eg_wordnet_form_visit visit, void *ctx, eg_err *err);
/* Visit the forms of the verbs lemmas[0..n) ("shift", "give_up"), as eg_wordnet_verb_forms
 * does those of a closure's lemmas; a lemma need not be WordNet's. */
eg_code eg_wordnet_inflect(const char *dict_dir, const char *const *lemmas, size_t n,
                           eg_wordnet_form_visit visit, void *ctx, eg_err *err);

/* WordNet's verbs: lemmas (data.verb) and irregular inflections (verb.exc: "took", "sold",
 * also "-ing" forms and participles). */
typedef struct eg_wordnet_verbset {
  uint64_t *lemmas, *irregular;
  size_t n_lemmas, n_irregular;
} eg_wordnet_verbset;

/*
 * WordNet's word sets, read in one pass over its data and exception files, each a sorted
 * array of 64-bit hashes (eg_hash64 of the lower-case word, seed 0):
 *  - common: every word WordNet spells in lower case somewhere (any part of speech), and the
 *    irregular inflections of its exception lists: "harp", "kiwi" and "march" are words;
 *    "Jonas" and "Cyberdyne" are not, so a capitalised sentence opener that is no word is
 *    likely a name;
 *  - adverbs: its adverbs alone ("still", "finally", "honestly");
 *  - adjectives: its adjectives and their irregular comparisons ("red", "oily", "better");
 *  - instances: the one-word names it gives individuals (instance synsets: "Python", the
 *    dragon; "Amazon", the river; not "Tom", a kind of person), lower-cased;
 *  - proper_adjectives: the one-word adjectives it spells capitalised ("Dutch", "Victorian"),
 *    lower-cased;
 *  - verbs: its verbs' lemmas and irregular forms.
 */
typedef struct eg_wordnet_words {
  uint64_t *common, *adverbs, *adjectives, *instances, *proper_adjectives;
  size_t n_common, n_adverbs, n_adjectives, n_instances, n_proper_adjectives;
  eg_wordnet_verbset verbs;
} eg_wordnet_words;

/* Load them (freed with eg_wordnet_words_free); EG_EUNAVAIL without the database files. */
eg_code eg_wordnet_words_load(const char *dict_dir, eg_wordnet_words *out, eg_err *err);
void eg_wordnet_words_free(eg_wordnet_words *w);

/* Is the lower-case word w, or the base form morphy's regular rules detach from it ("moved",
 * "cities"), in the set (common, adverbs, adjectives or instances of eg_wordnet_words; common holds
 * the irregular forms of WordNet's exception lists: "took", "mice")? */
bool eg_wordnet_is_common(const uint64_t *set, size_t n, const char *w);

/* Is the lower-case word a verb's past form (or participle): an irregular one of verb.exc
 * other than its "-ing" forms and the present of be/have/do, or a lemma + "ed" by the
 * regular rules ("traded", "stopped", "carried")? */
bool eg_wordnet_is_past(const eg_wordnet_verbset *v, const char *w);

/* Could the lower-case word be a verb's third person present ("lives", "watches",
 * "carries": a lemma + "s", "es", or "y" → "ies")? Many plurals are too ("plans"): callers
 * that look for a sentence with no verb take it as one. */
bool eg_wordnet_is_present3(const eg_wordnet_verbset *v, const char *w);

/* Is the lower-case word any form of a verb: a lemma, an irregular form, a regular past,
 * third person present or "-ing" form ("offer", "took", "visiting")? */
bool eg_wordnet_is_verb(const eg_wordnet_verbset *v, const char *w);

/* Is the lower-case word the "-ing" form of a verb lemma ("visiting", "moving", "stopping";
 * not "spring", a lemma of its own)? */
bool eg_wordnet_is_ing(const eg_wordnet_verbset *v, const char *w);

#endif
