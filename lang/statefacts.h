/*
 * statefacts.h — the prototype extractor: a user's states (where they live and work, their
 * diet, partner, car, pets, instrument) read from their own words, offline.
 *
 * The rules enricher only knows the phrasings it has patterns for. This extractor
 * generalises instead: a first-person clause with a typed slot candidate (a WordNet city,
 * a musical instrument, a diet word, an unknown capitalised name …) is embedded with the
 * candidate masked as "X" and compared with few-shot prototypes per relation, read from a
 * data file (lang/state_prototypes.txt). A relation is asserted when it is the
 * best type-compatible one, above a floor and by a margin over the others and over NONE;
 * tense and negation markers ("used to", "planning to", "not", moving *from* X) keep a
 * clause from asserting. A clause that matches a relation but yields no current value
 * (negated, past, hypothetical, or a state that ended: "we broke up") becomes a doubt: a
 * STATE_UNCERTAIN edge whose object is the relation's name, which recalld reads to mark the
 * current value POTENTIALLY_STALE.
 *
 * Thread-safe after open: extract may run on several threads at once (the tables are read
 * only; the embedder is thread-safe).
 */
#ifndef EG_LANG_STATEFACTS_H
#define EG_LANG_STATEFACTS_H

#include <stddef.h>

#include "common/arena.h"
#include "common/err.h"
#include "lang/embed.h"
#include "lang/enrich.h"

/* The relation of a doubt marker; its object is the doubted relation's name. */
#define EG_STATE_UNCERTAIN "STATE_UNCERTAIN"

/* The extractor (meta.extractor) of a value inferred, not said: one the user said before they
 * were after, now said to have begun unnamed ("I got the job!"; eg_prospect). Recall presents
 * it POTENTIALLY_STALE, its own statement the reason: an agent checks it before acting. */
#define EG_STATE_INFERRED "prospect"

/* The relation of a named value's kind, said with it ("a ferret named Noodle": Noodle IS_A
 * ferret); its subject is the value. */
#define EG_KIND_OF "IS_A"

typedef struct eg_statefacts eg_statefacts;

typedef struct eg_statefacts_opts {
  const char *prototypes;  /* path of the prototypes file */
  eg_embedder *embedder;   /* borrowed: must outlive the extractor */
  const char *wordnet_dir; /* NULL or "" = WordNet's default (/usr/share/wordnet) */
  float floor;             /* cosine a relation's best prototype must reach (≤ 0: default) */
  float margin;            /* over the next type-compatible relation or NONE (< 0: default) */
} eg_statefacts_opts;

/* Defaults of floor and margin, set on one half of the development set and confirmed
 * on the other (see the commit that set them). */
#define EG_STATEFACTS_FLOOR 0.55f
#define EG_STATEFACTS_MARGIN 0.05f

/* Load the prototypes and WordNet types, embed the prototypes. *out is freed with
 * eg_statefacts_close. EG_ENOTFOUND when the file is missing, EG_EINVAL when it is
 * malformed (the message names the line), EG_EUNAVAIL without WordNet. */
eg_code eg_statefacts_open(const eg_statefacts_opts *o, eg_statefacts **out, eg_err *err);
void eg_statefacts_close(eg_statefacts *sf); /* accepts NULL */

typedef struct eg_statefacts_stats {
  size_t clauses;  /* first-person user clauses seen */
  size_t embedded; /* of those, embedded (a slot candidate or a change marker) */
  size_t facts, doubts;
} eg_statefacts_stats;

/*
 * Read states from the user segments of segs[0..n) and append facts (extractor
 * "prototypes", confidence = the cosine) and doubts to out[i], allocated from a.
 * Where the rules read a value of the same relation in the segment that this extractor
 * reads as former or not asserted, or one other than the current value it reads, the
 * rules' fact is taken out (they read no tense); the same value is left to them. One
 * embedding call
 * for the whole batch. stats may be NULL; it is added to, not reset.
 */
eg_code eg_statefacts_extract(eg_statefacts *sf, const eg_enrich_ctx *ctx, const eg_segment *segs,
                              size_t n, eg_arena *a, eg_enriched *out, eg_statefacts_stats *stats,
                              eg_err *err);

/*
 * The lexical reading, for Recall: no embedding, so an extractor opened with embedder NULL
 * (its types, markers and WordNet tables only; extract then answers EG_EINVAL) serves it.
 */

/* The slot types (opaque bits) a question asks about, read from its words through the
 * prototypes file's @ask lines ("live" → place, "employer" → org, "dog" → pet); 0 when it
 * names no state. */
unsigned eg_statefacts_asked(const eg_statefacts *sf, const char *question);

