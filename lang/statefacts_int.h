/*
 * statefacts_int.h — what the parts of the prototype extractor share: the loaded prototypes
 * file (statefacts_load.c), its words (statefacts_words.c), the slots of a clause
 * (statefacts_slots.c) and the reading of text by them (statefacts.c, statefacts_ask.c).
 * Internal to lang/.
 */
#ifndef EG_LANG_STATEFACTS_INT_H
#define EG_LANG_STATEFACTS_INT_H

#include <stdint.h>

#include "common/map.h"
#include "common/time.h"
#include "lang/dates.h"
#include "lang/statefacts.h"
#include "lang/wordnet.h"

#define MAX_TYPES 16
#define MAX_RELS 32
#define MAX_MARKERS 96
#define MAX_FOODS 16     /* food groups (@food) */
#define WHOLE 16         /* a food word's bits for the groups it names whole, shifted */
#define MAX_DESCRIBED 32 /* values the foods tell (@describe) */

typedef enum marker_kind {
  MK_PAST,
  MK_FUTURE,
  MK_NEGATION,
  MK_CHANGE,
  MK_FROM,
  MK_FORMER,
  MK_ENDED,
  MK_TOPIC,
  MK_VISIT,
  MK_ARRIVAL,
  MK_STAY,
  N_MARKER_KINDS
} marker_kind;

/* A marker phrase as lower-case words; "ex-" matches a word's prefix, "n't" its suffix. */
typedef struct marker {
  char w[4][24];
  int n;
} marker;

/* PK_HELD and PK_GONE read a value the user holds spoken of ("[=HAS_PET]", "[-HAS_PET]");
 * PK_PASSING ("[=NONE …]") a name spoken of that is no value of the user's; PK_BEGUN
 * ("[+WORKS_AT]") a clause without a slot telling of a new value it does not name; PK_WON
 * ("[+]") one telling so of the value in prospect, of whichever state it is ("I got it!"). */
typedef enum proto_kind {
  PK_ASSERT,
  PK_NONE,
  PK_ENDED,
  PK_HELD,
  PK_GONE,
  PK_PASSING,
  PK_BEGUN,
  PK_WON
} proto_kind;

typedef struct relation {
  char name[48];
  unsigned types; /* type bits its object may have */
} relation;

typedef struct proto {
  int rel; /* index into rels (-1 for NONE) */
  proto_kind kind;
  unsigned types; /* NONE: the slot types it competes with */
} proto;

/* A value told by the foods one eats or does not ("@describe diet pescatarian -meat +fish"). */
typedef struct described {
  char value[32];
  unsigned type;    /* its type's bit */
  unsigned out, in; /* the food groups (bits) left out and eaten */
} described;

struct eg_statefacts {
  eg_embedder *emb;
  int dim;
  char type_names[MAX_TYPES][24];
  int n_types;
  unsigned name_types;         /* what an unknown capitalised name may be */
  unsigned year_types;         /* what a name after a model year is ("a 2016 prius"; @year) */
  unsigned person_bit;         /* the type "person", 0 when none */
  unsigned place_bit, org_bit; /* "place" and "org", 0 when none */
  unsigned cue_types;          /* the types a @cue line gives */
  unsigned kind_types;         /* the types whose named values keep their kind (@kinds) */
  unsigned individual_types;   /* the types whose names are one being each (@individual) */
  eg_map *common, *proper, *generic, *cue, *suffix; /* lower-case lemma → type bits (generic: 1) */
  eg_map *trade;    /* a name's last common noun → its type after the others ("Cobalt Freight") */
  eg_map *unlike;   /* a name → the types it cannot have ("english", a language; @unlike) */
  eg_map *prefix;   /* a name's first word → its type when more words follow ("Honda Civic") */
  eg_map *models;   /* a model's name alone → its type ("duster", "model 3", "land cruiser") */
  eg_map *synonyms; /* "uke|ukulele": words of one WordNet synset of a type → its bits */
  eg_map *same;     /* a word of one value (@same) → that value's name: "drum kit" → "drums" */
  eg_map *players;  /* a person's noun named by a value (@player): "cellist" → 1 */
  eg_map *people;   /* nouns for people ("sister", "neighbour"): "my sister lives in X" is hers */
  eg_map *ask;      /* a question's words → the types it asks about (@ask) */
  eg_map *ends;     /* forms of verbs that end a state (@ends): "ditched", "gave up" → 1 */
  eg_map *takes;    /* … that take what is offered (@takes): "accepted" → 1 */
  eg_map *declines; /* … that refuse it (@declines): "turned down" → 1 */
  eg_map *acquires; /* … that acquire a thing (@acquires): "got", "picked up" → 1 */
  eg_map *gives;    /* … that hand a thing to someone (@gives): "gave", "donated" → 1 */
  eg_map *relocates;    /* … that move one's home (@relocates): "moved", "relocating" → 1 */
  eg_map *shorthand;    /* chat's shorthand, lower case → what it stands for (@shorthand: "rn" →
                         * "right now"), owned */
  size_t shorthand_max; /* the longest of those (0: none) */
  eg_map *speaks;       /* … of speaking to someone (@speaks): "called", "texted" → 1 */
  eg_map *towns;        /* a gazetteer's names of towns, folded ("norwich") → type bits (@type …
                         * gazetteer): names WordNet does not know */
  eg_map *within;    /* "oslo|norway" → 1: a place and one WordNet says it is part of (@within) */
  eg_map *holds;     /* "at team" → the relations (bit r) a noun owned by the user before the
                      * preposition and a value says the user holds ("my team at X": @holds);
                      * "at" → those of its lines */
  eg_map *begins;    /* "at onboarding" → the relations (bit r) a noun of @holds says begin
                      * where it is placed: the noun is had at a start only (@begins) */
  eg_map *routes;    /* a word of moving ("move", "removals") → the relations (bit r) a route
                      * said beside it moves the user's value of ("Leeds to Bristol": @route) */
  eg_map *domain;    /* a word of a state's own ("date", "anniversary") → the relations (bit r)
                      * a name its sentence reads as only below the bar is a value of (@domain) */
  eg_map *periods;   /* nouns whose first sense is a stretch of time ("week"; @period) → 1 */
  eg_map *journeys;  /* nouns whose first sense is a journey or a means of one ("commute",
                      * "train"; @journeys) → 1 */
  eg_map *occasions; /* nouns whose first sense is an occasion one goes to ("conference",
                      * "wedding"; @occasions) → 1 */
  eg_map *plain;     /* nouns whose first sense is a plain word where a name may go ("work",
                      * "home": @plain) → 1 */
  eg_map *namesakes; /* nouns whose first sense is a thing names are given from ("kiwi",
                      * "biscuit": @namesake) → 1 */
  eg_map *belongs;   /* nouns only a value of a type has ("hutch", "paws": @belongs) → its bits */
  eg_map *foods; /* a food's lemma → its groups' bits (@food: "bacon" → meat), and for a word
                  * naming a whole group ("meat": @food … words) that bit shifted by WHOLE */
  char food_names[MAX_FOODS][16];
  int n_foods;
  described described[MAX_DESCRIBED]; /* values the foods one eats tell (@describe) */
  int n_described;
  /* WordNet's lower-case words, its adverbs, the names it gives individuals and its verbs
   * ("Traded in my X for a Y" says who by its tense) */
  eg_wordnet_words wn;
  marker markers[N_MARKER_KINDS][MAX_MARKERS];
  int n_markers[N_MARKER_KINDS];
  relation rels[MAX_RELS];
  int n_rels;
  proto *protos;
  char **ptexts; /* their texts */
  float *pvec;   /* n_protos × dim */
  size_t n_protos;
  float floor, margin;
};

