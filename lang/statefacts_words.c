/*
 * statefacts_words.c — the prototype extractor's words: a message cut into lower-case words
 * with their capitals, sentence openings and the commas, dashes and stops that bound its
 * clauses; and the word lists both readings (a statement's, a question's) look words up in.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lang/statefacts_int.h"
#include "lang/wordnet.h"

static bool is_apostrophe(const char *p) {
  return *p == '\'' || ((unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x80 &&
                        (unsigned char)p[2] == 0x99);
}

/* An en or em dash: "Boxes unpacked — we live in X now" (bounds a sub-clause, like a comma). */
static bool is_dash(const char *p) {
  return (unsigned char)p[0] == 0xE2 && (unsigned char)p[1] == 0x80 &&
         ((unsigned char)p[2] == 0x93 || (unsigned char)p[2] == 0x94);
}

/* Does the sentence of the words t[from, n) assert in the form of a question ("Can you believe
 * I'm a X driver now?", "guess what, we moved to X?")? Its first three words hold the form. */
static bool rhetorical(const token *t, size_t from, size_t n) {
  static const char *const forms[][3] = {{"can", "you", "believe"},   {"could", "you", "believe"},
                                         {"would", "you", "believe"}, {"can", "u", "believe"},
                                         {"guess", "what", NULL},     {"you", "know", "what"}};
  for (size_t i = from; i < n && i < from + 3; i++)
    for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
      size_t k = 0;
      while (k < 3 && forms[f][k] && i + k < n && !strcmp(t[i + k].w, forms[f][k])) k++;
      if (k == 3 || !forms[f][k]) return true;
    }
  return false;
}

/* A pictograph (U+1F000–U+1FAFF, U+2600–U+27BF, with the joiner and the variation selector
 * that follow one in a sequence); its length in bytes, or 0. */
static size_t pictograph(const char *p) {
  const unsigned char *u = (const unsigned char *)p;
  if (u[0] == 0xF0 && u[1] == 0x9F && u[2] && u[3]) return 4;
  if (u[0] == 0xE2 && u[1] >= 0x98 && u[1] <= 0x9E && u[2]) return 3;
  if ((u[0] == 0xEF && u[1] == 0xB8 && u[2] == 0x8F) ||
      (u[0] == 0xE2 && u[1] == 0x80 && u[2] == 0x8D))
    return 3;
  return 0;
}

/* The length of an arrow at p, chat's "to" ("osaka -> vancouver", "Leeds → Bristol"): "->",
 * "-->", "=>", U+2192 or U+27F6 (and a variation selector after it); 0 for none. */
static size_t arrow(const char *p) {
  const unsigned char *u = (const unsigned char *)p;
  size_t n = 0;
  if (u[0] == '-' && u[1] == '>')
    n = 2;
  else if (u[0] == '-' && u[1] == '-' && u[2] == '>')
    n = 3;
  else if (u[0] == '=' && u[1] == '>')
    n = 2;
  else if (u[0] == 0xE2 && ((u[1] == 0x86 && u[2] == 0x92) || (u[1] == 0x9F && u[2] == 0xB6)))
    n = 3;
  if (n && u[n] == 0xEF && u[n + 1] == 0xB8 && u[n + 2] == 0x8F) n += 3; /* U+FE0F */
  return n;
}

/* s with chat's marks as the words they stand for, in place: a pictograph as a comma between
 * words ("I've been seeing someone <pictograph> his name is X" reads as "someone, his name"),
 * nothing after a mark or at the end; an arrow as "to" where the word fits ("osaka ->
 * vancouver"). Kept, they pull a clause's vector away from the prototypes. */
char *eg_sf_plain_marks(char *s) {
  char *d = s;
  for (const char *p = s; p && *p;) {
    size_t n = pictograph(p), to = arrow(p);
    if (to) {
      bool before = d > s && isalnum((unsigned char)d[-1]), after = isalnum((unsigned char)p[to]);
      if ((size_t)(2 + before + after) <= to) {
        if (before) *d++ = ' ';
        *d++ = 't', *d++ = 'o'; /* d stays at or before p: written bytes are read ones */
        if (after) *d++ = ' ';
        p += to;
        continue;
      }
    }
    if (!n) {
      *d++ = *p++;
      continue;
    }
    while (pictograph(p)) p += pictograph(p); /* a sequence is one mark */
    while (d > s && d[-1] == ' ') d--;
    while (*p == ' ') p++;
    if (d > s && isalnum((unsigned char)d[-1]) && isalnum((unsigned char)*p)) *d++ = ',';
    if (d > s && *p) *d++ = ' ';
  }
  if (d) *d = '\0';
  return s;
}

