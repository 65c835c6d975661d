/*
 * test_statefacts_whose.c — whose a value is and when it begins, in words written for this test
 * (none taken from a benchmark): a noun had only at a start ("my probation at X"), a person
 * named by a word that says only that ("a guy named X"), a value in someone else's relative
 * clause ("my sister who is gluten-free"), "new" and a kind word opening a sentence ("New car
 * is a X"), a lower-case name bound to its kind ("meet nala, our new kitten") and chat's
 * sounds that name nothing, a town's name beside "and I", a held value's name after another's
 * possessive, and the user's own stolen; a change from one value to another of its kind; a
 * name with its clitic "'s"; a pet minded for a while, a home growing up; a former value's word
 * in an apposition; a name its predicate gives to someone else or neighbours keep; a name opening
 * with a player's noun, a firm's name in lower case joined by "&" or after a verb of working;
 * what a clause says exists; the one of a value a clause opens with; a value only visited, said
 * after it; one kept for someone else; a typed word that is also a place's name, placed; a
 * town's name a person's by what it does; chat's shorthand; a name a passive gives with "he";
 * a partner named by a word; a make's name alone; a value named by "new" and its kind; a job
 * told by its role; an animal put down; a place the speaker is out of; a value told in the past
 * beside one said to be now; a firm named by a word WordNet gives a pet's kind and an individual;
 * "there" in a move's clause; "said goodbye to"; a first thing had by a value; an adjective
 * WordNet spells capitalised, and a firm's noun before a naming verb; a word given as a name; a
 * model's name in lower case after adjectives; a name after "in"; a place run on
 * before "the" and a kind word; a swap of one value for another; a
 * name a "he" is said to be a kind of; a label before a colon; a place in
 * lower case where only a name goes; a pet rehomed, a Land Rover; a
 * place where a thing had by another value is; the bare word "home"; someone else's change.
 *
 * Needs the USE-lite model (scripts/install-deps.sh) and WordNet; skips without the model.
 */
#include "lang/wordnet.h"
#include "tests/unit/statefacts_check.h"

/* A noun had only at a start placed at a value (probation, onboarding, induction) is a start,
 * news while another value is held, the speaker's when no one else's word owns it. */
static void test_begins_at(void) {
  static const eg_held halden = {"WORKS_AT", "Halden Foods", false};
  eg_enrich_ctx hctx = ctx;
  hctx.held = &halden, hctx.n_held = 1;
  static const expect x[] = {
      {"Just finished my probation at Corvex!", "WORKS_AT", "Corvex"},
      {"Passed probation at Tellura today.", "WORKS_AT", "Tellura"},
      {"Onboarding at Tellura is three days of compliance videos.", "WORKS_AT", "Tellura"},
      {"My sister's onboarding at Corvex was a mess.", NULL, NULL},
      {"Her probation at Corvex ends soon.", NULL, NULL},
      {"Tom passed probation at Corvex.", NULL, NULL},
  };
  check_in(&hctx, x, sizeof x / sizeof *x);
}

/* A person named by a word that says only that it is one ("a guy named X"), or a firm or a
 * place by its noun, is read as the name alone: the verb says the relation ("seeing a guy named X";
 * not "met a guy called X"). */