/* A word of a message (statefacts_words.c). */
#define MAX_TOKENS 512

typedef struct token {
  size_t s, e; /* byte span */
  char w[32];  /* lower case, ’ as ' */
  bool cap;    /* starts with an upper-case letter */
  bool shout;  /* all upper case, two letters or more ("AGAIN", "IKEA") */
  bool digit;  /* holds a digit ("CX-5", "3") */
  bool start;  /* first word of a sentence */
  bool cut;    /* a clause (sentence) ends after it */
  bool comma;  /* a sub-clause ends after it (markers do not reach past it) */
  bool ask;    /* … with a question mark */
  bool pict;   /* a pictograph follows it (" 🎉 ") */
  bool theirs; /* a plural's possessive: an apostrophe closes it ("neighbours' dog") */
  bool amp;    /* an ampersand follows it ("marks & spencer") */
} token;

/* The words of text into t (at most max); how many. */
size_t eg_sf_tokenize(const char *text, token *t, size_t max);
/* Is w an indefinite that a name right after it may say ("seeing someone: X", "somewhere, X"):
 * EG_SF_SOMEONE, EG_SF_SOMEWHERE, or 0? */
enum { EG_SF_SOMEONE = 1, EG_SF_SOMEWHERE = 2 };
unsigned eg_sf_indefinite(const char *w);
/* s with chat's marks as the words they stand for, in place: a pictograph as a comma between
 * words ("I've been seeing someone <pictograph> his name is X" reads as "someone, his name"),
 * nothing after a mark or at the end; an arrow as "to" where the word fits (s NULL: NULL). */
char *eg_sf_plain_marks(char *s);
/* s with chat's shorthand spelled out (@shorthand: "rn" as "right now", "gf" as "girlfriend",
 * "im" as "I'm"), for the embedder, which reads the words better than their shorthand; s
 * itself when no word is one, else a copy in a. */
char *eg_sf_unshorten(const eg_statefacts *sf, eg_arena *a, char *s);
/* The end of the clause (sentence) opening at token from: one past its last token. */
size_t eg_sf_clause_end(const token *t, size_t nt, size_t from);
/* The sub-clause (between commas) around token i, within the clause [from, to). In a question,
 * a pictograph parts it as a comma does: what is said before it from what is asked after it
 * ("got a prius 🎉 what should I know …?"). */
void eg_sf_sub_clause(const token *t, size_t from, size_t to, size_t i, size_t *sf_, size_t *st_);

/* w with the accents of Latin letters taken off ("kraków" → "krakow"), lower case, into out
 * (len bytes): WordNet's names are written without them. Whether any was. */
bool eg_sf_fold(const char *w, char *out, size_t len);

/* Is w one of list[0..n)? */
bool eg_sf_in_list(const char *w, const char *const *list, size_t n);
/* Is the word w one of the tokens [from, to)? */
bool eg_sf_word_in(const token *t, size_t from, size_t to, const char *w);
/* Does the token word w end in the clitic "'s" ("fiona's", "she's")? */
bool eg_sf_possessive(const char *w);
/* w without its possessive "'s", into out (n bytes): "dog's" → "dog"; the length. */
size_t eg_sf_unpossessed(const char *w, char *out, size_t n);
/* Does [from, to) hold a word of the first person ("I", "my", "we've" …)? */
bool eg_sf_first_person(const token *t, size_t from, size_t to);
/* The end of a relative clause of the speaker's right after a value ending at te ("X, where I
 * live, …", "X where we're based"): past its comma, or at the word joining the next; 0 when
 * none follows. */
size_t eg_sf_where_clause(const token *t, size_t te, size_t to);
/* Is w the user as a subject ("I", "we", "I'm", "we've" …)? */
bool eg_sf_subject_pronoun(const char *w);
/* Does "from" at t[f] complete the verb of a thing's predicate ("my fingers hurt from the X")?
 * Then X is what the thing's state comes from, not a value the user left behind. */
bool eg_sf_thing_from(const eg_statefacts *sf, const token *t, size_t from, size_t f);
/* Does the value at token ts follow "after" and a length of time ("after two years in X"), or
 * "after being" ("after being X for a year", "after having been in X")? */
bool eg_sf_after_duration(const token *t, size_t from, size_t ts);
/* The types a common word (or its singular) names, 0 for a generic word ("thing"), none its
 * first sense is unlike (@unlike: "bus" is no car). */
unsigned eg_sf_lookup_common(const eg_statefacts *sf, const char *w);