/* Is the character at p part of a word? */
static bool word_char(const char *p) {
  unsigned char c = (unsigned char)*p;
  return isalnum(c) || (c >= 0x80 && !is_apostrophe(p) && !is_dash(p) && !pictograph(p));
}

char *eg_sf_unshorten(const eg_statefacts *sf, eg_arena *a, char *s) {
  if (!s || !sf->shorthand_max) return s;
  size_t n = strlen(s), o = 0, cap = 0;
  char *d = NULL; /* the copy, made at the first word spelled out */
  for (size_t p = 0, e; p < n; p = e) {
    for (e = p; e < n && word_char(s + e);) e++;
    const char *x = NULL;
    char w[16];
    if (e == p) {
      e++;                                                  /* a byte of no word */
    } else if (e - p < sizeof w && !is_apostrophe(s + e)) { /* not "u's", "im'" */
      for (size_t i = p; i < e; i++) w[i - p] = (char)tolower((unsigned char)s[i]);
      x = eg_map_get(sf->shorthand, w, e - p);
    }
    if (x && !d) {
      cap = n + 1 + (n / 2 + 1) * sf->shorthand_max;
      if (!(d = eg_arena_alloc(a, cap))) return s;
      memcpy(d, s, p);
      o = p;
    }
    if (x) {
      o += (size_t)snprintf(d + o, cap - o, "%s", x);
    } else if (d) {
      memcpy(d + o, s + p, e - p);
      o += e - p;
    }
  }
  if (d) d[o] = '\0';
  return d ? d : s;
}

/* Does the text at p go on with "a" or "an" after its blanks? */
static bool article_next(const char *p) {
  while (*p == ' ') p++;
  size_t l = (p[0] == 'a' || p[0] == 'A') ? (p[1] == 'n' ? 2 : 1) : 0;
  return l && !isalnum((unsigned char)p[l]);
}

unsigned eg_sf_indefinite(const char *w) {
  static const char *const who[] = {"someone", "somebody"};
  if (eg_sf_in_list(w, who, 2)) return EG_SF_SOMEONE;
  return !strcmp(w, "somewhere") ? EG_SF_SOMEWHERE : 0;
}

/* chat's units of time as the words they stand for ("6 yrs at X" reads as "6 years at X"; the
 * value is read from the text, not from its words); a singular only after a count ("a yr"; not
 * "yr mum", "your"). */
static void unabbreviate(token *k, const token *prev) {
  static const char *const abbr[][2] = {{"yrs", "years"}, {"mths", "months"}, {"wks", "weeks"},
                                        {"yr", "year"},   {"mth", "month"},   {"wk", "week"}};
  static const char *const one[] = {"a", "one", "1"};
  for (size_t i = 0; i < sizeof abbr / sizeof *abbr; i++)
    if (!strcmp(k->w, abbr[i][0]) && (i < 3 || (prev && eg_sf_in_list(prev->w, one, 3))))
      snprintf(k->w, sizeof k->w, "%s", abbr[i][1]);
}

