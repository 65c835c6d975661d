/*
 * textfacts.h — `engram-bench textfacts`: knowledge updates told in chat, asked back.
 *
 * Each scenario of the set (format: ../shared/data/README.md, textfacts) is one user whose
 * sessions are ingested in date order with the server's defaults; each question is then
 * asked with Recall at its date (query_time = valid_at = `at`). Four rows, per attribute
 * and per query kind:
 *   right fact      the first fact about the attribute carries the expected value;
 *   wrong, as valid the first fact carries another value and is not flagged
 *                   POTENTIALLY_STALE (an agent would act on it);
 *   no fact         no fact about the attribute at all;
 *   right excerpt   the first excerpt naming one of the scenario's values names the
 *                   expected one (over all questions: none naming a value is a miss);
 * and the cost of doubt: right fact, flagged stale (the right value, POTENTIALLY_STALE).
 * A fact is "about the attribute" when its relation is one the attribute maps to
 * (city/residence → LIVES_IN, employer → WORKS_AT, …) or its object is one of the values.
 * --half even|odd runs every other scenario (0, 2, … or 1, 3, …): tune on one fixed half,
 * confirm on the other (kept as it was: published figures use it); --split tune|confirm
 * halves them by the hash of the scenario name instead (bench/split.h). --late asks every
 * question about a past time it names ("as_of", "… in May 2021?") the day after the
 * scenario's last session, as a user asks about 2019 years later: everything said since is
 * then within the Recall's bounds (an as_of question naming no time keeps its date).
 * argv[0] is "textfacts".
 */
#ifndef EG_BENCH_TEXTFACTS_H
#define EG_BENCH_TEXTFACTS_H

int eg_btextfacts_main(int argc, char **argv);

#endif