/* The type bits m holds for a lower-case key (0: none). */
unsigned eg_sf_bits_of(const eg_map *m, const char *key);
/* The bits of noun w in m, or of its singular ("clinics", "bakeries", "boxes"); 0 when none. */
unsigned eg_sf_noun_bits(const eg_map *m, const char *w);
/* Are common words a and b of one WordNet synset of a type in bits ("uke", "ukulele")? */
bool eg_sf_synonyms(const eg_statefacts *sf, const char *a, const char *b, unsigned bits);
void eg_sf_lower(char *s); /* in place, ASCII */

/* Is w an interjection ("lol", "ugh", "yay"): no word of a clause's subject or predicate? */
bool eg_sf_interjection(const char *w);
/* Capitalised words that do not start a name (statefacts_words.c). */
bool eg_sf_not_a_name(const char *w);
/* Is w a number or a count in words ("two", "twelve", "a couple", "a few")? */
bool eg_sf_number_word(const char *w);
/* Is w a word of a closed class (preposition, conjunction, pronoun …) or a month's short form? */
bool eg_sf_function_word(const char *w);
/* Is w an article or a possessive ("a", "the", "my", "their")? */
bool eg_sf_determiner(const char *w);
/* An adverb in -ly WordNet knows ("finally", "originally"), not a name that ends alike
 * ("Emily")? */
bool eg_sf_ly_adverb(const eg_statefacts *sf, const char *w);
/* Past the adverbs of time opening [from, to): "Finally moved …", "Just started a new job at X",
 * "now a proud X resident". */
size_t eg_sf_past_adverbs(const eg_statefacts *sf, const token *t, size_t from, size_t to);
/* Does [from, to) open with a verb in the past, its subject dropped as chat does ("Traded in the
 * X for a Y", "Finally moved to X", "Got my X badge today"): the speaker's? So does one opening
 * with a verb in "-ing", what the speaker is doing ("Practising X in lockdown is annoying the
 * neighbours", "Loving the new job at X"). */
bool eg_sf_opens_with_verb(const eg_statefacts *sf, const token *t, size_t from, size_t to);
/* … wherever [from, to) stands: its first word past the adverbs of time is such a verb. */
bool eg_sf_verb_first(const eg_statefacts *sf, const token *t, size_t from, size_t to);
/* Does the predicate [a, b) open with "it" and "been" and no referent ("it's been a fortnight at
 * X", "it has been great in X"): the speaker's own time, as a dropped subject is? */
bool eg_sf_its_been(const token *t, size_t a, size_t b);
/* Is w an ordinal ("first", "second", "3rd")? */
bool eg_sf_ordinal(const char *w);
/* Is w a form of "be" that links a noun to what it is ("is", "was", "'s")? */
bool eg_sf_copula(const char *w);
/* Does w start a new predicate ("and", "before", "now"; with goal also "to", "into", "for")? */
bool eg_sf_joint(const char *w, bool goal);

/* ---- markers (statefacts_markers.c) ------------------------------------------------------ */

/* Does a stay of a set length (@stay, or a count of days or weeks: "for two weeks") follow the
 * value ending at te in its own predicate, or, for a place, "for" an occasion (@occasions: "in
 * X for a conference")? */
bool eg_sf_stay_after(const eg_statefacts *sf, const token *t, size_t te, size_t to, bool place);
/* Does "spend" and a stretch shorter than a month come before the value in [from, ts) ("we
 * spent a week in X", "spending the weekend in X")? A visit. */
bool eg_sf_spent_stay(const token *t, size_t from, size_t ts);
/* Does "spent" in the simple past and a stretch of months or years come before the value in
 * [from, ts) ("I spent a year in X after uni", "spent two years at X")? A past stretch there
 * (not "I've spent a year in X", up to now). */
bool eg_sf_spent_years(const token *t, size_t from, size_t ts);
/* Is the value at ts the complement of the speaker's past copula ("I was vegan", "we were in
 * X then"; not a passive: "I was hired at X"), from the sub-clause start `from`? */
bool eg_sf_past_copula(const eg_statefacts *sf, const token *t, size_t from, size_t ts);
/* Does a marker of kind k start at token i, its words before `to`? Its length in words; 0. */
size_t eg_sf_marker_starts(const eg_statefacts *sf, marker_kind k, const token *t, size_t i,
                           size_t to);
/* Does a marker of kind k start in [from, to), its words before `to`? */
bool eg_sf_has_marker(const eg_statefacts *sf, marker_kind k, const token *t, size_t from,
                      size_t to);
/* … a marker of any of the n kinds? */
bool eg_sf_has_any_marker(const eg_statefacts *sf, const marker_kind *kinds, size_t n,
                          const token *t, size_t from, size_t to);
/* The length in words of a marker of kind k that ends right before token `end` (not before
 * `from`); 0 for none. */
size_t eg_sf_ends_marker(const eg_statefacts *sf, marker_kind k, const token *t, size_t from,
                         size_t end);
/* Does a form of a verb of the table forms (@ends, @takes) start at token i? */
bool eg_sf_verb_at(const eg_map *forms, const token *t, size_t i, size_t to);
/* The "-ing" verb of a present progressive in [from, to) ("I'm moving", "we're getting"), or
 * SIZE_MAX. */
size_t eg_sf_progressive(const eg_statefacts *sf, const token *t, size_t from, size_t to);
/* Are the words before the value at ts, in its sub-clause of the clause [from, to), in the
 * present progressive of a verb relation r's prototypes tell its start with, in the past ("I'm
 * moving to X": the prototypes' "I moved to X"; "Starting at X", the speaker dropped, too)?
 * With a later date, the state is arranged from that day; "I'm interviewing at X", "I'm
 * meeting friends in X", "I'm seeing X next week" (the prototypes' "I'm seeing X" is a state,
 * not its start) are not. */
bool eg_sf_arranged(const eg_statefacts *sf, const token *t, size_t from, size_t to, size_t ts,
                    int r);
/* The one relation taking a value of the types bits whose start the words before the value at
 * ts arrange ("starting on
 * the cardiac floor at X in feb", "I start at X on Monday"); -1 when none or more than one. */