size_t eg_sf_tokenize(const char *text, token *t, size_t max) {
  size_t n = 0, opening = 0; /* the first word of the sentence being read */
  bool start = true;
  for (size_t p = 0; text[p];) {
    unsigned char c = (unsigned char)text[p];
    size_t to = arrow(text + p);
    if (to && n < max) { /* a word of its own: "to" */
      t[n] = (token){.s = p, .e = p + to, .start = start, .w = "to"};
      if (start) opening = n;
      start = false;
      n++;
      p += to;
      continue;
    }
    if (!word_char(text + p)) {
      /* a clause is a sentence: appositions ("Bruno, our new beagle, …") stay with it;
       * commas only bound the reach of tense and negation markers */
      /* a colon after "someone" or "somewhere", or before "a" or "an" after words of the
       * speaker's, names who, where or which in the same sentence ("I've been seeing
       * someone: X", "we're going electric: a Hyundai Ioniq 5"; not a heading's: "Life
       * update: a year in X already"), and after "name", a form's field ("Name: X") */
      bool named = c == ':' && n &&
                   (eg_sf_indefinite(t[n - 1].w) || !strcmp(t[n - 1].w, "name") ||
                    (article_next(text + p + 1) && eg_sf_first_person(t, opening, n)));
      bool sentence = c == '.' || c == '!' || c == '?' || (c == ':' && !named) || c == '\n';
      bool clause = sentence || c == ';';
      if (clause && n) t[n - 1].cut = true;
      size_t pict = c >= 0x80 ? pictograph(text + p) : 0;
      if ((c == ',' || c == '(' || c == ')' || c == '"' || named || is_dash(text + p)) && n)
        t[n - 1].comma = true;
      if (pict && n) t[n - 1].pict = true;
      if (c == '&' && n) t[n - 1].amp = true;
      if (c == '?' && n && !rhetorical(t, opening, n)) t[n - 1].ask = true;
      if (sentence) start = true;
      p += pict ? pict : c >= 0x80 ? 3 : 1; /* ’, –, — are 3 bytes */
      continue;
    }
    if (n == max) break;
    token *k = &t[n];
    memset(k, 0, sizeof *k);
    k->s = p;
    k->cap = isupper(c);
    k->start = start;
    if (start) opening = n;
    start = false;
    size_t l = 0;
    while (text[p]) {
      unsigned char d = (unsigned char)text[p];
      if (is_apostrophe(text + p) && l && isalpha((unsigned char)text[p + (d == '\'' ? 1 : 3)])) {
        if (l < sizeof k->w - 1) k->w[l++] = '\'';
        p += d == '\'' ? 1 : 3;
        continue;
      }
      if (!(word_char(text + p) || (d == '-' && l && isalnum((unsigned char)text[p + 1]))) ||
          arrow(text + p))
        break;
      if (isdigit(d)) k->digit = true;
      if (l < sizeof k->w - 1) k->w[l++] = (char)tolower(d);
      p++;
    }
    k->w[l] = '\0';
    k->e = p;
    unabbreviate(k, n ? &t[n - 1] : NULL);
    /* "the neighbours' dog": the apostrophe after a plural is no quote's when a word follows */
    if (l > 1 && k->w[l - 1] == 's' && text[p] && is_apostrophe(text + p)) {
      size_t q = p + ((unsigned char)text[p] == '\'' ? 1 : 3);
      k->theirs = text[q] == ' ' && isalpha((unsigned char)text[q + 1]);
    }
    k->shout = k->cap && p - k->s > 1;
    for (size_t q = k->s; q < p && k->shout; q++) k->shout = !islower((unsigned char)text[q]);
    /* "but" opens a new clause: "I used to live in X but now I live in Y" */
    if (!strcmp(k->w, "but") && n) t[n - 1].cut = true;
    n++;
    /* "Lisbon-based": the name and the word that places it ("Lisbon based") */
    if (k->cap && l > 7 && p - k->s == l && !strcmp(k->w + l - 6, "-based") && n < max) {
      k->w[l - 6] = '\0';
      k->e = p - 6;
      k->shout = k->shout && l - 6 > 1;
      t[n++] = (token){.s = p - 5, .e = p, .w = "based"};
    }
  }
  if (n) t[n - 1].cut = true;
  return n;
}

bool eg_sf_fold(const char *w, char *out, size_t len) {
  /* U+00C0–U+00FF, then U+0100–U+017F: the letter without its accent */
  static const char latin1[] = "AAAAAAACEEEEIIIIDNOOOOOxOUUUUYTsaaaaaaaceeeeiiiidnooooo/ouuuuyty";
  static const char ext_a[] =
      "AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIiIiJjKkkLlLlLlL"
      "lLlNnNnNnnNnOoOoOoOoRrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzs";
  _Static_assert(sizeof latin1 == 65 && sizeof ext_a == 129, "a letter for every code point");
  size_t n = 0;
  bool folded = false;
  for (const unsigned char *p = (const unsigned char *)w; *p && n + 1 < len; p++) {
    char c = (char)*p;
    if ((p[0] == 0xC3 || p[0] == 0xC4 || p[0] == 0xC5) && p[1] >= 0x80 && p[1] <= 0xBF) {
      c = p[0] == 0xC3 ? latin1[p[1] - 0x80] : ext_a[(p[0] - 0xC4) * 64 + (p[1] - 0x80)];
      p++, folded = true;
    }
    out[n++] = (char)tolower((unsigned char)c);
  }
  out[n] = '\0';
  return folded;
}