/* Do the speaker's words [said_from, said_to) of text (said_to 0: to the end) speak of a state
 * of one of `types` by a word other than a value: a word the @ask lines give those types ("I
 * live somewhere new now", "the job is killing me"), a word of change or end (@change,
 * @ended, @ends: "handed in my notice", "we split up"), a verb that moves the speaker or gets
 * them something (@relocates, @acquires, @takes: "we finally moved"), "new" or "another", of
 * a diet a food ("no more eggs", "Greek yoghurt in my smoothie"), or an event told in the past
 * in a sentence that asks nothing ("I joined a bank", "Closed on the house yesterday")? Chat
 * with none ("Washing up is my specialty.", "Where do I start with these boxes?") is no word
 * on a state. Thread-safe. */
bool eg_statefacts_on_state(const eg_statefacts *sf, const char *text, size_t said_from,
                            size_t said_to, unsigned types);

/* Does the question ask of the user's own state of `types` (eg_statefacts_asked): it says a
 * word of the first person ("I", "my", "me" …) and names none of the user's people by a noun
 * ("Where does my sister live?", "Where does my wife work?", "my girlfriend's sister"), but
 * for the one it asks for ("Who is my girlfriend?"; a pet: "my dog's name")? */
bool eg_statefacts_asks_of_user(const eg_statefacts *sf, const char *question, unsigned types);

/* Is the value at byte `at` of text (of `types`, a name or a kind word) named in a clause told
 * in the past that tells no change of a state: "was" or "were" ("The cello concert was great"),
 * or of a place or a firm a verb in the past ("We stayed in Paris"; not "I've lived in X for
 * years", "my umbrella's destroyed"), and no word of change or end, no verb that moves the
 * speaker, gets them a thing or takes one, no "new" or "first" ("I moved to X", "my first week at
 * X went well")? An episode (a visit, an outing) tells no state; but a name of a thing one has
 * (a pet, a car, a partner: not a place or a firm) in one tells it is had. A value named past
 * the words read (MAX_TOKENS) is none. */
bool eg_statefacts_episode(const eg_statefacts *sf, const char *text, size_t at, unsigned types,
                           bool named);

/* Is the question in the past tense ("Where did I live …?", "Which firm employed me?"): an
 * auxiliary in the past, or a verb's past form (WordNet's) with no auxiliary in the present
 * ("What's my dog called?" is present)? */
bool eg_statefacts_asks_past(const eg_statefacts *sf, const char *question);

/* Does the question ask what a value is called ("What's my dog called?", "What's the name of
 * my cat?")? A kind ("a terrier", "an SUV") is then no answer: a name is. */
bool eg_statefacts_asks_name(const char *question);

/* Does the question ask what kind a value is ("What kind of pet do I have?", "What breed is my
 * dog?", "Which animal did we adopt?")? The kind the graph keeps beside a name (EG_KIND_OF) is
 * then the answer. */
bool eg_statefacts_asks_kind(const char *question);

typedef enum eg_stated {
  EG_STATED_NONE,      /* no value of the types in the speaker's own words */
  EG_STATED_MENTIONED, /* one is named, in no predicate of the speaker's ("the X flat was small") */
  EG_STATED_FORMER,    /* only as former, planned, negated or someone else's */
  EG_STATED_CURRENT,   /* a value the speaker holds now, in a predicate of theirs */
} eg_stated;

/* How the speaker's words, the bytes [said_from, said_to) of text (a round's user part),
 * speak of a value of one of `types`. Thread-safe. */
eg_stated eg_statefacts_stated(const eg_statefacts *sf, const char *text, size_t said_from,
                               size_t said_to, unsigned types);

/* Each value of one of `types` the text names, where it stands (bytes of text) and how the
 * speaker's words [said_from, said_to) speak of it: MENTIONED, FORMER or CURRENT, as above
 * (a value "here" or "it" stands for is the one named before it; someone else's is MENTIONED,
 * with `others` set). At most max, in the
 * order said; the count. Thread-safe. */