int eg_sf_arranged_taker(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                         unsigned bits, size_t ts);

/* Do the words t[0, nt) name a food of a group the @describe lines weigh ("no more eggs",
 * "Greek yoghurt in my smoothie"): a word on a diet? */
bool eg_sf_foods_named(const eg_statefacts *sf, const token *t, size_t nt);
/* A value the foods the user says they eat or leave out tell (statefacts_foods.c: "I don't
 * eat meat but fish is fine"), into o, for a user segment: none where o has a value of its
 * relation, and a doubt of o on it gives way; the value held (told by the segments before,
 * before[0, nb), else the graph's) told again is no news. */
eg_code eg_sf_foods_read(const eg_statefacts *sf, const eg_enrich_ctx *ctx, const eg_segment *sg,
                         const eg_enriched *before, size_t nb, eg_arena *a, eg_enriched *o,
                         eg_err *err);
/* Do the words [a, b) look forward: a marker of the future, or the present progressive? */
bool eg_sf_looks_ahead(const eg_statefacts *sf, const token *t, size_t a, size_t b);
/* The first date said in the text's bytes [cs, ce) of the kinds wanted, its start; 0 when
 * none: any, only a start or a stretch up to now ("since May", "for two years"), or only a day
 * or a stretch of the calendar (an end's: "split up last month", not "for 5 years"). */
typedef enum { EG_SF_ANY_DATE, EG_SF_START_DATE, EG_SF_END_DATE } eg_sf_date_kind;
int64_t eg_sf_date_in(const eg_date *dates, size_t nd, size_t cs, size_t ce, eg_sf_date_kind want);
/* The start of a date said in the text's bytes [cs, ce) on or after day_end (0: none); with
 * `ahead`, read forward (eg_date_ahead: "I'm moving there in January", said in November). */
int64_t eg_sf_dated_in(const eg_date *dates, size_t nd, size_t cs, size_t ce, int64_t day_end,
                       bool ahead);
/* The day a start told beside a value begins: a sentence of the text's tokens [0, nt) other
 * than the value's, [vs, ve) (vs == ve == 0: any), whose verb is one of starting with the
 * speaker as its subject, none or the subject of the sub-clause before a comma ("I signed with
 * X. I begin the first of October", "Got the job at X! Starting on Monday", "Got an offer
 * from X, starting in May"), dated after the day it was said (day_end: the end of that day),
 * its date read forward; 0 when none. */
int64_t eg_sf_start_beside(const token *t, size_t nt, size_t vs, size_t ve, const eg_date *dates,
                           size_t nd, int64_t day_end);
/* The end of the day (UTC date) of `said`, µs: what is dated after it is later than said. */
static inline int64_t eg_sf_day_end(int64_t said) {
  return (said / EG_US_PER_DAY + 1) * EG_US_PER_DAY;
}
/* The bits of a verb's form in sf->ends and sf->takes: a form that counts anywhere, and a base
 * or -s form that counts only right after "I" or "we". */
#define EG_SF_ANY_FORM 1u
#define EG_SF_AFTER_I 2u
/* Is the verb at t[v] with the words from t[after] a form of a verb of the table forms (@ends,
 * @declines), its object between them ("called it off", "turned it down")? */
bool eg_sf_verb_around(const eg_map *forms, const token *t, size_t v, size_t after, size_t to);
/* Does an @ends verb or an @ended marker start at token i, its words before `to`? */
bool eg_sf_ends_at(const eg_statefacts *sf, const token *t, size_t i, size_t to);
/* An @ended marker or an @ends verb in [from, to) before any other verb of the predicate ("X
 * has passed away"; not "X keeps leaving …", "X hates leaving …"), or after a pronoun resuming
 * the subject (eg_sf_resumed_ending)? */
bool eg_sf_has_ending(const eg_statefacts *sf, const token *t, size_t from, size_t to);
/* Does a verb that refuses a thing (@declines) come in [from, ts) before the value ("I turned
 * down X", "turned X down")? The value is not taken. */
bool eg_sf_declined(const eg_statefacts *sf, const token *t, size_t from, size_t ts);
/* Does a pronoun at t[b], opening a sub-clause, resume the value before it with a predicate
 * that ends it and takes no object ("my cat's name was X, she died in 2019", "our old tabby X,
 * she sadly passed away"; not "X, she quit her job")? */
bool eg_sf_resumed_ending(const eg_statefacts *sf, const token *t, size_t b, size_t to);
/* A past marker in [from, to), unless a present perfect makes it current? */
bool eg_sf_has_past(const eg_statefacts *sf, const token *t, size_t from, size_t to);

/* ---- slots (statefacts_slots.c) ---------------------------------------------------------- */

typedef enum slot_status { ST_CURRENT, ST_FORMER, ST_NOT_ASSERTED } slot_status;

#define MAX_CANDS 8 /* slots per clause */

typedef struct slot {
  size_t ts, te; /* token range */
  size_t vs, ve; /* the value's token range when another word stands for it ("here"); ve 0:
                    the slot's own */
  unsigned bits; /* possible types */
  bool proper;   /* a name: the object is an entity */
  bool cued;     /* its type came from a cue word */
  slot_status status;
  size_t held; /* 1 + the index of the user's held value it names (eg_enrich_ctx.held); 0 */
  bool where;  /* a place it may be: after a word that places it ("in X", "to X", "near X"),
                * or a name of no known type that the gazetteer knows as a town's ("Norwich") */
} slot;
/* Is the slot a player's noun (@player: "cellist") said of the speaker, the complement of
 * their "be" or "as" ("I'm a cellist", "I've been a lapsed pianist", "as a violinist I …")? A
 * player's noun elsewhere is someone ("married to a pianist", "hired a pianist"). */
bool eg_sf_player_of_speaker(const eg_statefacts *sf, const token *t, size_t from, const slot *s);
/* Do only words of correcting stand in [a, b), one of them saying so ("sorry, I mean", "no
 * wait")? */
bool eg_sf_correcting(const token *t, size_t a, size_t b);