size_t eg_sf_clause_end(const token *t, size_t nt, size_t from) {
  size_t to = from;
  while (to < nt && !t[to].cut) to++;
  return to < nt ? to + 1 : nt;
}

bool eg_sf_in_list(const char *w, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(w, list[i])) return true;
  return false;
}

bool eg_sf_word_in(const token *t, size_t from, size_t to, const char *w) {
  for (size_t i = from; i < to; i++)
    if (!strcmp(t[i].w, w)) return true;
  return false;
}

bool eg_sf_possessive(const char *w) {
  size_t l = strlen(w);
  return l > 2 && !strcmp(w + l - 2, "'s");
}

size_t eg_sf_unpossessed(const char *w, char *out, size_t n) {
  snprintf(out, n, "%s", w);
  size_t l = strlen(out);
  if (eg_sf_possessive(out)) out[l -= 2] = '\0';
  return l;
}

bool eg_sf_subject_pronoun(const char *w) {
  static const char *const subject[] = {"i", "i'm", "i've", "i'd", "i'll", "we", "we're", "we've"};
  return eg_sf_in_list(w, subject, sizeof subject / sizeof *subject);
}

bool eg_sf_first_person(const token *t, size_t from, size_t to) {
  /* chat drops the apostrophe: "im", "ive" (not "ill", "id": words of their own) */
  static const char *const fp[] = {"i",    "i'm",   "i've", "i'd",    "i'll", "im",    "ive",
                                   "me",   "my",    "mine", "myself", "we",   "we're", "we've",
                                   "we'd", "we'll", "our",  "ours",   "us"};
  for (size_t i = from; i < to; i++)
    if (eg_sf_in_list(t[i].w, fp, sizeof fp / sizeof *fp)) return true;
  return false;
}

/* The types common word w names, not one its first sense is unlike (@unlike: "bus", public
 * transport, is no car). */
static unsigned common_bits(const eg_statefacts *sf, const char *w) {
  return eg_sf_bits_of(sf->common, w) & ~eg_sf_bits_of(sf->unlike, w);
}

unsigned eg_sf_lookup_common(const eg_statefacts *sf, const char *w) {
  if (eg_sf_bits_of(sf->generic, w)) return 0;
  unsigned b = common_bits(sf, w);
  size_t l = strlen(w);
  if (!b && l > 3 && w[l - 1] == 's') { /* plurals: drums, bongos */
    char sing[32];
    snprintf(sing, sizeof sing, "%.*s", (int)(l - 1), w);
    if (!eg_sf_bits_of(sf->generic, sing)) b = common_bits(sf, sing);
    /* … but a diet's (the type foods tell, @describe) names people or food: "vegans",
     * "veggies" */
    if (sf->n_described) b &= ~sf->described[0].type;
  }
  return b;
}

/* Chat's sounds: a letter drawn out ("soooo", "yaaay": three in a row, which names seldom
 * have) or laughter ("hehe", "hahaha", "jajaja": a laughing syllable said again; "lolol"). */
static bool drawn_out(const char *w) {
  static const char *const laugh[] = {"ha", "he", "ja"};
  size_t l = strlen(w);
  for (size_t i = 2; i < l; i++)
    if (w[i] == w[i - 1] && w[i] == w[i - 2]) return true;
  size_t i = !strncmp(w, "lol", 3) ? 3 : 2, from = i; /* "lol" and "ol" again */
  const char *syl = i == 3 ? "ol" : w;
  if (l < 4 ||
      (i == 2 && !eg_sf_in_list((char[3]){w[0], w[1], 0}, laugh, sizeof laugh / sizeof *laugh)))
    return false;
  while (i + 1 < l && w[i] == syl[0] && w[i + 1] == syl[1]) i += 2;
  return i > from && (i == l || (i + 1 == l && w[i] == syl[0])); /* "hahah" */
}