static void test_named_anyone(void) {
  static const expect x[] = {
      {"I've started seeing a guy named Marco.", "PARTNER_OF", "Marco"},
      {"I've been seeing someone called Marco.", "PARTNER_OF", "Marco"},
      {"I met a guy called Marco at the climbing wall.", NULL, NULL},
      {"My sister is seeing a guy named Marco.", NULL, NULL},
      {"I've been seeing a physio named Tom for my knee.", NULL, NULL},
      /* … and so a firm by its noun: "joined a company called X" is "joined X" */
      {"I joined a company called Brightwave last month.", "WORKS_AT", "Brightwave"},
      {"My sister works at a bank called Monzo.", NULL, NULL},
      {"We got a puppy called Rolo.", "HAS_PET", "Rolo"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A value in a relative clause tells of the one it follows ("my sister who is gluten-free"),
 * unless that is the speaker, a noun a copula says of the speaker, or the clause has closed. */
static void test_relative_clause(void) {
  static const expect x[] = {
      {"I cook for my sister who is gluten-free.", NULL, NULL},
      {"I'm dating someone who lives in Paris.", NULL, NULL},
      {"I live with my brother who plays the drums.", NULL, NULL},
      {"I'm the one who plays the cello in our house.", "PLAYS", "cello"},
      {"I'm a nurse who lives in Leeds.", "LIVES_IN", "Leeds"},
      {"I gave Ziggy to my nephew, who adores him, and adopted a tortoise called Hazel.", "HAS_PET",
       "Hazel"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* "New" and a word for a thing one keeps opening a sentence, its article dropped or not, is the
 * speaker's newly got one ("New car is a X", "the new car's a X", "New job is at X"); not the
 * firm's office, nor a person. */
static void test_new_kind(void) {
  static const expect x[] = {
      {"New car is a Kia Niro.", "DRIVES", "Kia Niro"},
      {"The new car's a Kia Niro, electric at last.", "DRIVES", "Kia Niro"},
      {"New job is at Corvex.", "WORKS_AT", "Corvex"},
      {"New flat is in Sheffield.", "LIVES_IN", "Sheffield"},
      {"New pup is called Bean.", "HAS_PET", "Bean"},
      {"The new office is in Leeds.", NULL, NULL},
      {"The new manager is called Tom.", NULL, NULL},
      /* "first" said now: the speaker's first one ("first car is a X"), not one long gone */
      {"passed my test!! first car is a little Fiat 500", "DRIVES", "Fiat 500"},
      {"The first car was a Fiat 500.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A lower-case word no list knows, given as a name or bound to a kind word, names one of that
 * kind; chat's sounds (drawn out, laughter, interjections) name nothing. */
static void test_lower_case_bound(void) {
  static const expect x[] = {
      {"im seeing someone new, her name is zoe", "PARTNER_OF", "zoe"},
      {"meet nala, our new kitten", "HAS_PET", "nala"},
      {"soooo, our new kitten", NULL, NULL},
      {"hehe, my new pup.", NULL, NULL},
      {"lolol, my new pup.", NULL, NULL},
      {"heh, my new pup.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A place's name beside the speaker as a subject may be a person's: the words say which. */
static void test_place_name_with_me(void) {
  static const expect x[] = {
      {"Helena and I got engaged.", "PARTNER_OF", "Helena"},
      {"Florence and I have been together two years.", "PARTNER_OF", "Florence"},
      {"Austin and I are moving to Denver.", "LIVES_IN", "Denver"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A held value's name after someone else's possessive is another's thing of that name: no word
 * on the user's ("my neighbour's prius got stolen" while a prius is held). */
static void test_held_of_a_possessor(void) {
  static const eg_held prius = {"DRIVES", "prius", false}, biscuit = {"HAS_PET", "Biscuit", false};
  eg_enrich_ctx hctx = ctx;
  hctx.held = &prius, hctx.n_held = 1;
  static const expect x[] = {
      {"my neighbour's prius got its catalytic converter stolen last night!!", NULL, NULL},
      {"my prius got stolen last night", "STATE_UNCERTAIN", "DRIVES"}, /* the user's own */
  };
  check_in(&hctx, x, sizeof x / sizeof *x);
  hctx.held = &biscuit;
  static const expect y[] = {
      {"my friend's dog Biscuit died", NULL, NULL},
      {"Biscuit died", "STATE_UNCERTAIN", "HAS_PET"},
  };
  check_in(&hctx, y, sizeof y / sizeof *y);
}

/* A change from a value to another of its kind ends at the new one, whatever the verb; "married"
 * before a name is the verb, not WordNet's noun for a married person. */
static void test_changed_over(void) {
  static const eg_held piano = {"PLAYS", "piano", false}, google = {"WORKS_AT", "Google", false};
  eg_enrich_ctx hctx = ctx;
  hctx.held = &piano, hctx.n_held = 1;
  static const expect x[] = {
      {"I switched from piano to violin last year.", "PLAYS", "violin"},
      {"My sister switched from piano to violin.", NULL, NULL},
      {"The cello is my main instrument now.", "PLAYS", "cello"}, /* said outright */
      {"The flute is the main instrument in this piece.", NULL, NULL},
  };
  check_in(&hctx, x, sizeof x / sizeof *x);
  hctx.held = &google;
  static const expect y[] = {{"I moved from Google to Meta in March.", "WORKS_AT", "Meta"}};
  check_in(&hctx, y, sizeof y / sizeof *y);
  static const expect z[] = {{"I married Sam in June!", "PARTNER_OF", "Sam"}};
  check_all(z, sizeof z / sizeof *z);
}

/* A name with its clitic "'s" is the name: "York's been home" is York's, a town's. */
static void test_name_with_clitic(void) {
  static const eg_held leeds = {"LIVES_IN", "Leeds", false};
  eg_enrich_ctx hctx = ctx;
  hctx.held = &leeds, hctx.n_held = 1;
  static const expect x[] = {
      {"York's been home for three months now.", "LIVES_IN", "York"},
      {"London's rents are insane, we just moved here.", "LIVES_IN", "London"},
  };
  check_in(&hctx, x, sizeof x / sizeof *x);
}

/* A pet minded for a while (fostered, pet-sat) is no pet of the speaker's, though the state is
 * spoken of; one adopted after fostering is. A home rented out or hunted for is none; one
 * "growing up" or where a year was spent is a past one, as "grew up". */
static void test_minded_and_grown(void) {
  static const expect x[] = {
      {"I'm pet-sitting Biscuit the beagle this week.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"We dog-sat a spaniel named Coco over the weekend.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"We're dog sitting a puppy named Rocky this week.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"We adopted Max, the beagle we were fostering!", "HAS_PET", "Max"},
      {"I'm renting out my flat in Leeds.", NULL, NULL},
      {"We're house-hunting in Leeds.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      {"We're renting in Leeds now.", "LIVES_IN", "Leeds"},
      {"I spent a year in Leeds after uni.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      {"I've spent a year in Leeds now and love it.", "LIVES_IN", "Leeds"},
      {"Growing up in Leeds, I never thought I'd live by the sea.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      {"I grew up in Leeds.", EG_STATE_UNCERTAIN, "LIVES_IN"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A word of a former value in an apposition after a name says it is gone ("X, my late dog,"),
 * not "old" (an aged one may still be kept) nor "new"; "childhood" is such a word. */
static void test_former_in_apposition(void) {
  static const expect x[] = {
      {"Rufus, my late dog, loved this beach.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"Rufus, my previous dog, was a beagle.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"Simba, my childhood dog, passed when I was twelve.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"My childhood dog Rufus loved this beach.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"My childhood home in Derby is being sold.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      {"Rufus, our old beagle, loved this beach.", "HAS_PET", "Rufus"},
      {"Biscuit, our new puppy, chewed my shoe.", "HAS_PET", "Biscuit"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A name whose predicate gives it to someone else is theirs ("X the cat belongs to my
 * flatmate", "X is my sister's cat"); not one given to the speaker. */
static void test_given_to_another(void) {
  static const expect x[] = {
      {"Luna the cat belongs to my flatmate.", NULL, NULL},
      {"Luna the cat belongs to Sam.", NULL, NULL},
      {"Pip the hamster is my daughter's, really.", NULL, NULL},
      {"Benny the budgie was my grandma's pride and joy.", NULL, NULL},
      {"Mochi is my sister's cat.", NULL, NULL},
      {"Our cat Mochi belongs to the whole street, really.", "HAS_PET", "Mochi"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A name followed by where its neighbours keep it is theirs ("X the beagle from next door");
 * not the speaker's own kept next door. */
static void test_of_the_neighbours(void) {
  static const expect x[] = {
      {"Rex the beagle from next door howls all night.", NULL, NULL},
      {"Bolt the puppy next door barks all day.", NULL, NULL},
      {"Rex the beagle is next door at my mum's.", "HAS_PET", "Rex"},
      {"We adopted Teddy the cat from the shelter.", "HAS_PET", "Teddy"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A lower-case word after a verb of working and "at" is a firm's name, even a word of WordNet's
 * ("google", "apple", "shell"), but for a plain place, time or meal and adverbs. */
static void test_worked_at(void) {
  static const expect x[] = {
      {"i work at google now", "WORKS_AT", "google"},
      {"i work at apple", "WORKS_AT", "apple"},
      {"hired at shell last month", "WORKS_AT", "shell"},
      {"started at amazon last week", "WORKS_AT", "amazon"},
      {"i work at lunch sometimes", NULL, NULL},
      {"i work at home now", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"i work at least 50 hours", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"my mum works at tesco", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A clause that says something exists tells of it, not of the speaker's state; a place there
 * may still be where the speaker is. */
static void test_there_is(void) {
  static const expect x[] = {
      {"There's a job going at Corvex.", NULL, NULL},
      {"There's a kitten called Smudge at the rescue I keep thinking about.", EG_STATE_UNCERTAIN,
       "HAS_PET"},
      {"there's a guy at work called Tom who I fancy", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"there's so much snow in Oslo, love it here", "LIVES_IN", "Oslo"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A person the clause opens with, "the" and a noun for one "of" a value, is the one it tells
 * of ("the boss of X spoke …"), not the speaker ("I'm the boss of X"). */
static void test_the_one_of(void) {
  static const expect x[] = {
      {"The boss of Corvex spoke at the event.", NULL, NULL},
      {"The founder of Tellura lives in Leeds.", NULL, NULL},
      {"I'm the CEO of Corvex.", "WORKS_AT", "Corvex"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A relative clause of the speaker's right after a value that only visits it ("the X I test
 * drove", "the flat in X we viewed") holds no value; one that holds it does. */
static void test_visited_after(void) {
  static const expect x[] = {
      {"The Tesla I test drove was amazing.", EG_STATE_UNCERTAIN, "DRIVES"},
      {"The flat in Leeds we viewed was tiny.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      {"I viewed a house in Bath today, loved it.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      {"The Tesla I drive is amazing.", "DRIVES", "Tesla"},
      {"The flat in Leeds we live in is tiny.", "LIVES_IN", "Leeds"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A value kept for someone else by the words around it is theirs: a name after his or their kind
 * word, a thing got or given to a person named before it, a thing at a person's home. */
static void test_kept_for_another(void) {
  static const expect x[] = {
      {"I bought my son a violin for his birthday.", NULL, NULL},
      {"I got her a Fiat 500 for her birthday.", NULL, NULL},
      {"I bought my daughter a Honda Jazz.", NULL, NULL},
      {"The piano at my gran's is out of tune.", NULL, NULL},
      {"Had dinner with Tom and his wife Priya.", NULL, NULL},
      {"I bought myself a cello.", "PLAYS", "cello"},
      {"I love my dog Rex.", "HAS_PET", "Rex"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A word typed as a kind of thing that is also a place's name is the place where a word places
 * it ("berlin" is also a limousine). */
static void test_typed_word_placed(void) {
  static const expect x[] = {
      {"i live in berlin now", "LIVES_IN", "berlin"},
      {"i drive a berlin", "DRIVES", "berlin"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A name opening with a player's noun is a name ("Harper Foods": no harper), a player's noun
 * alone still a player said of the speaker. */
static void test_name_of_a_player(void) {
  static const expect x[] = {
      {"I work at Harper Foods.", "WORKS_AT", "Harper Foods"},
      {"I work at Harper & Sons.", "WORKS_AT", "Harper & Sons"},
      {"I'm a harper in a folk band.", "PLAYS", "harp"},
      {"We hired a pianist for the wedding.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A firm's name in lower case joined by an ampersand is one name, up to a word of function,
 * manner or time; so is a saint's title with the word after it. */
static void test_ampersand_name(void) {
  static const expect x[] = {
      {"I run the pastry side at bramble & co bakery and we need a vegan croissant.", "WORKS_AT",
       "bramble & co bakery"},
      {"i work at marks & spencer now", "WORKS_AT", "marks & spencer"},
      {"i got a job at johnson & johnson!", "WORKS_AT", "johnson & johnson"},
      /* … and a saint's title in lower case with the word after it ("st" alone is no name) */
      {"im a nurse at st james", "WORKS_AT", "st james"},
      {"i work at st marys hospital", "WORKS_AT", "st marys hospital"},
      {"fish & chips tonight", NULL, NULL},
      {"me & my bf are moving in together", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A town's name that does what a person does opening its clause (speaks, moves home) or has a
 * noun for a person in apposition is a person's; a town's still where it is one. */
static void test_persons_name(void) {
  static const expect x[] = {
      {"Sofia moved in with me last month.", NULL, NULL},
      {"Paris called me yesterday about the contract.", NULL, NULL},
      {"Austin texted me at 3am again.", NULL, NULL},
      {"Victoria, my flatmate, is moving out.", NULL, NULL},
      {"Sofia is amazing, I love living here.", "LIVES_IN", "Sofia"},
      {"We moved to Sofia last month.", "LIVES_IN", "Sofia"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* Chat's shorthand is read as the words it stands for: by the embedder (@shorthand: "yrs" as
 * "years", "havent" as "haven't") and, for units of time after a count, by the rules ("after 6
 * yrs at X i quit" is a stretch that ended). */
static void test_shorthand(void) {
  static const expect x[] = {
      {"havent played piano in yrs", EG_STATE_UNCERTAIN, "PLAYS"},
      {"after 6 yrs at barclays i finally quit", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"been pescatarian for 2 yrs now", "DIET", "pescatarian"},
      {"so me n Jess r official", "PARTNER_OF", "Jess"}, /* "n" and "r" as "and", "are" */
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A name given by a passive with "he" or "she" names what was last said of a kind ("We got a
 * puppy! He's called X") or a person ("seeing someone new, she is called X"), the speaker's
 * when the sentence that said it is. */
static void test_named_of_him(void) {
  static const expect x[] = {
      {"We got a puppy! He's called Bruno.", "HAS_PET", "Bruno"},
      {"we got a puppy!! hes called bruno", "HAS_PET", "bruno"},
      {"I'm seeing someone new, he's called Dev.", "PARTNER_OF", "Dev"},
      {"I'm seeing someone new. She is called Ana.", "PARTNER_OF", "Ana"},
      {"We adopted a kitten last week. She's called Pip and she's tiny.", "HAS_PET", "Pip"},
      {"My sister got a puppy, he's called Rex.", NULL, NULL},
      {"My boss is awful, he's called Dave.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A one-word name opening its sentence, set off, right after one ending in "someone" ("met
 * someone! X, he's …") says who that is (was nothing); not a place, nor after someone else's. */
static void test_someone_then_named(void) {
  static const expect x[] = {
      {"met someone! Callum, he's a paramedic so he works mad shifts", "PARTNER_OF", "Callum"},
      {"so I met someone... Dan. he's a teacher", "PARTNER_OF", "Dan"},
      {"I met someone new. Ines, she is lovely", "PARTNER_OF", "Ines"},
      {"my sister is seeing someone! Callum, he's a paramedic", NULL, NULL},
      {"I met someone. Leeds, of all places", NULL, NULL},
      {"I need to talk to someone. Maria, my boss, is awful", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* "we" after a name said to act on "us" is no pairing of the speaker with it ("X has been good
 * to us since we arrived" was PARTNER_OF X), nor after a thing's name ("I'm on the Stripe
 * payments team and we ship …" was PARTNER_OF Stripe); "no more X" says X is a former value ("I'm
 * freelance now, no more X" was WORKS_AT X, current). */
static void test_not_of_we(void) {
  static const expect x[] = {
      {"Exeter has been good to us since we arrived in June", NULL, NULL},
      {"Jake asked me out and we've been dating since", "PARTNER_OF", "Jake"},
      {"I'm freelance now, no more Accenture", EG_STATE_UNCERTAIN, "WORKS_AT"},
      {"no more London rent for us, we're in Margate now", "LIVES_IN", "Margate"},
      /* nor after a name after an article, a thing's ("the X payments team") */
      {"I'm on the Stripe payments team and we ship on thursdays", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A name said to be one of the speaker's people other than a partner is that person ("Tom is my
 * neighbour" was HAS_PET tom, "Deloitte is our biggest client" PARTNER_OF Deloitte); a value named
 * as what a topic is of is no one's ("learning about the history of the cello" was PLAYS). */
static void test_not_the_users(void) {
  static const expect x[] = {
      {"Tom is my neighbour", NULL, NULL},
      {"Tom is my best friend", NULL, NULL},
      {"Deloitte is our biggest client", NULL, NULL},
      {"Sarah is our new manager", NULL, NULL},
      {"Jake is my new boyfriend", "PARTNER_OF", "Jake"},
      {"Biscuit is my dog", "HAS_PET", "Biscuit"},
      {"Siemens is my employer now", "WORKS_AT", "Siemens"},
      {"I'm learning about the history of the cello for a essay", NULL, NULL},
      {"I'm worried about the state of my Golf", "DRIVES", "Golf"},
      /* where a thing had by another value is, is no home: "our office is in X" */
      {"our office is in Manchester but I work from home in Stockport", "LIVES_IN", "Stockport"},
      {"our office is in Manchester", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  /* a person's noun before the verb of moving is whose move it is ("I'm helping my brother move
   * to Leeds" was LIVES_IN Leeds: "my … move" read as the speaker's) */
  EG_CHECK(!says("I'm helping my brother move to Leeds this weekend", "LIVES_IN", NULL));
  EG_CHECK(says("our big move to Leeds went fine", "LIVES_IN", "Leeds"));
}

/* A lower-case word that WordNet also knows, right after a word for a partner, is the
 * partner's name when it is a noun only (not "my wife cooks", "my boyfriend jeans are …"). */
static void test_partner_named_by_a_word(void) {
  static const expect x[] = {
      {"my gf anna is coming to visit", "PARTNER_OF", "anna"},
      {"my hubby tom is the best", "PARTNER_OF", "tom"},
      {"my gf maria moved in last wk", "PARTNER_OF", "maria"},
      {"my wife cooks on sundays", NULL, NULL},
      {"my boyfriend jeans are too big", NULL, NULL},
      {"my husband home early today", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A noun for a person that is a verb too, after its subject, is the verb, and its object a
 * person ("I date X"; "my date X" names someone else). */
static void test_verb_that_is_a_person(void) {
  static const expect x[] = {
      {"now I date Felix", "PARTNER_OF", "Felix"},
      {"I date Felix, it's going well", "PARTNER_OF", "Felix"},
      {"I met my date Felix at the bar", NULL, NULL},
      {"my cousin Felix moved to Leeds", NULL, NULL},
      {"I model Gucci sometimes.", NULL, NULL},
      {"I date Tinder matches mostly.", NULL, NULL},
      {"I judge Emma's baking every week.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A day the date grammar reads is no one's name ("on Christmas Eve"), nor a letter alone
 * where no cue names it, nor a copula in capitals (chords: "C, Am, F and G"). */
static void test_day_and_letter_no_name(void) {
  static const expect x[] = {
      {"we got engaged on Christmas Eve", NULL, NULL},
      {"I got engaged to Kwame on New Year's Eve", "PARTNER_OF", "Kwame"},
      {"Kwame proposed on Christmas Eve!!! We've only been together a year", "PARTNER_OF", "Kwame"},
      {"I met Eve at the gym, we are dating now", "PARTNER_OF", "Eve"},
      {"I know C, Am, F and G. What songs can I play with just those four chords?", NULL, NULL},
      {"my boyfriend J is coming over", "PARTNER_OF", "J"},
      {"I'm dating J now.", "PARTNER_OF", "J"},
      {"Me and J have been together 3 years.", "PARTNER_OF", "J"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A place the speaker is visited at is where the speaker is, the visit dated as the visitor's;
 * a place gone to for a holiday is only visited; a job's routine at a firm is the speaker's
 * work there. */
static void test_visited_at_home(void) {
  static const expect x[] = {
      {"mom is coming to visit us in pune this weekend and i want to show off lol", "LIVES_IN",
       "pune"},
      {"my parents are visiting me in Leeds", "LIVES_IN", "Leeds"},
      {"we are visiting them in Leeds", NULL, NULL},
      {"i go back to Porto for christmas to see my parents, only ten days", NULL, NULL},
      {"I'm off to Porto for thanksgiving", NULL, NULL},
      {"our standup at Kestrel ran long again", "WORKS_AT", "Kestrel"},
  };
  check_all(x, sizeof x / sizeof *x);
  /* not a visit past, nor one while the speaker is away themselves */
  EG_CHECK(!says("My parents visited us in Cornwall last summer.", "LIVES_IN", NULL));
  EG_CHECK(
      !says("My friends came to visit us in Rome while we were on holiday.", "LIVES_IN", NULL));
  EG_CHECK(!says("My cousin is going to visit me in Prague on my work trip next week.", "LIVES_IN",
                 NULL));
  EG_CHECK(!says("I'm on holiday, my parents are visiting me in Crete", "LIVES_IN", NULL));
}

/* An inability to stop is no negation: "can't stop playing my new X" plays it. */
static void test_cannot_stop(void) {
  static const expect x[] = {
      {"can't stop playing my new mandolin", "PLAYS", "mandolin"},
      {"I couldn't stop playing the piano as a kid.", "STATE_UNCERTAIN", "PLAYS"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A make's name alone is a car or the firm, the words saying which, and "it" after it the car
 * ("the Tesla's been great but we're selling it" was a pet's). */
static void test_make_alone(void) {
  static const expect x[] = {
      {"the Tesla's been great but we're selling it", EG_STATE_UNCERTAIN, "DRIVES"},
      {"The Mazda's in the garage again.", "DRIVES", "Mazda"},
      {"I got a job at Volvo!", "WORKS_AT", "Volvo"},
      {"My Honda needs new tyres.", "DRIVES", "Honda"},
  };
  check_all(x, sizeof x / sizeof *x);
  /* … and so is a model spoken of as only one's own car is ([=DRIVES]) */
  static const expect own[] = {
      {"insurance on the Mini went up again", "DRIVES", "Mini"},
      {"the Corolla's been so reliable, 150k miles and counting", "DRIVES", "Corolla"},
  };
  check_all(own, sizeof own / sizeof *own);
}

/* "new" and a word asking for a state's kind right before a value name it ("new city (X)",
 * "New city: X"), the speaker's only. */
static void test_newly_named(void) {
  static const expect x[] = {
      {"Life update: new city (Bristol), new job (Ovo Energy), same old me.", "WORKS_AT",
       "Ovo Energy"},
      {"New city: Bristol.", "LIVES_IN", "Bristol"},
      {"new city (bristol) who dis", "LIVES_IN", "bristol"},
      {"my sister's new city (Bristol) is lovely", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(says("Life update: new city (Bristol), new job (Ovo Energy), same old me.", "LIVES_IN",
                "Bristol"));
}

/* A job told by its role at a firm: heading up a function, a new post, a contract. */
static void test_roles_at(void) {
  static const expect x[] = {
      {"I'm now heading up marketing at Brightwave.", "WORKS_AT", "Brightwave"},
      {"I'm the new office manager at Corvex.", "WORKS_AT", "Corvex"},
      {"My sister is heading up marketing at Brightwave.", NULL, NULL},
      /* a firm's word ending a name says a firm before a place's name in it ("Co", Colorado) */
      {"I work at Fenwick & Co.", "WORKS_AT", "Fenwick & Co"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* An animal put down is put to death (WordNet's put_down#6, named in @ends: not its first
 * senses, "put the phone down"). */
static void test_put_down(void) {
  static const expect x[] = {
      {"We had to put Bailey down.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"we had to put our old lab Bailey down last week", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"I put the phone down and cried.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A place the speaker is out of is left ("we're finally out of X", "got out of X"); a thing
 * run out of is no value ("I'm out of oat milk"). */
static void test_out_of(void) {
  static const expect x[] = {
      {"we're finally out of London! Brighton is so much calmer", EG_STATE_UNCERTAIN, "LIVES_IN"},
      {"Got out of Leeds at last.", EG_STATE_UNCERTAIN, "LIVES_IN"},
      {"I'm out of oat milk, what can I use instead?", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A value told in the past beside one read below the bar: the one that took its place. */
static void test_past_then_now(void) {
  static const expect x[] = {
      {"I used to work at Hartwell, now I'm at Microsoft.", "WORKS_AT", "Microsoft"},
      {"I used to work at Hartwell. Now I'm at Microsoft.", "WORKS_AT", "Microsoft"},
      {"I'm at Heathrow now, boarding soon.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  /* … said to be now: not a place gone to, nor the value told in the past named again */
  EG_CHECK(!says("We drove to Bath and had lunch there.", "LIVES_IN", NULL));
  EG_CHECK(!says("I lived in Madrid in 2015 and loved it there.", "LIVES_IN", NULL));
}

/* A firm named by a word that is a kind of pet and, in WordNet, an individual (the Amazon: a
 * parrot's kind and a river) is the firm where a firm's name goes. */
static void test_firm_named_as_a_word(void) {
  static const expect x[] = {
      {"I work at Amazon.", "WORKS_AT", "Amazon"},
      {"I got a job at Amazon.", "WORKS_AT", "Amazon"},
      {"I'm a software engineer at Amazon.", "WORKS_AT", "Amazon"},
      {"I'm getting used to Python after years of C.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* "there" stands for a place named before it in its own clause too, however that place was
 * named (visited, loved on a holiday, someone else's), as where a move of home goes; "here"
 * does not: it is where the speaker is now. */
static void test_there_in_the_clause(void) {
  static const expect x[] = {
      {"I visited Tallinn in 2019 and moved there a year later.", "LIVES_IN", "Tallinn"},
      {"We fell in love with Porto on holiday and ended up moving there last spring.", "LIVES_IN",
       "Porto"},
      {"My sister lives in Leeds and I visit her there every month.", NULL, NULL},
      {"We spent Christmas in Vienna and it snowed there every day.", NULL, NULL},
      {"Dad is in hospital in Bristol so I'm staying there for now.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(says("My girlfriend lives in Paris and I'm moving there in June.", "LIVES_IN", "Paris"));
  EG_CHECK(
      !says("Our son is at uni in Durham, we drive up there every few weeks.", "LIVES_IN", NULL));
}

/* A word of ending whose last word is the preposition before the value ("said goodbye to X")
 * ends it. */
static void test_goodbye_to(void) {
  static const expect x[] = {
      {"We said goodbye to our cat Smokey last week.", EG_STATE_UNCERTAIN, "HAS_PET"},
      {"We said goodbye to the Corolla.", EG_STATE_UNCERTAIN, "DRIVES"},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(says("Said goodbye to Leeds today, off to Bristol!", "LIVES_IN", "Leeds")); /* ended */
  /* the "to" closing the words of an end places no name: one no dictionary knows is no home
   * left (it was a doubt on the home) */
  static const expect unplaced[] = {
      {"we had to say goodbye to Pip yesterday, 14 good years", NULL, NULL},
      {"We said goodbye to Rufus yesterday. Fourteen years.", NULL, NULL},
  };
  check_all(unplaced, sizeof unplaced / sizeof *unplaced);
  /* "went our separate ways" ends a partner as "split up" does (was current) */
  static const expect ways[] = {
      {"Rob and I went our separate ways.", EG_STATE_UNCERTAIN, "PARTNER_OF"},
      {"Rob and I have decided to split up.", EG_STATE_UNCERTAIN, "PARTNER_OF"},
      {"After the party everyone went their separate ways.", NULL, NULL},
  };
  check_all(ways, sizeof ways / sizeof *ways);
}

/* A change told of someone of the speaker's, none of it theirs, is no word on the speaker's
 * states ("my parents split up" was a doubt on the speaker's partner); the speaker's partner's,
 * the speaker's own with them, and a kind's are. */
static void test_others_change(void) {
  static const expect x[] = {
      {"my parents split up last year", NULL, NULL},
      {"My sister quit her job.", NULL, NULL},
      {"my boyfriend and I broke up", EG_STATE_UNCERTAIN, "PARTNER_OF"},
      {"my sister and I moved out of the flat", EG_STATE_UNCERTAIN, "LIVES_IN"},
      {"my cat biscuit died last week", EG_STATE_UNCERTAIN, "HAS_PET"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A first stretch or thing had by holding a value, opening a sentence, is the speaker's: "First
 * paycheck from X came in", as "Onboarding at X is …" is. */
static void test_first_of_a_value(void) {
  static const expect x[] = {
      {"First paycheck from Canva came in today.", "WORKS_AT", "Canva"},
      {"First week at Monzo done, everyone's lovely.", "WORKS_AT", "Monzo"},
      {"Paycheck from Canva came in today.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* An adjective WordNet spells capitalised ("Dutch") before a common noun qualifies it, no name
 * ("a Dutch company called X" was WORKS_AT Dutch), unless it is a word of a type ("a
 * Mediterranean diet"); an institution's noun before a naming verb says the name is a firm's,
 * over any sense of a person's it has ("a company called Mollie"). */
static void test_proper_adjective(void) {
  eg_wordnet_words wn;
  eg_err e;
  EG_REQUIRE(eg_wordnet_words_load(NULL, &wn, &e) == EG_OK);
  const uint64_t *adj = wn.proper_adjectives;
  size_t n = wn.n_proper_adjectives;
  EG_CHECK(eg_wordnet_is_common(adj, n, "dutch") && eg_wordnet_is_common(adj, n, "victorian"));
  EG_CHECK(!eg_wordnet_is_common(adj, n, "red") && !eg_wordnet_is_common(adj, n, "leeds"));
  eg_wordnet_words_free(&wn);
  static const expect x[] = {
      {"I'm working from home for a Dutch company called Mollie.", "WORKS_AT", "Mollie"},
      {"I work for a company called Mollie.", "WORKS_AT", "Mollie"},
      {"We moved to Nice last week.", "LIVES_IN", "Nice"},
      {"I've switched from keto to a Mediterranean diet.", "DIET", "mediterranean"},
      /* … and alone it is no value ("in Dutch"), but beside the speaker a name ("Christian and
       * I") */
      {"How to say 'my dog is sick' in Dutch, for the vet around the corner.", NULL, NULL},
      {"Christian and I got engaged.", "PARTNER_OF", "Christian"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A name right after "in" (no cue before it, not opening the sentence) is read as a place where
 * it may be one: no partner "in X", nor a pet spoken of in passing ("the bins in Croydon"). A
 * stretch of time begun at a place WordNet or the gazetteer knows is a home's, not a job's
 * ("our first winter in Tromsø"); at a firm, a job's. */
static void test_in_a_place(void) {
  static const expect x[] = {
      {"Since the divorce I've been living with my sister in Derby.", "LIVES_IN", "Derby"},
      {"I live with my boyfriend in Kelso.", "LIVES_IN", "Kelso"},
      {"We moved into a two-bed in Hackney.", "LIVES_IN", "Hackney"},
      {"I'm in love with Tom.", "PARTNER_OF", "Tom"},
      {"it's our first winter in Tromsø, how do people cope with the dark?", "LIVES_IN", "Tromsø"},
      {"my first week in Deloitte was rough", "WORKS_AT", "Deloitte"},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(!says("Moved in with my boyfriend in Clapham.", "PARTNER_OF", NULL));
  EG_CHECK(!says("the bins in Croydon only get collected every two weeks", "HAS_PET", NULL));
}

/* A word given as a name is one, whatever word it is ("her name is pepper", "a cat named
 * biscuit"), but not an idiom of ending that reads so ("called it quits"). */
static void test_given_name(void) {
  static const expect x[] = {
      {"we got a puppy, her name is pepper", "HAS_PET", "pepper"},
      {"we got a cavapoo!! his name is teddy", "HAS_PET", "teddy"},
      {"we adopted a cat named biscuit", "HAS_PET", "biscuit"},
      {"Sam and I called it quits after four years.", EG_STATE_UNCERTAIN, "PARTNER_OF"},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(!says("Sam and I called it quits after four years.", "HAS_PET", NULL));
}

/* A model's name in lower case after a determiner and up to two adjectives ("a second-hand
 * yaris", "a little yaris"), when it is no word. */
static void test_model_after_adjectives(void) {
  static const expect x[] = {
      {"bought a second-hand yaris", "DRIVES", "yaris"},
      {"bought a little yaris", "DRIVES", "yaris"},
      {"we got a red mazda3", "DRIVES", "mazda3"},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(!says("my little golf lessons start next week", "DRIVES", NULL));
}

/* A place WordNet knows, after a word that places it, is no pet's name before "the" and a kind
 * word: a sentence run on ("moved to Rotterdam the cat is bored"), not "Sydney the cat". */
static void test_place_run_on(void) {
  static const expect x[] = {
      {"Since we moved to Rotterdam the cat is bored.", "LIVES_IN", "Rotterdam"},
      {"Sydney the cat loves boxes.", "HAS_PET", "Sydney"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A change from a value to one of its kind, determiners aside ("from the Golf to a X") or by a
 * swap ("swapped the Fiesta for a X", "traded in the Golf for a X"); a name of no known type
 * is of the kind it changes from. */
static void test_swapped_for(void) {
  static const expect x[] = {
      {"We swapped the Fiesta for a Zoe last month.", "DRIVES", "Zoe"},
      {"Traded in the Golf for a Zoe.", "DRIVES", "Zoe"},
      {"We switched from the Golf to a Zoe.", "DRIVES", "Zoe"},
      {"Swapped the sax for a clarinet.", "PLAYS", "clarinet"},
      {"I swapped my shift for a day off.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A name whose "he" or "she" is then said to be a kind ("X is settling in, he's a 12 week old
 * dachshund mix", "X hates the rain. She's a greyhound") is of that kind; one said to be a person's
 * noun is no value, nor one said to be a noun a kind word qualifies ("a labrador fan", "a dog
 * person"). */
static void test_said_to_be(void) {
  static const expect x[] = {
      {"Nacho is settling in well, he's a 12 week old dachshund mix.", "HAS_PET", "Nacho"},
      {"Pepper's first night home went fine, she's a tiny terrier mix.", "HAS_PET", "Pepper"},
      {"Tom is lovely, he's a vet.", NULL, NULL},
      {"Jake came over, he's a labrador fan.", NULL, NULL},
      {"Took Biscuit to the park, he's a beagle puppy so he never stops sniffing.", "HAS_PET",
       "Biscuit"},
  };
  check_all(x, sizeof x / sizeof *x);
  /* … and so in the sentence after the name, of the nearest name before the pronoun with no
   * kind word nor person between them: a pet, no place or employer */
  static const expect next[] = {
      {"We finally brought Olive home! She is a tiny greyhound.", "HAS_PET", "Olive"},
      {"Bella hates the rain. She's a greyhound, so thin coat.", NULL, NULL},
      {"Ziggy is so lazy today. He is a ginger tabby, 4 years old.", NULL, NULL},
      {"my son Leo got a puppy, he's a spaniel.", NULL, NULL},
      /* no place a preposition governs, nor one a sentence opening with a word passes to */
      {"Took Max to Cornwall last weekend. He's a cocker spaniel so he loved the beach. We live "
       "in Cornwall now.",
       "LIVES_IN", "Cornwall"},
      {"I'm back in Leeds. Max hates the rain. He's a whippet.", "LIVES_IN", "Leeds"},
      /* no one said to be a word for a person too ("boxer"); a person governed is passed over */
      {"Met Daniel at the gym, we've been seeing each other since June. He's a boxer.",
       "PARTNER_OF", "Daniel"},
      {"Took Luna to the vet, she's a tabby.", "HAS_PET", "Luna"},
  };
  check_all(next, sizeof next / sizeof *next);
  /* the kind kept beside the name is the one that heads its phrase */
  EG_CHECK(says("Took Biscuit to the park, he's a beagle so he sniffs everything.", EG_KIND_OF,
                "beagle"));
  EG_CHECK(!says("Jake is our dog walker now.", EG_KIND_OF, "dog"));
  EG_CHECK(says("We adopted a kitten two weeks ago and named her Mochi.", EG_KIND_OF, "cat"));
}

/* A label opening its sentence before a colon (a word a question asks a type by) says the
 * type of the values after it, and that they are the speaker's: "Employer: X". */
static void test_labelled(void) {
  static const expect x[] = {
      {"Employer: Shopify (remote)", "WORKS_AT", "Shopify"},
      {"Pets: two cats, Miso and Tofu", "HAS_PET", "Tofu"},
      {"diet:plant-based", "DIET", "plant-based"},
      {"Todo: email Shopify about the invoice.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A lower-case name where only a name goes that WordNet knows as a place is that place ("we're
 * leaving london for good"), no name of any type. */
static void test_lower_case_place_left(void) {
  EG_CHECK(
      says("we're leaving london for good next month, moving to lisbon", "LIVES_IN", "london"));
  static const expect x[] = {
      {"we left leeds for good in june, brighton is amazing", "LIVES_IN", "brighton"},
      {"leaving lisbon on the 30th", EG_STATE_UNCERTAIN, "LIVES_IN"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A pet rehomed is gone, whatever form of the verb ("had to rehome our cat X"); one that might
 * be is still the user's. Land Rover's models are cars ("a Land Rover Defender"). */
static void test_rehome_and_land_rover(void) {
  static const expect x[] = {
      {"We had to rehome our cat Pickle because of the baby's allergies.", EG_STATE_UNCERTAIN,
       "HAS_PET"},
      {"We might rehome our cat Pickle.", "HAS_PET", "Pickle"},
      {"I drive a Land Rover Defender now.", "DRIVES", "Land Rover Defender"},
      {"My Defender needs new tyres.", "DRIVES", "Defender"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A place right after a thing had by holding a value of a relation that takes no place is
 * where that thing is, no home ("the Amazon office in X", "my job in X"; not "my landlord in
 * X"), nor the town a home told beside it is in. */
static void test_held_thing_in(void) {
  static const expect x[] = {
      {"My commute to the Amazon office in Dublin takes an hour now that we live in Bray.",
       "LIVES_IN", "Bray"},
      {"My job in London is stressful.", NULL, NULL},
      {"My office in Leeds is lovely.", NULL, NULL},
      {"My landlord in Leeds is useless.", "LIVES_IN", "Leeds"},
      {"signed a lease on a flat in Kilimani, the Nairobi traffic is mad", "LIVES_IN", "Nairobi"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* The bare word "home" opening a sentence, words of time only before its copula, is the
 * speaker's home ("Home these days is a studio in X", "home is now X"); not a compound ("Home
 * office is in X") nor a home told in the past ("Home was X until last year"). */
static void test_bare_home(void) {
  static const expect x[] = {
      {"Home these days is a tiny studio in Tokyo.", "LIVES_IN", "Tokyo"},
      {"home is now Bristol", "LIVES_IN", "Bristol"},
      {"Home for the time being is my sister's sofa in Derby.", "LIVES_IN", "Derby"},
      {"Home office is in Leeds.", NULL, NULL},
      {"Home was Leeds until last year.", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* An exam, an audition or a recital on an instrument is its player's; one listened to is not. */
static void test_players_events(void) {
  static const expect x[] = {
      {"grade 5 clarinet exam in november. scales are fine", "PLAYS", "clarinet"},
      {"first harp recital in 2 weeks, help me pick a piece", "PLAYS", "harp"},
      {"we went to a cello recital last night, it was stunning", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* An acronym WordNet gives beside the words for a person it stands for is that word, no name:
 * "our CEO at X" is the speaker's employer's, no pet named CEO that resigned. */
static void test_acronym_of_a_person(void) {
  static const expect x[] = {
      {"our CEO at Kestrel Labs just resigned", "WORKS_AT", "Kestrel Labs"},
      {"my GP says I should cut down on salt", NULL, NULL},
      {"my girlfriend JO is moving in with me", "PARTNER_OF", "JO"},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(!says("our CEO at Kestrel Labs just resigned", "HAS_PET", NULL));
}

/* Contracting or freelancing for a firm is working for it; volunteering is not. */
static void test_contract_and_volunteer(void) {
  static const expect x[] = {
      {"I'm contracting for Barclays at the moment", "WORKS_AT", "Barclays"},
      {"I do freelance work for Penguin", "WORKS_AT", "Penguin"},
      {"I volunteer at Oxfam on Saturdays", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A proposal between the speaker and a name makes that one the partner; someone else's does not. */
static void test_proposed(void) {
  static const expect x[] = {
      {"I proposed to Sophie on the beach!", "PARTNER_OF", "Sophie"},
      {"Jake proposed to me in Paris!!", "PARTNER_OF", "Jake"},
      {"my brother proposed to Sophie on the beach", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* Chat's words for a wife, a husband or a boyfriend before a name are cues of a partner. */
static void test_partner_slang(void) {
  static const expect x[] = {
      {"my missus Jen says hi", "PARTNER_OF", "Jen"},
      {"me and my fella Gaz are thinking of buying a house", "PARTNER_OF", "Gaz"},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A name that speaks or holds a view is a person's, no pet's; a preposition's object is not
 * the one who speaks ("my boss at X says …"). */
static void test_who_thinks(void) {
  static const expect x[] = {
      {"My boss at Lindqvist says maybe we get parking", "WORKS_AT", "Lindqvist"},
  };
  check_all(x, sizeof x / sizeof *x);
  EG_CHECK(!says("my other half Priya thinks we should get a dog", "HAS_PET", NULL));
  EG_CHECK(!says("Priya thinks we should get a dog", "HAS_PET", NULL));
}

/* A partner's cue word names the one set off after how long it has lasted. */
static void test_cue_of_a_length(void) {
  static const expect x[] = {
      {"my boyfriend of three years, Ollie, just got a job in Leeds", "PARTNER_OF", "Ollie"},
      {"my husband of 20 years, Dave, wants to retire early", "PARTNER_OF", "Dave"},
      {"my sister of 30 years, Jo, lives in Leeds", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* A word for people qualifying a kind word is no one else's subject: "my company car". */
static void test_qualified_kind(void) {
  static const expect x[] = {
      {"my company car is a BMW X3", "DRIVES", "BMW X3"},
      {"my family car is a BMW X3", "DRIVES", "BMW X3"},
      {"my sister's car is a BMW X3", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

/* "here" between a noun of the user's and the preposition placing it ("our landlord here in
 * X") places it where the speaker is: the noun still says the relation. */
static void test_held_here(void) {
  static const expect x[] = {
      {"our landlord here in Hackney wants to raise the rent again", "LIVES_IN", "Hackney"},
      {"my landlord here in Leeds won't fix the boiler", "LIVES_IN", "Leeds"},
      {"my colleagues here at Arup are lovely", "WORKS_AT", "Arup"},
      {"my sister's landlord here in Leeds is awful", NULL, NULL},
  };
  check_all(x, sizeof x / sizeof *x);
}

int main(void) {
  int rc = sf_check_open();
  if (rc) return rc < 0 ? 0 : rc;
  EG_RUN(test_begins_at);
  EG_RUN(test_named_anyone);
  EG_RUN(test_relative_clause);
  EG_RUN(test_new_kind);
  EG_RUN(test_lower_case_bound);
  EG_RUN(test_place_name_with_me);
  EG_RUN(test_held_of_a_possessor);
  EG_RUN(test_changed_over);
  EG_RUN(test_name_with_clitic);
  EG_RUN(test_minded_and_grown);
  EG_RUN(test_former_in_apposition);
  EG_RUN(test_given_to_another);
  EG_RUN(test_of_the_neighbours);
  EG_RUN(test_worked_at);
  EG_RUN(test_there_is);
  EG_RUN(test_the_one_of);
  EG_RUN(test_visited_after);
  EG_RUN(test_kept_for_another);
  EG_RUN(test_typed_word_placed);
  EG_RUN(test_name_of_a_player);
  EG_RUN(test_ampersand_name);
  EG_RUN(test_persons_name);
  EG_RUN(test_shorthand);
  EG_RUN(test_named_of_him);
  EG_RUN(test_someone_then_named);
  EG_RUN(test_players_events);
  EG_RUN(test_acronym_of_a_person);
  EG_RUN(test_contract_and_volunteer);
  EG_RUN(test_proposed);
  EG_RUN(test_partner_slang);
  EG_RUN(test_who_thinks);
  EG_RUN(test_cue_of_a_length);
  EG_RUN(test_qualified_kind);
  EG_RUN(test_held_here);
  EG_RUN(test_not_of_we);
  EG_RUN(test_not_the_users);
  EG_RUN(test_partner_named_by_a_word);
  EG_RUN(test_verb_that_is_a_person);
  EG_RUN(test_day_and_letter_no_name);
  EG_RUN(test_visited_at_home);
  EG_RUN(test_cannot_stop);
  EG_RUN(test_make_alone);
  EG_RUN(test_newly_named);
  EG_RUN(test_roles_at);
  EG_RUN(test_put_down);
  EG_RUN(test_out_of);
  EG_RUN(test_past_then_now);
  EG_RUN(test_firm_named_as_a_word);
  EG_RUN(test_there_in_the_clause);
  EG_RUN(test_goodbye_to);
  EG_RUN(test_first_of_a_value);
  EG_RUN(test_proper_adjective);
  EG_RUN(test_given_name);
  EG_RUN(test_model_after_adjectives);
  EG_RUN(test_in_a_place);
  EG_RUN(test_place_run_on);
  EG_RUN(test_swapped_for);
  EG_RUN(test_said_to_be);
  EG_RUN(test_labelled);
  EG_RUN(test_lower_case_place_left);
  EG_RUN(test_rehome_and_land_rover);
  EG_RUN(test_held_thing_in);
  EG_RUN(test_bare_home);
  EG_RUN(test_others_change);
  sf_check_close();
  return eg_test_finish();
}