/* Does the clause [from, to) tell of a thing come to the speaker ("the harp arrived", "THE
 * DUSTER IS HERE"; @arrival)? The subject is then the speaker's (statefacts_whose.c). */
bool eg_sf_arrives(const eg_statefacts *sf, const token *t, size_t from, size_t to);
/* Is the place opening at p (after "in", from the clause start `from` on) where a thing a noun
 * names is sited, not the speaker: "a company based in X", "our office located in X" (not
 * "I'm based in X", "currently based in X")? */
bool eg_sf_sited(const eg_statefacts *sf, const token *t, size_t from, size_t p);
/* Is the speaker visited at the place at ts, te the slot's end, in the clause up to `to`
 * ("mum is coming to visit us in X", "they're visiting me in X"; not in a past, nor while the
 * speaker is away themselves)? The visit is another's, dated as theirs; the speaker is at X. */
bool eg_sf_visited_at(const eg_statefacts *sf, const token *t, size_t from, size_t ts, size_t te,
                      size_t to);
/* Is the word at n, a noun that is a verb too, the verb after a subject or a joint ("we work
 * in X", "I date X", "live and work")? */
bool eg_sf_verb_of_subject(const eg_statefacts *sf, const token *t, size_t from, size_t n);
/* … or right after a thing had by holding a value of a relation that takes no place ("the
 * Amazon office in X", "my job in X", "our office is in X"; @holds), not "my landlord in X"? */
bool eg_sf_held_thing_in(const eg_statefacts *sf, const token *t, size_t from, size_t p);
/* Is the slot in the clause [from, to) of the message t[0, nt) a place gone to, not a home
 * moved to: right after "to" or "into" (no determiner: "two weeks into my X flat" is the
 * flat's), a noun of a journey or a means of one (@journeys) before it in its sub-clause, no
 * word of leaving a home (@ended, @ends) there and no word of a move of home (@relocates,
 * @route) in the message, no return ("back to X"): "the train into X", "my commute to X", "the
 * bus to X"; not "we moved to X", "gave up the flat and took the train to X", "got the train
 * to X. the movers come on Friday", "the train back to X"? A verb of going says no more than
 * that ("drove to X" may be the move). */
bool eg_sf_destination(const eg_statefacts *sf, const token *t, size_t nt, size_t from, size_t to,
                       const slot *s);
/* The place types of the capitalised span [i, j) as WordNet or the gazetteer knows it; 0 for
 * none (statefacts_slots.c). */
unsigned eg_sf_place_bits(const eg_statefacts *sf, const token *t, size_t i, size_t j);
/* The relation (bit r) of a change the slot slots[k] ends, from the value of its kind right
 * before it ("switched from piano to violin", "went from vegetarian to vegan", "moved from
 * Google to X": the kind one relation alone takes; a place's route is eg_sf_route_moved's);
 * 0: none (statefacts_slots.c). */
unsigned eg_sf_changed_over(const eg_statefacts *sf, const token *t, size_t from, const slot *slots,
                            size_t k);
/* Is slots[k] of the ns a place a route starts from ("Leeds to Bristol"; statefacts_slots.c)? */
bool eg_sf_route_origin(const eg_statefacts *sf, const token *t, const slot *slots, size_t ns,
                        size_t k);
/* The relations (bits) that take slots[k] of the ns in the sentence [from, to) of the message
 * t[0, nt) as their value where it ends a route ("Leeds to X") and a word of moving (@route)
 * names the speaker's move beside the route: in that sentence or the one before or
 * after it, within the speaker's own bytes [said_from, said_to) ("the move is booked!!! flying
 * osaka -> vancouver on jan 15", "Leeds to Bristol on Saturday. The removal van is booked");
 * the speaker's ("the move", "our move", "we're moving"; not "her move", "my sister's
 * move", "mum is moving") and told as done or on its way: no marker of the past, a plan or
 * negation before it in its sub-clause, in no question. 0: none; *weighed set where the only
 * such word is under a marker ("thinking about a move, Leeds to X maybe"). */
unsigned eg_sf_route_moved(const eg_statefacts *sf, const token *t, size_t nt, size_t from,
                           size_t to, size_t said_from, size_t said_to, const slot *slots,
                           size_t ns, size_t k, bool *weighed);
/* Is slot s of the clause [from, to), a firm it may be, what an offer is of or from: the source
 * of the noun ("an offer from X", "X's offer", "the X offer"), the subject of the verb ("X
 * offered me a job") or what it offers, the nearest before it in its sub-clause up to a word
 * joining another clause ("they offered me the job at X", "got offered a role at X")? 1 +
 * where "offer" stands; 0 (not for a place: "got the job offer in X"). */
size_t eg_sf_offer_of(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                      const slot *s);
/* Does a verb that takes what is offered (@takes) govern the offer whose words open at head, at
 * most three words before it in its sub-clause: "accepted the offer from X", "accepted X's
 * offer"? */
bool eg_sf_offer_accepted(const eg_statefacts *sf, const token *t, size_t from, size_t head);
/* The day an offer is taken from, where slot s of the clause opening at token `from` of segment sg
 * (its tokens t[0, nt)) is what an offer is of or from (eg_sf_offer_of) and the speaker tells
 * their start, dated ahead, in their own words of that message or of their next one, `next` (NULL:
 * none): "got an offer from X. countered, got 20%. start aug 6." An offer weighed and no start
 * told is no value (0), nor is one refused in the rest of the message up to another offer
 * (@declines: "turned down the offer from X", "they offered me the job at X but I turned it
 * down") or denied ("no offer from X"). */
int64_t eg_sf_offer_taken(const eg_statefacts *sf, const token *t, size_t nt, size_t from,
                          const slot *s, const eg_segment *sg, const eg_segment *next);

/* Is slots[k] of the ns one of values offered as alternatives ("violin or gayageum")? */
bool eg_sf_alternative(const token *t, const slot *slots, size_t ns, size_t k);

/* The name of the object type of slot type bits, as facts carry it ("org" is "organization",
 * "car" a "product"; statefacts_load.c). */