bool eg_sf_interjection(const char *w) {
  static const char *const s[] = {"nope",   "yep",    "yeah", "yup",  "nah",      "wow",    "hmm",
                                  "ugh",    "haha",   "lol",  "omg",  "congrats", "cheers", "phew",
                                  "lmao",   "ohh",    "ooh",  "yay",  "heh",      "meh",    "aw",
                                  "aww",    "oops",   "whoa", "woah", "yikes",    "eek",    "welp",
                                  "hooray", "woohoo", "yass", "ew"};
  return eg_sf_in_list(w, s, sizeof s / sizeof *s) || drawn_out(w);
}

/* Capitalised words that do not start a name: sentence openers, pronouns, calendar words,
 * interjections ("Nope, not my problem anymore" names nothing). */
bool eg_sf_not_a_name(const char *w) {
  static const char *const s[] = {
      "i", "i'm", "i've", "i'd", "i'll", "the", "a", "an", "my", "we", "our", "it", "this", "that",
      "by", "so", "but", "and", "also", "hi", "hello", "hey", "thanks", "thank", "yes", "no", "ok",
      "okay", "oh", "well", "now", "today", "yesterday", "tomorrow", "can", "could", "what", "how",
      "why", "when", "where", "who", "which", "do", "does", "did", "is", "are", "am", "was", "were",
      "just", "last", "next", "please", "sure", "btw", "anyway", "since", "after", "before", "in",
      "on", "at", "for", "to", "of", "with", "from", "january", "february", "march", "april", "may",
      "june", "july", "august", "september", "october", "november", "december", "monday", "tuesday",
      "wednesday", "thursday", "friday", "saturday", "sunday", "mondays", "tuesdays", "wednesdays",
      "thursdays", "fridays", "saturdays", "sundays", "christmas", "easter", "mr", "mrs", "ms",
      "dr",
      /* pronouns are never names (WordNet lists no pronouns, so it cannot say so) */
      "he", "she", "they", "you", "his", "her", "hers", "their", "theirs", "them", "him", "me",
      "us", "its", "your", "yours", "mine", "ours", "someone", "everyone", "nobody", "there",
      "here",
      /* … nor are the indefinite ones and the quantifiers ("Nothing signed yet", "Any tips?") */
      "nothing", "something", "anything", "everything", "somebody", "anybody", "everybody",
      "anyone", "noone", "no-one", "none", "whatever", "whoever", "any", "some", "every", "each",
      "all", "both", "either", "neither",
      /* chat's contractions without the apostrophe and its abbreviations: no dictionary knows
       * them, and they are no names ("whats a good …", "idk") */
      "dont", "cant", "wont", "isnt", "arent", "wasnt", "werent", "doesnt", "didnt", "hasnt",
      "havent", "hadnt", "couldnt", "shouldnt", "wouldnt", "aint", "thats", "whats", "hows",
      "wheres", "whos", "theres", "heres", "youre", "theyre", "youve", "weve", "theyve", "youll",
      "theyll", "hes", "shes", "idk", "tbh", "tbf", "imo", "imho", "ngl", "rn", "lmao", "lmk",
      "fyi", "asap", "pls", "plz", "thx", "ty", "ur", "u", "ya", "yall", "gonna", "wanna", "gotta",
      "kinda", "sorta", "dunno", "tho", "thru", "cuz", "coz", "bc", "bday", "af", "irl", "jk",
      "smh", "afaik", "iirc", "hmu", "xoxo", "lotsa", "alot", "ps", "pps", "nb", "tl;dr", "tldr"};
  if (eg_sf_in_list(w, s, sizeof s / sizeof *s) || eg_sf_interjection(w)) return true;
  /* a pronoun's contraction ("we've", "they're", "it's", "you'd") is no name either, nor a
   * verb's negation ("Didn't make the orchestra", "Can't wait") */
  const char *ap = strchr(w, '\'');
  if (!ap || ap == w) return false;
  if (!strcmp(ap - 1, "n't")) return true;
  static const char *const tails[] = {"'s", "'ve", "'re", "'d", "'ll", "'m"};
  char base[32];
  snprintf(base, sizeof base, "%.*s", (int)(ap - w), w);
  return eg_sf_in_list(ap, tails, sizeof tails / sizeof *tails) &&
         eg_sf_in_list(base, s, sizeof s / sizeof *s);
}

