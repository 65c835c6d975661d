/*
 * test_statefacts.c — the prototype extractor on sentences written for this test (none is
 * taken from a benchmark): each relation said in several ways, typed slots, tense and
 * negation, doubts, and the daemon's fallback when the model is missing. Values the user
 * holds and values of the past: test_statefacts_held.c.
 *
 * Needs the USE-lite model (scripts/install-deps.sh) and WordNet; skips without the model.
 */
#include "common/map.h"
#include "lang/wordnet.h"
#include "tests/unit/statefacts_check.h"

/* … its first fact of the prototypes. */
static const eg_fact *read_one(eg_arena *a, const char *text, eg_enriched *out) {
  if (read_in(a, &ctx, text, out) != EG_OK) return NULL;
  return out->n_facts ? &out->facts[0] : NULL;
}

static void test_each_relation_in_other_words(void) {
  static const expect x[] = {
      {"Home for me is Porto these days.", "LIVES_IN", "Porto"},
      {"We finally finished unpacking in Edinburgh.", "LIVES_IN", "Edinburgh"},
      {"I have been renting a flat in Osaka since March.", "LIVES_IN", "Osaka"},
      {"These days I am an engineer at Hooli.", "WORKS_AT", "Hooli"},
      {"I accepted a position at Initech.", "WORKS_AT", "Initech"},
      {"I cut out meat and dairy completely, I am vegan.", "DIET", "vegan"},
      {"I have been eating keto for two months.", "DIET", "keto"},
      {"My boyfriend Luca cooked dinner for us.", "PARTNER_OF", "Luca"},
      {"I have been seeing Hannah for a few months.", "PARTNER_OF", "Hannah"},
      {"My wife Fiona's 50th is next month.", "PARTNER_OF", "Fiona"}, /* not "Fiona's 50th" */
      /* a word after a cue is a name, whatever else it is: "tom" is a male cat to WordNet */
      {"My boyfriend Tom is great.", "PARTNER_OF", "Tom"},
      {"I am now driving a Subaru Outback.", "DRIVES", "Subaru Outback"},
      {"Our puppy Biscuit chewed my shoes.", "HAS_PET", "Biscuit"},
      {"We brought home a kitten called Mochi.", "HAS_PET", "Mochi"},
      {"I have taken up the ukulele.", "PLAYS", "ukulele"},
      {"I practise the piano every evening.", "PLAYS", "piano"},
      {"Jonas and I just celebrated six months together.", "PARTNER_OF",
       "Jonas"},                                                      /* a name opens it */
      {"Bruno, our new beagle, is settling in.", "HAS_PET", "Bruno"}, /* an apposition */
      {"Cyberdyne hired me as a data scientist.", "WORKS_AT", "Cyberdyne"},
      /* a car by its make, "my X" of a known type, a value a question takes for granted */
      {"My Ford Focus makes a grinding noise when I brake.", "DRIVES", "Ford Focus"},
      {"How often should I change the oil on my Honda Civic?", "DRIVES", "Honda Civic"},
      /* a make alone is the car, or the firm that makes it */
      {"Just picked up my new Tesla!", "DRIVES", "Tesla"},
      /* a name after a model year is a car (@year), in lower case too */
      {"Just bought a 2016 Prius.", "DRIVES", "Prius"},
      {"sold the old one and got a 2014 octavia!", "DRIVES", "octavia"},
      {"I work at Ford.", "WORKS_AT", "Ford"},
      {"Any gift ideas for my girlfriend Rosa?", "PARTNER_OF", "Rosa"},
      /* a name given to a kind word, or beside one, is the pet; the kind word is no value */
      {"Adopted a kitten! Named her Luna.", "HAS_PET", "Luna"},
      {"We adopted a little tabby and the kids named her Miso.", "HAS_PET", "Miso"},
      {"Nugget, my hamster, escaped again.", "HAS_PET", "Nugget"},
      /* … or, with no kind word before it, a word for a person: a person's name */
      {"I've started seeing someone, her name is Priya.", "PARTNER_OF", "Priya"},
      /* … or a name in apposition to "someone" says who that is */
      {"I've been seeing someone: Mateo. We met at a salsa class.", "PARTNER_OF", "Mateo"},
      {"I met someone, Jonas, at the climbing wall and we have been together since June.",
       "PARTNER_OF", "Jonas"},
      {"My sister is seeing someone: Tom.", NULL, NULL},
      /* … with an adjective after it, and where the one spoken of is from is theirs */
      {"So I'm seeing someone new \u2014 Eli, he is from Canada, we met at the climbing gym!",
       "PARTNER_OF", "Eli"},
      {"I'm seeing someone new, he is from Canada", NULL, NULL},
      {"I work somewhere new, Monzo, since March.", "WORKS_AT", "Monzo"},
      {"We got a dog for my son, his name is Max.", "HAS_PET", "Max"},
      /* a name a cue word "is called" is the user's one of that kind; a relative's is theirs */
      {"My boyfriend is called Felix, he's a nurse.", "PARTNER_OF", "Felix"},
      {"Our new puppy is called Mango.", "HAS_PET", "Mango"},
      {"My sister is called Anna.", NULL, NULL},
      {"Our beagle Biscuit howls whenever we leave the house.", "HAS_PET", "Biscuit"},
      /* a sentence with no verb is the speaker's note; one with a verb of its own is not */
      {"Two weeks fully vegetarian now.", "DIET", "vegetarian"},
      {"meet Pip, 2 yo terrier cross, huge ears.", "HAS_PET", "Pip"},
      /* … after the word that joins it to what came before too */
      {"And now Tallinn, finally.", "LIVES_IN", "Tallinn"},
      {"So Tallinn was fun but we are home now.", NULL, NULL},
      /* … and one saying what the speaker is is read with the "I am" it dropped */
      {"officially a Rotterdam person and loving it", "LIVES_IN", "Rotterdam"},
      {"A Lisbon friend of mine is visiting next week.", NULL, NULL},
      /* "it's been" with no referent is the speaker's own time */
      {"I took the plunge and it's been a fortnight at Kestrel Valley Clinic.", "WORKS_AT",
       "Kestrel Valley Clinic"},
      /* a sentence opening with a verb in "-ing" is what the speaker is doing */
      {"Living in Lisbon is great.", "LIVES_IN", "Lisbon"},
      {"Loving the new job at Acme.", "WORKS_AT", "Acme"},
      /* … and so is one opening with a past verb after an adverb of time */
      {"Just moved to Glasgow!", "LIVES_IN", "Glasgow"},
      {"Just started a new job at Merrow Clinics!", "WORKS_AT", "Merrow Clinics"},
      /* a possessive inside an institution's name is part of it */
      {"I'm a nurse at St Mary's Hospital.", "WORKS_AT", "St Mary's Hospital"},
      {"Oslo hosted the winter games in 1952.", NULL, NULL},
      {"Test-drove a Tesla Model 3 today just for fun.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* Moving *from* X, "used to", plans and negation assert nothing current: they doubt. */
static void test_tense_and_negation(void) {
  static const expect x[] = {
      {"I moved from Madrid to Oslo.", "LIVES_IN", "Oslo"},
      /* "from" after a noun names where the noun came from, neither a value left behind nor
       * one held: an offer is no job unless taken (@takes) — a word on the state */
      {"I turned down the offer from Orbitrail.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"I got an offer from Orbitrail yesterday.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"I accepted the offer from Orbitrail and started on Monday.", "WORKS_AT", "Orbitrail"},
      {"I'm originally from Leeds.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      /* what a thing does from X: X its cause, nothing the user left (an instrument, played) */
      {"My fingers hurt from the ukulele.", "PLAYS", "ukulele"},
      {"I used to live in Toronto.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      /* … but being used to a thing is no past */
      {"Still getting used to Leeds, the hills are brutal.", "LIVES_IN", "Leeds"},
      {"I'm used to Leeds now.", "LIVES_IN", "Leeds"},
      /* a past verb of a state moving somewhere tells an event: the new car is driven now */
      {"lol i traded in the civic this weekend and drove home a tesla model 3.", "DRIVES",
       "tesla model 3"},
      {"We are thinking about moving to Seattle.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      /* a value only tried or visited is no state */
      {"I test-drove a Tesla Model 3 today, what a car.", EG_STATE_UNCERTAIN, "DRIVES"},
      {"Mum says I can get a leopard gecko for my birthday.", EG_STATE_UNCERTAIN, "HAS_PET"},
      /* a kind word that qualifies a noun is not the value beside another */
      /* WordNet's "cat" is also a man: a kind of pet is no person whose pet it would be */
      {"Not a kitten: an elderly cat from the shelter. She came with the name Juniper.", "HAS_PET",
       "Juniper"},
      {"I play flute in a wind quintet.", "PLAYS", "flute"},
      /* an instrument WordNet lacks (@type words); a reed is the clarinet's, no instrument */
      {"I picked up a secondhand keyboard and I'm learning jazz chords.", "PLAYS", "keyboard"},
      {"Is it me or the reed?", NULL, NULL},
      /* a name given in lower case by a verb of naming and its object */
      {"got the gecko!! called him kevin. whats the right temp for the tank", "HAS_PET", "kevin"},
      {"My doctor steered me off keto, so I follow a Mediterranean diet now.", "DIET",
       "mediterranean"},
      /* an application is a plan, not a job */
      {"I applied for a research post at Ferncliff University.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"I no longer work at Initech.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"I quit my job at Globodyne in May.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"I sold my Jeep Wrangler.", EG_STATE_UNCERTAIN, "DRIVES"},
      {"I am not vegetarian anymore.", EG_STATE_UNCERTAIN, "DIET"},
      {"We broke up last week.", EG_STATE_UNCERTAIN, "PARTNER_OF"},
      {"Sam and I split up.", EG_STATE_UNCERTAIN, "PARTNER_OF"}, /* the name is the subject */
      /* … not a name after a verb with "and I" opening the next clause */
      {"Tom moved to Leeds and I miss him", NULL, NULL},
      {"Callum and I are done.", EG_STATE_UNCERTAIN, "PARTNER_OF"},
      /* … and of what "and I" say together; "tom" is a male cat too, no company */
      {"Tom and I are not together anymore.", EG_STATE_UNCERTAIN, "PARTNER_OF"},
      {"Tom and I just moved in together.", "PARTNER_OF", "Tom"},
      /* the latest word on a state in a message stands; an ending of another value does not
       * end the one read */
      {"Tasha moved to Seattle and we tried long distance, but we broke up.", EG_STATE_UNCERTAIN,
       "PARTNER_OF"},
      {"I quit Initech and joined Globex last week.", "WORKS_AT", "Globex"},
      /* a state said in words with no value to read */
      {"I live somewhere new now, the old flat is history.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      /* the predicate the slot is in is not the user's */
      {"I drive a Mazda 3 and the AC is blowing warm air.", "DRIVES", "Mazda 3"},
      {"My dad is paleo now and keeps lecturing me about protein.", NULL, NULL},
      /* a subject dropped, as chat does; a plan dated after the day it was said */
      {"Traded in the old hatchback for a Subaru Outback last week.", "DRIVES", "Subaru Outback"},
      {"We might move to Lisbon next month.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      /* … after a comma, where every sub-clause before it is the speaker's: a verb of theirs,
       * "I", or no verb and no one at its head; not another subject's */
      {"long day, moved into the new flat in Leith", "LIVES_IN", "Leith"},
      {"sorry for the delay, been settling into the new job at Arup", "WORKS_AT", "Arup"},
      {"quick q, just switched to a vegan diet, what about b12?", "DIET", "vegan"},
      {"need help with a council tax query, moved from Leeds to York in March", "LIVES_IN", "York"},
      {"mum, moved to Derby last weekend", NULL, NULL},
      {"my neighbour, moved to Derby last weekend, keeps texting", NULL, NULL},
      {"The dog is a mess, moved to Derby last weekend and he hates it", NULL, NULL},
      {"I'm comparing a Tesla Model 3 with a Hyundai Kona Electric.", EG_STATE_UNCERTAIN, "DRIVES"},
      /* possessive and cue: the partner is current whatever the clause plans */
      {"I am taking my boyfriend Tomas to Rome next week.", "PARTNER_OF", "Tomas"},
      {"My dog Rex passed away last week.", EG_STATE_UNCERTAIN, "HAS_PET"},
      /* a word of ending in a habit ends nothing: it goes on */
      {"My boyfriend Rafa keeps leaving dishes in the sink.", "PARTNER_OF", "Rafa"},
      /* a name ending like an adverb, a name before a verb: the opener is a subject */
      {"Emily moved to Lisbon.", NULL, NULL},
      {"Jared adopted a kitten called Mochi.", NULL, NULL},
      /* a possessive keeps its predicate's tense and negation; a date elsewhere is no plan */
      {"I used to walk my dog Rex every day.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"Bruno, our new beagle, is settling in, the vet visit is next Tuesday.", "HAS_PET", "Bruno"},
      {"My dog Rex is no longer with us.", EG_STATE_UNCERTAIN, "HAS_PET"},
      /* the user as an object before the slot is still the user */
      {"My sister and me moved to Lisbon.", "LIVES_IN", "Lisbon"},
      /* another subject's predicate, a contraction */
      {"I work from home and Sam works at Initech.", NULL, NULL},
      {"We've adopted a kitten.", NULL, NULL},
      /* a capital does not take a word's common sense away */
      {"I've switched from keto to a Mediterranean diet.", "DIET", "mediterranean"},
      /* "we've" is no name, a dash bounds a sub-clause */
      {"Boxes unpacked — we've been living in Bergen for a week now!", "LIVES_IN", "Bergen"},
      {"I resigned from Initech.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      /* the last day somewhere reads like the first one: the words say it ended */
      {"Friday was my last day at Initech.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"I traded my old hatchback for a Kia Sportage.", "DRIVES", "Kia Sportage"},
      /* a word of ending past another subject that gives to the user is no ending */
      {"The Ford Focus my dad left me needs new tyres.", "DRIVES", "Ford Focus"},
      {"The Ford Focus my dad sold us is still going strong.", "DRIVES", "Ford Focus"},
      /* someone else's old one is no former value of the user's */
      {"my sister gave me her old Honda Civic.", "DRIVES", "Honda Civic"},
      {"I'm driving his old Honda Civic now.", "DRIVES", "Honda Civic"},
      /* a name in apposition to a word of its type says which one (after a colon too, not
       * after a heading's) */
      {"I've gone electric, a Nissan Leaf.", "DRIVES", "Nissan Leaf"},
      {"we're going electric: a Hyundai Ioniq 5, handover on Friday.", "DRIVES", "Hyundai Ioniq 5"},
      {"Life update: a year in Lisbon already!", "LIVES_IN", "Lisbon"},
      {"Should I move to Lyon?", NULL, NULL},
      /* a predicate with no verb after a comma and a joint drops the speaker as its subject */
      {"I started eating eggs again because the doctor said iron matters while training, so "
       "technically vegetarian now.",
       "DIET", "vegetarian"},
      {"my sister moved to Leeds, and now a vegan.", NULL, NULL},
      /* a question's sub-clause that asks nothing says something */
      {"I've gone pescatarian, any easy fish recipes?", "DIET", "pescatarian"},
      {"Now that I'm based in Denver, what are good day hikes nearby?", "LIVES_IN", "Denver"},
      /* … nor does a clause it takes as given, the speaker's ("now that I", "since we") */
      {"what should I plant on my balcony now that we've moved to Leeds?", "LIVES_IN", "Leeds"},
      {"can you suggest vegan snacks since I went vegan last month?", "DIET", "vegan"},
      {"what's a good first song to learn now that I've started the ukulele?", "PLAYS", "ukulele"},
      {"what should I pack if I move to Leeds?", NULL, NULL},
      {"what should I get my sister since she moved to Leeds?", NULL, NULL},
      /* … nor one that opens the question, the asking after it */
      {"since I'm retired would it make sense to move to Spain?", NULL, NULL},
      {"since I'm bored should I learn the cello?", NULL, NULL},
      {"If I move to Lyon, should I learn French?", NULL, NULL},
      {"When we get to Lyon, what should we see first?", NULL, NULL},
      /* … and so does what a pictograph parts from what it asks */
      {"just moved to Lisbon 😍 where should I eat?", "LIVES_IN", "Lisbon"},
      {"got a Kia Sportage 🎉 what should I check first?", "DRIVES", "Kia Sportage"},
      {"should I move to Lyon 🤔 what do you think?", NULL, NULL},
      /* a pictograph parts sentences: a verb after it opens one of the speaker's */
      {"it's official 😅 adopted a beagle called Bruno yesterday.", "HAS_PET", "Bruno"},
      /* the noun the slot qualifies is former */
      {"My old colleagues at Initech threw me a party.", EG_STATE_UNCERTAIN, "WORKS_AT"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* Slots of the wrong type, other people's states and small talk give nothing. */
static void test_no_false_states(void) {
  static const expect x[] = {
      {"My sister lives in Dublin.", NULL, NULL},
      {"I visited Prague last spring.", NULL, NULL},
      {"I read a great article about Berlin.", NULL, NULL},
      {"My brother works at Stark Industries.", NULL, NULL},
      {"My dad drives a Volvo.", NULL, NULL}, /* someone else's state */
      {"My neighbour's dog Max barks all night.", NULL, NULL},
      {"I listened to a cello concerto last night.", NULL, NULL},
      {"The weather is lovely today.", NULL, NULL},
      /* a language's name (by its first sense) is none of the user's values */
      {"Hello! Can you check my English in this email?", NULL, NULL},
      {"I have been seeing Maya for a month.", "PARTNER_OF", "Maya"}, /* a people first */
      /* a family of instruments is no instrument played: the wind is weather, a brass band
       * says the user plays without saying what */
      {"I love cycling home against the wind.", NULL, NULL},
      {"how do i stop this? also my sister's husky Nova is visiting for a week", NULL, NULL},
      {"I play in a brass band now.", EG_STATE_UNCERTAIN, "PLAYS"},
      {"Can you recommend a book?", NULL, NULL},
      /* things used, tried or wanted: a product's name is no car, "I'll" is a plan */
      {"I've been using Netflix for a while.", NULL, NULL},
      {"I think I'll try the Roasted Sweet Potato Fries.", NULL, NULL},
      {"I'm particularly interested in the Kalamazoo Greek Fest.", NULL, NULL},
      {"A friend of mine works at Stark Industries.", NULL, NULL},
      {"friend of mine just relocated to Hyderabad for work.", NULL, NULL}, /* article dropped */
      {"My parents keep asking about flats. They live in Leeds now and want something smaller.",
       NULL, NULL},
      /* whose it is, the words say (no prototype of someone else's state is needed) */
      {"My neighbour just bought a Tesla Model 3.", NULL, NULL},
      {"My coworker got a Kia Sportage and won't stop bragging.", NULL, NULL}, /* co-worker */
      {"My son plays the cello in the school orchestra.", NULL, NULL},
      {"My friend went vegan last month.", NULL, NULL},
      /* a name after a noun for a person that is no partner's names that person */
      {"My colleague Priya cooked dinner for the team.", NULL, NULL},
      {"My sister Priya is getting married.", NULL, NULL},
      /* a word in lower case with a plural verb after it is no name */
      {"Dating apps are exhausting.", NULL, NULL},
      /* a word for a kind of person qualifying a person is that person's */
      {"My vegan friend is coming for dinner on Saturday.", NULL, NULL},
      {"The vegetarian guests need a main course too.", NULL, NULL},
      /* a name given to a person is no pet's, whatever the naming word cues */
      {"There is a girl named Ruth in my pottery class.", NULL, NULL},
      /* a word in -ing after an article qualifies the next word, no verb whose object would
       * be a name: "app" is no word of WordNet 3.0's */
      {"Help me write a dating app bio.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A capitalised sentence opener that is an English word is no name: WordNet knows its base
 * form, irregular ("Took", from the exception lists) or regular ("Moved", "Cities"); a
 * pronoun is never one. */
static void test_openers_are_words(void) {
  eg_wordnet_words wn;
  eg_err e;
  EG_REQUIRE(eg_wordnet_words_load(NULL, &wn, &e) == EG_OK);
  const uint64_t *words = wn.common;
  size_t n = wn.n_common;
  const char *const common[] = {"took", "moved", "cities", "drives", "bigger", "mice", "harp"};
  for (size_t i = 0; i < sizeof common / sizeof *common; i++)
    if (!EG_CHECK(eg_wordnet_is_common(words, n, common[i]))) fprintf(stderr, "  %s\n", common[i]);
  EG_CHECK(!eg_wordnet_is_common(words, n, "jonas"));
  EG_CHECK(!eg_wordnet_is_common(words, n, "cyberdyne"));
  /* a present in -s, for a sentence with no verb: "lives", "watches", "carries" may be one;
   * "months", "kilos", "is" (the present of be is told apart by its caller) are not */
  const eg_wordnet_verbset *v = &wn.verbs;
  EG_CHECK(eg_wordnet_is_present3(v, "lives") && eg_wordnet_is_present3(v, "watches") &&
           eg_wordnet_is_present3(v, "carries"));
  EG_CHECK(!eg_wordnet_is_present3(v, "months") && !eg_wordnet_is_present3(v, "kilos") &&
           !eg_wordnet_is_present3(v, "is") && !eg_wordnet_is_present3(v, "boss"));
  eg_wordnet_words_free(&wn);
  static const expect x[] = {
      {"They hired me at the bakery last week.", NULL, NULL},
      {"Took the Seabird to the coast yesterday, what a drive.", NULL, NULL},
      /* but a name whose last word says what it is keeps its first word */
      {"Summit Labs hired me as a data engineer last month.", "WORKS_AT", "Summit Labs"},
      /* a name given to a noun of no known kind is of no kind a naming word cues (a pet) */
      {"I joined a startup called Marrowbyte.", "WORKS_AT", "Marrowbyte"},
      /* words of WordNet's joined by a hyphen are a word too */
      {"Work-wise, I'm now freelancing full time after leaving the BBC.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

static bool collect_form(void *ctx, const char *form, bool present) {
  (void)present;
  return eg_map_put(ctx, form, strlen(form), (void *)1) == EG_OK;
}

/* A verb that ends a state is read in any of its forms and troponyms (WordNet, @ends), not
 * only the phrases the file lists; a past clause governs what follows "back when"; a name
 * before a known place is part of it; a long clause is read again by the words near its
 * slot when it says nothing as a whole; a car's make opens a name in lower case too; a
 * name's clitic 's is no part of its value. */
static void test_endings_and_near_words(void) {
  eg_map *forms = eg_map_new();
  eg_err e;
  EG_REQUIRE(forms && eg_wordnet_verb_forms(NULL, (const char *[]){"discard#1"}, 1, 3, collect_form,
                                            forms, &e) == EG_OK);
  static const char *const have[] = {"ditched",  "ditching", "threw away", "throwing out",
                                     "scrapped", "gave up",  "dumped"};
  for (size_t i = 0; i < sizeof have / sizeof *have; i++)
    if (!EG_CHECK(eg_map_get(forms, have[i], strlen(have[i])))) fprintf(stderr, "  %s\n", have[i]);
  eg_map_clear(forms);
  /* only the senses a word is mostly used in: "go" and "pass" are forms of dying far down
   * their lists */
  EG_REQUIRE(eg_wordnet_verb_forms(NULL, (const char *[]){"die#1"}, 1, 3, collect_form, forms,
                                   &e) == EG_OK);
  EG_CHECK(eg_map_get(forms, "passed away", 11) && eg_map_get(forms, "dying", 5));
  EG_CHECK(!eg_map_get(forms, "go", 2) && !eg_map_get(forms, "went", 4) &&
           !eg_map_get(forms, "passed", 6));
  /* … but the root's own lemma in the sense it is named by, however far down its list:
   * "move#4" (a change of residence) is "move"'s fourth sense */
  eg_map_clear(forms);
  EG_REQUIRE(eg_wordnet_verb_forms(NULL, (const char *[]){"move#4"}, 1, 3, collect_form, forms,
                                   &e) == EG_OK);
  EG_CHECK(eg_map_get(forms, "moved", 5) && eg_map_get(forms, "moving", 6) &&
           eg_map_get(forms, "relocated", 9) && eg_map_get(forms, "emigrating", 10));
  EG_CHECK_INT(eg_wordnet_verb_forms(NULL, (const char *[]){"discard#1", "qwertyuiop#1"}, 2, 3,
                                     collect_form, forms, &e),
               EG_ENOTFOUND);
  eg_map_free(forms);
  static const expect x[] = {
      {"We scrapped the Ford Fiesta after the crash.", EG_STATE_UNCERTAIN, "DRIVES"},
      {"Ditched the cello for good.", EG_STATE_UNCERTAIN, "PLAYS"},
      /* the value between a verb and its particles ("put X to sleep", WordNet's put_to_sleep) */
      {"We had to put our dog Pepper to sleep on Saturday.", EG_STATE_UNCERTAIN, "HAS_PET"},
      /* an apposition is dated as what it renames: a plan */
      {"we're getting a rescue pup next week, a lurcher.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"I have abandoned the keto diet.", EG_STATE_UNCERTAIN, "DIET"},
      /* a participle qualifying a noun ends nothing: the greyhound retired, not the user's pet */
      {"Last week I adopted a retired greyhound called Hazel.", "HAS_PET", "Hazel"},
      /* words that read as the state's end by the margin, with no marker of it */
      {"Our old dog Rex died last week.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"Back when I had my Honda Civic we drove to the coast every weekend.", EG_STATE_UNCERTAIN,
       "DRIVES"},
      /* a value of the same kind beside one the message ends took its place, read as the
       * ended one's relation below the bar; a negation alone ends nothing */
      {"Sold my guitar to fund a rented cello.", "PLAYS", "cello"},
      /* a word in capitals for emphasis is no name; an acronym is */
      {"My hamster Gizmo escaped AGAIN.", "HAS_PET", "Gizmo"},
      {"I just started at IKEA.", "WORKS_AT", "IKEA"},
      /* a harp that qualifies a concert is none played, and "strings" are a family of
       * instruments: nothing on what the user plays */
      {"Went to a harp concert last night, but I'd never have the patience for all those "
       "strings.",
       NULL, NULL},
      /* the district before a known place is part of it: the city is the value */
      {"Signed a lease on a flat in Kreuzberg, Berlin.", "LIVES_IN", "Berlin"},
      {"First week at Initech and the coffee is awful.", "WORKS_AT", "Initech"},
      /* a make and its model in lower case; a verb after the make is no model */
      {"I drive a kia ceed these days.", "DRIVES", "kia ceed"},
      {"just bought a used mazda cx-5 and I love it.", "DRIVES", "mazda cx-5"},
      {"my honda makes a weird noise on the motorway.", NULL, NULL},
      /* a kind of pet in capitals with no determiner names something else */
      {"Still getting used to Python after years of embedded C.", NULL, NULL},
      /* a name given right after the user's own sentence is theirs, not after a friend's */
      {"For the new flat we got a rabbit; her name is Clover.", "HAS_PET", "Clover"},
      {"We adopted a kitten. The kids named him Pickle.", "HAS_PET", "Pickle"},
      {"We adopted a kitten. My daughter named her Pickle.", "HAS_PET", "Pickle"},
      {"My friend got a cat. Her name is Misty.", NULL, NULL}, /* and no word on the user's */
      /* … nor in the same sentence: the name is of the word it names, and so is its owner */
      {"my friend got a puppy, she called him Max.", NULL, NULL},
      {"my sister adopted a kitten and named her Luna.", NULL, NULL},
      /* … and one that opens its sentence bound to its kind */
      {"Sable the ferret joined the household last week.", "HAS_PET", "Sable"},
      /* a clitic 's is no part of the name */
      {"Priya\u2019s my girlfriend now, we met at a gig.", "PARTNER_OF", "Priya"},
      {"My girlfriend Priya's birthday is next week.", "PARTNER_OF", "Priya"},
      /* someone who keeps the speaker company is no place; in lower case still a name, a
       * word for a person is none; so is a lower-case name after a kind word ("gf") */
      {"dev and i are moving in together!!", "PARTNER_OF", "dev"},
      {"Ines and I are going but ugh, paintball", "PARTNER_OF", "Ines"},
      {"Mum and I are going to the shops.", NULL, NULL},
      /* no pet's name; the "we" that argues is a couple ("X and I are arguing about …") */
      {"Lukas and I just got a puppy and we're already arguing about the crate.", "PARTNER_OF",
       "Lukas"},
      /* a lower-case word no dictionary knows, where only a name goes: a verb's object, the
       * subject opening a clause; chat's abbreviations, closed-class words and plurals are none */
      {"been seeing adebayo for about 2 months, he's cooking me dinner tonight", "PARTNER_OF",
       "adebayo"},
      {"joanna's moving in with me for lockdown, we've been together 6 months", "PARTNER_OF",
       "joanna"},
      {"idk if myself and anything during feb would work, whats the plan", NULL, NULL},
      /* … and the firm or place one is at, a firm's word after it part of the name */
      {"I started at tidewell on monday.", "WORKS_AT", "tidewell"},
      {"just got a job at quillon games, starting in march!", "WORKS_AT", "quillon games"},
      {"met someone at parkrun!! her name is Ines", "PARTNER_OF", "Ines"},
      /* a name given later in the sentence stands for the word it names where that is said:
       * "been seeing X since november" */
      {"been seeing someone since november \U0001F970 his name's Jonas and he's a chef, so "
       "cooking for him is TERRIFYING",
       "PARTNER_OF", "Jonas"},
      /* "the neighbour's": someone else's, as "my neighbour's" is */
      {"The neighbour's dog Rocket keeps digging under our fence.", NULL, NULL},
      /* a place is one WordNet knows, its capitals too; a name it does not know is one only
       * where a word places it */
      {"Cardiff is where I live now.", "LIVES_IN", "Cardiff"},
      {"I'm a data engineer and our Airflow DAGs keep timing out overnight.", NULL, NULL},
      /* … and a place it knows by its name only, in lower case too; not a word that is also a
       * place ("reading"), nor a breed WordNet writes with a capital ("chihuahua") */
      {"we finally moved to lisbon last month", "LIVES_IN", "lisbon"},
      {"we moved to new york last month, tiny flat but I love it", "LIVES_IN", "new york"},
      {"I'm reading a lot these days", NULL, NULL},
      {"my sister's chihuahua bit the postman", NULL, NULL},
      /* WordNet writes its places without accents: Krakow */
      {"These days I call Kraków home.", "LIVES_IN", "Kraków"},
      {"The neighbour's cat, Pepper, keeps coming in through our kitchen window.", NULL, NULL},
      {"gf chloe is moving in with me.", "PARTNER_OF", "chloe"},
      {"my dog walker is late again.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"new rescue pup, Rufus, lurcher mix, 8 months.", "HAS_PET", "Rufus"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A place is said with what it is in: the country the user's city is in is no new home, and a
 * city said with its country is that city, held or not; the rules read no containment
 * either. */
static void test_places_within(void) {
  static const eg_held held[] = {{"LIVES_IN", "Oslo", false}};
  eg_enrich_ctx hctx = ctx;
  hctx.held = held;
  hctx.n_held = 1;
  static const struct {
    const char *text, *held_reads, *alone_reads; /* the value read with Oslo held, and not */
  } x[] = {
      {"I live in Norway now, it's expensive.", NULL, "Norway"},
      {"I moved to Bergen in Norway.", "Bergen", "Bergen"},
      {"I moved to Lisbon last month.", "Lisbon", "Lisbon"},
  };
  eg_arena *a = eg_arena_new(0, 0);
  for (size_t i = 0; i < sizeof x / sizeof *x; i++)
    for (int with = 0; with < 2; with++) {
      eg_enriched out;
      const char *want = with ? x[i].held_reads : x[i].alone_reads;
      eg_segment sg = {x[i].text, "user", "", T("2025-06-10T12:00:00Z"), 0, 0};
      eg_err e;
      memset(&out, 0, sizeof out);
      EG_REQUIRE(eg_enrich_rules(with ? &hctx : &ctx, &sg, 1, a, &out, &e) == EG_OK);
      EG_REQUIRE(eg_statefacts_extract(sf, with ? &hctx : &ctx, &sg, 1, a, &out, NULL, &e) ==
                 EG_OK);
      bool ok = true;
      for (size_t k = 0; k < out.n_facts; k++)
        if (!strcmp(out.facts[k].relation, "LIVES_IN"))
          ok &= want && !strcmp(out.facts[k].object, want);
      if (!ok || (want && !out.n_facts))
        fprintf(stderr, "  \"%s\" (%s Oslo held): expected %s\n", x[i].text,
                with ? "with" : "without", want ? want : "no LIVES_IN");
      EG_CHECK(ok && (!want || out.n_facts));
    }
  eg_arena_free(a);
}

/* A name spoken of in passing, not in the user's words of themselves ("X forgot valentines
 * again"), is a value of the user's while the user holds none of its relation, with a reason
 * that says so; not someone else's, nor one of the news, nor one said to be gone, nor in a
 * question; the user's own words in the same message go first. */
static void test_names_in_passing(void) {
  static const eg_held held[] = {
      {"PARTNER_OF", "Tobias", false}, {"HAS_PET", "Pepper", false}, {"LIVES_IN", "Bergen", false}};
  eg_enrich_ctx hctx = ctx;
  hctx.held = held;
  hctx.n_held = sizeof held / sizeof *held;
  static const struct {
    const char *text, *relation, *object; /* relation NULL: nothing at all */
  } x[] = {
      {"Declan forgot valentines again.", "PARTNER_OF", "Declan"},
      {"Sir Reginald has escaped the garden again.", "HAS_PET", "Sir Reginald"},
      {"Oslo in March without heating is not fun.", "LIVES_IN", "Oslo"},
      {"It's minus 20 out here in Fargo. Can I still cycle to work?", "LIVES_IN", "Fargo"},
      {"the traffic here in Nairobi is diabolical.", "LIVES_IN", "Nairobi"},
      {"the vet says Clementine's heart is failing.", "HAS_PET", "Clementine"},
      /* a word opening its sentence bare before a verb of action: a name, not the jam */
      {"Marmalade keeps scratching the sofa.", "HAS_PET", "Marmalade"},
      {"My sister's dog Rex escaped the garden again.", NULL, NULL},
      {"Messi scored again last night.", NULL, NULL},
      {"Netflix raised its prices again.", NULL, NULL},
      {"Declan moved out last week.", NULL, NULL},
      {"Did Declan forget valentines again?", NULL, NULL},
      {"Sir Reginald has escaped the garden again. We adopted a kitten called Mochi.", "HAS_PET",
       "Mochi"},
  };
  eg_arena *a = eg_arena_new(0, 0);
  for (size_t i = 0; i < sizeof x / sizeof *x; i++)
    for (int with = 0; with < 2; with++) {
      eg_enriched out;
      EG_REQUIRE(read_in(a, with ? &hctx : &ctx, x[i].text, &out) == EG_OK);
      /* holding a value of the relation, the user is not taken to have another in passing */
      bool own = x[i].object && !strcmp(x[i].object, "Mochi");
      const char *rel = with && !own ? NULL : x[i].relation;
      if (EG_CHECK(only_fact(x[i].text, with, &out, rel, x[i].object)) && rel) {
        EG_CHECK_STR(out.facts[0].extractor, "prototypes");
        EG_CHECK(own ? !*out.facts[0].reason : strstr(out.facts[0].reason, "speaks of") != NULL);
      }
    }
  eg_arena_free(a);
}

/* A noun the user has by holding a value, placed at a name ("my team at X", "my landlord in
 * X"), says the value is the user's, even in a question and of a person's noun; "old" and
 * "last" make it former; a person's own past or ending is not the user's state now. So do the
 * user's owning a name of a type one relation alone takes ("my X", X a car) and that type
 * where the words read it only below the bar. Such a reading yields to a value held, to one
 * told before in the same messages and to one said of the user in the same message. */
static void test_placed_nouns(void) {
  static const expect x[] = {
      {"Can you help me word a message to my team at Pellman Foods?", "WORKS_AT", "Pellman Foods"},
      {"My manager at Corvid Analytics wants a report by Friday.", "WORKS_AT", "Corvid Analytics"},
      {"my coworkers at Brightwell keep microwaving fish", "WORKS_AT", "Brightwell"},
      {"my landlord in Leeds won't fix the boiler, what are my rights", "LIVES_IN", "Leeds"},
      {"What should I get my lead at Marrowbyte, who is leaving?", "WORKS_AT", "Marrowbyte"},
      {"My old boss at Bramble asked me to cover a shift.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"My last manager at Kestrel Analytics wrote me a reference.", EG_STATE_UNCERTAIN,
       "WORKS_AT"},
      {"My manager at Kestrel Analytics used to say that all the time.", NULL, NULL},
      {"My sister's team at Pellman Foods won an award.", NULL, NULL},
      {"My friend at Quillon Games says they are crunching again.", NULL, NULL},
      /* pay comes from the employer */
      {"My first paycheck from Hooli cleared today.", "WORKS_AT", "Hooli"},
      {"My sister got her first paycheck from Hooli.", NULL, NULL},
      {"I accepted an offer at Vantor Insurance. How do I tell my boss at Kestrel Analytics?",
       "WORKS_AT", "Vantor Insurance"},
      /* a name the user owns, of a type one relation alone takes, says it where the words do
       * not; a negation after a name that opens its clause is of what the name does */
      {"my little Fiat Panda does not like the snow lol", "DRIVES", "Fiat Panda"},
      {"My little Fiat Panda hates the snow.", "DRIVES", "Fiat Panda"},
      {"My sister's little Fiat Panda hates the snow.", NULL, NULL},
      /* a kind word whose type one relation alone takes, read as it below the bar: the type
       * says which; not one that qualifies a noun */
      {"Practising clarinet in lockdown is annoying the neighbours.", "PLAYS", "clarinet"},
      {"Just bought a vegan leather jacket for autumn.", NULL, NULL},
      /* a stretch of time begun at a place is the user's there, where no one else owns it */
      {"Boxes everywhere. First week in Porto and I already know the tram driver by name",
       "LIVES_IN", "Porto"},
      {"My first month in Lisbon was great.", "LIVES_IN", "Lisbon"},
      {"second week at Corvane Systems and the onboarding slides are endless", "WORKS_AT",
       "Corvane Systems"},
      {"Her first week at Brightwater Analytics was rough.", NULL, NULL},
      {"My sister's first week at Brightwater Analytics was rough.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  static const eg_held held[] = {{"WORKS_AT", "Initech", false}};
  eg_enrich_ctx hctx = ctx;
  hctx.held = held, hctx.n_held = 1;
  eg_arena *a = eg_arena_new(0, 0);
  eg_enriched out;
  const char *text = "my coworkers at Brightwell keep microwaving fish";
  EG_REQUIRE(read_in(a, &hctx, text, &out) == EG_OK);
  EG_CHECK(only_fact(text, true, &out, NULL, NULL));
  static const eg_held car[] = {{"DRIVES", "Ford Focus", false}};
  hctx.held = car; /* the owner's word yields to a value held, and so does the type's */
  text = "my little Fiat Panda does not like the snow lol";
  EG_REQUIRE(read_in(a, &hctx, text, &out) == EG_OK);
  EG_CHECK(only_fact(text, true, &out, NULL, NULL));
  static const eg_held violin[] = {{"PLAYS", "violin", false}};
  hctx.held = violin;
  text = "Practising clarinet in lockdown is annoying the neighbours.";
  EG_REQUIRE(read_in(a, &hctx, text, &out) == EG_OK);
  EG_CHECK(only_fact(text, true, &out, NULL, NULL));
  hctx.held = held;
  /* told in an earlier message of the same call */
  eg_segment segs[2] = {
      {"I started at Vantor Insurance this week.", "user", "", T("2025-06-10"), 0, 0},
      {"One of my colleagues at Kestrel Analytics messaged me.", "user", "", T("2025-06-10"), 0,
       0}};
  eg_enriched two[2] = {{0}};
  eg_err e;
  EG_REQUIRE(eg_statefacts_extract(sf, &ctx, segs, 2, a, two, NULL, &e) == EG_OK);
  EG_CHECK(only_fact(segs[0].text, false, &two[0], "WORKS_AT", "Vantor Insurance"));
  EG_CHECK(only_fact(segs[1].text, false, &two[1], NULL, NULL));
  memset(two, 0, sizeof two); /* alone, it is read */
  EG_REQUIRE(eg_statefacts_extract(sf, &ctx, segs + 1, 1, a, two, NULL, &e) == EG_OK);
  EG_CHECK(only_fact(segs[1].text, false, &two[0], "WORKS_AT", "Kestrel Analytics"));
  eg_arena_free(a);
}

/* WordNet types the slot: a city's name is a place, a lower-case instrument needs no cue,
 * a date said in the clause is the valid time. */
static void test_typed_slots_and_valid_time(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_enriched out;
  const eg_fact *f = read_one(a, "We moved to Lisbon last month.", &out);
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->relation, "LIVES_IN");
  EG_CHECK_STR(f->object_type, "place");
  EG_CHECK(f->object_entity);
  EG_CHECK(f->valid_from >= T("2025-05-01T00:00:00Z") && f->valid_from < T("2025-06-01T00:00:00Z"));
  f = read_one(a, "I started bassoon lessons.", &out);
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->relation, "PLAYS");
  EG_CHECK_STR(f->object, "bassoon");
  EG_CHECK(!f->object_entity);
  EG_CHECK_INT(f->valid_from, 0); /* no date: the segment's time */
  /* said in June: "in January" is this January for a move made, the next for one arranged
   * (the state from then on, a fact of the future); a dated event is a plan, no fact */
  f = read_one(a, "We moved to Lisbon in January.", &out);
  EG_REQUIRE(f != NULL);
  EG_CHECK(f->valid_from == T("2025-01-01T00:00:00Z"));
  f = read_one(a, "I'm moving to Lisbon in January, the flat is booked.", &out);
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->relation, "LIVES_IN");
  EG_CHECK(f->valid_from == T("2026-01-01T00:00:00Z"));
  f = read_one(a, "We're moving to Leeds next month.", &out);
  EG_REQUIRE(f != NULL);
  EG_CHECK(f->valid_from == T("2025-07-01T00:00:00Z"));
  /* a start told beside the value dates the state (read forward), over a date of the deal;
   * a start with an object of its own starts that instead */
  f = read_one(a, "I signed the contract with Nordbyte yesterday. I begin the first of October.",
               &out);
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->relation, "WORKS_AT");
  EG_CHECK(f->valid_from == T("2025-10-01T00:00:00Z"));
  /* a start arranged with the speaker dropped, of a value one relation alone takes, says the
   * relation where the words alone fall short; its date read forward (said in June) */
  const char *const starts[] = {"starting on the maternity ward at Riverside Hospital in march",
                                "Starting at Riverside Hospital in March!"};
  for (size_t i = 0; i < sizeof starts / sizeof *starts; i++) {
    f = read_one(a, starts[i], &out);
    EG_REQUIRE(f != NULL);
    EG_CHECK_STR(f->relation, "WORKS_AT");
    EG_CHECK(f->valid_from == T("2026-03-01T00:00:00Z"));
  }
  f = read_one(a, "Got the job at Initech Labs! Starting on Monday.", &out); /* said Tuesday */
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->relation, "WORKS_AT");
  EG_CHECK(f->valid_from == T("2025-06-16T00:00:00Z"));
  const char *const others_start[] = {
      "We adopted a puppy called Rex. Starting puppy classes next week.",
      "We adopted a puppy called Rex. Training will start on Monday."};
  for (size_t i = 0; i < sizeof others_start / sizeof *others_start; i++) {
    f = read_one(a, others_start[i], &out);
    EG_REQUIRE(f != NULL);
    EG_CHECK_STR(f->relation, "HAS_PET");
    EG_CHECK_INT(f->valid_from, 0);
  }
  f = read_one(a, "I joined Initech Labs. I will start on the first of July.", &out);
  EG_REQUIRE(f != NULL);
  EG_CHECK(f->valid_from == T("2025-07-01T00:00:00Z"));
  /* a progressive that tells no start of the state (its prototypes' past does not have the
   * verb) arranges nothing: an event */
  const char *const events[] = {"I'm interviewing at Brightwater Analytics in January.",
                                "I'm seeing Maya next week, any restaurant ideas?",
                                "I'm meeting my friends in Paris next month."};
  for (size_t i = 0; i < sizeof events / sizeof *events; i++) {
    f = read_one(a, events[i], &out);
    EG_CHECK(f == NULL || !strcmp(f->relation, EG_STATE_UNCERTAIN));
  }
  /* two places read: the one whose kind is known (a city) over a name only "in" types */
  f = read_one(a,
               "Got the job offer in Bristol!! So I'm moving down at the end of the month, "
               "found a room in a house in Easton.",
               &out);
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->relation, "LIVES_IN");
  EG_CHECK_STR(f->object, "Bristol");
  /* a dog WordNet 3.0 knows only as a skulker: the file's own words type it */
  f = read_one(a, "I adopted a lurcher last week.", &out);
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->relation, "HAS_PET");
  EG_CHECK_STR(f->object, "lurcher");
  eg_arena_free(a);
}

/* The rules keep what they read; assistants' words are not the user's states; the stats
 * count only what was embedded. */
static void test_rules_first_and_user_only(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[2] = {
      {"You could move to Vienna, it is lovely.", "assistant", "", T("2025-06-10T12:00:00Z"), 0, 0},
      {"I live in Vienna now. The tram is great.", "user", "", T("2025-06-10T12:00:00Z"), 0, 0}};
  eg_enriched out[2];
  memset(out, 0, sizeof out);
  eg_fact rule = {
      .subject = "user:u1", .relation = "LIVES_IN", .object = "Vienna", .object_entity = true};
  out[1].facts = &rule;
  out[1].n_facts = 1;
  eg_statefacts_stats st = {0};
  eg_err e;
  EG_REQUIRE(eg_statefacts_extract(sf, &ctx, s, 2, a, out, &st, &e) == EG_OK);
  EG_CHECK_INT(out[0].n_facts, 0);
  EG_CHECK_INT(out[1].n_facts, 1); /* the rule's, no duplicate */
  EG_CHECK_INT(st.clauses, 1);     /* "The tram is great" is not first-person */
  EG_CHECK_INT(st.embedded, 1);
  eg_arena_free(a);
}

/* The rules read "worked at X" as a current employer; read with its tense, the later value
 * is the current one and the former one is no fact. A present perfect is current. */
static void test_tense_over_rules(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s = {"I worked at Initech for five years before joining Globex.",
                  "user",
                  "",
                  T("2025-06-10T12:00:00Z"),
                  0,
                  0};
  eg_enriched out;
  memset(&out, 0, sizeof out);
  eg_err e;
  EG_REQUIRE(eg_enrich_rules(&ctx, &s, 1, a, &out, &e) == EG_OK);
  EG_REQUIRE(eg_statefacts_extract(sf, &ctx, &s, 1, a, &out, NULL, &e) == EG_OK);
  int works = 0;
  for (size_t i = 0; i < out.n_facts; i++)
    if (!strcmp(out.facts[i].relation, "WORKS_AT")) {
      works++;
      EG_CHECK_STR(out.facts[i].object, "Globex");
    }
  EG_CHECK_INT(works, 1);
  /* the rules' capture runs on past the value ("violin my left hand"): still the value this
   * extractor reads as former, so the rules' fact goes */
  eg_segment v = {"Back when I played violin my left hand did all the work.",
                  "user",
                  "",
                  T("2025-06-10T12:00:00Z"),
                  0,
                  0};
  memset(&out, 0, sizeof out);
  EG_REQUIRE(eg_enrich_rules(&ctx, &v, 1, a, &out, &e) == EG_OK);
  EG_REQUIRE(eg_statefacts_extract(sf, &ctx, &v, 1, a, &out, NULL, &e) == EG_OK);
  for (size_t i = 0; i < out.n_facts; i++) EG_CHECK(strcmp(out.facts[i].relation, "PLAYS") != 0);
  eg_enriched one;
  const eg_fact *f = read_one(a, "I have lived in Valparaíso since 2019.", &one);
  EG_REQUIRE(f != NULL);
  EG_CHECK_STR(f->relation, "LIVES_IN");
  eg_arena_free(a);
}

/* A name the session used mid-sentence is a name when it opens a sentence, even when it
 * is also a word ("Pepper"). */
static void test_session_names(void) {
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment s[2] = {
      {"How is your dog Pepper doing?", "assistant", "", T("2025-06-10T12:00:00Z"), 0, 0},
      {"Pepper is my dog now, we adopted her on Sunday.", "user", "", T("2025-06-10T12:00:00Z"), 0,
       0}};
  eg_enriched out[2];
  memset(out, 0, sizeof out);
  eg_err e;
  EG_REQUIRE(eg_statefacts_extract(sf, &ctx, s, 2, a, out, NULL, &e) == EG_OK);
  EG_REQUIRE(out[1].n_facts == 2);
  EG_CHECK_STR(out[1].facts[0].relation, "HAS_PET");
  EG_CHECK_STR(out[1].facts[0].object, "Pepper");
  EG_CHECK_STR(out[1].facts[1].subject, "Pepper"); /* and the kind it is said to be */
  EG_CHECK_STR(out[1].facts[1].relation, EG_KIND_OF);
  EG_CHECK_STR(out[1].facts[1].object, "dog");
  eg_arena_free(a);
}

/* The lexical reading Recall uses, without an embedder: what a question asks about, and
 * how a user's words speak of a value of it. */
/* Names typed by WordNet's nouns, and words standing for a value named before. */
static void test_heads_and_proforms(void) {
  static const expect x[] = {
      /* a name ending with a noun for an organisation is one, never a home */
      {"I moved over to Fenwick College in August.", "WORKS_AT", "Fenwick College"},
      {"I've moved over to Harrow Clinic.", "WORKS_AT", "Harrow Clinic"},
      /* … and so is one ending with a noun for what a firm does or sells, by its first
       * sense: "care", "games", "freight", not "springs" (a season) nor "stone" (a rock) */
      {"I'm doing home visits for Aster Home Care now.", "WORKS_AT", "Aster Home Care"},
      {"We finally moved to Palm Springs.", "LIVES_IN", "Palm Springs"},
      {"I am dating Emma Stone now.", "PARTNER_OF", "Emma Stone"},
      /* "here" and "there" stand for the place named before them in the message */
      {"Any good bakeries near Aarhus? We have lived here since spring.", "LIVES_IN", "Aarhus"},
      {"Is there a quiet cafe in Ghent? I have been living there for a year now.", "LIVES_IN",
       "Ghent"},
      /* … and "that's" opening a clause for anything but a person */
      {"how often should I service a 2015 Skoda Octavia? that's what I drive now", "DRIVES",
       "Skoda Octavia"},
      {"is Monzo a good company? that's where I work", "WORKS_AT", "Monzo"},
      {"Have you heard of Monzo? That's what I use for banking.", NULL, NULL},
      {"a golden retriever? that's what I'm getting next month", NULL, NULL},
      {"My sister bought a Skoda Octavia. That's a good car.", NULL, NULL},
      /* "we" after a person named before it is the speaker and that person ("X and I"), in
       * the same sentence or the next; not a person a word for someone else's owns, nor a
       * name a preposition places */
      {"Ran into Henrik at a climbing wall and we've been together ever since.", "PARTNER_OF",
       "Henrik"},
      {"Then Lior came along. We've been together since June.", "PARTNER_OF", "Lior"},
      {"My cousin Tamsin came over and we have been together all week.", NULL, NULL},
      {"Had lunch at Mirela and we have been together since.", NULL, NULL},
      /* … but not in the speaker's own sentence, where a mass noun acts on them: no employer
       * named "Work", only a word on the job */
      {"Work keeps me busy these days.", EG_STATE_UNCERTAIN, "WORKS_AT"},
      /* a couple's years together */
      {"me and tomasz hit 3 years next month. cheap date ideas?", "PARTNER_OF", "tomasz"},
      /* an employer spoken of as one is, while the user holds none */
      {"Pellworth Analytics runs on panic and missed deadlines.", "WORKS_AT",
       "Pellworth Analytics"},
      /* a statement in the form of a question is read as one */
      {"Can you believe I'm a Volvo XC40 owner now? Never thought I'd be an SUV person.", "DRIVES",
       "Volvo XC40"},
      /* a word opening its sentence with its kind in apposition is a name, even a word's */
      {"sprocket (border collie, 2 yrs) chews my shoes and won't stop, how do I train the puppy",
       "HAS_PET", "sprocket"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A name WordNet does not know that the gazetteer (Debian's GeoNames catalogue) knows as a
 * town's may be read as a place without a word that places it, and so may one in lower case
 * right after such a word; it may still be a person's, and a town's name in lower case
 * elsewhere is a word of the chat. */
static void test_towns(void) {
  if (access(GEONAMES, R_OK) != 0) {
    printf("skip: %s missing (scripts/install-deps.sh)\n", GEONAMES);
    return;
  }
  static const expect x[] = {
      {"Norwich in January is brutal. Can I still cycle to work?", "LIVES_IN", "Norwich"},
      {"my landlord in pune wants to raise the rent 15% at renewal.", "LIVES_IN", "pune"},
      {"Isla and I have been together a year now.", "PARTNER_OF", "Isla"},
      {"imo the rent is too high anyway.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  /* a former one, from the user's first mention of it */
  eg_arena *a = eg_arena_new(0, 0);
  eg_enriched out;
  EG_REQUIRE(read_in(a, &ctx, "since leaving Norwich in October I haven't found a decent bakery",
                     &out) == EG_OK);
  bool former = false;
  for (size_t i = 0; i < out.n_facts; i++)
    former |= !strcmp(out.facts[i].relation, "LIVES_IN") &&
              !strcmp(out.facts[i].object, "Norwich") && out.facts[i].since_first_mention;
  EG_CHECK(former);
  eg_arena_free(a);
}

/* A capital that WordNet writes in a kind's name opens no name: "a German shepherd", "an
 * African grey" and "a Persian" (a Persian cat) say a kind, and a stretch of time with its
 * number ("Year 3s") is no name at all. */
static void test_kinds_written_with_capitals(void) {
  static const expect x[] = {
      {"We adopted an African grey parrot.", "HAS_PET", "parrot"},
      {"Adopted a German shepherd last week, his name is Rex.", "HAS_PET", "Rex"},
      {"My cat is a Persian called Juniper.", "HAS_PET", "Juniper"},
      {"Our new Persian is called Juniper.", "HAS_PET", "Juniper"},
      {"My dog Jack loves the park.", "HAS_PET", "Jack"},
      {"I am dating an Egyptian guy called Omar.", "PARTNER_OF", "Omar"},
      {"I moved to Newfoundland last year.", "LIVES_IN", "Newfoundland"},
      {"I teach Year 3s now.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* Chat's own marks: a pictograph parts words as a comma does, an interjection opens no
 * subject, a participle without an auxiliary is no verb, a number of years is no part of a
 * name; and chat's words for a stay ("been here in X since …") and for a diet. */
static void test_chat_marks(void) {
  static const expect x[] = {
      {"so... i've been seeing someone \xf0\x9f\x91\x80 his name is Eli.", "PARTNER_OF", "Eli"},
      {"lol my friend just got hired at Northgate.", NULL, NULL},
      {"first week at pinecrest done!!", "WORKS_AT", "pinecrest"},
      {"i've lived in Osaka 3 years now and STILL can't do keigo properly lol.", "LIVES_IN",
       "Osaka"},
      {"been here in Valencia since january and my spanish is still embarrassing.", "LIVES_IN",
       "Valencia"},
      {"gi doctor put me on low-FODMAP for my IBS ugh.", "DIET", "low-fodmap"},
      /* a word in capitals for emphasis is that word */
      {"GOT A FERRET!!! she has already stolen 4 socks.", "HAS_PET", "ferret"},
      {"ALEX PROPOSED!!! we are getting married next summer.", "PARTNER_OF", "ALEX"},
      {"I drive a BMW 3 Series now.", "DRIVES", "BMW 3 Series"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* The extractor opened with no embedder: its lexical reading only (recalld's). NULL on
 * failure. */
static eg_statefacts *open_lexical(void) {
  eg_statefacts_opts so = {PROTOTYPES, NULL, NULL, 0, -1};
  eg_statefacts *lx = NULL;
  eg_err e;
  return eg_statefacts_open(&so, &lx, &e) == EG_OK ? lx : NULL;
}

static void test_lexical_reading(void) {
  eg_statefacts *lx = open_lexical();
  EG_REQUIRE(lx != NULL);
  unsigned place = eg_statefacts_asked(lx, "Where do I live these days?");
  EG_CHECK(place != 0);
  EG_CHECK(eg_statefacts_asked(lx, "where was I staying in late 2020") == place);
  EG_CHECK(eg_statefacts_asked(lx, "Which company employs me?") != 0);
  EG_CHECK(eg_statefacts_asked(lx, "Which company employs me?") != place);
  /* the type of what the noun after "which" names: a school ends an organisation's name */
  EG_CHECK(eg_statefacts_asked(lx, "Which school do I teach at now?") ==
           eg_statefacts_asked(lx, "Which company employs me?"));
  EG_CHECK(eg_statefacts_asked(lx, "Which basketball team does Tim support?") == 0);
  /* a service is no employer */
  EG_CHECK(eg_statefacts_asked(lx, "Which streaming service did I start using most recently?") ==
           0);
  EG_CHECK(eg_statefacts_asked(lx, "What is a good pancake recipe?") == 0);
  /* strumming is playing a stringed instrument */
  EG_CHECK(eg_statefacts_asked(lx, "What was I strumming back in spring 2014?") ==
           eg_statefacts_asked(lx, "What instrument do I play?"));
  EG_CHECK(eg_statefacts_asked(lx, "What was I strumming back in spring 2014?") != 0);
  /* a visit is no state, whatever the place is asked by */
  EG_CHECK(eg_statefacts_asked(lx, "Which country was Tim visiting in November?") == 0);
  EG_CHECK(eg_statefacts_asked(lx, "Which country do I live in?") != 0);
  /* the tense a question asks in: by its auxiliary, else by a verb's past form */
  EG_CHECK(eg_statefacts_asks_past(lx, "Where did I live in 2019?"));
  EG_CHECK(eg_statefacts_asks_past(lx, "Which company employed me?"));
  EG_CHECK(eg_statefacts_asks_past(lx, "Who was I dating back then?"));
  EG_CHECK(!eg_statefacts_asks_past(lx, "Where do I live?"));
  EG_CHECK(!eg_statefacts_asks_past(lx, "What's my dog called?"));
  EG_CHECK(!eg_statefacts_asks_past(lx, "whats my dog called")); /* chat drops the apostrophe */
  EG_CHECK(!eg_statefacts_asks_past(lx, "Which company employs me?"));
  /* a question asking what a value is called: a name answers it, a kind does not */
  EG_CHECK(eg_statefacts_asks_name("What's my dog called?"));
  EG_CHECK(eg_statefacts_asks_name("What is the name of my cat?"));
  EG_CHECK(eg_statefacts_asks_name("What's my hamster's name?"));
  EG_CHECK(!eg_statefacts_asks_name("What pet do I have?"));
  EG_CHECK(!eg_statefacts_asks_name(NULL));
  EG_CHECK(eg_statefacts_relation_types(NULL, "LIVES_IN") == 0); /* no prototypes: no types */
  EG_CHECK(eg_statefacts_relation_types(lx, "LIVES_IN") == place);
  /* the value the wh-word stands for, not every state named */
  EG_CHECK(eg_statefacts_asked(lx, "Which town do I call home?") == place);
  EG_CHECK(eg_statefacts_asked(lx, "Where did I work in 2021?") ==
           eg_statefacts_asked(lx, "Who is my employer?"));
  unsigned pet = eg_statefacts_asked(lx, "What's the name of my cat?");
  EG_CHECK(pet != 0 && pet == eg_statefacts_asked(lx, "What pet did I have in May?"));
  EG_CHECK(eg_statefacts_asked(lx, "whats my dog called") == pet);
  EG_CHECK(eg_statefacts_asked(lx, "What do I play these days?") != 0);
  EG_CHECK(eg_statefacts_asked(lx, "What breed is my dog?") == 0);
  unsigned partner = eg_statefacts_asked(lx, "Who is my partner?");
  EG_CHECK(partner != 0 &&
           eg_statefacts_asked(lx, "Who was I with in the summer of 2020?") == partner);
  EG_CHECK(eg_statefacts_asked(lx, "Who did I go with to the concert?") == 0);
  EG_CHECK(eg_statefacts_asked(lx, "Who was I with at the concert in 2019?") == 0);
  EG_CHECK(eg_statefacts_asked(lx, "Who am I with now?") == partner);
  EG_CHECK(eg_statefacts_asked(lx, "Who am I engaged to?") == partner);
  EG_CHECK(eg_statefacts_asked(lx, "Remind me of that vegan cafe you recommended.") == 0);
  EG_CHECK(eg_statefacts_asked(lx, "How many views did my Live session get?") == 0);
  /* how … I V asks what V asks; two words may ask together ("other half") */
  unsigned diet = eg_statefacts_asked(lx, "What diet am I on?");
  EG_CHECK(diet != 0 && eg_statefacts_asked(lx, "How am I eating these days?") == diet);
  EG_CHECK(eg_statefacts_asked(lx, "In mid-2019, how did I eat?") == diet);
  EG_CHECK(eg_statefacts_asked(lx, "How do I get to the station?") == 0);
  EG_CHECK(eg_statefacts_asked(lx, "Who's my other half these days?") == partner);
  EG_CHECK(eg_statefacts_asked(lx, "Who did I sit with in the first half?") == 0);
  /* the verb after the noun phrase, the user's verb, the verb a verb governs */
  EG_CHECK(eg_statefacts_asked(lx, "What pet lives with us right now?") == pet);
  EG_CHECK(eg_statefacts_asked(lx, "Which organisation am I working for?") ==
           eg_statefacts_asked(lx, "Who is my employer?"));
  EG_CHECK(eg_statefacts_asked(lx, "Which organisation employs me?") ==
           eg_statefacts_asked(lx, "Who is my employer?"));
  EG_CHECK(eg_statefacts_asked(lx, "What truck did I drive in 2019?") ==
           eg_statefacts_asked(lx, "What car do I drive?"));
  EG_CHECK(eg_statefacts_asked(lx, "What am I learning to play these days?") ==
           eg_statefacts_asked(lx, "What instrument do I play?"));
  EG_CHECK(eg_statefacts_asked(lx, "Who was I going out with in 2018?") == partner);
  EG_CHECK(eg_statefacts_asked(lx, "What phone do I use now?") == 0);
  EG_CHECK(eg_statefacts_asked(lx, "What am I working on these days?") == 0);
  EG_CHECK(eg_statefacts_asked(lx, "What did I have for breakfast?") == 0);
  eg_arena *sa = eg_arena_new(0, 0);
  const char *said = eg_statefacts_statement(lx, place, sa); /* how one states it, slots left out */
  EG_CHECK(said && strstr(said, "I live in") && !strstr(said, " X"));
  EG_CHECK(eg_statefacts_statement(lx, 0, sa) == NULL);
  eg_arena_free(sa);
  static const struct {
    const char *text;
    eg_stated want;
  } x[] = {
      {"We finally settled in Lyon last spring.", EG_STATED_CURRENT},
      {"Writing this from my balcony in Lyon, what a view.", EG_STATED_CURRENT},
      {"Any good bakeries near Aarhus? We have lived here since spring.", EG_STATED_CURRENT},
      {"I used to live in Porto.", EG_STATED_FORMER},
      /* a place only visited, in whatever tense */
      {"Spent the long weekend in Oslo and ate far too much.", EG_STATED_FORMER},
      {"We visited Oslo last week, loved it.", EG_STATED_FORMER},
      {"We're looking at flats in Bergen, nothing decided.", EG_STATED_FORMER},
      {"My brother lives in Oslo.", EG_STATED_MENTIONED},
      {"My cousin Dana is living in Oslo now.", EG_STATED_MENTIONED},
      {"My wife convinced me to move to Oslo, best decision ever.", EG_STATED_CURRENT},
      {"My uni mate is moving to Oslo and wants tips.", EG_STATED_MENTIONED},
      {"Mum's selling up and moving to Oslo.", EG_STATED_MENTIONED},
      {"My aunt keeps begging me to move to Oslo.", EG_STATED_MENTIONED}, /* asked of the user */
      {"My company moved me to Oslo in March.", EG_STATED_CURRENT},       /* the user moved */
      {"My sister moved in with me in Oslo.", EG_STATED_CURRENT},
      {"The Oslo flat was tiny.", EG_STATED_MENTIONED},
      /* a place as a topic is not held */
      {"We watched a documentary about the Oslo fjords last night.", EG_STATED_FORMER},
      {"Is Oslo nice in winter?", EG_STATED_MENTIONED},
      /* a statement in the form of a question is a statement */
      {"Guess what, we live in Oslo now?", EG_STATED_CURRENT},
      {"Nope, not my problem anymore.", EG_STATED_NONE},
      {"I had pancakes for breakfast.", EG_STATED_NONE},
      {"Didn't sleep at all last night.", EG_STATED_NONE}, /* a verb's negation is no name */
  };
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) {
    eg_stated got = eg_statefacts_stated(lx, x[i].text, 0, strlen(x[i].text), place);
    if (got != x[i].want)
      fprintf(stderr, "  \"%s\": expected %d, got %d\n", x[i].text, x[i].want, got);
    EG_CHECK(got == x[i].want);
  }
  /* a question takes the user's own values for granted ("… for my girlfriend X?"); a value
   * instead of which another was chosen, the former colleagues' employer and a friend's are
   * no state of the user's */
  unsigned person = eg_statefacts_asked(lx, "Who is my girlfriend?");
  unsigned org = eg_statefacts_asked(lx, "Which company employs me?");
  EG_REQUIRE(person && org && diet);
  const struct {
    const char *text;
    unsigned *types;
    eg_stated want;
  } y[] = {
      {"Any gift ideas for my girlfriend Rosa? She loves ceramics.", &person, EG_STATED_CURRENT},
      {"As a vegetarian, what should I pack for a long hike?", &diet, EG_STATED_CURRENT},
      {"Do vegetarian hikers need more protein?", &diet, EG_STATED_MENTIONED},
      {"We ended up in a cabin instead of Lisbon.", &place, EG_STATED_FORMER},
      /* an adverb in -ly between a marker's words: still the marker (a plan) */
      {"thinking seriously about going back to canada", &place, EG_STATED_FORMER},
      {"My old colleagues at Acme Labs threw me a party.", &org, EG_STATED_FORMER},
      {"A friend of mine works at Acme Labs.", &org, EG_STATED_MENTIONED},
      {"My current employer is Acme Labs.", &org, EG_STATED_CURRENT}, /* a role it fills */
      {"My dad is vegan now and lectures everyone.", &diet, EG_STATED_MENTIONED},
      {"I work at Acme Labs.", &org, EG_STATED_CURRENT},
      /* a stretch of time begun at a place, after any ordinal, is the user's there */
      {"second week at Deloitte and the onboarding slides are endless", &org, EG_STATED_CURRENT},
      {"Her second week at Deloitte was rough.", &org, EG_STATED_MENTIONED},
      /* someone only met is no partner */
      {"ran into Tobias at the climbing wall, he's engaged now", &person, EG_STATED_FORMER},
  };
  for (size_t i = 0; i < sizeof y / sizeof *y; i++) {
    eg_stated got = eg_statefacts_stated(lx, y[i].text, 0, strlen(y[i].text), *y[i].types);
    if (got != y[i].want)
      fprintf(stderr, "  \"%s\": expected %d, got %d\n", y[i].text, y[i].want, got);
    EG_CHECK(got == y[i].want);
  }
  /* value by value: where each stands and how it is spoken of */
  unsigned instr = eg_statefacts_asked(lx, "What instrument do I play?");
  unsigned pets = eg_statefacts_asked(lx, "What pet do I have?");
  unsigned cars = eg_statefacts_asked(lx, "What car do I drive?");
  EG_REQUIRE(instr && pets && cars);
  const struct {
    const char *text;
    unsigned *types;
    const char *value; /* the first value named */
    eg_stated how;
    bool ended, others, typed, plain;
    size_t n;
  } z[] = {
      {"Sold my guitar to pay for cello lessons.", &instr, "guitar", EG_STATED_FORMER, true, false,
       true, false, 2},
      {"I'm not vegan anymore.", &diet, "vegan", EG_STATED_FORMER, true, false, true, false, 1},
      /* a relative clause's negation is of the noun it follows, not of the slot's state */
      {"I need a vegan dessert that doesn't scream healthy.", &diet, "vegan", EG_STATED_CURRENT,
       false, false, true, true, 1},
      /* a word of ending after the user's own pet; none where the pet is given to the user */
      {"Our hamster died in June.", &pets, "hamster", EG_STATED_FORMER, true, false, true, false,
       1},
      {"My aunt left me her parrot.", &pets, "parrot", EG_STATED_CURRENT, false, false, true, true,
       1},
      {"We might rehome Rufus, my dog, next year.", &pets, "Rufus", EG_STATED_FORMER, false, false,
       true, false, 1}, /* planned, not ended; typed by the apposition */
      {"My sister lives in Oslo now.", &place, "Oslo", EG_STATED_MENTIONED, false, true, true,
       false, 1},
      {"I work at Acme Labs.", &org, "Acme Labs", EG_STATED_CURRENT, false, false, true, true, 1},
      /* a capitalised word of a closed class opens no name ("If", "Unless", "Whose") */
      {"Unless Acme Labs pays more, I'm staying.", &org, "Acme Labs", EG_STATED_CURRENT, false,
       false, true, true, 1},
      /* "here" stands for a value held now, not for one just named as former */
      {"Back when I lived in Porto I never owned a coat. I survived last winter here.", &place,
       "Porto", EG_STATED_FORMER, true, false, true, false, 1},
      {"Adopted a kitten! Named her Luna.", &pets, "Luna", EG_STATED_CURRENT, false, false, true,
       true, 1}, /* the name given is the kitten's */
      /* a name bound to a kind word: in apposition, right after it, or given to it */
      {"Nugget, my hamster, escaped again.", &pets, "Nugget", EG_STATED_CURRENT, false, false, true,
       true, 1},
      {"Our beagle Biscuit howls whenever we leave the house.", &pets, "Biscuit", EG_STATED_CURRENT,
       false, false, true, true, 1}, /* "leave" is the house's, not his */
      {"We adopted a little tabby and the kids named her Miso.", &pets, "Miso", EG_STATED_CURRENT,
       false, false, true, true, 1}, /* the kind word named is no second value */
      {"We got a black kitten, calling her Banshee.", &pets, "Banshee", EG_STATED_CURRENT, false,
       false, true, true, 1},
      {"Tofu the hamster stuffed a grape in his cheek.", &pets, "Tofu", EG_STATED_MENTIONED, false,
       false, true, true, 1}, /* a word opening the sentence, a name by its apposition */
      {"Went to Paris, my dog stayed with mum.", &place, "Paris", EG_STATED_CURRENT, false, false,
       true, true, 1}, /* no apposition: the city stays a city */
      /* named plainly in no predicate of the speaker's: a value that came into their words */
      {"The Toyota Prius is a dream on the motorway.", &cars, "Toyota Prius", EG_STATED_MENTIONED,
       false, false, true, true, 1},
      {"Is Lisbon nice in May?", &place, "Lisbon", EG_STATED_MENTIONED, false, false, true, false,
       1}, /* asked about, not said */
      /* an indefinite pronoun opening a sentence is no name */
      {"We're looking at flats in Bergen. Nothing signed yet.", &place, "Bergen", EG_STATED_FORMER,
       false, false, true, false, 1},
      {"Bumped into my old manager from Acme Labs.", &org, "Acme Labs", EG_STATED_FORMER, true,
       false, true, false, 1},
      {"Got a postcard from Lisbon today.", &place, "Lisbon", EG_STATED_MENTIONED, false, false,
       true, false, 1}, /* the source of a thing: named, not said as it stands nor left */
      /* what is swapped for another is given up (WordNet's swap, an @ends root) */
      {"Swapped my Honda Civic for a Tesla Model 3 last weekend.", &cars, "Honda Civic",
       EG_STATED_FORMER, true, false, true, false, 2},
      /* what the user misses is not where they are; "the X days" are over */
      {"I still miss the curry houses back in Leeds.", &place, "Leeds", EG_STATED_FORMER, false,
       false, true, false, 1},
      {"Honestly I miss the paleo days.", &diet, "paleo", EG_STATED_FORMER, true, false, true,
       false, 1},
      {"I loved my Bristol days.", &place, "Bristol", EG_STATED_FORMER, true, false, true, false,
       1},
      /* a negation after a name that opens its clause is of what it does, not of the user's
       * holding it; one that says what the name is still counts */
      {"My little Fiat Panda does not like the snow.", &cars, "Fiat Panda", EG_STATED_CURRENT,
       false, false, true, true, 1},
      {"Leeds is not where I live now.", &place, "Leeds", EG_STATED_FORMER, true, false, true,
       false, 1},
  };
  for (size_t i = 0; i < sizeof z / sizeof *z; i++) {
    eg_stated_value v[8];
    size_t n =
        eg_statefacts_values(lx, z[i].text, 0, strlen(z[i].text), 0, *z[i].types, NULL, v, 8);
    bool ok = n == z[i].n && n && v[0].to - v[0].from == strlen(z[i].value) &&
              !strncmp(z[i].text + v[0].from, z[i].value, v[0].to - v[0].from) &&
              v[0].how == z[i].how && v[0].ended == z[i].ended && v[0].others == z[i].others &&
              v[0].typed == z[i].typed && v[0].plain == z[i].plain;
    if (!ok)
      fprintf(stderr,
              "  \"%s\": %zu values, the first \"%.*s\" how %d ended %d others %d typed %d "
              "plain %d\n",
              z[i].text, n, n ? (int)(v[0].to - v[0].from) : 0, n ? z[i].text + v[0].from : "",
              n ? (int)v[0].how : -1, n && v[0].ended, n && v[0].others, n && v[0].typed,
              n && v[0].plain);
    EG_CHECK(ok);
  }
  /* a lower-case word no dictionary knows is a name where only a name goes ("lukas cheated");
   * chat's abbreviations and closed-class words are none, there too */
  unsigned anyone = place | org | pets | eg_statefacts_asked(lx, "Who is my partner?");
  static const struct {
    const char *text;
    size_t n;
  } lower[] = {{"lukas cheated.", 1},
               {"been seeing adebayo lately.", 1},
               {"texted myself a reminder.", 0},
               {"bought candles for everyone.", 0},
               {"anything happened today?", 0},
               {"idk said the group chat.", 0},
               {"whats happened to the bus", 0},
               /* an adverb opening a sentence is no name */
               {"Still loved every minute of it.", 0}};
  for (size_t i = 0; i < sizeof lower / sizeof *lower; i++) {
    eg_stated_value v[4];
    const char *x = lower[i].text;
    size_t n = eg_statefacts_values(lx, x, 0, strlen(x), 0, anyone, NULL, v, 4);
    if (!EG_CHECK(n == lower[i].n)) fprintf(stderr, "  \"%s\": %zu values\n", x, n);
  }
  /* a value that is his or theirs, and a word standing for it, are not the user's */
  eg_stated_value his[4];
  const char *shown = "My brother keeps showing off his Tesla Model 3. It is nice though.";
  size_t nh = eg_statefacts_values(lx, shown, 0, strlen(shown), 0, cars, NULL, his, 4);
  EG_CHECK(nh >= 1);
  for (size_t i = 0; i < nh; i++) EG_CHECK(!his[i].plain && his[i].how != EG_STATED_CURRENT);
  const char *dad = "Dad's getting rid of his Nissan Leaf.";
  nh = eg_statefacts_values(lx, dad, 0, strlen(dad), 0, cars, NULL, his, 4);
  EG_CHECK(nh == 1 && !his[0].plain && his[0].how == EG_STATED_MENTIONED);
  const char *bought = "I bought his Nissan Leaf last week."; /* his before, the user's now */
  EG_CHECK(eg_statefacts_stated(lx, bought, 0, strlen(bought), cars) == EG_STATED_CURRENT);
  /* "without" after the value negates its own object, not the value */
  const char *trip = "My Fiat Panda did 300 km without a single complaint.";
  EG_CHECK(eg_statefacts_stated(lx, trip, 0, strlen(trip), cars) == EG_STATED_CURRENT);
  /* a value named in full elsewhere gives its type to a part of it: "the Serena" is a car */
  const char *full = "Dad is selling me his Nissan Serena cheap.",
             *part = "Took the Serena to Wales.";
  eg_statefacts_known kn = {0};
  eg_statefacts_learn(lx, full, 0, strlen(full), &kn);
  EG_CHECK(kn.n == 1 && !strcmp(kn.words[0], "nissan serena") && kn.bits[0] == cars);
  EG_CHECK(eg_statefacts_values(lx, part, 0, strlen(part), 0, cars, NULL, his, 4) == 0);
  nh = eg_statefacts_values(lx, part, 0, strlen(part), 0, cars, &kn, his, 4);
  EG_CHECK(nh == 1 && his[0].typed && his[0].how == EG_STATED_CURRENT && his[0].plain);
  /* a value dated after the day it was said is a plan, not held now; an earlier date is no
   * plan; without the time said, no date is read */
  const char *plan = "Starting at Brightwater Analytics next week for a content role.";
  const char *done = "Started at Brightwater Analytics last week, so far so good.";
  int64_t at = T("2023-03-01T10:00:00Z");
  nh = eg_statefacts_values(lx, plan, 0, strlen(plan), at, org, NULL, his, 4);
  EG_CHECK(nh == 1 && his[0].how == EG_STATED_FORMER && !his[0].plain && !his[0].ended);
  nh = eg_statefacts_values(lx, plan, 0, strlen(plan), 0, org, NULL, his, 4);
  EG_CHECK(nh == 1 && his[0].how == EG_STATED_CURRENT);
  nh = eg_statefacts_values(lx, done, 0, strlen(done), at, org, NULL, his, 4);
  EG_CHECK(nh == 1 && his[0].how == EG_STATED_CURRENT && his[0].plain);
  /* the date, and a negation, of another predicate joined to the value's are not its own */
  const char *const holds[] = {"I work at Acme Labs and my review is next week.",
                               "I work at Acme Labs until the end of next year.",
                               "I work at Acme Labs and I don't love it.",
                               "I didn't like Beta Corp so I moved to Acme Labs."};
  for (size_t i = 0; i < sizeof holds / sizeof *holds; i++) {
    nh = eg_statefacts_values(lx, holds[i], 0, strlen(holds[i]), at, org, NULL, his, 4);
    bool acme = false;
    for (size_t k = 0; k < nh; k++)
      acme |= !strncmp(holds[i] + his[k].from, "Acme Labs", 9) && his[k].how == EG_STATED_CURRENT &&
              his[k].plain;
    if (!acme) fprintf(stderr, "  \"%s\": Acme Labs not read as held\n", holds[i]);
    EG_CHECK(acme);
  }
  /* the value as the subject of what is dated: the event is planned, not the state */
  const char *moves = "My girlfriend Rania moves in with me next month.";
  nh = eg_statefacts_values(lx, moves, 0, strlen(moves), at, person, NULL, his, 4);
  EG_CHECK(nh == 1 && his[0].how == EG_STATED_CURRENT && his[0].plain);
  eg_stated_value one;
  EG_CHECK(eg_statefacts_values(lx, "I live in Lyon and I work at Acme Labs.", 0, 38, 0,
                                place | org, NULL, &one, 1) == 1); /* at most max */
  EG_CHECK(one.types == place); /* Lyon: a place, not an organisation */
  EG_CHECK(eg_statefacts_relation_types(lx, "WORKS_AT") == org);
  EG_CHECK(eg_statefacts_relation_types(lx, "NO_SUCH_RELATION") == 0);
  /* the one relation taking a type; none for two types of two relations */
  EG_CHECK_STR(eg_statefacts_relation_of(lx, org), "WORKS_AT");
  EG_CHECK_STR(eg_statefacts_relation_of(lx, place), "LIVES_IN");
  EG_CHECK(eg_statefacts_relation_of(lx, place | org) == NULL);
  EG_CHECK_STR(eg_statefacts_relation_of(lx, person), "PARTNER_OF");
  EG_CHECK(eg_statefacts_relation_of(lx, 0) == NULL &&
           eg_statefacts_relation_of(NULL, org) == NULL);
  /* a question of the user's own state, not of someone they name by a noun for a person */
  EG_CHECK(eg_statefacts_asks_of_user(lx, "Where do I live now?",
                                      eg_statefacts_asked(lx, "Where do I live now?")));
  EG_CHECK(
      eg_statefacts_asks_of_user(lx, "Which company employed me in 2020?",
                                 eg_statefacts_asked(lx, "Which company employed me in 2020?")));
  EG_CHECK(eg_statefacts_asks_of_user(lx, "Who is my girlfriend these days?",
                                      eg_statefacts_asked(lx, "Who is my girlfriend these days?")));
  EG_CHECK(!eg_statefacts_asks_of_user(lx, "Where does my sister live now?",
                                       eg_statefacts_asked(lx, "Where does my sister live now?")));
  EG_CHECK(
      !eg_statefacts_asks_of_user(lx, "Which car does my best friend drive?",
                                  eg_statefacts_asked(lx, "Which car does my best friend drive?")));
  EG_CHECK(eg_statefacts_asks_of_user(
      lx, "What car did I have in 2020?",
      eg_statefacts_asked(lx, "What car did I have in 2020?"))); /* "have" */
  EG_CHECK(eg_statefacts_asks_of_user(lx, "What is my pet's name?",
                                      eg_statefacts_asked(lx, "What is my pet's name?")));
  EG_CHECK(!eg_statefacts_asks_of_user(lx, "Where does my wife work?",
                                       eg_statefacts_asked(lx, "Where does my wife work?")));
  EG_CHECK(!eg_statefacts_asks_of_user(
      lx, "Where does my girlfriend's sister live?",
      eg_statefacts_asked(lx, "Where does my girlfriend's sister live?")));
  EG_CHECK(eg_statefacts_asks_of_user(lx, "What's my dog's name?",
                                      eg_statefacts_asked(lx, "What's my dog's name?")));
  EG_CHECK(!eg_statefacts_asks_of_user(lx, "Where does Maya live?",
                                       eg_statefacts_asked(lx, "Where does Maya live?")));
  /* a value named in an episode told in the past is no state; a change or a perfect is */
  const char *ep[] = {"The Paris museums were incredible, I loved them.",
                      "Paris was lovely.",
                      "I moved to Paris last month.",
                      "I've lived in Paris for years.",
                      "The Paris rain is something else, my umbrella gave up today.",
                      "My first week at Acme Labs went well.",
                      "The rain in Paris is crazy, my umbrella's destroyed.",
                      "We stayed in Paris for a week.",
                      "Paris was the best city we saw."};
  const bool episode[] = {true, true, false, false, false, false, false, true, true};
  for (size_t i = 0; i < sizeof ep / sizeof *ep; i++) {
    const char *at = strstr(ep[i], "Paris") ? strstr(ep[i], "Paris") : strstr(ep[i], "Acme");
    if (!EG_CHECK(eg_statefacts_episode(lx, ep[i], (size_t)(at - ep[i]), place | org, true) ==
                  episode[i]))
      fprintf(stderr, "  %s\n", ep[i]);
  }
  const char *panda = "My Fiat Panda did a 300km trip without a complaint.";
  EG_CHECK(!eg_statefacts_episode(lx, panda, 3, eg_statefacts_relation_types(lx, "DRIVES"), true));
  const char *cello = "The cello concert last night was lovely.";
  EG_CHECK(eg_statefacts_episode(lx, cello, 4, eg_statefacts_relation_types(lx, "PLAYS"), false));
  /* only the speaker's words count: the reply of a round is context */
  const char *round = "user: I had pancakes.\nassistant: I live in Lyon myself.";
  EG_CHECK(eg_statefacts_stated(lx, round, 6, 21, place) == EG_STATED_NONE);
  EG_CHECK(eg_statefacts_stated(lx, round, 0, strlen(round), place) == EG_STATED_CURRENT);
  /* without an embedder it cannot extract */
  eg_arena *a = eg_arena_new(0, 0);
  eg_segment sg = {"I live in Lyon.", "user", "", T("2025-06-10T12:00:00Z"), 0, 0};
  eg_enriched out = {0};
  eg_err e;
  EG_CHECK(eg_statefacts_extract(lx, &ctx, &sg, 1, a, &out, NULL, &e) == EG_EINVAL);
  eg_arena_free(a);
  eg_statefacts_close(lx);
}

/* The items of a list share the predicate before the first: what the user misses or sold is
 * each not held ("the Schlossberg" is not where they live); no list, no sharing. */
static void test_list_items(void) {
  eg_statefacts *lx = open_lexical();
  EG_REQUIRE(lx != NULL);
  unsigned place = eg_statefacts_asked(lx, "Where do I live these days?");
  unsigned cars = eg_statefacts_asked(lx, "What car do I drive?");
  const struct {
    const char *text;
    const unsigned *types;
    const char *value;
    eg_stated how;
  } x[] = {
      {"Sometimes I miss Graz, the Schlossberg and the small cafes.", &place, "Schlossberg",
       EG_STATED_FORMER},
      {"We sold the house, the Golf and both bikes before moving.", &cars, "Golf",
       EG_STATED_FORMER},
      {"I love Linz, the Danube and the cafes.", &place, "Danube", EG_STATED_CURRENT},
      {"I miss Graz, the Schlossberg, the Mur and the cafes.", &place, "Mur", EG_STATED_FORMER},
      /* a verb after the items, or a subject among them, makes them a clause of its own */
      {"After I sold the flat, the Golf and the van need a garage.", &cars, "Golf",
       EG_STATED_CURRENT},
      /* the first item's own word is not the list's: "old" is the Octavia's */
      {"We've got our old Octavia, a Tesla and two bikes now.", &cars, "Tesla", EG_STATED_CURRENT},
      {"We moved out of Graz, Linz and the new flat are great.", &place, "Linz", EG_STATED_CURRENT},
      /* an item opens with a determiner, a number or a name: "new flat in X" is no item */
      {"We moved out of Graz, new flat in Linz and a garden!", &place, "Linz", EG_STATED_CURRENT},
  };
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) {
    eg_stated_value v[8];
    size_t n =
        eg_statefacts_values(lx, x[i].text, 0, strlen(x[i].text), 0, *x[i].types, NULL, v, 8);
    size_t k = 0;
    while (k < n && strncmp(x[i].text + v[k].from, x[i].value, strlen(x[i].value)) != 0) k++;
    if (k == n || v[k].how != x[i].how)
      fprintf(stderr, "  \"%s\": %s read %d, expected %d\n", x[i].text, x[i].value,
              k < n ? (int)v[k].how : -1, (int)x[i].how);
    EG_CHECK(k < n && v[k].how == x[i].how);
  }
  eg_statefacts_close(lx);
  /* the extractor: the car sold in a list is no car driven now */
  static const expect y[] = {
      {"We sold the house, the Golf and both bikes before moving.", EG_STATE_UNCERTAIN, "DRIVES"},
      {"I gave up the violin, the cello and the piano are my thing now.", "PLAYS", "piano"},
      {"I sold the Golf, I drive the Tesla and the Vespa now.", "DRIVES", "Tesla"},
  };
  check_all(y, sizeof y / sizeof *y);
}

/* A word on a state other than a value: a word the question's kind is asked by, a change or
 * an end, foods of a diet; small talk is none. */
static void test_on_state(void) {
  eg_statefacts *lx = open_lexical();
  EG_REQUIRE(lx != NULL);
  unsigned place = eg_statefacts_asked(lx, "Where do I live these days?");
  unsigned org = eg_statefacts_asked(lx, "Which company do I work for?");
  unsigned diet = eg_statefacts_asked(lx, "What diet do I follow?");
  const struct {
    const char *text;
    unsigned types;
    bool on;
  } x[] = {
      {"I live somewhere new now; the old flat is history.", place, true},
      {"Handed in my notice this morning!", org, true},
      {"Me and Sam split up last week.", place | org | diet, true},
      {"No more eggs, no more dairy for me.", diet, true},
      {"No more eggs, no more dairy for me.", place, false},
      {"Washing up is my specialty.", place | org | diet, false},
      {"Where do I even start with all these boxes? Any tips?", place, false},
      {"Thanks, that was a really helpful answer!", place | org, false},
      /* an event told in the past may be a change in words no list has */
      {"I joined a bank last month.", org, true},
      {"Closed on the house yesterday, can't believe it's ours.", place, true},
      {"I'm unemployed now.", org, true},
  };
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) {
    bool on = eg_statefacts_on_state(lx, x[i].text, 0, 0, x[i].types);
    if (on != x[i].on) fprintf(stderr, "  \"%s\": on a state %d\n", x[i].text, on);
    EG_CHECK(on == x[i].on);
  }
  /* the speaker's own words only: the reply's are not theirs */
  const char *round = "user: Thanks!\nassistant: You live in a lovely city.";
  EG_CHECK(!eg_statefacts_on_state(lx, round, 6, 13, place));
  EG_CHECK(eg_statefacts_on_state(lx, round, 0, 0, place));
  eg_statefacts_close(lx);
}

static void test_bad_files(void) {
  eg_statefacts *x = NULL;
  eg_err e;
  eg_statefacts_opts o = {"/nonexistent/prototypes.txt", emb, NULL, 0, -1};
  EG_CHECK(eg_statefacts_open(&o, &x, &e) == EG_ENOTFOUND);
  EG_CHECK(x == NULL);
  char path[20];
  EG_REQUIRE(proto_path(path));
  refused(path, "@type place wordnet notawordatall", NULL);
  /* a verb sense WordNet does not have, named with its line */
  refused(path, "@ends wordnet discard#1 notawordatall#1", "notawordatall");
  refused(path, "@takes wordnet accept#2 notawordatall#1", "notawordatall");
  refused(path, "@takes accept#2", "@takes wordnet");
  refused(path, "@holds WORKS_AT", "@holds RELATION PREPOSITION");
  refused(path, "@within wordnet city#1 notawordatall#1", "notawordatall");
  refused(path, "@period time_period#1", "@period wordnet");
  refused(path, "@shorthand rn right now, gf", "@shorthand WORD WORDS");
  /* … and a noun sense for the firms' trades */
  refused(path, "@trade org act#2 notawordatall#1", "notawordatall");
  refused(path, "@unlike place natural_language#1", "@unlike TYPE");
  refused(path, "@unlike nosuchtype wordnet natural_language#1", "no known type");
  refused_at(path, "@type place words here\n@unlike place wordnet notawordatall#1", 2,
             "notawordatall");
  /* more roots than a line may hold is an error, not a line cut short */
  char many[1024] = "@ends wordnet";
  for (int i = 0; i < 65; i++) strcat(many, " discard#1");
  refused(path, many, "roots");
  /* a line longer than the reader's buffer is refused, not read as two lines */
  char longline[1100] = "@type car words";
  while (strlen(longline) < 1080) strcat(longline, " prius");
  refused(path, longline, "longer than");
  /* a gazetteer that is no catalogue is refused; one not installed only knows no towns */
  refused(path, "@type place gazetteer", "gazetteer PATH");
  char gaz[128];
  snprintf(gaz, sizeof gaz, "@type place gazetteer %s", path); /* this text file */
  refused(path, gaz, "catalogue");
  FILE *f = fopen(path, "w");
  EG_REQUIRE(f != NULL);
  fprintf(f, "@type place gazetteer /nonexistent/geonames.mo\n[LIVES_IN place]\nI live in X\n");
  fclose(f);
  eg_statefacts_opts no_towns = {path, emb, NULL, 0, -1};
  EG_CHECK(eg_statefacts_open(&no_towns, &x, &e) == EG_OK);
  eg_statefacts_close(x);
  unlink(path);
}

int main(void) {
  int rc = sf_check_open();
  if (rc) return rc < 0 ? 0 : rc;
  EG_RUN(test_each_relation_in_other_words);
  EG_RUN(test_tense_and_negation);
  EG_RUN(test_no_false_states);
  EG_RUN(test_openers_are_words);
  EG_RUN(test_endings_and_near_words);
  EG_RUN(test_typed_slots_and_valid_time);
  EG_RUN(test_rules_first_and_user_only);
  EG_RUN(test_tense_over_rules);
  EG_RUN(test_session_names);
  EG_RUN(test_places_within);
  EG_RUN(test_names_in_passing);
  EG_RUN(test_placed_nouns);
  EG_RUN(test_heads_and_proforms);
  EG_RUN(test_towns);
  EG_RUN(test_kinds_written_with_capitals);
  EG_RUN(test_chat_marks);
  EG_RUN(test_lexical_reading);
  EG_RUN(test_list_items);
  EG_RUN(test_on_state);
  EG_RUN(test_bad_files);
  sf_check_close();
  return eg_test_finish();
}