const char *eg_sf_type_name(const eg_statefacts *sf, unsigned bits);
/* The relations (bit r) that take a value of one of the types bits (statefacts_load.c). */
unsigned eg_sf_takers(const eg_statefacts *sf, unsigned bits);
/* The one relation that takes a value of the types bits; -1 when none or more than one do. */
int eg_sf_only_taker(const eg_statefacts *sf, unsigned bits);
/* Is the place part in the place whole, as WordNet has it ("Oslo" in "Norway"; @within)? */
bool eg_sf_within(const eg_statefacts *sf, const char *part, const char *whole);

/* Names the session uses mid-sentence (where capitals mean names): "Pepper" opening a later
 * sentence is then the dog, not the spice. */
#define SESSION_NAMES 64
#define SESSION_KINDED 8

typedef struct session_names {
  char w[SESSION_NAMES][32];
  size_t n;
  const eg_statefacts_known *known;    /* values named in full elsewhere, or NULL */
  eg_statefacts_known held;            /* the user's held values (eg_enrich_ctx.held), as known */
  size_t held_ix[EG_STATEFACTS_KNOWN]; /* … and the index of each in eg_enrich_ctx.held */
  bool held_word[EG_STATEFACTS_KNOWN]; /* … and whether it is a word, no name (eg_held.literal) */
  bool pending; /* a value in prospect (eg_enrich_ctx.prospects): "got it!!" may tell of it */
  int won;      /* … the relation of all of them (-1: none, or several): what "[+]" reads */
  char kinded[SESSION_KINDED][32]; /* names a "he" or "she" after them is said to be a kind of */
  unsigned kinded_bits[SESSION_KINDED]; /* … and that kind's bits ("X hates rain. She's a …") */
  size_t n_kinded;
} session_names;

/* A capitalised span [i, j): its lower-case text, the last word's clitic "'s" aside ("York's":
 * "york"). */
void eg_sf_span_key(const token *t, size_t i, size_t j, char *out, size_t len);
/* Add value to k (lower case, one space between words) with its types bits; an empty value
 * or a full k adds nothing. */
void eg_sf_known_add(eg_statefacts_known *k, const char *value, unsigned bits);
/* Where a value that ends at token te (exclusive) ends in text: before a clitic "'s" or "’s"
 * ("Rania's moving in", "Rex's bowl": the name is Rania, Rex). */
size_t eg_sf_value_end(const char *text, const token *t, size_t te);
/* The slots of the clause [from, to) (said: in the speaker's own words), into out
 * (MAX_CANDS): its names and typed nouns, else a word standing for *last; *last follows the
 * values named. */
size_t eg_sf_clause_slots(const eg_statefacts *sf, const session_names *sn, const token *t,
                          size_t from, size_t to, bool said, slot *last, slot *out);
/* "here" and "it" stand for a value the speaker holds now, not for one just named as former
 * ("Back when I lived in X … I survived last winter here") or as someone else's ("my brother
 * drives an X. it IS nice"): once s is read so, the last value is forgotten if it is s's
 * (former: only where s's status is not current). */
void eg_sf_forget_value(slot *last, const slot *s);
void eg_sf_forget_former(slot *last, const slot *s);
/* The index of a relation the prototypes know, or -1. */
int eg_sf_relation(const eg_statefacts *sf, const char *relation);
/* The held values of ctx that name an entity of a known relation, into sn->held; whether it
 * holds a value in prospect, into sn->pending. */
void eg_sf_learn_held(const eg_statefacts *sf, const eg_enrich_ctx *ctx, session_names *sn);
/* The names text uses mid-sentence, into sn; and the names a "he" or "she" after them is said
 * to be a kind of (eg_sf_kinded). */
void eg_sf_learn_names(const eg_statefacts *sf, const char *text, session_names *sn);
/* The kind bits of the one-word name w (lower case) that sn learned a "he" or "she" is said to
 * be of; 0. */
unsigned eg_sf_kinded(const session_names *sn, const char *w);
/* Is the name at token i given by a verb of naming and its object ("called him X")? */
bool eg_sf_named_by_verb(const eg_statefacts *sf, const token *t, size_t from, size_t i);
/* Is w a cue word that gives a name ("named", "called", "calling") rather than saying a kind? */
bool eg_sf_naming_verb(const eg_statefacts *sf, const char *w);
/* The types a kind word gives a name after it ("beagle", "gf"); 0 for a naming verb. */
unsigned eg_sf_kind_bits(const eg_statefacts *sf, const char *w);
/* Is the word a noun as it stands: in lower case, a common word of WordNet, and no
 * determiner, joint, verb form, adverb in -ly or word in -ing? */
bool eg_sf_plain_noun(const eg_statefacts *sf, const token *w);
/* Does the word at q qualify the noun after it, no kind word nor a cross ("a dog person", "a
 * labrador fan", "our dog walker"; not "a collie cross", "a lab mix", "a beagle puppy")? It is
 * no kind said then, the noun after it is. */
bool eg_sf_qualifier(const eg_statefacts *sf, const token *t, size_t q, size_t to);
/* The speaker's own words of segment sg, its tokens t[0, nt), as tokens [*a, *b) (all of them
 * when the segment says none apart: said_to 0; statefacts_markers.c). */
void eg_sf_said_tokens(const token *t, size_t nt, const eg_segment *sg, size_t *a, size_t *b);
/* The kind the message says the name at tokens [vs, ve) is of, when its type (of `types`) keeps
 * one (@kinds): a kind word of that type in the speaker's words [from, to), the nearest in the
 * name's sentence, else the only one the message says; not one someone else owns ("her dog").
 * Into out[n] as the value it names ("puppy": dog, by @same); false when none
 * (statefacts_kind.c). */
bool eg_sf_kind_of_name(const eg_statefacts *sf, const token *t, size_t from, size_t to, size_t vs,
                        size_t ve, unsigned types, char *out, size_t n);