bool eg_sf_number_word(const char *w) {
  static const char *const n[] = {"one",      "two",      "three",   "four",    "five",   "six",
                                  "seven",    "eight",    "nine",    "ten",     "eleven", "twelve",
                                  "thirteen", "fourteen", "fifteen", "sixteen", "twenty", "thirty",
                                  "forty",    "fifty",    "hundred", "dozen",   "couple", "few",
                                  "several",  "half"};
  return eg_sf_in_list(w, n, sizeof n / sizeof *n);
}

/* An article or a possessive before a noun ("a", "the", "my", "their"). */
bool eg_sf_determiner(const char *w) {
  static const char *const det[] = {"a", "an", "the", "my", "our", "his", "her", "their"};
  return eg_sf_in_list(w, det, sizeof det / sizeof *det);
}

bool eg_sf_ordinal(const char *w) {
  static const char *const ord[] = {"first", "second",  "third",  "fourth", "fifth",
                                    "sixth", "seventh", "eighth", "ninth",  "tenth"};
  static const char *const suffix[] = {"st", "nd", "rd", "th"};
  size_t d = strspn(w, "0123456789");
  return eg_sf_in_list(w, ord, sizeof ord / sizeof *ord) ||
         (d > 0 && d < 3 && eg_sf_in_list(w + d, suffix, sizeof suffix / sizeof *suffix));
}

bool eg_sf_copula(const char *w) {
  static const char *const is[] = {"is", "was", "'s"};
  return eg_sf_in_list(w, is, sizeof is / sizeof *is);
}

/* Words that start a new predicate: tense markers before them are not about a slot after
 * them ("I worked at X before joining Y"); for "ended" verbs the prepositions of a new goal
 * also count ("left Boston for Y", "moved from X to Y"). */
bool eg_sf_joint(const char *w, bool goal) {
  static const char *const j[] = {"and", "but",   "before", "after",    "then",  "since", "because",
                                  "so",  "while", "when",   "whenever", "until", "now"};
  static const char *const g[] = {"to", "into", "for"};
  return eg_sf_in_list(w, j, sizeof j / sizeof *j) ||
         (goal && eg_sf_in_list(w, g, sizeof g / sizeof *g));
}

/* Words of the closed classes, which WordNet (nouns, verbs, adjectives, adverbs) does not list:
 * a lower-case word it does not know is a name only when it is none of these ("if", "during",
 * "myself", "anything"); and the months' short forms. */
bool eg_sf_function_word(const char *w) {
  static const char *const s[] = {
      "about",    "above",     "across",     "against",    "along",      "among",
      "amongst",  "as",        "behind",     "below",      "beneath",    "beside",
      "besides",  "between",   "beyond",     "despite",    "during",     "except",
      "inside",   "into",      "like",       "of",         "off",        "onto",
      "out",      "over",      "past",       "per",        "through",    "throughout",
      "till",     "toward",    "towards",    "under",      "underneath", "unlike",
      "unto",     "upon",      "via",        "within",     "without",    "or",
      "nor",      "if",        "unless",     "whether",    "though",     "although",
      "whereas",  "whilst",    "than",       "once",       "lest",       "either",
      "neither",  "both",      "each",       "every",      "any",        "some",
      "such",     "these",     "those",      "whose",      "whom",       "whoever",
      "whatever", "whichever", "wherever",   "whenever",   "myself",     "yourself",
      "himself",  "herself",   "itself",     "ourselves",  "yourselves", "themselves",
      "anyone",   "anybody",   "anything",   "anywhere",   "anytime",    "anyhow",
      "anyways",  "everybody", "everything", "everywhere", "nothing",    "nowhere",
      "somebody", "something", "somewhere",  "sometime",   "someone",    "jan",
      "feb",      "mar",       "apr",        "jun",        "jul",        "aug",
      "sep",      "sept",      "oct",        "nov",        "dec",        "mon",
      "tue",      "tues",      "wed",        "thu",        "thur",       "thurs",
      "fri",      "sat",       "sun"};
  return eg_sf_in_list(w, s, sizeof s / sizeof *s);
}

/* Does "from" at t[f] complete the verb of a thing's predicate ("my fingers hurt from the X",
 * "the car smells from X")? What a subject other than the user does from X tells what X
 * causes, not a value the user left behind ("we moved from X", "moved from X" do). */