typedef struct eg_stated_value {
  size_t from, to;
  eg_stated how;
  bool others;    /* MENTIONED as someone else's ("my sister lives in X") */
  bool ended;     /* FORMER as ended or given up ("sold my X", "my old X", "not X anymore"), not
                     only planned or past */
  bool typed;     /* its type is known (not any a capitalised name may have) */
  bool plain;     /* named in the speaker's words with no marker of a past, plan, negation or
                     end, not as someone else's and not in a question (CURRENT or MENTIONED) */
  bool dated;     /* named so but for a later date in its predicate: "I have a X audition next
                     month", "Tomorrow is my first day at X" (a plan; not plain) */
  bool sought;    /* named in the speaker's own clause as a value they are after, not negated:
                     a plan or a wish ("applied for a post at X", "thinking of moving to X"),
                     a later date (dated) or an offer ("got an offer from X") */
  bool named;     /* a name ("Gizmo", "Toronto"), not a kind word ("hamsters", "vegan") */
  unsigned types; /* which of the types asked for it may have */
} eg_stated_value;
/* Values of a known type the user named in full elsewhere ("Nissan Leaf", "Brightwater
 * Analytics"): read with them, a later "Leaf" or "Brightwater" alone has that value's type
 * (a capitalised word is otherwise any type a name may have). */
#define EG_STATEFACTS_KNOWN 32
typedef struct eg_statefacts_known {
  size_t n;
  char words[EG_STATEFACTS_KNOWN][64]; /* lower case, one space between words */
  unsigned bits[EG_STATEFACTS_KNOWN];
} eg_statefacts_known;

/* Add to *k the values of a known type of two words or more that the speaker's words
 * [said_from, said_to) of text name (beyond EG_STATEFACTS_KNOWN, the rest is dropped). */
void eg_statefacts_learn(const eg_statefacts *sf, const char *text, size_t said_from,
                         size_t said_to, eg_statefacts_known *k);

/* said_at: when the text was said (µs; 0 = unknown), for the plans it tells by their dates
 * ("an interview at X next week": not held now); known: NULL, or values learned from the
 * user's other words. */
size_t eg_statefacts_values(const eg_statefacts *sf, const char *text, size_t said_from,
                            size_t said_to, int64_t said_at, unsigned types,
                            const eg_statefacts_known *known, eg_stated_value *out, size_t max);

/* The speaker's own words in a stored chunk's text, [*from, *to): all of it for one message
 * (one), else the first turn of a round "user: <said>\nassistant: <reply>". */
void eg_statefacts_said_span(const char *text, bool one, size_t *from, size_t *to);

/* Are a (n bytes) and b the same value: equal, or one holding the other (three bytes or more)
 * as whole words ("Leaf" of "Nissan Leaf", "the Honda" of "Honda"), case aside? */
bool eg_statefacts_same_value(const char *a, size_t n, const char *b);

/* Do the speaker's words [said_from, said_to) of text name `value` as a value of `relation`'s
 * objects that is theirs, as it stands (or so but for a later event: "I have a X audition
 * next month") or stated as now (not someone else's, not asked about, not given up)? How a
 * former value's first mention is told ("we said goodbye to X" needs an earlier "X" of the
 * user's own). */
bool eg_statefacts_holds_value(const eg_statefacts *sf, const char *text, size_t said_from,
                               size_t said_to, int64_t said_at, const char *relation,
                               const char *value);

/* The one value of `relation`'s objects the speaker's words [said_from, said_to) of text name
 * as sought (eg_stated_value.sought; "applied for a research post at X. fingers crossed"),
 * copied to value (cap bytes, cut at a character), *named: whether it is a name, not a kind
 * word (of a relation whose values are names, a kind word only where no name is sought: the
 * kind awaited); false when none, or several different ("torn between X and Y"). */
bool eg_statefacts_prospect(const eg_statefacts *sf, const char *text, size_t said_from,
                            size_t said_to, int64_t said_at, const char *relation, char *value,
                            size_t cap, bool *named);

/* The strongest of n values' ways of being spoken of (NONE for none): what
 * eg_statefacts_stated says of the text they were read from (read with no time said). */
eg_stated eg_stated_strongest(const eg_stated_value *v, size_t n);

/* The slot types of a relation's objects ("LIVES_IN" → place), 0 for a relation the
 * prototypes do not know (or no prototypes: sf NULL). */
unsigned eg_statefacts_relation_types(const eg_statefacts *sf, const char *relation);

/* The one relation whose objects may have one of `types` ("LIVES_IN" for a place), or NULL
 * when none or several do. */
const char *eg_statefacts_relation_of(const eg_statefacts *sf, unsigned types);

/* Are the relation's objects beings the user knows by name (a partner, a pet: the prototypes'
 * @individual types), so that the user's earlier words naming the same name as theirs speak
 * of the same one? False for a relation the prototypes do not know. */
bool eg_statefacts_individual(const eg_statefacts *sf, const char *relation);

/* How a user states a value of `types`, as a search text: the first prototypes of the
 * relations whose objects have one of the types, their slots left out ("I live in. I moved
 * to. Home is now. …"), from a (NULL when no relation has them). */
char *eg_statefacts_statement(const eg_statefacts *sf, unsigned types, eg_arena *a);

#endif