/* A name in apposition to a common word of its type just before it ("we're going electric, a
 * Hyundai Ioniq 5", "I've gone electric: a Nissan Leaf"), after "with a" ("gone electric with a
 * Renault Zoe") or right after it when the word is an adjective too ("a small electric Renault"),
 * says which one that is: the word stays the slot, the name becomes its value and no slot of its
 * own; one set off after a name as the speaker's ("X, our beagle, …") is its kind, no slot. The
 * slots' count after it. */
size_t eg_sf_renamed(const eg_statefacts *sf, const token *t, slot *out, size_t n);

/* Is the name at token i (of a clause opening at from) given by a naming phrase ("her name is
 * X", "name's X") or a verb of naming and its object ("called him X")? Then 1 + the index of
 * the word it names: the nearest kind word before it in the message ("Adopted a kitten! Named
 * her X"), else a word for a person ("seeing someone, her name is X"), or i + 1 for none; *bits
 * gets the type (a naming verb's own cue type with no word), *phrase where the naming words
 * open ("his" of "his name's X"). 0 when not given. */
size_t eg_sf_given_to(const eg_statefacts *sf, const token *t, size_t from, size_t i,
                      unsigned *bits, size_t *phrase);
/* Is [i, j) coordinated with the speaker as the subject opening a (sub-)clause, after words that
 * only lead into it or not ("X and I", "Last week X and I")? */
bool eg_sf_with_me(const token *t, size_t from, size_t to, size_t i, size_t j);
/* The slots of the clause [from, to) into out (at most max); how many. */
size_t eg_sf_find_slots(const eg_statefacts *sf, const session_names *sn, const token *t,
                        size_t from, size_t to, slot *out, size_t max);

/* ---- predicates (statefacts.c) ----------------------------------------------------------- */

/* Where the slot's own predicate starts (statefacts_words.c), looking back from it no further
 * than a (b: where its sub-clause ends). An "and" right before the slot and its determiners,
 * within the sub-clause, joins two objects of one predicate ("browsing flats in X and Y"),
 * unless a verb follows the slot: then the slot is the subject of a predicate of its own ("…
 * and X says she doesn't want a fuss"); so it is when the "and" opens the sub-clause (", and X
 * in January doesn't help"). goal: "to", "into" and "for" join too. */
size_t eg_sf_predicate_start(const eg_statefacts *sf, const token *t, size_t a, size_t b,
                             const slot *s, bool goal);
/* The slot's predicate [*a, *b) between the words that open clauses in [from, to); with
 * `shared`, one without its own subject reaches back to the one whose subject it shares. */
void eg_sf_predicate_span(const token *t, size_t from, size_t to, const slot *s, bool shared,
                          size_t *a, size_t *b);
/* Is the predicate opening at p governed by a past marker ending in its joint ("back when")? */
bool eg_sf_past_clause(const eg_statefacts *sf, const token *t, size_t a, size_t p);

/* statefacts_status.c: what the words around a value say of its state. */
/* The kind word (of bits) closing an apposition of the speaker's right after a name ending at
 * te, within [te, to): "X, our beagle, …", "X, my old cat, …" (0: none). */
size_t eg_sf_apposed_kind(const eg_statefacts *sf, const token *t, size_t te, size_t to,
                          unsigned bits);
/* Is the slot named as what a topic is of ("learning about the history of the X"; not "worried
 * about the state of my X"): no one's value? */
bool eg_sf_topic_of(const token *t, size_t from, const slot *s);
/* Do the words [q, ts) before a value leave it its predicate's subject ("my dog X", "our X")? */
bool eg_sf_opens_predicate(const eg_statefacts *sf, const token *t, size_t q, size_t ts);
/* Is t[i] "old" telling an age ("a 12 week old X", "three years old")? */
bool eg_sf_age_old(const eg_statefacts *sf, const token *t, size_t i);
/* Does "from" before the slot qualify the noun before it, naming a source ("the offer from X")? */
bool eg_sf_source_of_noun(const eg_statefacts *sf, const token *t, size_t from, const slot *s);
/* Is the slot's state said to end by a word of ending of its own ("sold the X", "X and I split
 * up") within the clause [from, to)? */
bool eg_sf_ended_by_word(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                         const slot *s);
/* The slot's status in the clause [from, to): current, former or not asserted. */
slot_status eg_sf_status_of(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                            const slot *s);
/* What a form of "we" stands for with the one named before it ("we're" → "X and I are");
 * NULL: w is no form of "we". */
const char *eg_sf_we_form(const char *w);

/* ---- whose a value is (statefacts_whose.c) ----------------------------------------------- */

/* Where the value slot s names lies, in tokens: its own range, or that of the value a word
 * standing for it names ("here" for a place, "we" for the speaker and a partner). */
static inline size_t eg_sf_value_from(const slot *s) { return s->ve ? s->vs : s->ts; }
static inline size_t eg_sf_value_to(const slot *s) { return s->ve ? s->ve : s->te; }
/* A clause naming no value may still say one by a word standing for the last value named
 * before it in the same message: "here" and "there" for a place ("Can you suggest a hike
 * near Lisbon? I've lived here two years"), "it" for a thing ("Got grandpa's accordion
 * restored and I've been playing it since"). The word is the slot (masked as X), the
 * earlier name its value. 1 with *out set, else 0. */
size_t eg_sf_proform(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                     const slot *last, slot *out);
/* Can the name who (a slot, or the value it stands for) be the one "we" pairs the speaker
 * with in the clause [from, to): a person's name, with no word there for another kind of value
 * it may name ("X is my dog now, we adopted her"), not placed by a preposition ("met at X", "in
 * X": a place more likely; "ran into X", "talked to X" may be a person) nor after an article
 * (a thing's: "on the X payments team and we ship …"), nor owned by a word for someone else's
 * person ("my sister Anna"; a partner's word like "gf" is the speaker's)? */
bool eg_sf_pairable(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                    const slot *who);

/* Is s right after a person's possessive, theirs wherever it stands ("my friend's dog X",
 * "my neighbour's X"; not one the speaker takes: "I took dad's X")? */