bool eg_sf_thing_from(const eg_statefacts *sf, const token *t, size_t from, size_t f) {
  if (strcmp(t[f].w, "from") != 0 || f == from) return false;
  size_t v = f - 1, q = v;
  if (!eg_wordnet_is_verb(&sf->wn.verbs, t[v].w)) return false;
  while (q > from && !t[q - 1].comma && !eg_sf_joint(t[q - 1].w, false)) q--;
  if (q == v || !eg_sf_determiner(t[q].w)) return false;
  for (size_t k = q; k < v; k++)
    if (eg_sf_subject_pronoun(t[k].w)) return false;
  return true;
}

/* Does the value at token ts (its determiners before it) follow "after" and a length of time
 * ("after two years in X", "after 6 years at X", "after five years X", "after a decade with
 * X", "after two years of being X", "after a year of living in X")? Whether that time is over
 * the caller tells by the rest of the sentence. */
bool eg_sf_after_duration(const token *t, size_t from, size_t ts) {
  static const char *const amount[] = {"a",      "an",     "one",    "two",    "three", "four",
                                       "five",   "six",    "seven",  "eight",  "nine",  "ten",
                                       "eleven", "twelve", "few",    "couple", "of",    "several",
                                       "many",   "nearly", "almost", "over",   "about", "half"};
  static const char *const unit[] = {"year", "years", "month",  "months",
                                     "week", "weeks", "decade", "decades"};
  static const char *const with[] = {"in", "at", "with", "of", "as", "on"};
  size_t k = ts;
  while (k > from && eg_sf_determiner(t[k - 1].w)) k--;
  if (k > from && eg_sf_in_list(t[k - 1].w, with, sizeof with / sizeof *with)) k--;
  /* "after being X", "after being in X", "after having been X" */
  if (k > from + 1 && !strcmp(t[k - 1].w, "being") && !strcmp(t[k - 2].w, "after")) return true;
  if (k > from + 2 && !strcmp(t[k - 1].w, "been") && !strcmp(t[k - 2].w, "having") &&
      !strcmp(t[k - 3].w, "after"))
    return true;
  size_t l = k > from ? strlen(t[k - 1].w) : 0;
  if (k > from + 1 && l > 4 && !strcmp(t[k - 1].w + l - 3, "ing") && !strcmp(t[k - 2].w, "of"))
    k -= 2; /* "of being", "of living in" */
  if (k == from || !eg_sf_in_list(t[k - 1].w, unit, sizeof unit / sizeof *unit)) return false;
  size_t a = --k;
  while (k > from &&
         (t[k - 1].digit || eg_sf_in_list(t[k - 1].w, amount, sizeof amount / sizeof *amount)))
    k--;
  return k < a && k > from && !strcmp(t[k - 1].w, "after");
}

void eg_sf_sub_clause(const token *t, size_t from, size_t to, size_t i, size_t *sf_, size_t *st_) {
  bool ask = t[to - 1].ask;
  size_t a = i, b = i;
  while (a > from && !t[a - 1].comma && !(ask && t[a - 1].pict)) a--;
  while (b + 1 < to && !t[b].comma && !(ask && t[b].pict)) b++;
  *sf_ = a;
  *st_ = b + 1;
}

/* Does a verb of the clause's own come at token i before b: an auxiliary or a verb in the past or
 * the third person ("Leila says", "X ate")? */
static bool verb_at(const eg_statefacts *sf, const token *t, size_t i, size_t b) {
  static const char *const aux[] = {"is",    "was",  "are",  "were",    "has",
                                    "had",   "have", "will", "would",   "can",
                                    "could", "does", "did",  "doesn't", "didn't"};
  return i < b && (eg_sf_in_list(t[i].w, aux, sizeof aux / sizeof *aux) ||
                   eg_wordnet_is_past(&sf->wn.verbs, t[i].w) ||
                   eg_wordnet_is_present3(&sf->wn.verbs, t[i].w));
}

size_t eg_sf_predicate_start(const eg_statefacts *sf, const token *t, size_t a, size_t b,
                             const slot *s, bool goal) {
  size_t bare = s->ts;
  while (bare > a && eg_sf_determiner(t[bare - 1].w)) bare--;
  bool object = bare > a + 1 && !strcmp(t[bare - 1].w, "and") && !verb_at(sf, t, s->te, b);
  for (size_t q = s->ts; q > a; q--)
    if (eg_sf_joint(t[q - 1].w, goal) && !(object && q == bare)) return q;
  return a;
}