bool eg_sf_of_a_possessor(const eg_statefacts *sf, const token *t, size_t from, const slot *s);
/* Is t[i] a noun for a person ("sister", "neighbour's", "parents")? */
bool eg_sf_person_noun(const eg_statefacts *sf, const token *t, size_t i);
/* Is w a possessive of the speaker's ("my", "our")? */
bool eg_sf_ours(const char *w);
/* Do the three words before t[i] say how long what the word before them has lasted, set off
 * ("my husband of 20 years, X")? */
bool eg_sf_lasted(const eg_statefacts *sf, const token *t, size_t from, size_t i);
/* Is w a possessive of someone other than the speaker ("his", "her", "their", "your", "its")? */
bool eg_sf_theirs(const char *w);
/* Does the clause [from, to) tell of a change of someone of the speaker's, none of it theirs
 * ("my parents split up", "my sister quit her job"; not "my gf dumped me", "my sister and I
 * moved out")? No word on the speaker's states. */
bool eg_sf_others_change(const eg_statefacts *sf, const token *t, size_t from, size_t to);
/* Is the clause [from, to) about someone else than the user, as far as slot s goes ("my sister
 * lives in X", "showing off his X")? */
bool eg_sf_about_someone_else(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                              const slot *s);
/* Has the speaker been at the name of slot s, in the clause [from, to) of text said at `said`,
 * for a stretch of time up to now: the speaker's "I've been at" (or "been at" opening the
 * clause) right before it, and right after it a duration or a start ("I've been at X for about
 * a year and a half", "been at X since 2019"; a month or more, not a stay of days; not "she's
 * been at X", "I had been at X")?
 * A place one lives "in"; one is "at" an institution one belongs to. */
bool eg_sf_tenure(const char *text, const token *t, size_t from, size_t to, const slot *s,
                  int64_t said);

/* The relations (bit r) a noun of the user's placed at the name s says ("my team at X",
 * "our landlord here in X"; @holds), *own_at the owner's distance before the name; 0: none. */
unsigned eg_sf_held_through(const eg_statefacts *sf, const token *t, size_t from, const slot *s,
                            size_t *own_at);

/* Where the noun placed at a name starting at token ts stands in such a phrase: right before
 * its preposition, or before "here" there ("our landlord here in X"). */
size_t eg_sf_held_noun(const token *t, size_t from, size_t ts);
/* The word between the owner and such a noun, own_at words before the name s ("old" in "my old
 * boss at X", "new" in "our new landlord here in X"); 0 for none. */
size_t eg_sf_held_modifier(const token *t, size_t from, const slot *s, size_t own_at);
/* The relations (bit r) by which the speaker has the people the sentence [from, to) names as
 * theirs (@holds nouns for people: "my manager promised me a review", "my new colleagues"; not
 * "my team", "my contract"). */
unsigned eg_sf_speakers_nouns(const eg_statefacts *sf, const token *t, size_t from, size_t to);
/* The relation (bit r) that "new" and a word asking for a state's kind name right before the
 * slot say ("new city (X)", "new job: X", "new car, X": @ask), the one taking that kind; 0. */
unsigned eg_sf_newly_named(const eg_statefacts *sf, const token *t, const slot *s);
/* The relations (bit r) the noun right before the name s and its preposition says begin there
 * ("my probation at X", "onboarding at X"; @begins), the noun no one else's ("her probation",
 * "my sister's onboarding"); 0: none. */
unsigned eg_sf_begins_at(const eg_statefacts *sf, const token *t, size_t from, const slot *s);
/* Is s a name of a known type the user owns ("my X", "our new X"; not "my dog X")? */
bool eg_sf_owned_name(const eg_statefacts *sf, const token *t, size_t from, const slot *s);
/* … and one a verb of acquiring (@acquires) takes right before the owner ("got my own X",
 * "picked up our new X"): the user's from then, not a name only owned in passing. */
bool eg_sf_acquired(const eg_statefacts *sf, const token *t, size_t from, const slot *s);
/* A possessive's reading of s ("my dog X", "my team at X"): its status set and the phrase
 * [*a, *b) to embed; nothing changed when no possessive owns it. */
void eg_sf_possessed(const eg_statefacts *sf, const token *t, size_t from, size_t to, slot *s,
                     size_t *a, size_t *b);
/* Does a question take the value s for granted ("… for my girlfriend X?", "As a X, …")? */
bool eg_sf_presupposed(const eg_statefacts *sf, const token *t, size_t from, const slot *s);

/* ---- clauses (statefacts_clause.c) ---- */

/* Is the slot said to be home, the speaker's by the bare word ("X is home now", "home is X")? */
bool eg_sf_home_of_speaker(const token *t, size_t from, size_t to, const slot *s);
/* Does the sentence [from, to) speak of the speaker (with `fragments`, verbless ones too)? */
bool eg_sf_speaks_of_self(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                          bool fragments);
/* Is token i of the clause [from, to) in what a question asks? */
bool eg_sf_asked(const token *t, size_t from, size_t to, size_t i);
/* The start of the day after the day `said` that the predicate of the slot [ts, te) names, or
 * 0: a plan, not a state. */
int64_t eg_sf_dated_later(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                          size_t ts, size_t te, const eg_date *dates, size_t nd, int64_t said);
/* Has [from, to) no verb of its own up to its first joint ("First week in X")? */
bool eg_sf_verbless(const eg_statefacts *sf, const token *t, size_t from, size_t to);
/* Is slot s in a predicate of the user's (with `fragments`, a verbless one too)? */
bool eg_sf_users_predicate(const eg_statefacts *sf, const token *t, size_t from, size_t to,
                           const slot *s, bool fragments);
/* Does the sub-clause [a, b) of the clause [from, to), after a comma, open with a verb whose
 * subject chat dropped, the speaker, as every sub-clause before it in its sentence is the
 * speaker's ("need help with a council tax query, moved from Leeds to X")? */
bool eg_sf_subject_carried(const eg_statefacts *sf, const token *t, size_t from, size_t a,
                           size_t b);
/* Does the sentence opening at `from` drop "I am" before "a"/"an" ("officially a X person")? */
bool eg_sf_copula_dropped(const eg_statefacts *sf, const token *t, size_t from);

#endif