bool eg_sf_ly_adverb(const eg_statefacts *sf, const char *w) {
  size_t l = strlen(w);
  return l > 4 && !strcmp(w + l - 2, "ly") &&
         eg_wordnet_is_common(sf->wn.common, sf->wn.n_common, w);
}

size_t eg_sf_past_adverbs(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  static const char *const when[] = {"just", "also", "already", "still", "now", "then", "so"};
  size_t i = from;
  while (i + 1 < to &&
         (eg_sf_ly_adverb(sf, t[i].w) || eg_sf_in_list(t[i].w, when, sizeof when / sizeof *when)))
    i++;
  return i;
}

bool eg_sf_opens_with_verb(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  return (t[from].start || (from && t[from - 1].pict)) && eg_sf_verb_first(sf, t, from, to);
}

bool eg_sf_verb_first(const eg_statefacts *sf, const token *t, size_t from, size_t to) {
  size_t i = eg_sf_past_adverbs(sf, t, from, to);
  if (i >= to) return false;
  if (eg_wordnet_is_ing(&sf->wn.verbs, t[i].w)) return true;
  /* a perfect whose subject chat dropped: "Haven't played X since uni", "Have been X for years" */
  static const char *const have[] = {"have", "haven't", "havent", "had", "hadn't", "hadnt"};
  if (i + 1 < to && eg_sf_in_list(t[i].w, have, sizeof have / sizeof *have) &&
      eg_wordnet_is_past(&sf->wn.verbs, t[i + 1].w))
    return true;
  if (!eg_wordnet_is_past(&sf->wn.verbs, t[i].w)) return false;
  /* "Jared moved …", "Emily got …": a verb after it makes the opener its subject; not after
   * "got", whose participle is a passive ("Got laid off from X", "Got married in May") */
  return !strcmp(t[i].w, "got") || !(i + 1 < to && eg_wordnet_is_past(&sf->wn.verbs, t[i + 1].w));
}

bool eg_sf_player_of_speaker(const eg_statefacts *sf, const token *t, size_t from, const slot *s) {
  static const char *const be[] = {"i'm", "im", "am", "been", "was", "be", "as"};
  static const char *const i[] = {"i", "i've", "ive"};
  static const char *const article[] = {"a", "an", "the"};
  size_t k = s->ts;
  /* no player's noun, or a name that opens with one ("Harper Foods") */
  if (s->proper || s->te != s->ts + 1 || !eg_sf_bits_of(sf->players, t[k].w)) return true;
  while (k > from && s->ts - k < 2 && !t[k - 1].comma && !eg_sf_in_list(t[k - 1].w, article, 3))
    k--; /* up to two words qualifying it: "a lapsed", "a jazz" */
  if (k < from + 2 || !eg_sf_in_list(t[k - 1].w, article, 3) || !eg_sf_in_list(t[k - 2].w, be, 7))
    return false;
  k--;
  const char *v = t[k - 1].w;
  if (!strcmp(v, "i'm") || !strcmp(v, "im")) return true;
  if (!strcmp(v, "as")) return k - 1 == from || t[k - 2].comma;
  /* "I am", "I was", "I've been", "I used to be" */
  size_t q = k - 1;
  while (q > from && !t[q - 1].comma && !eg_sf_in_list(t[q - 1].w, i, 3) && k - q < 4) q--;
  return q > from && eg_sf_in_list(t[q - 1].w, i, 3);
}

size_t eg_sf_where_clause(const token *t, size_t te, size_t to) {
  if (te + 1 >= to || strcmp(t[te].w, "where") != 0 || !eg_sf_subject_pronoun(t[te + 1].w))
    return 0;
  size_t e = te + 1;
  while (e < to && !t[e].comma && !eg_sf_joint(t[e].w, false)) e++;
  return e < to && t[e].comma ? e + 1 : e;
}

bool eg_sf_its_been(const token *t, size_t a, size_t b) {
  static const char *const it_is[] = {"it's", "its"}, *const has[] = {"has", "'s"};
  if (a + 1 < b && eg_sf_in_list(t[a].w, it_is, 2) && !strcmp(t[a + 1].w, "been")) return true;
  return a + 2 < b && !strcmp(t[a].w, "it") && eg_sf_in_list(t[a + 1].w, has, 2) &&
         !strcmp(t[a + 2].w, "been");
}
